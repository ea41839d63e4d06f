"""The analyses as durable tasks: a chain of short steps, each a task of its own, so that an
analysis resumes where it stopped and a worker serves several in turn. The workers' recovery runs
:func:`resume_analyses` (``settings.SERVING_TASK_RECOVERIES``) for an analysis left with no step
pending."""

from __future__ import annotations

import logging

from django.utils import timezone
from django_tasks import task

from archive import analysis
from archive.models import Analysis
from game import background
from game.tasks import GRACE, pending

log = logging.getLogger(__name__)

ANALYSIS_QUEUE = "analysis"


@task(queue_name=ANALYSIS_QUEUE)
def analysis_step(analysis_id: int) -> None:
    """One step of an analysis; the next step is a task of its own."""
    if analysis.step(analysis_id):
        ask_for_analysis(analysis_id)


def ask_for_analysis(analysis_id: int) -> None:
    analysis_step.enqueue(analysis_id)


def resume_analyses() -> int:
    """Resume every queued or running analysis that has no step pending."""
    quiet = timezone.now() - GRACE
    lost = (
        Analysis.objects.filter(status__in=(Analysis.Status.QUEUED, Analysis.Status.RUNNING))
        .filter(updated_at__lt=quiet)
        .exclude(pk__in=pending(analysis_step))
        .values_list("pk", flat=True)
    )
    for analysis_id in lost:
        ask_for_analysis(analysis_id)
    if lost:
        log.warning("resumed %s analysis(es)", len(lost))
    return len(lost)


background.answer(background.ANALYSIS_STEP, ask_for_analysis)
