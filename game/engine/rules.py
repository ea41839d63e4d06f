"""The rule variants a table may choose (RULES.md, "Variants")."""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import SUIT_MASKS
from .errors import NotationError

DECK_SIZES = (36, 32, 24)


@dataclass(frozen=True, slots=True)
class Rules:
    """One table's variant: pack size, ``must_beat`` and ``sixes_to_owner``.

    >>> Rules(deck=24).lowest_rank
    3
    """

    deck: int = 36
    must_beat: bool = False
    sixes_to_owner: bool = False
    #: The cards of this pack as a bitmask (derived, so not compared or hashed).
    pack: int = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.deck not in DECK_SIZES:
            raise NotationError(f"deck must be 36, 32 or 24 cards, not {self.deck!r}")
        for name in ("must_beat", "sixes_to_owner"):
            if not isinstance(getattr(self, name), bool):
                raise NotationError(f"{name} must be true or false")
        low_ranks = (1 << self.lowest_rank) - 1
        pack = 0
        for suit_mask in SUIT_MASKS:
            pack |= suit_mask & ~(low_ranks * (suit_mask & -suit_mask))
        object.__setattr__(self, "pack", pack)

    @property
    def lowest_rank(self) -> int:
        """Index of the lowest rank in the pack: 6 for 36 cards, 7 for 32, 9 for 24."""
        return {36: 0, 32: 1, 24: 3}[self.deck]

    def to_json(self) -> dict[str, object]:
        return {
            "deck": self.deck,
            "must_beat": self.must_beat,
            "sixes_to_owner": self.sixes_to_owner,
        }

    @classmethod
    def from_json(cls, data: object) -> Rules:
        if not isinstance(data, dict):
            raise NotationError('rules must be an object like {"deck": 36, ...}')
        unknown = set(data) - {"deck", "must_beat", "sixes_to_owner"}
        if unknown:
            raise NotationError(f"unknown rule {sorted(unknown)[0]!r}")
        return cls(**data)


DEFAULT_RULES = Rules()
