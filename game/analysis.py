"""The computer's review of a game, run in the background and stored step by step.

A thread walks the game's positions, asks the analysis pool
(:mod:`game.workers`) to review each (``game.ai.review``), and stores every
answer through the services as it comes, so the viewer can show progress and
a restarted analysis resumes where it stopped. Then each turn that kept a
proven result is checked for being the only one that did.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from game import services, workers
from game.ai.review import annotate, only_turn, review_position
from game.engine import position_to_json
from game.models import Analysis
from game.replays import replay_of_analysis

log = logging.getLogger(__name__)

#: Runs a review function and returns its answer: in the pool, or in-process.
Runner = Callable[..., Any]


def in_pool(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` in the analysis pool, waiting for its answer."""
    pool = workers.pool("analysis", settings.ANALYSIS_WORKERS)
    return pool.submit(function, *args).result()


def run(analysis_id: int, runner: Runner = in_pool) -> None:
    """Analyse every position of the game, then check its kept results for only moves."""
    try:
        _run(analysis_id, runner)
    except Exception as error:
        log.exception("analysis %s failed", analysis_id)
        services.analysis_finish(analysis_id=analysis_id, error=str(error) or repr(error))


def _run(analysis_id: int, runner: Runner) -> None:
    analysis = Analysis.objects.get(pk=analysis_id)
    replay = replay_of_analysis(analysis)
    history = replay.history
    start = position_to_json(history.start)
    turns = [str(m) for m in history.moves]
    # Every position a player had to move in: the last only if the game did not end there.
    reviewed = len(turns) + (history.outcome is None)
    services.analysis_start(analysis_id=analysis_id, total=reviewed + len(analysis.only))
    seconds = analysis.seconds
    for ply in range(len(analysis.positions), reviewed):
        review = runner(review_position, start, turns[:ply], seconds)
        services.analysis_store_position(analysis_id=analysis_id, ply=ply, review=review)
    analysis.refresh_from_db()
    kept = [
        note.ply
        for note in annotate(history, analysis.positions)
        if note.exact_before
        and note.exact_after
        and note.before == note.after != "loss"
        and str(note.ply) not in analysis.only
    ]
    for number, ply in enumerate(kept):
        only = runner(only_turn, start, turns, ply, seconds / 4)
        more = len(kept) if number == 0 else 0
        services.analysis_store_only(analysis_id=analysis_id, ply=ply, only=only, more_to_do=more)
    services.analysis_finish(analysis_id=analysis_id)


def _in_thread(analysis_id: int) -> None:
    try:
        run(analysis_id)
    finally:
        close_old_connections()  # this thread's own connection


def start(analysis_id: int) -> None:
    """Run the analysis in a background thread: the request that asked returns at once."""
    workers.in_background(_in_thread, analysis_id, name=f"analysis-{analysis_id}")
