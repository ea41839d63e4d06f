"""Moderators' actions, each declared once in :data:`ACTIONS`: the code the log stores, the
label it shows, the permission it needs, what it applies to, and how pages and the admin ask for
it.

Everything else follows from this registry: the log's choices and the moderators' permissions
(models.py, groups.py), the forms (a reason, and a duration for a mute), the buttons each page
offers and the view each one posts to, the admin's actions, and the log's filter. The service
that performs an action says so with ``@performs(ACTION)`` (services.py), which also checks the
action's permission; this module cannot name the services itself, as they import the models and
the models read this registry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from django.core.exceptions import ImproperlyConfigured, PermissionDenied
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from moderation.models import ModerationAction

Text = str | Promise


class On(StrEnum):
    """What an action applies to; also its URL's folder (``/moderation/users/...``) and the
    admin that offers it."""

    USER = "user"
    GAME = "game"
    REPORT = "report"


@dataclass(frozen=True, slots=True)
class Permission:
    """A permission of the moderation app (``moderation.<codename>``) that actions need."""

    codename: str
    description: Text


WARN_USER = Permission("warn_user", _("Can warn users"))
MUTE_USER = Permission("mute_user", _("Can mute users in chat"))
BAN_USER = Permission("ban_user", _("Can ban and unban users"))
MODERATE_GAME = Permission("moderate_game", _("Can abort and annul games"))
HANDLE_REPORT = Permission("handle_report", _("Can resolve and dismiss reports"))


def _always(target: Any) -> bool:
    return True


def _banned(user: Any) -> bool:
    standing = getattr(user, "standing", None)  # no Standing row: never banned
    return standing is not None and standing.banned


def _in_play(game: Any) -> bool:
    return game.status in (game.Status.SEEKING, game.Status.ACTIVE)


def _open(report: Any) -> bool:
    return report.status == report.Status.OPEN


# One object per action, compared by identity: a lazy label's hash would follow the language.
@dataclass(frozen=True, slots=True, eq=False)
class Action:
    """One moderator's action."""

    #: As stored in ``ModerationAction.kind``: never change one the log holds.
    code: str
    #: The log's word for it.
    label: Text
    on: On
    #: Its name in its URL (``/moderation/users/<username>/<name>/``), unique for its ``on``.
    name: str
    permission: Permission
    #: The prefix of the form it is asked on. Actions on the same target that share a form share
    #: its reason: one form, one button each (a report's Resolve and Dismiss).
    form: str
    #: The form's heading (shown once for the actions that share one), its button, and a note.
    heading: Text | None
    button: Text
    help: Text | None
    #: Said once done: ``%(name)s`` is the user acted on, ``%(pk)d`` the game.
    done: Text
    #: The admin's action, on the objects selected in its list.
    admin: Text
    #: Whether it asks for how long (a chat mute).
    duration: bool = False
    #: The button's look: ``danger`` or ``primary``.
    style: str = ""
    #: Whether it applies to this target as it stands now (no unban for a user not banned); the
    #: service refuses it anyway, politely: this only decides which buttons a page shows.
    offered: Callable[[Any], bool] = _always

    def __repr__(self) -> str:
        return f"<Action {self.code}>"

    @property
    def admin_name(self) -> str:
        """``ban_users``, ``abort_games``: the admin's name for it."""
        return f"{self.name}_{self.on}s"

    def allowed(self, user: Any) -> bool:
        return bool(
            getattr(user, "is_authenticated", False)
            and user.has_perm(f"moderation.{self.permission.codename}")
        )

    def require(self, user: Any) -> None:
        if not self.allowed(user):
            raise PermissionDenied(gettext("Only moderators may do that."))

    @property
    def service(self) -> Callable[..., ModerationAction]:
        try:
            return _SERVICES[self.code]
        except KeyError:
            raise ImproperlyConfigured(
                f"No service performs {self.code!r}: moderation.services binds them."
            ) from None

    def perform(
        self,
        *,
        moderator: Any,
        target: Any,
        reason: str,
        duration: Any = None,
        report: Any = None,
    ) -> ModerationAction:
        """Call the service with ``target`` as it takes it: a user, or a game's or report's id;
        the report it was taken from (for a user or a game) and a mute's duration."""
        arguments: dict[str, Any] = {"moderator": moderator, "reason": reason}
        if self.on is On.USER:
            arguments.update(user=target, report=report)
        elif self.on is On.GAME:
            arguments.update(game_id=target.pk, report=report)
        else:
            arguments.update(report_id=target.pk)
        if self.duration:
            arguments["duration"] = duration
        return self.service(**arguments)


