"""The one door between the services and the background work: a service asks for a task here,
and :mod:`game.tasks`, which runs the services, answers. Neither module imports the other: the
tasks register themselves when the game app is ready (``GameConfig.ready``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Worker(Protocol):
    """What the services may ask of the background work, each once their commit has landed."""

    def ask_for_reply(self, game_id: int, ply: int) -> None:
        """The computer's turn ``ply`` of ``game_id``, after its deliberate pause."""

    def ask_for_analysis(self, analysis_id: int) -> None:
        """The next step of an analysis."""

    def ask_for_flag_check(self, game_id: int, due: datetime) -> None:
        """Whether a flag of ``game_id`` has fallen, at ``due``."""


_worker: Worker | None = None


def register(worker: Worker) -> None:
    global _worker
    _worker = worker


def worker() -> Worker:
    """The registered background work (:mod:`game.tasks`)."""
    if _worker is None:
        raise RuntimeError("no background work registered: is the game app installed?")
    return _worker
