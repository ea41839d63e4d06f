"""The replay's reading of the computer's values: slips by the estimate's drop, and the chart.

A value is a proven result (``"win"``, ``"draw"``, ``"loss"``) or an estimate from -1 (a sure
loss) to +1 (a sure win). Proven blunders and only moves keep their exact marks (``??``, ``!``,
:func:`game.ai.review.annotate`); a turn that lost ground only by the estimate is an inaccuracy,
a mistake or a blunder by how far its player's value fell, as a chess site grades them by the
fall of the winning chances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _

from game import engine
from game.ai.review import Note, Value, seen_by

#: The falls (on the -1..+1 scale, twice a chess site's winning chances) that make each slip,
#: worst first: a blunder throws away a quarter of the game's span, a mistake an eighth.
SLIPS = (
    (0.5, "blunder", _("Blunder (by the estimate)"), "(??)"),
    (0.25, "mistake", _("Mistake"), "?"),
    (0.12, "inaccuracy", _("Inaccuracy"), "?!"),
)


@dataclass(frozen=True)
class Slip:
    """A turn that lost ground by the estimate: its kind, words and mark, and the fall."""

    kind: str
    label: str
    mark: str
    fall: float


def score(value: Value) -> float:
    """A value on the estimate's scale: a proven win +1, a draw 0, a loss -1."""
    if isinstance(value, str):
        return {"win": 1.0, "draw": 0.0, "loss": -1.0}[value]
    return float(value)


def slip_of(note: Note | None) -> Slip | None:
    """How much ``note``'s turn lost by the estimate; ``None`` for a proven note (its marks are
    exact), an unanalysed turn, or one that lost too little to grade."""
    if note is None or note.before is None or note.after is None or note.blunder or note.only:
        return None
    if note.exact_before and note.exact_after:
        return None  # proven both sides and no blunder: nothing was lost
    fall = score(note.before) - score(note.after)
    for least, kind, label, mark in SLIPS:
        if fall >= least:
            return Slip(kind, str(label), mark, fall)
    return None


@dataclass(frozen=True)
class Chart:
    """The game's value for seat 0 after each ply, drawn as an SVG line (``_value_chart.html``):
    ``points`` in a width by height box, +1 at the top; ``current`` the x of the step shown."""

    width: int
    height: int
    points: str
    area: str
    current: float
    zero: float


def chart_of(
    positions: Sequence[engine.Position],
    reviews: Sequence[dict[str, Any] | None],
    ply: int,
    final: Value | None = None,
    width: int = 300,
    height: int = 80,
) -> Chart | None:
    """The chart of the analysed plies (``reviews[k]`` for the position before ply ``k``, for the
    player to move then); ``final`` is the ended game's result for seat 0. ``None`` with fewer
    than two values to join."""
    last = max(1, len(positions) - 1)
    found: list[tuple[int, float]] = []
    for index, review in enumerate(reviews[: len(positions)]):
        if review is not None:
            value = seen_by(0, positions[index].to_move, review["value"])
            found.append((index, score(value)))
    if final is not None and (not found or found[-1][0] < len(positions) - 1):
        found.append((len(positions) - 1, score(final)))
    if len(found) < 2:
        return None

    def x(index: int) -> float:
        return round(index * width / last, 2)

    def y(value: float) -> float:
        return round((1 - max(-1.0, min(1.0, value))) * height / 2, 2)

    line = " ".join(f"{x(i)},{y(v)}" for i, v in found)
    zero = y(0)
    area = f"{x(found[0][0])},{zero} {line} {x(found[-1][0])},{zero}"
    return Chart(width, height, line, area, x(ply), zero)