WARN = Action(
    code="warn",
    label=_("warning"),
    on=On.USER,
    name="warn",
    permission=WARN_USER,
    form="warn",
    heading=_("Warn"),
    button=_("Warn"),
    help=None,
    done=_("%(name)s has been warned."),
    admin=_("Warn the selected users"),
)
MUTE = Action(
    code="mute",
    label=_("chat mute"),
    on=On.USER,
    name="mute",
    permission=MUTE_USER,
    form="mute",
    heading=_("Mute in chat"),
    button=_("Mute"),
    help=None,
    done=_("%(name)s is muted in chat."),
    admin=_("Mute the selected users in chat"),
    duration=True,
)
BAN = Action(
    code="ban",
    label=_("ban"),
    on=On.USER,
    name="ban",
    permission=BAN_USER,
    form="ban",
    heading=_("Ban"),
    button=_("Ban"),
    help=_("They cannot log in; their seeks disappear and their games in play are lost."),
    done=_("%(name)s is banned."),
    admin=_("Ban the selected users"),
    style="danger",
    offered=lambda user: not _banned(user),
)
UNBAN = Action(
    code="unban",
    label=_("unban"),
    on=On.USER,
    name="unban",
    permission=BAN_USER,
    form="ban",
    heading=_("Unban"),
    button=_("Unban"),
    help=None,
    done=_("%(name)s is no longer banned."),
    admin=_("Unban the selected users"),
    offered=_banned,
)
_GAME_HELP = _(
    "Abort: the game stops with no result. "
    "Annul: the game is kept but counts for nothing in the players' records."
)
ABORT_GAME = Action(
    code="abort_game",
    label=_("game aborted"),
    on=On.GAME,
    name="abort",
    permission=MODERATE_GAME,
    form="game",
    heading=None,
    button=_("Abort the game"),
    help=_GAME_HELP,
    done=_("Game %(pk)d has been aborted."),
    admin=_("Abort the selected games"),
    style="danger",
    offered=_in_play,
)
ANNUL_GAME = Action(
    code="annul_game",
    label=_("game annulled"),
    on=On.GAME,
    name="annul",
    permission=MODERATE_GAME,
    form="game",
    heading=None,
    button=_("Annul the game"),
    help=_GAME_HELP,
    done=_("Game %(pk)d has been annulled."),
    admin=_("Annul the selected games"),
    offered=lambda game: not game.annulled,
)
RESOLVE_REPORT = Action(
    code="resolve_report",
    label=_("report resolved"),
    on=On.REPORT,
    name="resolve",
    permission=HANDLE_REPORT,
    form="close",
    heading=_("Close the report"),
    button=_("Resolve"),
    help=None,
    done=_("The report is resolved."),
    admin=_("Resolve the selected reports"),
    style="primary",
    offered=_open,
)
DISMISS_REPORT = Action(
    code="dismiss_report",
    label=_("report dismissed"),
    on=On.REPORT,
    name="dismiss",
    permission=HANDLE_REPORT,
    form="close",
    heading=_("Close the report"),
    button=_("Dismiss"),
    help=None,
    done=_("The report is dismissed."),
    admin=_("Dismiss the selected reports"),
    offered=_open,
)

#: Every action, in the order pages, the admin and the log's filter list them.
ACTIONS: tuple[Action, ...] = (
    WARN,
    MUTE,
    BAN,
    UNBAN,
    ABORT_GAME,
    ANNUL_GAME,
    RESOLVE_REPORT,
    DISMISS_REPORT,
)

#: ``ModerationAction.kind``'s choices.
CHOICES: list[tuple[str, Text]] = [(action.code, action.label) for action in ACTIONS]

#: The permissions the actions need, each once, in the actions' order (``Meta.permissions``).
PERMISSIONS: tuple[Permission, ...] = tuple(dict.fromkeys(a.permission for a in ACTIONS))


def on(target: On) -> Iterator[Action]:
    """The actions on a kind of target, in the registry's order."""
    return (action for action in ACTIONS if action.on is target)


def find(target: On, name: str) -> Action | None:
    """The action called ``name`` in a URL about ``target``, if there is one."""
    return next((action for action in on(target) if action.name == name), None)


def by_code(code: str) -> Action | None:
    """The action a log entry records."""
    return next((action for action in ACTIONS if action.code == code), None)


_SERVICES: dict[str, Callable[..., ModerationAction]] = {}
S = TypeVar("S", bound=Callable[..., "ModerationAction"])


def performs(action: Action) -> Callable[[S], S]:
    """Bind the decorated service to ``action``: :meth:`Action.perform` calls it, and it checks
    that its ``moderator`` holds the action's permission before anything else."""

    def bind(service: S) -> S:
        @functools.wraps(service)
        def checked(*, moderator: Any, **arguments: Any) -> ModerationAction:
            action.require(moderator)
            return service(moderator=moderator, **arguments)

        if action.code in _SERVICES:
            raise ImproperlyConfigured(f"Two services perform {action.code!r}.")
        _SERVICES[action.code] = checked
        return checked  # type: ignore[return-value]

    return bind
