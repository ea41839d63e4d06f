"""Reading finished and imported games back, one position at a time, with their analysis.

A :class:`Replay` is the engine replaying a stored log (a :class:`Game`'s moves,
or an :class:`ImportedGame`'s record): every step the viewer shows is a
:class:`Frame` read off it, never a stored picture, so the viewer shows
exactly what the engine says the game was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.urls import reverse

from archive import records
from archive.evaluation import Chart, Slip, chart_of, slip_of
from archive.models import Analysis, ImportedGame
from game import engine
from game.ai.review import Note, annotate, decided_at
from game.models import Game
from game.selectors import start_position
from game.tables import Seat, sorted_hand

#: What the record's ``Result`` header says for a stored game's winning seat.
_RESULTS = {0: "1-0", 1: "0-1", None: "1/2-1/2"}
#: A result header as the value of the game's end for seat 0 (the chart's last point).
_FINAL_FOR_SEAT0 = {"1-0": "win", "0-1": "loss", "1/2-1/2": "draw"}


def record_of(game: Game, turns: Sequence[str]) -> records.Record:
    """A stored game, whose log holds ``turns``, as a text record's contents."""
    when = game.finished_at or game.started_at or game.created_at
    finished = game.status == Game.Status.FINISHED
    return records.Record(
        trumps=game.trumps,
        seed=game.seed,
        rules=game.rules,
        first=game.first_player,
        players=(game.seat_name(0), game.seat_name(1)),
        result=_RESULTS[game.winner] if finished else records.UNFINISHED,
        reason=game.reason,
        date=when.date().isoformat(),
        game=str(game.pk),
        turns=tuple(turns),
    )


def _clocks(
    game: Game, history: engine.Game, spent: Sequence[int]
) -> list[tuple[int | None, int | None]]:
    """Both clocks (ms) at each position: the start, less time spent, plus increments."""
    if not game.is_timed:
        return [(None, None)] * len(history.positions)
    assert game.clock_initial is not None
    clocks = [game.clock_initial * 1000] * 2
    shown = [(clocks[0], clocks[1])]
    for position, ms in zip(history.positions, spent, strict=False):
        clocks[position.to_move] += game.clock_increment * 1000 - ms
        shown.append((clocks[0], clocks[1]))
    # The stored clocks are the last word: a flag fall leaves a clock at exactly zero.
    shown[-1] = (game.clock0_ms, game.clock1_ms)
    return shown


@dataclass(frozen=True)
class Frame:
    """The table at one ply of a replay: what the viewer shows for ``?ply=N``."""

    replay: Replay
    ply: int
    bottom: Seat
    top: Seat
    #: The turn that led here (``None`` at the deal) and the cards it moved.
    played: engine.Move | None
    moved: frozenset[engine.Card]

    @property
    def position(self) -> engine.Position:
        return self.replay.history.positions[self.ply]

    @property
    def pile(self) -> tuple[engine.Card, ...]:
        return self.position.pile

    @property
    def over(self) -> bool:
        return self.ply == self.replay.last and self.replay.history.outcome is not None

    @property
    def review(self) -> dict[str, Any] | None:
        """The analysis of this position, for the player to move (``None``: not analysed)."""
        analysis = self.replay.analysis
        if analysis is None or self.over or self.ply >= len(analysis.positions):
            return None
        return analysis.positions[self.ply]

    @property
    def played_by(self) -> str:
        """Who played the turn that led here."""
        return self.replay.record.players[self.replay.history.positions[self.ply - 1].to_move]

    @property
    def mover_name(self) -> str:
        return self.replay.record.players[self.position.to_move]

    @property
    def note(self) -> Note | None:
        """What the turn that led here did, once analysed."""
        return self.replay.notes[self.ply - 1] if self.ply and self.replay.notes else None

    @property
    def slip(self) -> Slip | None:
        """What the turn that led here lost by the estimate, if enough to grade."""
        return slip_of(self.note)

    @property
    def chart(self) -> Chart | None:
        """The game's value over the turns, with this step marked (once analysed)."""
        replay = self.replay
        if replay.analysis is None or not replay.analysis.positions:
            return None
        final = _FINAL_FOR_SEAT0.get(replay.record.result)
        return chart_of(replay.history.positions, replay.analysis.positions, self.ply, final)

    @property
    def previous(self) -> int:
        return max(0, self.ply - 1)

    @property
    def next(self) -> int:
        return min(self.replay.last, self.ply + 1)


