"""Matches between two levels, to measure strength: ``manage.py ai_match``.

Each seeded deal is played twice with the seats swapped, so neither level
profits from a lucky deal or from starting. The report gives wins, draws and
losses, the score, an Elo difference with a 95% interval, and the thinking
time per turn of each level.

A match can take hours, so it can keep a record: one JSON line per finished
game. Run again with the same record, it plays only the games missing.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

from game.engine import Game, Rules, Suit, deal

from .elsewhere import Elsewhere
from .players import choose_in_game

#: A game still running after this many plies is stopped and scored as a draw.
MAX_PLIES = 3000
#: A long match reports its figures so far every this many games, so a run stopped early
#: (a long match takes hours) still has them.
REPORT_EVERY = 20


@dataclass
class GameRecord:
    """One arena game, from the side of level A."""

    index: int
    deal_seed: int
    a_seat: int
    score: float  # 1 win, 0.5 draw, 0 loss for A
    plies: int
    ending: str
    a_times: list[float] = field(default_factory=list)
    b_times: list[float] = field(default_factory=list)
    #: A game A did not win keeps its turns, so that it can be replayed and its positions
    #: proven (a repetition: was the draw forced, or was a win there?).
    moves: list[str] = field(default_factory=list)


def arena_game(index: int, rules: Rules) -> Game:
    """The start of arena game ``index``: deal ``index // 2``, its trumps drawn from the seed."""
    deal_seed = index // 2
    setup = random.Random(f"arena-{deal_seed}")
    trumps = setup.sample(list(Suit), 2)
    return Game(deal(deal_seed, (trumps[0], trumps[1]), rules))


def play_game(
    a: str, b: str, index: int, seconds: float | None, rules: Rules, b_from: Path | None = None
) -> GameRecord:
    """Arena game ``index``: deal ``index // 2``, A in seat 0 on even games, seat 1 on odd.

    With ``b_from``, B is that level of the checkout there (see elsewhere.py).
    """
    deal_seed = index // 2
    a_seat = index % 2
    game = arena_game(index, rules)
    rng = random.Random(f"arena-{index}")
    elsewhere = Elsewhere(b_from, f"arena-{index}") if b_from is not None else None
    record = GameRecord(index, deal_seed, a_seat, 0.5, 0, "move cap")
    try:
        while game.outcome is None and game.ply < MAX_PLIES:
            mover = game.position.to_move
            start = time.perf_counter()
            if mover == a_seat:
                move = choose_in_game(game, a, seconds, rng).move
            elif elsewhere is not None:
                move = elsewhere.turn(game, b, seconds)
            else:
                move = choose_in_game(game, b, seconds, rng).move
            elapsed = time.perf_counter() - start
            (record.a_times if mover == a_seat else record.b_times).append(elapsed)
            game.play(move)
    finally:  # the other checkout's process ends with the game, however it ends
        if elsewhere is not None:
            elsewhere.close()
    record.plies = game.ply
    if game.outcome is not None:
        record.ending = game.outcome.termination.value
        winner = game.outcome.winner
        record.score = 0.5 if winner is None else float(winner == a_seat)
        if record.score < 1:
            record.moves = [str(move) for move in game.moves]
    return record


def play_match(
    a: str,
    b: str,
    games: Iterable[int],
    seconds: float | None,
    rules: Rules,
    workers: int = 1,
    b_from: Path | None = None,
) -> Iterator[GameRecord]:
    """Yield the games numbered ``games`` as they finish (on ``workers`` processes)."""
    if workers <= 1:
        for index in games:
            yield play_game(a, b, index, seconds, rules, b_from)
        return
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(play_game, a, b, i, seconds, rules, b_from) for i in games]
        for future in as_completed(futures):
            yield future.result()


def elo(score: float) -> float:
    """The Elo difference that expects ``score`` (0 < score < 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass
class MatchScore:
    """A match from the first player's side: results, score and the Elo difference it implies."""

    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_low: float
    elo_high: float
    capped: int

    @classmethod
    def of(cls, records: list[GameRecord]) -> MatchScore:
        scores = [r.score for r in records]
        n = len(scores)
        mean = sum(scores) / n
        spread = statistics.pstdev(scores) / math.sqrt(n) if n > 1 else 0.5
        # A perfect or a null score has no finite Elo: clamp half a game from the edge.
        edge = 0.5 / n

        def clamp(s: float) -> float:
            return min(1 - edge, max(edge, s))

        return cls(
            wins=scores.count(1.0),
            draws=scores.count(0.5),
            losses=scores.count(0.0),
            score=mean,
            elo=elo(clamp(mean)),
            elo_low=elo(clamp(mean - 1.96 * spread)),
            elo_high=elo(clamp(mean + 1.96 * spread)),
            capped=sum(r.ending == "move cap" for r in records),
        )


