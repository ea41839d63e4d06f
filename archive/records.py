"""A game as plain text: a header of ``Key: value`` lines, a blank line, one turn per line.

::

    Site: Your Trumps
    Game: 17
    Date: 2026-11-30
    Player0: alice
    Player1: bob
    Trumps: S H
    Deck: 36
    MustBeat: no
    SixesToOwner: no
    Seed: 4107765311
    First: 1
    Result: 1-0
    Reason: empty_hand

    7D
    take
    ...

The seed, the trumps and the rules give the deal (``engine.deal``), so the
turns alone replay the game. Reading a record checks every turn with the
engine and names the line of the first problem. Only the engine is needed
here: the stored game becomes a :class:`Record` in :mod:`archive.replays`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from game import engine

#: ``Result`` values: seat 0 won, seat 1 won, a draw, unfinished or aborted.
RESULTS = {"1-0": 0, "0-1": 1, "1/2-1/2": None}
UNFINISHED = "*"
#: Longest record read, in characters: far above any real game.
MAX_LENGTH = 100_000

_HEADER = re.compile(r"^(?P<key>[A-Za-z0-9]+):\s*(?P<value>.*?)\s*$")
_YES_NO = {"yes": True, "no": False}


class RecordError(ValueError):
    """A record that cannot be read; ``line`` is 1-based (0 for the record as a whole)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}" if line else problem)
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class Record:
    """Everything a record says: the deal's recipe, the players, the result and the turns."""

    trumps: tuple[engine.Suit, engine.Suit]
    seed: int
    rules: engine.Rules = field(default_factory=engine.Rules)
    #: The seat that starts, when the game did not leave it to the deal.
    first: int | None = None
    players: tuple[str, str] = ("?", "?")
    result: str = UNFINISHED
    reason: str = ""
    date: str = ""
    game: str = ""
    turns: tuple[str, ...] = field(default=())

    @property
    def start(self) -> engine.Position:
        return engine.deal(self.seed, self.trumps, self.rules, first=self.first)

    def replay(self) -> engine.Game:
        """The engine's game through every turn (checked when the record was read)."""
        return engine.Game.replay(self.start, self.turns)

    @property
    def winner(self) -> int | None:
        return RESULTS.get(self.result)

    def to_text(self) -> str:
        rules = self.rules
        header = {
            "Site": "Your Trumps",
            "Game": self.game,
            "Date": self.date,
            "Player0": self.players[0],
            "Player1": self.players[1],
            "Trumps": f"{self.trumps[0].letter} {self.trumps[1].letter}",
            "Deck": str(rules.deck),
            "MustBeat": "yes" if rules.must_beat else "no",
            "SixesToOwner": "yes" if rules.sixes_to_owner else "no",
            "Seed": str(self.seed),
            "First": "" if self.first is None else str(self.first),
            "Result": self.result,
            "Reason": self.reason,
        }
        lines = [f"{key}: {value}" for key, value in header.items() if value != ""]
        return "\n".join([*lines, "", *self.turns]) + "\n"


def parse(text: str) -> Record:
    """Read a record, checking the header and replaying every turn; raises :class:`RecordError`."""
    if len(text) > MAX_LENGTH:
        raise RecordError(0, f"the record is longer than {MAX_LENGTH} characters")
    lines = list(_numbered(text))
    header: dict[str, tuple[int, str]] = {}
    at = 0
    while at < len(lines) and _HEADER.match(lines[at][1]):
        number, line = lines[at]
        match = _HEADER.match(line)
        assert match is not None
        key = match["key"]
        if key not in _READERS:
            known = ", ".join(_READERS)
            raise RecordError(number, f"unknown header {key!r}: the headers are {known}")
        if key in header:
            raise RecordError(number, f"{key} is given twice")
        header[key] = (number, match["value"])
        at += 1
    fields = {}
    for key, (number, value) in header.items():
        name, reader = _READERS[key]
        try:
            fields[name] = reader(value)
        except (ValueError, engine.EngineError) as error:
            raise RecordError(number, f"{key}: {error}") from None
    for required in ("Trumps", "Seed"):
        if required not in header:
            raise RecordError(0, f"the header has no {required} line")
    rules = engine.Rules(
        deck=fields.pop("deck", 36),
        must_beat=fields.pop("must_beat", False),
        sixes_to_owner=fields.pop("sixes_to_owner", False),
    )
    if rules.sixes_to_owner and rules.deck != 36:
        problem = "SixesToOwner: yes is for the 36-card pack only: a smaller one has no sixes"
        raise RecordError(header["SixesToOwner"][0], problem)
    players = (fields.pop("player0", "?"), fields.pop("player1", "?"))
    fields.pop("site", None)  # always ours when written here; any name is fine when read
    try:
        record = Record(rules=rules, players=players, **fields)
        game = engine.Game(record.start)
    except engine.EngineError as error:
        raise RecordError(header["Trumps"][0], str(error)) from None
    record = replace(record, turns=_replayed(game, lines[at:]))
    return _checked_result(record, game, header)


