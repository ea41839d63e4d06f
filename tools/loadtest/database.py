"""What a run does through the server's own database and settings, in this process: players
made in bulk with minted sessions (``--players db``), games played on to a ply through the
site's services (``--start-ply``), and the stored games checked after the play. Synchronous ORM
work, off the event loop; Django is imported only when it runs."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tools.loadtest.config import LoadTestError

if TYPE_CHECKING:
    from game.engine import GameState
    from game.engine import Move as EngineMove

#: ``--start-ply`` says how far it got after this many games.
PRELUDE_PROGRESS_GAMES = 50


def make_players_in_db(names: Sequence[str], password: str) -> dict[str, str]:
    """Create the players that are missing in one bulk insert and log each in by minting a
    session; returns each name's session key. Needs the server's own database and settings."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.auth.hashers import make_password
    from django.db import transaction
    from django.utils.module_loading import import_string

    from accounts import backends

    user_model = get_user_model()
    session_store = import_string(settings.SESSION_ENGINE + ".SessionStore")
    hashed = make_password(password)  # one hash for every player: it is the slow part
    with transaction.atomic():
        existing = set(
            user_model.objects.filter(username__in=names).values_list("username", flat=True)
        )
        user_model.objects.bulk_create(
            [user_model(username=name, password=hashed) for name in names if name not in existing]
        )
        keys: dict[str, str] = {}
        for user in user_model.objects.filter(username__in=names):
            session = session_store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = backends.PATH
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            keys[user.username] = session.session_key
    return keys


def database_checks(
    game_ids: Sequence[int], socket_versions: Mapping[int, Sequence[int]]
) -> list[str]:
    """Check the stored games after a run (same database as the server): each socket's last
    table carried the game's stored ``version``, and the position kept with each game is the one
    its move log replays to (``selectors.check_state``)."""
    from game.models import Game
    from game.selectors import check_state

    problems = []
    for game in Game.objects.filter(pk__in=game_ids).order_by("pk"):
        seen = socket_versions.get(game.pk, [])
        if any(version != game.version for version in seen):
            problems.append(f"game {game.pk}: version {game.version}, sockets saw {list(seen)}")
        try:
            if not check_state(game):
                problems.append(f"game {game.pk}: the stored position is not the replayed log's")
        except ValueError as error:
            problems.append(f"game {game.pk}: its move log does not replay: {error}")
    return problems


@dataclass(frozen=True, slots=True)
class Prelude:
    """What :func:`play_to_ply` did: the games it played on, the turns it made, the games it
    stopped short of the ply (every turn there would have ended them), and how long it took."""

    games: int
    turns: int
    short: int
    seconds: float


def going_on(state: GameState, rng: random.Random) -> EngineMove | None:
    """A legal turn of ``state``, picked at random, after which the game goes on; ``None`` when
    every turn ends it. ``state`` must count every position the game passed (repetitions)."""
    moves = state.legal_moves()
    for index in rng.sample(range(len(moves)), len(moves)):
        if state.play(moves[index]).outcome is None:
            return moves[index]
    return None


def play_to_ply(
    game_ids: Sequence[int], ply: int, rng: random.Random, say: Callable[[str], None]
) -> Prelude:
    """Play each game to ``ply`` through the site's services in this process, a random turn
    that does not end it at a time, each made by the player to move as a POST would
    (``game_play_move`` on the row read afresh): so that a run starts on long games (long logs,
    many positions counted) without minutes of play over sockets first. Needs the server's
    settings and database (``--players db``); synchronous ORM work, to be run off the loop."""
    from django.db import connection

    from game.models import Game
    from game.selectors import stored_state
    from game.services import GameError
    from game.services.play import game_play_move

    started = time.monotonic()
    turns = short = 0
    try:
        for done, game_id in enumerate(game_ids, 1):
            tracked: GameState | None = None  # as played here: every position passed counted
            while True:
                game = Game.objects.select_related("seat0", "seat1").get(pk=game_id)
                if game.is_timed:  # the load test's seeks are untimed: no clock runs out here
                    raise LoadTestError(f"game {game_id} is timed: --start-ply plays untimed games")
                if game.status != Game.Status.ACTIVE:
                    short += 1
                    break
                state = stored_state(game)
                if state.ply >= ply:
                    break
                if tracked is None or tracked.ply != state.ply:
                    tracked = state
                move = going_on(tracked, rng)
                if move is None:
                    short += 1
                    break
                seat = state.position.to_move
                try:
                    game_play_move(
                        game_id=game_id,
                        user=game.seat0 if seat == 0 else game.seat1,
                        notation=str(move),
                        expected_ply=state.ply,
                    )
                except GameError as error:
                    raise LoadTestError(
                        f"game {game_id}: the turn {move} at ply {state.ply} was refused: {error}"
                    ) from None
                tracked = tracked.play(move)
                turns += 1
            if done % PRELUDE_PROGRESS_GAMES == 0 or done == len(game_ids):
                say(
                    f"  played to ply {ply} in {done} of {len(game_ids)} games ({turns} turns, "
                    f"{time.monotonic() - started:.1f} s)"
                    + (f"; {short} stopped short: every turn would end them" if short else "")
                )
    finally:
        connection.close()  # this thread's: it plays no more
    return Prelude(len(game_ids), turns, short, time.monotonic() - started)