def time_figures(times: list[float]) -> str:
    """Median, 95th percentile and maximum thinking time per turn."""
    if not times:
        return "no turns"
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return (
        f"median {statistics.median(ordered):.3f} s, p95 {p95:.3f} s, "
        f"max {ordered[-1]:.3f} s over {len(ordered)} turns"
    )


def report(a: str, b: str, records: list[GameRecord]) -> list[str]:
    summary = MatchScore.of(records)
    plies = [r.plies for r in records]
    return [
        f"{a} vs {b}: {len(records)} games ({len(records) // 2} deals, seats swapped)",
        f"  {a}: {summary.wins} wins, {summary.draws} draws, {summary.losses} losses;"
        f" score {summary.score:.1%}",
        f"  Elo difference {summary.elo:+.0f} (95% interval {summary.elo_low:+.0f}"
        f" to {summary.elo_high:+.0f})",
        f"  plies per game: median {statistics.median(plies):.0f}, max {max(plies)};"
        f" stopped at the {MAX_PLIES}-ply cap: {summary.capped}",
        f"  {a} time per turn: {time_figures([t for r in records for t in r.a_times])}",
        f"  {b} time per turn: {time_figures([t for r in records for t in r.b_times])}",
    ]


class RecordError(ValueError):
    """A match record that cannot be resumed: another match's, or not a record."""


def _match_header(
    a: str, b: str, seconds: float | None, rules: Rules, b_from: Path | None
) -> dict[str, object]:
    header: dict[str, object] = {"a": a, "b": b, "seconds": seconds, "rules": asdict(rules)}
    if b_from is not None:
        header["b_from"] = str(b_from)
    return header


def read_record(
    path: Path, a: str, b: str, seconds: float | None, rules: Rules, b_from: Path | None = None
) -> list[GameRecord]:
    """The games a record holds, checked to belong to this match; none if there is no file."""
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    try:
        header = json.loads(lines[0]) if lines else None
        records = [GameRecord(**json.loads(line)) for line in lines[1:] if line.strip()]
    except (ValueError, TypeError) as error:
        raise RecordError(f"{path} is not a match record ({error})") from error
    if header != _match_header(a, b, seconds, rules, b_from):
        raise RecordError(f"{path} records another match: {header}")
    return records


def run(
    a: str,
    b: str,
    games: int,
    seconds: float | None,
    rules: Rules,
    workers: int,
    say: Callable[[str], None] = print,
    record: Path | None = None,
    b_from: Path | None = None,
) -> list[GameRecord]:
    """Play and report a match, saying its progress as games finish.

    Every :data:`REPORT_EVERY` games the report so far is said too, each line
    marked ``|``. With ``record``, each game is appended to that file as it
    finishes, and games already there are not played again. With ``b_from``, B is
    that level of another checkout of the project (see elsewhere.py).
    """
    records: list[GameRecord] = []
    if record is not None:
        records = read_record(record, a, b, seconds, rules, b_from)
        if not records:
            header = _match_header(a, b, seconds, rules, b_from)
            record.write_text(json.dumps(header) + "\n")
        else:
            say(f"  {len(records)} games already in {record}; playing the rest")
    done = {r.index for r in records}
    start = time.perf_counter()
    missing = [i for i in range(games) if i not in done]
    for game in play_match(a, b, missing, seconds, rules, workers, b_from):
        records.append(game)
        if record is not None:
            with record.open("a") as file:
                file.write(json.dumps(asdict(game)) + "\n")
        wins = sum(r.score == 1.0 for r in records)
        draws = sum(r.score == 0.5 for r in records)
        say(
            f"  game {len(records)}/{games}: {a} {('lost', 'drew', 'won')[int(game.score * 2)]}"
            f" deal {game.deal_seed} in seat {game.a_seat}, in {game.plies} plies ({game.ending});"
            f" so far +{wins} ={draws} -{len(records) - wins - draws},"
            f" {time.perf_counter() - start:.0f} s"
        )
        if len(records) % REPORT_EVERY == 0 and len(records) < games:
            for line in report(a, b, records):
                say(f"  | {line}")
    for line in report(a, b, records):
        say(line)
    return records
