"""Reads that moderation's views and template tags share."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from chat.models import ChatMessage
from chat.selectors import recent_lines_of, silenced_until
from game.models import Game
from game.selectors import recent_games
from moderation.models import ModerationAction, ModeratorWarning, Report, Standing


def is_moderator(user: object) -> bool:
    """Whether ``user`` may open the moderation pages (the Moderators group, or a superuser)."""
    return bool(
        getattr(user, "is_authenticated", False) and user.has_perm("moderation.view_report")
    )


def standing_of(user: object) -> Standing | None:
    if not getattr(user, "pk", None):
        return None
    return Standing.objects.filter(user_id=user.pk).first()


def is_banned(user: object) -> bool:
    """Whether ``user``'s account is banned, read afresh: a socket's user may be stale."""
    if not getattr(user, "pk", None):
        return False
    return Standing.objects.filter(user_id=user.pk, banned_at__isnull=False).exists()


def open_reports() -> QuerySet[Report]:
    """The moderation queue: open reports, oldest first."""
    return Report.objects.filter(status=Report.Status.OPEN).select_related(
        "reporter", "reported", "game"
    )


@dataclass(frozen=True)
class UserFile:
    """What a moderator sees of a user: standing, games, chat, reports and past actions."""

    user: AbstractBaseUser
    standing: Standing | None
    games: list[Game]
    chat: list[ChatMessage]
    reports: list[Report]
    actions: list[ModerationAction]
    #: When a moderator's chat mute on the user ends, while one is in force.
    muted_until: datetime | None

    @property
    def banned(self) -> bool:
        return self.standing is not None and self.standing.banned


def user_file(user: AbstractBaseUser, *, games: int = 10, chat: int = 20) -> UserFile:
    return UserFile(
        user=user,
        standing=standing_of(user),
        games=list(recent_games(user, games)),
        chat=list(recent_lines_of(user, chat)),
        reports=list(
            Report.objects.filter(reported=user).select_related("reporter").order_by("-created_at")
        ),
        actions=list(moderation_log().filter(user=user)[:20]),
        muted_until=silenced_until(user),
    )


def moderation_log() -> QuerySet[ModerationAction]:
    return ModerationAction.objects.select_related("moderator", "user", "game", "report")


def pending_warnings(user: object) -> list[ModeratorWarning]:
    """Warnings ``user`` has not acknowledged yet."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(user.moderator_warnings.filter(seen_at__isnull=True))


def reports_about(game: Game) -> QuerySet[Report]:
    return Report.objects.filter(game=game).select_related("reporter", "reported")
