"""Glicko-2: a player's rating, its deviation and its volatility after the results of a rating
period, as Mark Glickman's "Example of the Glicko-2 system" (glicko.net) works them out, step by
step. Pure maths, no Django: :mod:`accounts.ratings` says how the site uses it.

Ratings are on the Glicko scale (1500 the centre); the steps work on the Glicko-2 scale,
``(rating - 1500) / SCALE``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The factor between the Glicko and Glicko-2 scales (step 2): 400 / ln 10.
SCALE = 173.7178
#: The paper's convergence tolerance for the new volatility (step 5).
EPSILON = 0.000001


@dataclass(frozen=True, slots=True)
class Glicko:
    """A rating (on the Glicko scale), its deviation, and its volatility."""

    rating: float
    deviation: float
    volatility: float


@dataclass(frozen=True, slots=True)
class Result:
    """One game of the period: the opponent as they stood, and the score (1 a win, 0.5 a draw,
    0 a loss)."""

    opponent: Glicko
    score: float


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(
    player: Glicko,
    results: Sequence[Result],
    *,
    tau: float,
    periods: float = 1.0,
    ceiling: float = math.inf,
) -> Glicko:
    """``player`` after ``results``: the paper's steps 2 to 8, ``tau`` its system constant.

    ``periods`` is how many rating periods passed since the player was last rated, fractions
    allowed: step 6 grows the deviation by ``periods`` times the squared new volatility (the
    paper's one period is ``1``). The deviation so grown is held to ``ceiling`` (on the Glicko
    scale) before the results shrink it. No results: only step 6 (:func:`idle`).
    """
    if not results:
        return idle(player, periods, ceiling=ceiling)
    mu = (player.rating - 1500) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    opponents = [
        ((r.opponent.rating - 1500) / SCALE, r.opponent.deviation / SCALE, r.score) for r in results
    ]
    # Step 3: the estimated variance of the rating from the game outcomes alone.
    v = 1 / sum(
        _g(phi_j) ** 2 * _expected(mu, mu_j, phi_j) * (1 - _expected(mu, mu_j, phi_j))
        for mu_j, phi_j, _ in opponents
    )
    # Step 4: the estimated improvement, from the scores against what was expected.
    surprise = sum(_g(phi_j) * (s - _expected(mu, mu_j, phi_j)) for mu_j, phi_j, s in opponents)
    delta = v * surprise
    sigma_new = _volatility(phi, sigma, v, delta, tau)
    # Step 6: the deviation grows over the periods passed.
    phi_star = min(math.sqrt(phi**2 + periods * sigma_new**2), ceiling / SCALE)
    # Step 7: the results shrink it, and move the rating.
    phi_new = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu_new = mu + phi_new**2 * surprise
    # Step 8: back to the Glicko scale.
    return Glicko(SCALE * mu_new + 1500, SCALE * phi_new, sigma_new)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm the paper gives."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    low = a
    if delta**2 > phi**2 + v:
        high = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = middle, f_middle
    return math.exp(low / 2)


def idle(player: Glicko, periods: float, *, ceiling: float = math.inf) -> Glicko:
    """``player`` after ``periods`` rating periods without a game: the rating and volatility
    stay, the deviation grows (step 6 alone), held to ``ceiling``."""
    phi = player.deviation / SCALE
    grown = math.sqrt(phi**2 + periods * player.volatility**2) * SCALE
    return Glicko(player.rating, min(grown, ceiling), player.volatility)
