"""A deal nobody can rig: the seed made of three parts, one of them committed to beforehand.

The server draws a secret and shows its hash, the **commitment**, before either
player's part reaches it; each player's browser sends a random part of its own
(the server draws it for a browser without JavaScript). The seed is the
SHA-256 hash of the three parts, read as a number and cut to 62 bits (what a
stored seed holds), so no one party picks the deal: the server is bound to its
secret by the commitment, and the players' parts are unknown to it when it
commits. Once the game is over the secret is shown, and anyone can check it
against the commitment and deal again from the three parts.

>>> parts = DealParts("ab" * 32, "01" * 16, "ff" * 16)
>>> parts.commitment == commitment("ab" * 32), parts.seed < 2**62
(True, True)
>>> parts.deal((Suit.S, Suit.H)) == deal(parts.seed, (Suit.S, Suit.H))
True
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .cards import Suit
from .deal import deal
from .errors import NotationError
from .position import Position
from .rules import DEFAULT_RULES, Rules

#: A part: lowercase hexadecimal, 128 to 256 bits (a browser's or the server's 32 random bytes).
PART = re.compile(r"[0-9a-f]{32,64}")
#: Seeds are cut to this many bits, as stored seeds always were (a database's bigint).
SEED_BITS = 62


def is_part(text: str) -> bool:
    """Whether ``text`` is a part as :data:`PART` spells it.

    >>> is_part("0f" * 32), is_part("0F" * 32), is_part("12345")
    (True, False, False)
    """
    return PART.fullmatch(text) is not None


def commitment(secret: str) -> str:
    """What the server shows of its ``secret`` before the deal: SHA-256 of it, in hex.

    >>> commitment("abc")
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def digest(secret: str, part0: str, part1: str) -> str:
    """SHA-256 of ``secret:part0:part1``, in hex: the three parts mixed."""
    return hashlib.sha256(f"{secret}:{part0}:{part1}".encode()).hexdigest()


def seed_of(secret: str, part0: str, part1: str) -> int:
    """The deal's seed: :func:`digest` read as a number, modulo 2**62."""
    return int(digest(secret, part0, part1), 16) % (1 << SEED_BITS)


@dataclass(frozen=True, slots=True)
class DealParts:
    """The server's ``secret`` and the two seats' parts; raises :class:`NotationError` on a
    part that is not lowercase hex of 32 to 64 digits."""

    secret: str
    part0: str
    part1: str

    def __post_init__(self) -> None:
        for name in ("secret", "part0", "part1"):
            value = getattr(self, name)
            if not isinstance(value, str) or not is_part(value):
                raise NotationError(
                    f"{name} must be 32 to 64 lowercase hexadecimal digits, not {value!r}"
                )

    @property
    def commitment(self) -> str:
        return commitment(self.secret)

    @property
    def digest(self) -> str:
        return digest(self.secret, self.part0, self.part1)

    @property
    def seed(self) -> int:
        return seed_of(self.secret, self.part0, self.part1)

    def deal(
        self, trumps: tuple[Suit, Suit], rules: Rules = DEFAULT_RULES, first: int | None = None
    ) -> Position:
        """The deal these parts make (:func:`game.engine.deal` of :attr:`seed`)."""
        return deal(self.seed, trumps, rules, first=first)
