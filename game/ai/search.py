"""Alpha-beta search with iterative deepening under a time budget.

Negamax over the engine's positions, with a transposition table keyed by the
position key, move ordering (the table's move, then turns that leave the
opponent a card they cannot beat, then a history heuristic), and proven
results carried as "mate" scores: a win found inside the horizon is exact.

Repetition: a position arising for the third time, counting the game's
history and the search path, scores as a draw, as in the rules. Such a score
depends on the path, so a node whose subtree met one is not stored in the
table (graph-history interaction): a stored score never rests on a path.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from game.engine import TAKE, Move, Position, PositionKey
from game.engine.moves import TAKE_CODE
from game.engine.position import BEATERS

from .evaluate import EVAL_LIMIT, evaluate

Key = PositionKey

#: A win for the player to move in ``n`` plies scores ``MATE - n``.
MATE = 1_000_000
#: Scores beyond this are proven results, not estimates.
PROVEN = MATE - 10_000
INFINITY = MATE + 1
COMPLETE = 1 << 30
#: No score in the subtree rested on a position earlier on the path.
NO_RETURN = 1 << 30
#: Ordering bonus of a turn that leaves the opponent a card they cannot beat.
FORCING = 1 << 30

_EXACT, _LOWER, _UPPER = 0, 1, 2


class TimeUp(Exception):
    """The search's deadline passed; the last completed iteration stands."""


@dataclass
class SearchResult:
    """The outcome of a search, from the side of the player to move at the root."""

    score: int
    best: list[Move]
    depth: int
    nodes: int
    seconds: float
    #: The score is the game's value: a proven win or loss, or a tree searched to its end.
    exact: bool
    scores: dict[Move, int] = field(default_factory=dict)

    @property
    def value(self) -> str | float:
        """``"win"``, ``"draw"`` or ``"loss"`` when exact; else a score in (-1, 1)."""
        if self.exact:
            return "win" if self.score > 0 else "loss" if self.score < 0 else "draw"
        return round(max(-1.0, min(1.0, self.score / EVAL_LIMIT)), 3)


def is_proven(score: int) -> bool:
    return abs(score) >= PROVEN


