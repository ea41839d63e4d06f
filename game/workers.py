"""Process pools for the computer's CPU work, and background threads that wait on them.

The search is pure CPU work over the engine: it runs in spawned processes,
away from the web process's event loop and its GIL. Each kind of work has its
own pool, so that a long game analysis never delays a computer's reply.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

_pools: dict[str, ProcessPoolExecutor] = {}
_pools_lock = threading.Lock()


def pool(name: str, workers: int) -> ProcessPoolExecutor:
    """The process pool called ``name``, started on first use with ``workers`` processes."""
    with _pools_lock:
        if name not in _pools:
            # Spawned, not forked: the web process runs threads (the event loop's among them),
            # and a fork could copy a lock some thread holds. The workers need only the engine.
            _pools[name] = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))
        return _pools[name]


def in_background(target: Callable[..., Any], *args: Any, name: str) -> None:
    """Run ``target(*args)`` in a daemon thread: the request that asked returns at once."""
    threading.Thread(target=target, args=args, daemon=True, name=name).start()
