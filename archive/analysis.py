"""The computer's review of a game, a step at a time, each step stored as it comes.

A step reviews one position (``game.ai.review``), or, once every position is
reviewed, checks one turn that kept a proven result for being the only one
that did. Each step is a task of its own (:func:`archive.tasks.analysis_step`):
the viewer shows progress, a worker serves several analyses in turn, and an
analysis stopped by a crash resumes at its next step.
"""

from __future__ import annotations

import logging

from archive import services
from archive.models import Analysis
from archive.replays import replay_of_analysis
from game import cpu
from game.ai.review import annotate, only_turn, review_position
from game.engine import position_to_json

log = logging.getLogger(__name__)


def step(analysis_id: int) -> bool:
    """Do the analysis's next step; returns whether steps are left. A failure ends it, failed."""
    try:
        return _step(analysis_id)
    except Exception as error:
        log.exception("analysis %s failed", analysis_id)
        services.analysis_finish(analysis_id=analysis_id, error=str(error) or repr(error))
        return False


def run(analysis_id: int) -> None:
    """Every step, here and now (for tests and tools; the site runs them as tasks)."""
    while step(analysis_id):
        pass


def _step(analysis_id: int) -> bool:
    analysis = Analysis.objects.get(pk=analysis_id)
    if not analysis.running:
        return False
    history = replay_of_analysis(analysis).history
    start = position_to_json(history.start)
    turns = [str(m) for m in history.moves]
    # Every position a player had to move in: the last only if the game did not end there.
    reviewed = len(turns) + (history.outcome is None)
    ply = len(analysis.positions)
    if ply < reviewed:
        services.analysis_start(analysis_id=analysis_id, total=reviewed + len(analysis.only))
        review = cpu.run("analysis", review_position, start, turns[:ply], analysis.seconds)
        return services.analysis_store_position(analysis_id=analysis_id, ply=ply, review=review)
    kept = [
        note.ply
        for note in annotate(history, analysis.positions)
        if note.exact_before
        and note.exact_after
        and note.before == note.after != "loss"
        and str(note.ply) not in analysis.only
    ]
    if not kept:
        services.analysis_finish(analysis_id=analysis_id)
        return False
    total = reviewed + len(analysis.only) + len(kept)
    services.analysis_start(analysis_id=analysis_id, total=total)
    only = cpu.run("analysis", only_turn, start, turns, kept[0], analysis.seconds / 4)
    return services.analysis_store_only(analysis_id=analysis_id, ply=kept[0], only=only)
