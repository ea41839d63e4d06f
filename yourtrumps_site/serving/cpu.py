"""Where the background tasks' CPU work runs: in this process, or in a child of a web server.

A worker process (``manage.py db_worker``) searches in its own process: it is
away from every event loop already. A web server's embedded workers are threads
of the web process (:mod:`yourtrumps_site.serving.workers`), so that the moves
they record are published from there (the in-memory channel layer reaches only
its own process's sockets); their searches and reviews go to a child process
instead (one per kind of work, so a long analysis never delays a reply), away
from the event loop and its GIL. A child dies with its parent, even when the
parent is killed (:mod:`yourtrumps_site.serving.parent_death`).

The apps reach :func:`run` by its name in ``settings.CPU_RUNNER`` (``game.cpu``); the work
they send is a function of theirs that needs no Django, since the children import none.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any, TypeVar

from yourtrumps_site.serving.parent_death import die_with_parent

T = TypeVar("T")

_pools: dict[str, ProcessPoolExecutor] = {}
_lock = threading.Lock()
_in_children = False


def use_children() -> None:
    """From now on, :func:`run` sends the work to child processes (a web server's workers)."""
    global _in_children
    _in_children = True


def run(kind: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)``, here or in the child process for ``kind`` of work."""
    if not _in_children:
        return function(*args, **kwargs)
    with _lock:
        pool = _pools.get(kind)
        if pool is None:
            # Spawned, not forked: the web process runs threads, and a fork could copy a lock
            # one of them holds. The children need only the engine and the AI.
            pool = _pools[kind] = ProcessPoolExecutor(
                max_workers=1,
                mp_context=get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
    return pool.submit(function, *args, **kwargs).result()
