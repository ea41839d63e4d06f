"""A rating's history as a line, drawn by the server as SVG (``accounts/_rating_chart.html``),
as the replay draws a game's value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class HistoryChart:
    """The ratings in order, as ``points`` in a width by height box: the highest at the top, the
    lowest at the bottom (a margin of ``PAD`` keeps the line whole), one step per change."""

    width: int
    height: int
    points: str
    highest: int
    lowest: int
    first: int
    last: int
    #: How many changes the line joins (one fewer than its points).
    changes: int


#: The box's margin above the highest point and below the lowest.
PAD = 4


def history_chart(
    ratings: Sequence[float], width: int = 300, height: int = 80
) -> HistoryChart | None:
    """The chart of ``ratings`` (the first before any change shown, then after each); ``None``
    with fewer than two to join."""
    if len(ratings) < 2:
        return None
    highest, lowest = max(ratings), min(ratings)
    span = max(highest - lowest, 1.0)  # a flat line sits at the top

    def x(index: int) -> float:
        return round(index * width / (len(ratings) - 1), 2)

    def y(rating: float) -> float:
        return round(PAD + (highest - rating) * (height - 2 * PAD) / span, 2)

    points = " ".join(f"{x(i)},{y(r)}" for i, r in enumerate(ratings))
    return HistoryChart(
        width,
        height,
        points,
        round(highest),
        round(lowest),
        round(ratings[0]),
        round(ratings[-1]),
        len(ratings) - 1,
    )
