"""Background work as durable tasks (django-tasks, stored in the database): the computer's
replies and the clocks' flags here, the analyses in :mod:`archive.tasks`.

A service that leaves the computer to move asks for its reply once its commit
lands (:data:`game.background.REPLY`); the task is a row, due after the
deliberate pause, that a task worker (``manage.py db_worker``, or ``runserver``'s
embedded ones) claims and runs.

Nothing is lost with a process: every worker, when it starts and every few
seconds, marks failed the tasks whose worker died mid-run, then runs its
queues' recoveries (the functions ``settings.SERVING_TASK_RECOVERIES`` names:
:func:`ask_for_lost_replies`, :func:`ask_for_lost_flag_checks` and
:func:`archive.tasks.resume_analyses`), which ask again for every reply, flag
check or analysis that has none pending. A duplicate is harmless: a reply for a
ply the game has left is refused by the services, and an analysis step already
stored is skipped.

A timed game ends on time whether or not anyone watches it: a flag check is
due at the earliest moment a flag can fall (:func:`game.selectors.next_flag_check`)
and, while the game goes on, asks for the next.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks import task
from django_tasks.base import Task, TaskResultStatus
from django_tasks_db.models import DBTaskResult

from game import background, computer
from game.models import Game
from game.selectors import next_flag_check, stored_state
from game.services.endings import game_claim_timeout

log = logging.getLogger(__name__)

COMPUTER_QUEUE = "computer"
#: Flag checks have a queue of their own: a search on the computer's never delays one.
CLOCK_QUEUE = "clock"
#: A game or analysis that has been waiting this long with no task pending gets one. Its own
#: request is enqueued within milliseconds of the commit; this only catches what a crash lost.
GRACE = timedelta(seconds=2)
_PENDING = (TaskResultStatus.READY, TaskResultStatus.RUNNING)


@task(queue_name=COMPUTER_QUEUE, priority=10)  # before analyses, for a worker serving both
def computer_reply(game_id: int, ply: int) -> None:
    """The computer plays turn ``ply`` of ``game_id``, if the game still waits for it."""
    computer.reply(game_id, ply)


@task(queue_name=CLOCK_QUEUE)
def flag_check(game_id: int) -> None:
    """End ``game_id`` on time if the player to move has run out; else check again when a flag
    next can fall."""
    game = game_claim_timeout(game_id=game_id)
    due = next_flag_check(game, timezone.now())
    if due is not None:
        ask_for_flag_check(game_id, due)


def ask_for_flag_check(game_id: int, due: datetime) -> None:
    flag_check.using(run_after=due).enqueue(game_id)


def ask_for_reply(game_id: int, ply: int) -> None:
    """Queue the computer's reply for turn ``ply``, due once the deliberate pause has passed."""
    due = timezone.now() + timedelta(seconds=settings.COMPUTER_PAUSE)
    computer_reply.using(run_after=due).enqueue(game_id, ply)


# --- What a crash lost, asked for again (the workers' recoveries) -------------------------------


def pending(of: Task[..., None]) -> set[int]:
    """The first arguments (game or analysis ids) of the pending runs of a task."""
    rows = DBTaskResult.objects.filter(task_path=of.module_path, status__in=_PENDING).values_list(
        "args_kwargs", flat=True
    )
    return {row["args"][0] for row in rows if row.get("args")}


def ask_for_lost_replies() -> int:
    """Ask again for the reply of every game where the computer is to move and none is pending."""
    quiet = timezone.now() - GRACE
    games = (
        # The stored state says whose turn it is: games where a person is thinking, nearly all
        # of them, are not even read.
        Game.objects.filter(
            status=Game.Status.ACTIVE, turn_started_at__lt=quiet, state__position__to_move=1
        )
        .exclude(ai_level="")
        .exclude(pk__in=pending(computer_reply))
    )
    asked = 0
    for game in games.only("pk", "state"):
        state = stored_state(game)
        if state.outcome is None:
            computer_reply.enqueue(game.pk, state.ply)  # the pause is long past: due now
            asked += 1
    if asked:
        log.warning("asked again for the computer's reply in %s game(s)", asked)
    return asked


def ask_for_lost_flag_checks() -> int:
    """Ask for a flag check in every timed game in play that has none pending (one that began
    before its check was committed, or whose check died with its worker): due now, it asks for
    the next."""
    games = (
        Game.objects.filter(status=Game.Status.ACTIVE, clock_initial__isnull=False)
        .filter(started_at__lt=timezone.now() - GRACE)
        .exclude(pk__in=pending(flag_check))
        .values_list("pk", flat=True)
    )
    for game_id in games:
        flag_check.enqueue(game_id)
    if games:
        log.warning("asked again for the flag check of %s game(s)", len(games))
    return len(games)


background.answer(background.REPLY, ask_for_reply)
background.answer(background.FLAG_CHECK, ask_for_flag_check)
