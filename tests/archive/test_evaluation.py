"""The replay's grading of turns by the estimate's fall, and its value chart."""

import pytest

from archive.evaluation import chart_of, score, slip_of
from game import engine
from game.ai.review import Note


def note(before, after, *, exact=(False, False), blunder=False, only=False) -> Note:
    return Note(0, 0, "7H", before, after, exact[0], exact[1], blunder, only)


@pytest.mark.parametrize(
    ("before", "after", "kind"),
    [
        (0.3, 0.25, None),
        (0.3, 0.15, "inaccuracy"),
        (0.3, 0.0, "mistake"),
        (0.3, -0.3, "blunder"),
        ("win", 0.2, "blunder"),  # a proven win thrown into an even estimate
        (-0.2, 0.4, None),  # gaining is no slip
    ],
)
def test_a_turn_is_graded_by_how_far_its_players_estimate_fell(before, after, kind):
    exact = (isinstance(before, str), isinstance(after, str))
    slip = slip_of(note(before, after, exact=exact))
    assert (slip.kind if slip else None) == kind


def test_proven_marks_are_left_to_the_exact_review():
    assert slip_of(note("win", "loss", exact=(True, True), blunder=True)) is None
    assert slip_of(note("win", "win", exact=(True, True), only=True)) is None
    assert slip_of(note(None, 0.5)) is None


def test_the_chart_draws_seat_0s_value_with_plus_one_at_the_top():
    start = engine.position_from_json(
        {
            "rules": {"deck": 36, "must_beat": False, "sixes_to_owner": False},
            "trumps": ["S", "H"],
            "hands": [["6S", "7C"], ["KC", "7S"]],
            "pile": [],
            "to_move": 0,
        }
    )
    positions = [start, start.play(engine.Move.parse("7C"))]
    reviews = [{"value": 1.0}, {"value": 1.0}]  # seat 0 sure to win; then seat 1 is
    chart = chart_of(positions, reviews, ply=1, width=100, height=80)
    assert chart is not None
    assert chart.points == "0.0,0.0 100.0,80.0"
    assert (chart.zero, chart.current) == (40.0, 100.0)
    assert score("draw") == 0.0
    assert chart_of(positions, [{"value": 0.5}, None], ply=0) is None  # one point joins nothing
