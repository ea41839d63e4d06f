"""The computer's replies, computed away from the web process's event loop and its GIL.

A person's move that leaves the computer to play schedules a reply: a
thread waits a short pause (so a person can follow), asks a process pool
(:mod:`game.workers`) for the turn, and records it through the services,
which tell the viewers.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from game import ai, services, workers

log = logging.getLogger(__name__)


def choose_in_pool(*args: Any, **kwargs: Any) -> str:
    """``ai.choose_move`` in the search pool, waiting for its answer."""
    moves = workers.pool("moves", settings.COMPUTER_WORKERS)
    return moves.submit(ai.choose_move, *args, **kwargs).result()


def reply(game_id: int, pause: float = 0.0) -> None:
    """Play the computer's turn in ``game_id``, if it is the computer's move."""
    time.sleep(pause)
    try:
        services.game_play_computer_move(game_id=game_id, choose=choose_in_pool)
    except services.GameError as error:
        log.info("computer reply in game %s refused: %s", game_id, error)
    finally:
        close_old_connections()


def schedule_reply(game_id: int) -> None:
    """Answer in the background (a daemon thread); the request returns at once."""
    workers.in_background(reply, game_id, settings.COMPUTER_PAUSE, name=f"reply-{game_id}")
