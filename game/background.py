"""The one door between the services and the background work: a service asks for a request by
name here, once its commit has landed, and the task modules (:mod:`game.tasks`,
:mod:`archive.tasks`), which run the services, answer. Neither side imports the other: the task
modules register their answers when their app is ready.
"""

from __future__ import annotations

from collections.abc import Callable

#: The computer's turn: ``(game_id, ply)``, after its deliberate pause.
REPLY = "reply"
#: Whether a flag has fallen: ``(game_id, due)``, at ``due``.
FLAG_CHECK = "flag check"
#: The next step of an analysis: ``(analysis_id,)``.
ANALYSIS_STEP = "analysis step"

_answers: dict[str, Callable[..., None]] = {}


def answer(request: str, run: Callable[..., None]) -> None:
    """How ``request`` is carried out from now on."""
    _answers[request] = run


def ask(request: str, *args: object) -> None:
    """Carry out ``request`` with ``args``."""
    run = _answers.get(request)
    if run is None:
        raise RuntimeError(f"nothing answers {request!r}: is the app of its tasks installed?")
    run(*args)