class AlphaBeta:
    """One search: its table lives as long as the object (one move's thinking).

    ``history`` counts how often each position key arose in the game so far,
    the root included (as :attr:`Game.position_counts` does), so that a third
    arising is a draw as in the rules.
    """

    def __init__(
        self,
        history: Mapping[Key, int] | None = None,
        evaluate: Callable[[Position], int] = evaluate,
        contempt: int = 0,
        first_return_draws: bool = False,
        expect: Callable[[Position], Move | None] | None = None,
    ) -> None:
        self.evaluate = evaluate
        # The opponent's turn where it can be foreseen (see habits.py): their only reply
        # searched. Scores are then against that player, not the best one, so never exact.
        self._expect = expect
        self._expect_seat = -1
        # The least count a position takes on entering the search path. The rules draw at a
        # third arising; a prover may draw at the first return to a position (see prove()).
        self._first_return = first_return_draws
        self._entered = 2 if first_return_draws else 1
        # With first-return draws, the ply of each position on the path: a score that rests
        # only on returns to the node itself or below it holds whatever the path above.
        self._on_path: dict[Key, int] = {}
        # A draw scores -contempt for the side to move at the root (+contempt for the other):
        # a player who thinks itself stronger steers away from repetitions.
        self.contempt = contempt
        self._draw_for = (0, 0)
        # Arisings so far of each position: the game's, then the search path's.
        self._seen: dict[Key, int] = dict(history or {})
        # key -> (depth, bound, score, best move); a subtree searched to its end, with no
        # horizon inside, is stored at COMPLETE depth: it holds at any depth.
        self.table: dict[Key, tuple[int, int, int, Move]] = {}
        # History heuristic: how often (weighted by depth) each turn, by code, cut a search off.
        self.move_history = [0] * (TAKE_CODE + 1)
        self.nodes = 0
        self.deadline = float("inf")
        # The lowest ply on the path a draw by repetition in the current subtree depended on:
        # a subtree whose scores rest on nodes above it is not stored (graph-history interaction).
        self._returned_to = NO_RETURN
        self._horizon = 0

    def search(
        self, position: Position, seconds: float | None = None, max_depth: int = 99
    ) -> SearchResult:
        """Deepen until ``seconds`` pass, the result is proven, or ``max_depth`` is done.

        An iteration that cannot finish in time is abandoned; one is not begun
        when the last took more than a third of what is left.
        """
        start = time.perf_counter()
        self.deadline = start + seconds if seconds is not None else float("inf")
        moves = list(position.legal_moves())
        if not moves:
            raise ValueError("the position has no legal turns: the game is over")
        mine, theirs = -self.contempt, self.contempt
        self._draw_for = (mine, theirs) if position.to_move == 0 else (theirs, mine)
        if self._expect is not None:
            self._expect_seat = 1 - position.to_move
        result = SearchResult(0, moves[:1], 0, 0, 0.0, False)
        for depth in range(1, max_depth + 1):
            iteration_start = time.perf_counter()
            self._returned_to, self._horizon = NO_RETURN, 0
            try:
                scores = self._root(position, moves, depth)
            except TimeUp:
                break
            best_score = max(scores.values())
            best = [m for m in moves if scores.get(m) == best_score]
            complete = self._horizon == 0 and self._returned_to == NO_RETURN and not self.contempt
            settled = is_proven(best_score) or complete
            exact = settled and self._expect is None
            result = SearchResult(best_score, best, depth, self.nodes, 0.0, exact, scores)
            moves.sort(key=lambda m: -scores.get(m, -INFINITY))
            now = time.perf_counter()
            if settled:
                break
            if seconds is not None and (now - iteration_start) * 3 > self.deadline - now:
                break
        result.nodes = self.nodes
        result.seconds = time.perf_counter() - start
        return result

    def _root(self, position: Position, moves: list[Move], depth: int) -> dict[Move, int]:
        """Score every root turn at ``depth`` (a full window past the best, for a true PV list)."""
        key = position.key
        arisen = self._enter_root(key)
        scores: dict[Move, int] = {}
        best = -INFINITY
        try:
            for move in moves:
                # Turns tying with the best are scored exactly too (so all best turns are
                # listed); worse ones only get an upper bound.
                child = position.play_unchecked(move)
                score = -self._negamax(child, depth - 1, -INFINITY, 1 - best, 1)
                scores[move] = score
                best = max(best, score)
        finally:
            self._seen[key] = arisen
            self._on_path.pop(key, None)
        return scores

    def _enter_root(self, key: Key) -> int:
        """Put the root on the search path; return its arisings before, to restore them."""
        arisen = self._seen.get(key, 0)
        self._seen[key] = max(arisen, self._entered)
        if self._first_return:
            self._on_path[key] = 0
        return arisen

    def _negamax(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes & 1023 and time.perf_counter() > self.deadline:
            raise TimeUp
        h0, h1 = position.hands
        if not (h0 and h1):
            outcome = position.outcome
            assert outcome is not None
            return self._draw_for[position.to_move] if outcome.winner is None else ply - MATE
        key = position.key
        arisen = self._seen.get(key, 0)
        if arisen >= 2:
            if not self._first_return:
                self._returned_to = -1  # the rules' count mixes the game's history and the path
            elif key in self._on_path:
                self._returned_to = min(self._returned_to, self._on_path[key])
            # (else a position the game itself saw twice: a draw on any path)
            return self._draw_for[position.to_move]
        if depth <= 0:
            self._horizon += 1
            return self.evaluate(position)

        entry = self.table.get(key)
        table_move = None
        if entry is not None:
            entry_depth, bound, stored, table_move = entry
            if entry_depth >= depth:
                if entry_depth != COMPLETE:
                    self._horizon += 1  # its score rests on evaluations, not on the end
                score = _from_table(stored, ply)
                if bound == _EXACT:
                    return score
                if bound == _LOWER and score >= beta:
                    return score
                if bound == _UPPER and score <= alpha:
                    return score

        foreseen = None
        if self._expect is not None and position.to_move == self._expect_seat:
            foreseen = self._expect(position)
        moves = [foreseen] if foreseen is not None else self._ordered(position, table_move)
        original_alpha = alpha
        best_score = -INFINITY
        best_move = moves[0]
        returned_to, self._returned_to = self._returned_to, NO_RETURN
        horizon = self._horizon
        self._seen[key] = max(arisen + 1, self._entered)
        if self._first_return:
            self._on_path[key] = ply
        try:
            for move in moves:
                score = -self._negamax(
                    position.play_unchecked(move), depth - 1, -beta, -alpha, ply + 1
                )
                if score > best_score:
                    best_score, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            self.move_history[move.code] += depth * depth
                            break
        finally:
            self._seen[key] = arisen
            if self._first_return:
                del self._on_path[key]

        closed = self._returned_to >= ply
        self._returned_to = min(returned_to, self._returned_to)
        if closed:
            bound = (
                _UPPER if best_score <= original_alpha else _LOWER if best_score >= beta else _EXACT
            )
            stored_depth = COMPLETE if self._horizon == horizon else depth
            self.table[key] = (stored_depth, bound, _to_table(best_score, ply), best_move)
        return best_score

    def _ordered(self, position: Position, first: Move | None) -> list[Move]:
        """Likely-best turns first: the table's move, then forcing turns, then by history.

        A take goes last when there is a choice: it is rarely best.
        """
        me = position.to_move
        theirs = position.hands[1 - me]
        their_beaters = BEATERS[position.trumps[1 - me]]
        history = self.move_history
        moves = list(position.legal_moves())
        take = moves[0] is TAKE  # legal_moves lists a legal take first
        if take:
            del moves[0]
        # Turns whose top card the opponent could not beat force a take: try them early.
        keys = [
            history[m.code] + (0 if theirs & their_beaters[m.cards[-1]] else FORCING) for m in moves
        ]
        ordered = [moves[i] for i in sorted(range(len(moves)), key=keys.__getitem__, reverse=True)]
        if take:
            ordered.append(TAKE)
        if first is not None and first is not ordered[0]:
            ordered.remove(first)
            ordered.insert(0, first)
        return ordered


def _to_table(score: int, ply: int) -> int:
    """Proven scores count plies from the stored node, not from the root."""
    if score >= PROVEN:
        return score + ply
    if score <= -PROVEN:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score >= PROVEN:
        return score - ply
    if score <= -PROVEN:
        return score + ply
    return score


@dataclass
class Proof:
    """A proven value for the player to move, the turns that keep it, and the depth of proof."""

    value: str
    best: list[Move]
    depth: int


def prove(
    position: Position, history: Mapping[Key, int] | None = None, seconds: float = 1.0
) -> Proof | None:
    """Prove the value by search alone, or return ``None`` when ``seconds`` run out.

    Two kinds of search bound the true value: a pessimist, for whom every
    unfinished line at the horizon is lost for the player to move at the root,
    and an optimist, for whom it is won. A win the pessimist finds, a loss the
    optimist finds, and a draw both agree on are exact. Deepening finds the
    shortest proven win.

    Both count a return to a position on their path as a draw, not waiting
    for a third arising: the value under the rules' draw by repetition is the
    value of the game in which endless play is a draw (a position the game
    itself has seen twice is drawn at once). A won side has a plan that never
    repeats a position (every turn brings the end nearer), and a side that can
    hold a draw by returning to a position can keep returning until the rules
    stop the game. Proofs of draws need half the depth so.
    """
    me = position.to_move

    def bad_for_me(p: Position) -> int:
        return -EVAL_LIMIT if p.to_move == me else EVAL_LIMIT

    def good_for_me(p: Position) -> int:
        return EVAL_LIMIT if p.to_move == me else -EVAL_LIMIT

    pessimist = AlphaBeta(history, bad_for_me, first_return_draws=True)
    optimist = AlphaBeta(history, good_for_me, first_return_draws=True)
    deadline = time.perf_counter() + seconds
    key = position.key
    for searcher in (pessimist, optimist):
        searcher.deadline = deadline
        searcher._enter_root(key)
    moves = list(position.legal_moves())
    children = [position.play_unchecked(m) for m in moves]

    def at_least(searcher: AlphaBeta, child: Position, depth: int, bound: int) -> bool:
        """Does ``searcher`` find the child worth at least ``bound`` to the root's mover?"""
        return -searcher._negamax(child, depth - 1, -bound, -bound + 1, 1) >= bound

    try:
        for depth in range(1, 200):
            wins = [
                m
                for m, c in zip(moves, children, strict=True)
                if at_least(pessimist, c, depth, PROVEN)
            ]
            if wins:
                return Proof("win", wins, depth)
            if not any(at_least(optimist, c, depth, -PROVEN + 1) for c in children):
                return Proof("loss", moves, depth)
            holding = [
                m for m, c in zip(moves, children, strict=True) if at_least(pessimist, c, depth, 0)
            ]
            if holding and not any(at_least(optimist, c, depth, 1) for c in children):
                return Proof("draw", holding, depth)
    except TimeUp:
        return None
    return None
