"""Reads that moderation's views, consumers and template tags share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from accounts.selectors import closed_accounts
from game.models import Game
from game.selectors import recent_games
from moderation.models import (
    ChatMessage,
    ChatMute,
    ModerationAction,
    ModeratorWarning,
    Report,
    Standing,
)
from moderation.services import chat_muted_notice

#: How many of a game's latest chat messages a page shows.
CHAT_SHOWN = 100


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


def muted_by(user: object) -> set[int]:
    """The ids of the users whose chat ``user`` has chosen not to see."""
    return set(_muted_ids(user))


def _muted_ids(user: object) -> Iterable[int]:
    """:func:`muted_by` as a query, to read or to nest in another (nothing for an anonymous
    viewer)."""
    if not getattr(user, "is_authenticated", False):
        return ()
    return ChatMute.objects.filter(user=user).values_list("muted_id", flat=True)


@dataclass(frozen=True)
class Chat:
    """A game's chat as one viewer sees it."""

    game: Game
    #: The latest messages, without those of people the viewer muted.
    messages: list[ChatMessage]
    #: Whether the viewer is one of the two players (who write); spectators only read.
    writer: bool
    #: The viewer's opponent, whom they may mute; ``None`` for spectators.
    opponent: AbstractBaseUser | None
    opponent_muted: bool
    #: When a moderator's chat mute on the viewer ends, while one is in force.
    muted_until: datetime | None = None

    @property
    def muted_notice(self) -> str | None:
        """What the viewer is told while a moderator's chat mute on them is in force."""
        return chat_muted_notice(self.muted_until) if self.muted_until else None

    @property
    def open(self) -> bool:
        """Whether the game has a chat at all (:func:`has_chat`)."""
        return has_chat(self.game)


def has_chat(game: Game) -> bool:
    """Whether ``game`` has a chat at all: two people at the table."""
    return not game.against_computer and game.seat1_id is not None


def chat_for(game: Game, user: object) -> Chat:
    """The chat of ``game`` as ``user`` sees it."""
    viewer = user if user is not None else AnonymousUser()
    hidden = muted_by(viewer)
    seat = game.seat_of(viewer)
    opponent = None
    if seat is not None and not game.against_computer and game.seat1_id is not None:
        opponent = game.seat1 if seat == 0 else game.seat0
    standing = standing_of(viewer) if seat is not None else None
    muted_until = standing.chat_muted_until if standing is not None and standing.muted() else None
    return Chat(
        game=game,
        messages=_latest_lines(game, hidden),
        writer=seat is not None,
        opponent=opponent,
        opponent_muted=opponent is not None and opponent.pk in hidden,
        muted_until=muted_until,
    )


def chat_lines(game: Game, user: object) -> list[ChatMessage]:
    """The latest lines of ``game``'s chat that ``user`` sees, oldest first, in one query (the
    lines of people they muted left out in it)."""
    return _latest_lines(game, _muted_ids(user))


def _latest_lines(game: Game, hidden: Iterable[int]) -> list[ChatMessage]:
    """The latest :data:`CHAT_SHOWN` lines of ``game``'s chat, oldest first, without those of the
    authors in ``hidden`` (their ids, or a query of them) nor of closed accounts."""
    latest = (
        ChatMessage.objects.filter(game=game)
        .exclude(author_id__in=hidden)
        .exclude(author_id__in=closed_accounts())
        .select_related("author")
        .order_by("-created_at", "-pk")[:CHAT_SHOWN]
    )
    return list(reversed(latest))


def open_reports() -> QuerySet[Report]:
    """The moderation queue: open reports, oldest first."""
    return Report.objects.filter(status=Report.Status.OPEN).select_related(
        "reporter", "reported", "game"
    )


def recent_chat_of(user: object, limit: int = 20) -> QuerySet[ChatMessage]:
    """What ``user`` wrote lately, in any game, newest first."""
    return (
        ChatMessage.objects.filter(author=user)
        .select_related("game")
        .order_by("-created_at", "-pk")[:limit]
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

    @property
    def banned(self) -> bool:
        return self.standing is not None and self.standing.banned

    @property
    def muted_until(self) -> datetime | None:
        standing = self.standing
        return standing.chat_muted_until if standing is not None and standing.muted() else None


def user_file(user: AbstractBaseUser, *, games: int = 10, chat: int = 20) -> UserFile:
    return UserFile(
        user=user,
        standing=standing_of(user),
        games=list(recent_games(user, games)),
        chat=list(recent_chat_of(user, chat)),
        reports=list(
            Report.objects.filter(reported=user).select_related("reporter").order_by("-created_at")
        ),
        actions=list(moderation_log().filter(user=user)[:20]),
    )


def moderation_log() -> QuerySet[ModerationAction]:
    return ModerationAction.objects.select_related("moderator", "user", "game", "report")


def game_chat(game: Game) -> QuerySet[ChatMessage]:
    """A game's whole chat, for moderators (nothing hidden)."""
    return ChatMessage.objects.filter(game=game).select_related("author")


def pending_warnings(user: object) -> list[ModeratorWarning]:
    """Warnings ``user`` has not acknowledged yet."""
    if not getattr(user, "is_authenticated", False):
        return []
    return list(user.moderator_warnings.filter(seen_at__isnull=True))


def reports_about(game: Game) -> QuerySet[Report]:
    return Report.objects.filter(game=game).select_related("reporter", "reported")
