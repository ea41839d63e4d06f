"""The computer's levels, from ``beginner`` to ``perfect``.

Each level is a function from a position (and the game's history of position
keys, for repetition) to a turn. They differ in how much they think:

- ``beginner`` plays a random legal turn, but takes a win lying right in front of it;
- ``easy`` looks one turn ahead with the evaluation, and often picks a lesser turn;
- ``medium`` searches two turns deep with a small time budget;
- ``hard`` deepens as far as about a second allows;
- ``perfect`` solves the position outright when it is small enough (exact
  win / draw / loss), otherwise searches longest and still plays proven wins.

``hard`` and ``perfect`` also read the opponent's habit (habits.py): against a
player who has kept to a fixed rule all game, they search that player's replies.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from game.engine import Game, Move, Position

from .bots import BOTS, bot_move
from .evaluate import EVAL_LIMIT, evaluate
from .habits import Habit, habit_of
from .search import AlphaBeta, Key, prove
from .solver import solve

LEVELS = ("beginner", "easy", "medium", "hard", "perfect")

PERFECT_SECONDS = 2.5
#: Up to this many cards in play, ``perfect`` first tries to solve the position outright
#: (the reachable positions number some 15,000 at 8 cards and outgrow a second past 10).
SOLVER_CARDS = 9
#: Up to this many cards in both hands, ``perfect`` tries to prove the value by search
#: (win, loss, or a draw both bounds agree on) before it settles for an estimate.
PROVER_CARDS = 14
#: Default thinking time per level, in seconds (``None``: not a timed search).
DEFAULT_SECONDS: dict[str, float | None] = {
    "beginner": None,
    "easy": None,
    "medium": 0.1,
    "hard": 0.8,
    "perfect": PERFECT_SECONDS,
}


@dataclass(frozen=True)
class Choice:
    """A turn and what the player thought of it."""

    move: Move
    exact: bool = False
    value: str | float | None = None


Player = Callable[[Position, Mapping[Key, int], float | None, random.Random, Habit | None], Choice]
#: The levels that read the opponent's habit; the others meet every player alike.
HABIT_READERS = ("hard", "perfect")


def _immediate_win(position: Position) -> Move | None:
    for move in position.legal_moves():
        outcome = position.play_unchecked(move).outcome
        if outcome is not None and outcome.winner == position.to_move:
            return move
    return None


def beginner(
    position: Position,
    history: Mapping[Key, int],
    seconds: float | None,
    rng: random.Random,
    habit: Habit | None,
) -> Choice:
    moves = position.legal_moves()
    return Choice(_immediate_win(position) or moves[rng.randrange(len(moves))])


def easy(
    position: Position,
    history: Mapping[Key, int],
    seconds: float | None,
    rng: random.Random,
    habit: Habit | None,
) -> Choice:
    """One turn ahead, choosing among turns with chances weighted by their evaluation."""
    win = _immediate_win(position)
    if win is not None:
        return Choice(win)
    moves = list(position.legal_moves())
    scores = [-evaluate(position.play_unchecked(m)) / EVAL_LIMIT for m in moves]
    best = max(scores)
    # Softmax with a warm temperature: clearly better turns are likelier, not certain.
    weights = [math.exp((s - best) * 6.0) for s in scores]
    return Choice(rng.choices(moves, weights)[0])


#: What the searching levels give up to avoid a draw (in evaluation units, 15% of a win):
#: against a weaker player a repetition is a lost chance. Measured in the arena (hard vs
#: medium, the same 28 deals): 94.6% with 15%, 76.8% with 3%, the difference all draws.
CONTEMPT = EVAL_LIMIT * 15 // 100


#: Whether the playing search scores a return to a seen position as a draw (see below);
#: off, it waits for the rules' third arising.
RETURNS_DRAW = True


def playing_search(
    history: Mapping[Key, int], contempt: int = CONTEMPT, habit: Habit | None = None
) -> AlphaBeta:
    """The search a level plays with: contempt, and a return to a seen position is a draw.

    Under the rules a position must arise a third time to draw, so a search that
    waits for the third sees a cycle only when both laps fit in its horizon; by then
    the cycle is usually the whole game (issue 22: 287-ply games against a bot that
    never varies). As the prover does, the playing search scores the first return to
    any position the game or its path has seen as the draw the cycle leads to: a won
    side never needs to return (the end must come nearer), and with contempt it looks
    for another way at once. The opponent may still vary, so this is for playing only;
    an analysis keeps the rules' count. ``habit`` foresees the opponent's replies.
    """
    if not RETURNS_DRAW:
        return AlphaBeta(history, contempt=contempt, expect=habit)
    seen_before = dict.fromkeys(history, 2)
    return AlphaBeta(seen_before, contempt=contempt, first_return_draws=True, expect=habit)


def _searcher(max_depth: int) -> Player:
    def play(
        position: Position,
        history: Mapping[Key, int],
        seconds: float | None,
        rng: random.Random,
        habit: Habit | None,
    ) -> Choice:
        result = playing_search(history, habit=habit).search(position, seconds, max_depth)
        return Choice(rng.choice(result.best), result.exact, result.value)

    return play


@dataclass(frozen=True)
class Analysis:
    """What the deepest thinking found: the value for the player to move, and the best turns."""

    value: str | float
    best: list[Move]
    exact: bool
    depth: int
    method: str


def deepest(
    position: Position,
    history: Mapping[Key, int],
    seconds: float,
    contempt: int = 0,
    habit: Habit | None = None,
) -> Analysis:
    """Solve outright when few cards are in play, else search; both within ``seconds``.

    ``contempt`` and ``habit`` are for playing (see :data:`CONTEMPT`, habits.py); an
    analysis leaves them out. With a habit, a proven draw or loss is not the end of
    it: the search then looks for the win that player's rule leaves open.
    """
    budget = seconds
    if cards_in_play(position) <= SOLVER_CARDS:
        solved = solve(position, history, seconds=budget / 2)
        if solved is not None and (habit is None or solved.value == "win"):
            return Analysis(solved.value, solved.best, True, solved.distance, "solver")
        budget /= 2
    if cards_in_hands(position) <= PROVER_CARDS:
        proof = prove(position, history, seconds=budget / 2)
        if proof is not None and (habit is None or proof.value == "win"):
            return Analysis(proof.value, proof.best, True, proof.depth, "proof")
        budget /= 2
    playing = contempt or habit is not None
    search = playing_search(history, contempt, habit) if playing else AlphaBeta(history)
    result = search.search(position, budget)
    return Analysis(result.value, result.best, result.exact, result.depth, "search")


def perfect(
    position: Position,
    history: Mapping[Key, int],
    seconds: float | None,
    rng: random.Random,
    habit: Habit | None,
) -> Choice:
    """The exact solution when the position is small enough, else the deepest search."""
    budget = seconds if seconds is not None else PERFECT_SECONDS
    found = deepest(position, history, budget, CONTEMPT, habit)
    return Choice(rng.choice(found.best), found.exact, found.value)


def cards_in_hands(position: Position) -> int:
    """Cards in both hands: what the breadth of a search grows with."""
    return position.hands[0].bit_count() + position.hands[1].bit_count()


def cards_in_play(position: Position) -> int:
    """Cards in both hands and the pile: what the size of a solve grows with."""
    return cards_in_hands(position) + len(position.pile)


def _bot(name: str) -> Player:
    def play(
        position: Position,
        history: Mapping[Key, int],
        seconds: float | None,
        rng: random.Random,
        habit: Habit | None,
    ) -> Choice:
        return Choice(bot_move(position, name))

    return play


PLAYERS: dict[str, Player] = {
    "beginner": beginner,
    "easy": easy,
    "medium": _searcher(2),
    "hard": _searcher(99),
    "perfect": perfect,
    # The arena's deterministic opponents (see bots.py): not levels the site offers.
    **{name: _bot(name) for name in BOTS},
}


def choose(
    position: Position,
    level: str,
    seconds: float | None = None,
    history: Mapping[Key, int] | None = None,
    rng: random.Random | None = None,
    past: Sequence[Position] = (),
) -> Choice:
    """The turn ``level`` plays in ``position``; ``seconds`` overrides its thinking time.

    ``past`` is the game's earlier positions in order, where the opponent's habit is read.
    """
    if level not in PLAYERS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(PLAYERS)}")
    if not position.legal_moves():
        raise ValueError("the game is over: there is no turn to choose")
    if len(position.legal_moves()) == 1:
        return Choice(position.legal_moves()[0])  # nothing to think about
    if seconds is None:
        seconds = DEFAULT_SECONDS.get(level)
    habit = habit_of([*past, position], 1 - position.to_move) if level in HABIT_READERS else None
    return PLAYERS[level](position, history or {}, seconds, rng or random.Random(), habit)


def choose_in_game(
    game: Game, level: str, seconds: float | None = None, rng: random.Random | None = None
) -> Choice:
    """The turn ``level`` plays in ``game``, knowing the game so far."""
    return choose(game.position, level, seconds, game.position_counts, rng, game.positions[:-1])
