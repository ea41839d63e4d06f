"""Everything that changes moderation's stored state: the only writers (DESIGN.md).

Each moderator's action is one of the registry's (moderation.actions), bound to its service by
``@performs``, which checks the action's permission first; the service acts and writes one entry
of the moderation log with the action's code, in one transaction. A player's report checks the
player. A user's group is told after the commit when that user was banned (their open sockets
close).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from chat.services import chat_silence
from game.live import send_after_commit, user_group
from game.models import Game
from game.services import GameError
from game.services.moderators import game_abort_by_moderator, game_annul, games_forfeit_by_ban
from moderation.actions import (
    ABORT_GAME,
    ANNUL_GAME,
    BAN,
    DISMISS_REPORT,
    MUTE,
    RESOLVE_REPORT,
    UNBAN,
    WARN,
    Action,
    performs,
)
from moderation.groups import MODERATORS, ensure_moderators_group
from moderation.models import ModerationAction, ModeratorWarning, Report, Standing

#: The chat mutes a moderator may give.
MUTE_DURATIONS = (
    timedelta(minutes=15),
    timedelta(hours=1),
    timedelta(days=1),
    timedelta(days=7),
)


class ModerationError(Exception):
    """A request that cannot be carried out; the message is for the person who asked."""


def _reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise ModerationError(_("Give a reason: it goes into the moderation log."))
    return reason


def _check_target(moderator: object, user: object) -> None:
    if getattr(user, "pk", None) == getattr(moderator, "pk", None):
        raise ModerationError(_("Moderators cannot act on themselves."))
    if _is_moderator(user) and not getattr(moderator, "is_superuser", False):
        raise ModerationError(_("Only a superuser may act on another moderator."))


def _is_moderator(user: object) -> bool:
    return bool(
        getattr(user, "is_superuser", False) or user.groups.filter(name=MODERATORS).exists()
    )


def _log(
    moderator: object,
    action: Action,
    reason: str,
    *,
    user: object = None,
    game: Game | None = None,
    report: Report | None = None,
    until: datetime | None = None,
) -> ModerationAction:
    return ModerationAction.objects.create(
        moderator=moderator,
        kind=action.code,
        reason=reason,
        user=user,
        game=game,
        report=report,
        until=until,
    )


def _standing(user: object) -> Standing:
    standing, _created = Standing.objects.select_for_update().get_or_create(user=user)
    return standing


# --- Players ----------------------------------------------------------------------------------


@transaction.atomic
def report_create(
    *, reporter: object, reported: object, reason: str, text: str, game: Game | None = None
) -> Report:
    """A player reports another, perhaps about a game the reported player played in (the
    reporter may have played it or watched it)."""
    if getattr(reporter, "pk", None) == getattr(reported, "pk", None):
        raise ModerationError(_("You cannot report yourself."))
    if reason not in Report.Reason.values:
        raise ModerationError(_("Choose a reason: cheating, abuse or other."))
    text = text.strip()
    if not text:
        raise ModerationError(_("Say what happened: the moderators will read it."))
    if game is not None and getattr(reported, "pk", None) not in (game.seat0_id, game.seat1_id):
        raise ModerationError(_("That player did not play in this game."))
    if Report.objects.filter(
        reporter=reporter, reported=reported, status=Report.Status.OPEN
    ).exists():
        raise ModerationError(
            _("You have already reported %(name)s; the moderators will look at it.")
            % {"name": reported}
        )
    return Report.objects.create(
        reporter=reporter, reported=reported, reason=reason, text=text, game=game
    )


@transaction.atomic
def warning_acknowledge(*, user: object, warning_id: int) -> ModeratorWarning:
    warning = ModeratorWarning.objects.select_for_update().get(pk=warning_id, user=user)
    if warning.seen_at is None:
        warning.seen_at = timezone.now()
        warning.save(update_fields=["seen_at"])
    return warning


# --- Moderators -------------------------------------------------------------------------------


@performs(WARN)
@transaction.atomic
def moderation_warn(
    *, moderator: object, user: object, reason: str, report: Report | None = None
) -> ModerationAction:
    """Warn a user: the reason is shown to them on their next visit."""
    _check_target(moderator, user)
    action = _log(moderator, WARN, _reason(reason), user=user, report=report)
    ModeratorWarning.objects.create(user=user, action=action, text=action.reason)
    return action


@performs(MUTE)
@transaction.atomic
def moderation_mute(
    *,
    moderator: object,
    user: object,
    reason: str,
    duration: timedelta,
    report: Report | None = None,
) -> ModerationAction:
    """Refuse a user's chat messages for ``duration``."""
    _check_target(moderator, user)
    if duration not in MUTE_DURATIONS:
        raise ModerationError(_("Choose one of the offered durations."))
    until = timezone.now() + duration
    chat_silence(user=user, until=until)
    return _log(
        moderator,
        MUTE,
        _reason(reason),
        user=user,
        report=report,
        until=until,
    )


