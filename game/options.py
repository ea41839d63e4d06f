"""A game's options as one value: the pack, the variants, the clock and whether it is rated.

A seek, a challenge, a pairing, a game against the computer and a rematch each carry one
:class:`GameOptions`, checked once when it is made, and write it to the new game's row with
:meth:`GameOptions.fields`; :meth:`GameOptions.of` reads it back from a ``Game`` or a
``Challenge``. The trumps are not among them: each player chooses their own (RULES.md).

>>> options = GameOptions(deck=24, must_beat=True, time_control=(3, 2), rated=True)
>>> options.clock_initial, options.clock_increment
(180, 2)
>>> GameOptions(deck=32, sixes_to_owner=True)
Traceback (most recent call last):
  ...
game.services.GameError: Sixes to owner needs the 36-card pack: a smaller pack has no sixes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from django.utils.translation import gettext as _

from accounts.ratings import Speed, speed_of
from game import engine
from game.services import GameError

#: Time controls offered in the lobby: (minutes, increment in seconds).
TIME_CONTROLS = ((1, 1), (3, 2), (5, 3), (10, 5), (15, 10))


class _WithOptions(Protocol):
    """A row that stores a game's options in its own fields: a ``Game`` or a ``Challenge``."""

    deck: int
    must_beat: bool
    sixes_to_owner: bool
    clock_initial: int | None
    clock_increment: int
    rated: bool


@dataclass(frozen=True, slots=True)
class GameOptions:
    """What a new game is played by. Refused with a :class:`GameError` that says why: a variant
    the pack cannot have, or a time control the lobby does not offer. ``time_control`` is the
    lobby's (minutes, increment in seconds); ``None`` for an untimed game."""

    deck: int = 36
    must_beat: bool = False
    sixes_to_owner: bool = False
    time_control: tuple[int, int] | None = None
    rated: bool = False

    def __post_init__(self) -> None:
        _rules(self.deck, self.must_beat, self.sixes_to_owner)
        if self.time_control is not None:
            control = tuple(self.time_control)
            if control not in TIME_CONTROLS:
                raise GameError(_("That time control is not offered."))
            object.__setattr__(self, "time_control", control)

    @property
    def rules(self) -> engine.Rules:
        """The engine's rules for these options."""
        return _rules(self.deck, self.must_beat, self.sixes_to_owner)

    @property
    def clock_initial(self) -> int | None:
        """Each player's time at the start, in seconds (``None``: untimed)."""
        return None if self.time_control is None else self.time_control[0] * 60

    @property
    def clock_increment(self) -> int:
        """The seconds added after each turn."""
        return 0 if self.time_control is None else self.time_control[1]

    @property
    def speed(self) -> Speed:
        """The speed the time control falls into: the rating a rated game changes."""
        return speed_of(self.clock_initial, self.clock_increment)

    def fields(self) -> dict[str, object]:
        """The options as the model fields a ``Game`` or a ``Challenge`` stores them in."""
        return {
            "deck": self.deck,
            "must_beat": self.must_beat,
            "sixes_to_owner": self.sixes_to_owner,
            "clock_initial": self.clock_initial,
            "clock_increment": self.clock_increment,
            "rated": self.rated,
        }

    @classmethod
    def of(cls, row: _WithOptions) -> GameOptions:
        """The options stored in ``row``'s fields (a ``Game`` or a ``Challenge``)."""
        time_control = None
        if row.clock_initial is not None:
            minutes, seconds = divmod(row.clock_initial, 60)
            if seconds:  # not a lobby's time control, which counts whole minutes
                raise GameError(_("That time control is not offered."))
            time_control = (minutes, row.clock_increment)
        return cls(
            deck=row.deck,
            must_beat=row.must_beat,
            sixes_to_owner=row.sixes_to_owner,
            time_control=time_control,
            rated=row.rated,
        )


def _rules(deck: int, must_beat: bool, sixes_to_owner: bool) -> engine.Rules:
    """The engine's rules for these variants, checked: RULES.md gives sixes to owner to the
    36-card pack only (the engine plays it on any pack, as positions of other sites may carry
    it)."""
    if sixes_to_owner and deck != 36:
        raise GameError(_("Sixes to owner needs the 36-card pack: a smaller pack has no sixes."))
    try:
        return engine.Rules(deck=deck, must_beat=must_beat, sixes_to_owner=sixes_to_owner)
    except engine.EngineError as error:
        raise GameError(str(error)) from None