def _numbered(text: str) -> Iterator[tuple[int, str]]:
    """Lines with their 1-based numbers; blank lines and ``#`` comments are skipped."""
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if line:
            yield number, line


def _replayed(game: engine.Game, lines: list[tuple[int, str]]) -> tuple[str, ...]:
    turns = []
    for number, line in lines:
        if _HEADER.match(line):
            raise RecordError(number, "a header line after the turns began")
        if game.outcome is not None:
            raise RecordError(number, f"{line}: the game was already over")
        try:
            move = engine.Move.parse(line)
            game.play(move)
        except engine.EngineError as error:
            raise RecordError(number, str(error)) from None
        turns.append(str(move))
    return tuple(turns)


def _checked_result(
    record: Record, game: engine.Game, header: dict[str, tuple[int, str]]
) -> Record:
    """The turns' own ending must agree with the stated result; an unstated one is filled in."""
    outcome = game.outcome
    if outcome is None:
        return record
    played = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[outcome.winner]
    if "Result" in header and record.result != played:
        number = header["Result"][0]
        raise RecordError(number, f"the turns end the game {played}, not {record.result}")
    reason = record.reason or outcome.termination.value
    return replace(record, result=played, reason=reason)


def _suits(value: str) -> tuple[engine.Suit, engine.Suit]:
    letters = value.split()
    if len(letters) != 2:
        raise ValueError("give the two players' trump suits, like 'S H'")
    return engine.Suit.parse(letters[0]), engine.Suit.parse(letters[1])


def _yes_no(value: str) -> bool:
    if value.lower() not in _YES_NO:
        raise ValueError(f"write yes or no, not {value!r}")
    return _YES_NO[value.lower()]


def _seat(value: str) -> int:
    if value not in ("0", "1"):
        raise ValueError(f"the first player is seat 0 or 1, not {value!r}")
    return int(value)


def _seed(value: str) -> int:
    if not value.isdigit():
        raise ValueError(f"the seed is a whole number, not {value!r}")
    return int(value)


def _deck(value: str) -> int:
    if value not in ("36", "32", "24"):
        raise ValueError(f"the pack has 36, 32 or 24 cards, not {value!r}")
    return int(value)


def _result(value: str) -> str:
    if value not in RESULTS and value != UNFINISHED:
        raise ValueError(f"write 1-0, 0-1, 1/2-1/2 or *, not {value!r}")
    return value


def _text(value: str) -> str:
    return value[:150]


# header key: (Record field, reader)
_READERS = {
    "Site": ("site", _text),
    "Game": ("game", _text),
    "Date": ("date", _text),
    "Player0": ("player0", _text),
    "Player1": ("player1", _text),
    "Trumps": ("trumps", _suits),
    "Deck": ("deck", _deck),
    "MustBeat": ("must_beat", _yes_no),
    "SixesToOwner": ("sixes_to_owner", _yes_no),
    "Seed": ("seed", _seed),
    "First": ("first", _seat),
    "Result": ("result", _result),
    "Reason": ("reason", _text),
}