@performs(BAN)
@transaction.atomic
def moderation_ban(
    *, moderator: object, user: object, reason: str, report: Report | None = None
) -> ModerationAction:
    """Ban a user: they cannot log in, their seeks disappear, their games in play are lost, and
    their open sockets close."""
    _check_target(moderator, user)
    reason = _reason(reason)
    standing = _standing(user)
    if standing.banned:
        raise ModerationError(_("%(name)s is already banned.") % {"name": user})
    standing.banned_at = timezone.now()
    standing.save(update_fields=["banned_at"])
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    games_forfeit_by_ban(user=user)
    send_after_commit(user_group(user.pk), {"type": "user.banned"})
    return _log(moderator, BAN, reason, user=user, report=report)


@performs(UNBAN)
@transaction.atomic
def moderation_unban(
    *, moderator: object, user: object, reason: str, report: Report | None = None
) -> ModerationAction:
    """Lift a ban: the user may log in again (games lost by the ban stay lost)."""
    _check_target(moderator, user)
    reason = _reason(reason)
    standing = _standing(user)
    if not standing.banned:
        raise ModerationError(_("%(name)s is not banned.") % {"name": user})
    standing.banned_at = None
    standing.save(update_fields=["banned_at"])
    get_user_model().objects.filter(pk=user.pk).update(is_active=True)
    return _log(moderator, UNBAN, reason, user=user, report=report)


def _game_action(
    moderator: object,
    game_id: int,
    reason: str,
    report: Report | None,
    change: Callable[..., Game],
    action: Action,
) -> ModerationAction:
    reason = _reason(reason)
    try:
        game = change(game_id=game_id)
    except GameError as error:
        raise ModerationError(str(error)) from None
    return _log(moderator, action, reason, game=game, report=report)


@performs(ABORT_GAME)
@transaction.atomic
def moderation_abort_game(
    *, moderator: object, game_id: int, reason: str, report: Report | None = None
) -> ModerationAction:
    """Stop a seek or a game in play with no result."""
    return _game_action(moderator, game_id, reason, report, game_abort_by_moderator, ABORT_GAME)


@performs(ANNUL_GAME)
@transaction.atomic
def moderation_annul_game(
    *, moderator: object, game_id: int, reason: str, report: Report | None = None
) -> ModerationAction:
    """Annul a game: kept, but counted for nothing in the players' records."""
    return _game_action(moderator, game_id, reason, report, game_annul, ANNUL_GAME)


def _close_report(
    moderator: object, report_id: int, reason: str, status: str, action: Action
) -> ModerationAction:
    reason = _reason(reason)
    report = Report.objects.select_for_update().get(pk=report_id)
    if report.status != Report.Status.OPEN:
        raise ModerationError(_("This report has already been handled."))
    report.status = status
    report.handled_by = moderator
    report.handled_at = timezone.now()
    report.save(update_fields=["status", "handled_by", "handled_at"])
    return _log(moderator, action, reason, user=report.reported, game=report.game, report=report)


@performs(RESOLVE_REPORT)
@transaction.atomic
def report_resolve(*, moderator: object, report_id: int, reason: str) -> ModerationAction:
    """Close a report as acted upon."""
    return _close_report(moderator, report_id, reason, Report.Status.RESOLVED, RESOLVE_REPORT)


@performs(DISMISS_REPORT)
@transaction.atomic
def report_dismiss(*, moderator: object, report_id: int, reason: str) -> ModerationAction:
    """Close a report as unfounded."""
    return _close_report(moderator, report_id, reason, Report.Status.DISMISSED, DISMISS_REPORT)


@transaction.atomic
def moderator_grant(*, user: object) -> None:
    """Make ``user`` a moderator: the Moderators group, and staff status for the admin."""
    group = ensure_moderators_group()
    user.groups.add(group)
    get_user_model().objects.filter(pk=user.pk).update(is_staff=True)


@transaction.atomic
def moderator_revoke(*, user: object) -> None:
    """Take the Moderators group and staff status away (a superuser keeps their own powers)."""
    user.groups.remove(*Group.objects.filter(name=MODERATORS))
    if not getattr(user, "is_superuser", False):
        get_user_model().objects.filter(pk=user.pk).update(is_staff=False)
