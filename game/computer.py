"""The computer's replies, computed away from the web process's event loop and its GIL.

A person's move that leaves the computer to play schedules a reply: a
thread waits a short pause (so a person can follow), asks a process pool for
the turn (``ai.choose_move`` is pure CPU work over the engine), and records
it through the services, which tell the viewers.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from game import ai, services

log = logging.getLogger(__name__)

_pool: ProcessPoolExecutor | None = None
_pool_lock = threading.Lock()


def _search_pool() -> ProcessPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            # Spawned, not forked: the web process runs threads (the event loop's among them),
            # and a fork could copy a lock some thread holds. The workers need only the engine.
            _pool = ProcessPoolExecutor(
                max_workers=settings.COMPUTER_WORKERS, mp_context=get_context("spawn")
            )
        return _pool


def choose_in_pool(*args: Any, **kwargs: Any) -> str:
    """``ai.choose_move`` in the search pool, waiting for its answer."""
    return _search_pool().submit(ai.choose_move, *args, **kwargs).result()


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
    threading.Thread(
        target=reply, args=(game_id, settings.COMPUTER_PAUSE), daemon=True, name=f"reply-{game_id}"
    ).start()
