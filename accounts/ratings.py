"""How the site rates its players: a Glicko-2 rating (:mod:`accounts.glicko2`) per speed, the
speeds a game's time control falls into, and how a rating is shown.

The constants are the paper's for a player new to a speed (1500, deviation 350, volatility 0.06)
with lichess's system constant, ``tau`` 0.75 (its ``lila.rating.Glicko.tau``; the paper
suggests 0.3 to 1.2). Lichess rates each game as it ends instead of in periods of many games,
and grows a deviation by the time a player was away: its ``ratingPeriodsPerDay`` (0.21436) makes
a deviation of 60 reach 110 in a year at a volatility of 0.06. The site does the same. A rating
whose deviation is 110 or more is provisional (lichess's ``provisionalDeviation``), shown with a
question mark, and kept off the leaderboards.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.glicko2 import Glicko, idle

#: A player's figures in a speed before their first rated game in it.
START = Glicko(1500.0, 350.0, 0.06)
#: The system constant: how far one surprising result may move the volatility.
TAU = 0.75
#: Rating periods a day: the deviation's growth while a player is away (lichess's).
PERIODS_PER_DAY = 0.21436
#: A deviation at or above this marks the rating provisional (lichess's).
PROVISIONAL_DEVIATION = 110.0
#: A player who hears challenges only from players near their rating hears those within this
#: many points of theirs in the game's speed (lichess's rating range around one's own).
NEAR_RATING = 300


class Speed(models.TextChoices):
    """How fast a game is played, by its time control (:func:`speed_of`): a rating each.

    Lichess's estimate of a game's length, the minutes on the clock plus 40 turns' increments,
    sorts the lobby's five time controls as its players expect: 1+1 bullet, 3+2 and 5+3 blitz,
    10+5 and 15+10 rapid (the computer's games in ``arena/`` run longer than 40 turns a side,
    so the increment weighs more in play than in the estimate; the order is the same). No
    control offered reaches lichess's classical (25 minutes estimated), so there is none.

    An untimed game is a speed of its own rather than the slowest clocked one: with no clock a
    player may think as long as they like (until their opponent may claim the game after five
    minutes' silence), a different test from any game on the clock. Lichess keeps its unlimited
    games casual; here untimed is the lobby's default, so it has a rating rather than none.
    """

    BULLET = "bullet", _("Bullet")
    BLITZ = "blitz", _("Blitz")
    RAPID = "rapid", _("Rapid")
    UNTIMED = "untimed", _("Untimed")


#: The estimated length (seconds) below which a game is bullet, then blitz (lichess's bounds).
_BULLET_BELOW = 180
_BLITZ_BELOW = 480


def speed_of(initial_seconds: int | None, increment: int) -> Speed:
    """The speed of a game with ``initial_seconds`` on each clock (``None``: untimed) and
    ``increment`` seconds a turn."""
    if initial_seconds is None:
        return Speed.UNTIMED
    estimate = initial_seconds + 40 * increment
    if estimate < _BULLET_BELOW:
        return Speed.BULLET
    if estimate < _BLITZ_BELOW:
        return Speed.BLITZ
    return Speed.RAPID


def periods_between(since: datetime | None, until: datetime) -> float:
    """The rating periods from a player's last rated game ``since`` (``None``: never) to
    ``until``."""
    if since is None:
        return 0.0
    return max(timedelta(0), until - since) / timedelta(days=1) * PERIODS_PER_DAY


def as_of(glicko: Glicko, rated_at: datetime | None, now: datetime) -> Glicko:
    """A rating last changed at ``rated_at`` as it stands at ``now``: its deviation grown by the
    time passed, never beyond a newcomer's."""
    return idle(glicko, periods_between(rated_at, now), ceiling=START.deviation)


def is_provisional(deviation: float) -> bool:
    return deviation >= PROVISIONAL_DEVIATION


def shown(rating: float, provisional: bool) -> str:
    """A rating as every page writes it: whole points, ``?`` while provisional (``1500?``)."""
    return f"{round(rating)}{'?' if provisional else ''}"


def signed(change: int) -> str:
    """A rating's change as the result writes it: ``+12``, ``±0``, and a loss with a minus sign
    (U+2212), not a hyphen."""
    if change > 0:
        return f"+{change}"
    return f"\N{MINUS SIGN}{-change}" if change < 0 else "\N{PLUS-MINUS SIGN}0"
