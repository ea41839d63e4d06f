"""Where a task's CPU work (a search, a review) runs is the server's to say, not the game's:
:func:`run` hands it to the function ``settings.CPU_RUNNER`` names (the serving package's,
which sends it to a child process under a web server's embedded task workers and runs it in
place in a ``db_worker``). What is sent must need no Django: a function of ``game.ai``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.utils.module_loading import import_string

T = TypeVar("T")


def run(kind: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)``, run where the server runs ``kind`` of work."""
    runner: Callable[..., T] = import_string(settings.CPU_RUNNER)
    return runner(kind, function, *args, **kwargs)
