"""A new game before its first turn: its row made from its options and its creator's trump, the
three parts of its deal (the server's secret and each seat's part), and the deal made with the
clocks set running."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from functools import partial

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.ratings import is_provisional
from accounts.selectors import ratings_now
from game import background, engine
from game.engine import fairness
from game.models import Game
from game.options import GameOptions
from game.selectors import set_state
from game.services import GameError


def suit(letter: str) -> str:
    try:
        return engine.Suit.parse(letter).letter
    except engine.EngineError:
        raise GameError(_("Choose a trump suit: spades, hearts, diamonds or clubs.")) from None


def deal_secret() -> str:
    """A secret for a game about to be created, the server's part of its deal: drawn before the
    creator's browser sends its part, when the lobby shows its commitment."""
    return secrets.token_hex(32)


def committed(secret: str = "") -> dict[str, str]:
    """A new game's secret (``secret`` if it is one, from :func:`deal_secret`, else one drawn
    now) and the commitment shown for it."""
    if not fairness.is_part(secret):
        secret = deal_secret()
    return {"secret": secret, "commitment": fairness.commitment(secret)}


def deal_part(part: str) -> tuple[str, bool]:
    """A seat's part of the deal and whether its browser sent it: the server draws one for a
    browser without JavaScript (or sending something not spelled as a part), and the computer."""
    if fairness.is_part(part):
        return part, True
    return secrets.token_hex(32), False


def seed_of(game: Game) -> int:
    """The seed of the game's deal: made from its three parts, once both seats have one; a game
    created before deals could be checked has no secret and keeps its stored seed."""
    if not game.secret:
        return game.seed
    return fairness.seed_of(game.secret, game.part0, game.part1)


def start(game: Game, now: datetime) -> engine.GameState:
    """Deal from the game's seed and set the clocks running; returns the game's first state."""
    game.seed = seed_of(game)
    dealt = engine.deal(game.seed, game.trumps, game.rules, first=game.first_player)
    game.first_player = dealt.to_move
    state = engine.GameState.start(dealt)
    set_state(game, state)
    game.status = Game.Status.ACTIVE
    game.started_at = game.turn_started_at = now
    if game.clock_initial is not None:
        game.clock0_ms = game.clock1_ms = game.clock_initial * 1000
        # The first flag check, due when the first flag could fall; each check asks for the next.
        due = now + timedelta(seconds=game.clock_initial)
        ask = partial(background.ask, background.FLAG_CHECK)
        transaction.on_commit(lambda: ask(game.pk, due), robust=True)
    if game.rated:
        note_ratings(game, now)
    return state


#: The columns of a rated game's ratings as it began (``Game.rating0`` and the rest).
RATING_FIELDS = ["rating0", "rating1", "provisional0", "provisional1"]


def note_ratings(game: Game, now: datetime) -> None:
    """Note on a rated game its players' ratings in its speed as they stand ``now`` (seat 0's
    alone while its seek waits), for the lobby and the table."""
    players = [user_id for user_id in (game.seat0_id, game.seat1_id) if user_id is not None]
    current = ratings_now(players, game.speed, now)
    for seat, user_id in enumerate(players):
        setattr(game, f"rating{seat}", round(current[user_id].rating))
        setattr(game, f"provisional{seat}", is_provisional(current[user_id].deviation))


def new_game(
    user: object, trump: str, options: GameOptions, part: str = "", secret: str = ""
) -> Game:
    """An unsaved game played by ``options``, with its creator in seat 0 and their ``trump``
    checked, the server's ``secret`` (drawn now if none) and seat 0's ``part`` (from its
    browser; drawn by the server if none) of the deal."""
    part0, from_browser = deal_part(part)
    return Game(
        **committed(secret),
        **options.fields(),
        part0=part0,
        part0_from_browser=from_browser,
        seat0=user,
        trump0=suit(trump),
    )
