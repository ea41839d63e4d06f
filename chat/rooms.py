"""A chat's room: what the chat needs to know of the game it is held at.

Live play builds it (``game.selectors.chat_room``) and hands it in: the chat imports nothing of
the game app.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser


@dataclass(frozen=True)
class Room:
    """A game's chat as the chat sees it."""

    game_id: int
    #: The people at the table, in seat order: two when there is a chat; one at a seek waiting
    #: for its second player or at a game against the computer, which have none.
    players: tuple[AbstractBaseUser, ...]
    #: Whether a line was ever written: a chat never written in is shown without reading it.
    started: bool = True

    @property
    def open(self) -> bool:
        """Whether the game has a chat at all: two people at the table."""
        return len(self.players) == 2

    def seat_of(self, user: object) -> int | None:
        """The index in :attr:`players` of ``user``, or ``None`` for a spectator."""
        pk = getattr(user, "pk", None)
        for seat, player in enumerate(self.players):
            if pk is not None and player.pk == pk:
                return seat
        return None

    def opponent_of(self, user: object) -> AbstractBaseUser | None:
        """The other player of ``user``, whom they may mute; ``None`` for a spectator."""
        seat = self.seat_of(user)
        return None if seat is None or not self.open else self.players[1 - seat]
