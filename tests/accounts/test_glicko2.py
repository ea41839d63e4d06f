"""The Glicko-2 maths (accounts.glicko2) against Glickman's worked example, and its promises as
properties over any ratings; the site's speeds and how a rating is written (accounts.ratings)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.glicko2 import Glicko, Result, idle, rate
from accounts.ratings import TAU, Speed, shown, signed, speed_of
from game.options import TIME_CONTROLS


def test_the_papers_example_player_ends_at_1464_06_151_52_0_05999():
    """Glickman, "Example of the Glicko-2 system": a 1500/200/0.06 player beats a 1400/30, loses
    to a 1550/100 and a 1700/300 in one period, with tau 0.5. The paper rounds as it goes
    (mu' = -0.2069), so its 1464.06 is 1464.0507 worked out whole."""
    after = rate(
        Glicko(1500, 200, 0.06),
        [
            Result(Glicko(1400, 30, 0.06), 1),
            Result(Glicko(1550, 100, 0.06), 0),
            Result(Glicko(1700, 300, 0.06), 0),
        ],
        tau=0.5,
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_grows_only_the_deviation():
    """The paper's step 6 alone: sqrt(phi^2 + sigma^2), back on the Glicko scale."""
    player = Glicko(1500, 200, 0.06)
    grown = idle(player, 1)
    assert (grown.rating, grown.volatility) == (1500, 0.06)
    assert grown.deviation == pytest.approx(math.sqrt((200 / 173.7178) ** 2 + 0.06**2) * 173.7178)
    assert rate(player, [], tau=TAU) == grown
    assert idle(player, 1000, ceiling=350).deviation == 350


ratings = st.floats(min_value=500, max_value=3000)
deviations = st.floats(min_value=30, max_value=350)
volatilities = st.floats(min_value=0.03, max_value=0.1)
players = st.builds(Glicko, ratings, deviations, volatilities)
periods = st.floats(min_value=0, max_value=400)


@given(players, players, periods)
def test_a_win_never_lowers_the_winners_rating_nor_a_loss_raises_the_losers(me, them, idle_for):
    won = rate(me, [Result(them, 1)], tau=TAU, periods=idle_for, ceiling=350)
    lost = rate(me, [Result(them, 0)], tau=TAU, periods=idle_for, ceiling=350)
    assert won.rating > me.rating > lost.rating


@given(ratings, deviations, deviations, volatilities)
def test_a_draw_between_equal_ratings_leaves_both_where_they_were(rating, mine, theirs, sigma):
    me, them = Glicko(rating, mine, sigma), Glicko(rating, theirs, sigma)
    for player, opponent in ((me, them), (them, me)):
        after = rate(player, [Result(opponent, 0.5)], tau=TAU, periods=0)
        assert after.rating == pytest.approx(player.rating, abs=1e-9)


@given(players, players, st.sampled_from([0, 0.5, 1]))
def test_a_game_shrinks_the_deviation(me, them, score):
    """With no time away, a game can only make the rating surer."""
    after = rate(me, [Result(them, score)], tau=TAU, periods=0)
    assert after.deviation < me.deviation
    assert math.isfinite(after.volatility) and after.volatility > 0


@given(players, players, st.sampled_from([0, 0.5, 1]), periods)
def test_time_away_makes_a_game_move_the_rating_more(me, them, score, away):
    """A deviation grown by time away: the same result moves the rating as far or farther."""
    fresh = rate(me, [Result(them, score)], tau=TAU, periods=0)
    rusty = rate(me, [Result(them, score)], tau=TAU, periods=away, ceiling=350)
    assert abs(rusty.rating - me.rating) >= abs(fresh.rating - me.rating) - 1e-9


def test_the_lobbys_time_controls_fall_into_bullet_blitz_and_rapid():
    speeds = {f"{m}+{i}": speed_of(m * 60, i) for m, i in TIME_CONTROLS}
    assert speeds == {
        "1+1": Speed.BULLET,
        "3+2": Speed.BLITZ,
        "5+3": Speed.BLITZ,
        "10+5": Speed.RAPID,
        "15+10": Speed.RAPID,
    }
    assert speed_of(None, 0) == Speed.UNTIMED


def test_a_rating_is_written_whole_with_a_question_mark_while_provisional():
    assert (shown(1499.5, True), shown(1623.4, False)) == ("1500?", "1623")
    assert (signed(12), signed(-9), signed(0)) == ("+12", "\N{MINUS SIGN}9", "\N{PLUS-MINUS SIGN}0")
