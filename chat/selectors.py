"""Reads of the chat that live play's pages and sockets, and moderation's, share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

from accounts.selectors import closed_accounts
from chat.models import ChatMessage, ChatMute, Silence
from chat.rooms import Room
from chat.services import muted_notice

#: How many of a game's latest chat messages a page shows.
CHAT_SHOWN = 100


def muted_by(user: object) -> set[int]:
    """The ids of the users whose chat ``user`` has chosen not to see."""
    return set(_muted_ids(user))


def has_muted(user: AbstractBaseUser, other: AbstractBaseUser) -> bool:
    """Whether ``user`` has muted ``other``: live play also refuses ``other``'s challenges."""
    return ChatMute.objects.filter(user_id=user.pk, muted_id=other.pk).exists()


def _muted_ids(user: object) -> Iterable[int]:
    """:func:`muted_by` as a query, to read or to nest in another (nothing for an anonymous
    viewer)."""
    if not getattr(user, "is_authenticated", False):
        return ()
    return ChatMute.objects.filter(user=user).values_list("muted_id", flat=True)


def silenced_until(user: object) -> datetime | None:
    """When a moderator's chat mute on ``user`` ends, while one is in force."""
    if not getattr(user, "pk", None):
        return None
    silence = Silence.objects.filter(user_id=user.pk, until__gt=timezone.now()).first()
    return silence.until if silence is not None else None


@dataclass(frozen=True)
class Chat:
    """A game's chat as one viewer sees it."""

    room: Room
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
        return muted_notice(self.muted_until) if self.muted_until else None

    @property
    def open(self) -> bool:
        return self.room.open


def chat_for(room: Room, user: object) -> Chat:
    """The chat of ``room`` as ``user`` sees it."""
    hidden = muted_by(user)
    writer = room.seat_of(user) is not None
    opponent = room.opponent_of(user)
    return Chat(
        room=room,
        messages=_latest_lines(room.game_id, hidden),
        writer=writer,
        opponent=opponent,
        opponent_muted=opponent is not None and opponent.pk in hidden,
        muted_until=silenced_until(user) if writer else None,
    )


def chat_lines(room: Room, user: object) -> list[ChatMessage]:
    """The latest lines of ``room``'s chat that ``user`` sees, oldest first, in one query (the
    lines of people they muted left out in it)."""
    return _latest_lines(room.game_id, _muted_ids(user))


def _latest_lines(game_id: int, hidden: Iterable[int]) -> list[ChatMessage]:
    """The latest :data:`CHAT_SHOWN` lines of a game's chat, oldest first, without those of the
    authors in ``hidden`` (their ids, or a query of them) nor of closed accounts."""
    latest = (
        ChatMessage.objects.filter(game_id=game_id)
        .exclude(author_id__in=hidden)
        .exclude(author_id__in=closed_accounts())
        .select_related("author")
        .order_by("-created_at", "-pk")[:CHAT_SHOWN]
    )
    return list(reversed(latest))


def lines_of_game(game_id: int) -> QuerySet[ChatMessage]:
    """A game's whole chat, for moderators (nothing hidden)."""
    return ChatMessage.objects.filter(game_id=game_id).select_related("author")


def recent_lines_of(user: object, limit: int = 20) -> QuerySet[ChatMessage]:
    """What ``user`` wrote lately, in any game, newest first."""
    return ChatMessage.objects.filter(author=user).order_by("-created_at", "-pk")[:limit]