@dataclass(frozen=True)
class Summary:
    """The analysis in short: blunders per seat, proven (``??``) and by the estimate (``(??)``),
    and the ply the result was proven from."""

    blunders: tuple[int, int]
    estimated: tuple[int, int]
    decided_at: int | None


@dataclass(frozen=True)
class Replay:
    """A game's log replayed by the engine, with its clocks and its analysis (if any)."""

    record: records.Record
    history: engine.Game
    clocks: list[tuple[int | None, int | None]]
    game: Game | None = None
    imported: ImportedGame | None = None
    analysis: Analysis | None = None

    @property
    def last(self) -> int:
        return self.history.ply

    @property
    def url(self) -> str:
        if self.game is not None:
            return reverse("archive:replay", args=[self.game.pk])
        assert self.imported is not None
        return reverse("archive:imported", args=[self.imported.pk])

    @property
    def reason(self) -> str:
        """How the game ended, in words: a record's own reason codes (``last_card``) are the
        stored games' reasons, shown by their labels; any other text is shown as written."""
        code = self.game.reason if self.game is not None else self.record.reason
        try:
            return str(Game.Reason(code).label)
        except ValueError:
            return code

    @property
    def download_url(self) -> str:
        return self.url + "record.txt"

    @property
    def analyse_url(self) -> str:
        return self.url + "analyse/"

    @property
    def turns(self) -> list[tuple[int, str, Note | None, Slip | None]]:
        """The move list: (ply after the turn, turn, its note and slip once analysed)."""
        notes = self.notes
        listed = []
        for ply, move in enumerate(self.history.moves):
            note = notes[ply] if notes else None
            listed.append((ply + 1, str(move), note, slip_of(note)))
        return listed

    @cached_property
    def notes(self) -> list[Note]:
        if self.analysis is None or not self.analysis.positions:
            return []
        only = self.analysis.only
        checked = [only.get(str(ply)) for ply in range(self.last)]
        return annotate(self.history, self.analysis.positions, checked)

    @cached_property
    def summary(self) -> Summary | None:
        analysis = self.analysis
        if analysis is None or analysis.status != Analysis.Status.DONE:
            return None
        blunders, estimated = [0, 0], [0, 0]
        for note in self.notes:
            blunders[note.player] += note.blunder
            slip = slip_of(note)
            estimated[note.player] += slip is not None and slip.kind == "blunder"
        decided = None
        if self.record.result != records.UNFINISHED:
            decided = decided_at(self.history, analysis.positions, self.record.winner)
        return Summary((blunders[0], blunders[1]), (estimated[0], estimated[1]), decided)

    def frame(self, ply: int) -> Frame:
        """The table after ``ply`` turns (clamped to the game's length)."""
        ply = max(0, min(self.last, ply))
        positions = self.history.positions
        position = positions[ply]
        over = ply == self.last and self.history.outcome is not None

        def seat(index: int) -> Seat:
            return Seat(
                index=index,
                name=self.record.players[index],
                trump=position.trumps[index],
                hand=sorted_hand(position, index),
                clock_ms=self.clocks[ply][index],
                to_move=not over and position.to_move == index,
            )

        played = self.history.moves[ply - 1] if ply else None
        moved: frozenset[engine.Card] = frozenset()
        if played is not None:
            mover = positions[ply - 1].to_move
            if played.is_take:
                moved = frozenset(position.hand(mover)) - frozenset(positions[ply - 1].hand(mover))
            else:
                moved = frozenset(played.cards)
        return Frame(self, ply, seat(0), seat(1), played, moved)


def replay_of_game(game: Game) -> Replay:
    log = list(game.moves.order_by("ply").values_list("notation", "time_spent_ms"))
    record = record_of(game, [notation for notation, _ in log])
    history = engine.Game.replay(start_position(game), record.turns)
    clocks = _clocks(game, history, [spent for _, spent in log])
    analysis = Analysis.objects.filter(game=game).first()
    return Replay(record, history, clocks, game=game, analysis=analysis)


def replay_of_import(imported: ImportedGame) -> Replay:
    """An uploaded record (checked when it was stored) replayed; imports carry no clocks."""
    record = records.parse(imported.text)
    history = record.replay()
    analysis = Analysis.objects.filter(imported=imported).first()
    clocks: list[tuple[int | None, int | None]] = [(None, None)] * len(history.positions)
    return Replay(record, history, clocks, imported=imported, analysis=analysis)


def replay_of_analysis(analysis: Analysis) -> Replay:
    if analysis.game is not None:
        return replay_of_game(analysis.game)
    assert analysis.imported is not None
    return replay_of_import(analysis.imported)
