"""Background work as durable tasks (django-tasks, stored in the database): the computer's
replies and the clocks' flags here, the analyses in :mod:`archive.tasks`, and what every task
worker does to recover lost work.

A service that leaves the computer to move asks for its reply once its commit
lands (:data:`game.background.REPLY`); the task is a row, due after the
deliberate pause, that a worker process (:mod:`game.workers`) claims and runs.

Nothing is lost with a process: every worker, when it starts and every few
seconds, runs :func:`recover`. It marks failed the tasks whose worker died
mid-run, then runs each of its queues' recoveries (:func:`recovers`), which ask
again for every reply, flag check or analysis that has none pending. A
duplicate is harmless: a reply for a ply the game has left is refused by the
services, and an analysis step already stored is skipped.

A timed game ends on time whether or not anyone watches it: a flag check is
due at the earliest moment a flag can fall (:func:`game.selectors.next_flag_check`)
and, while the game goes on, asks for the next.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

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
#: A task on another machine still running after this long is taken to have died with its worker
#: (every task is short: a reply thinks at most ``PERFECT_SECONDS``, an analysis step about a
#: second). On this machine a dead worker is seen at once, by its process id.
STALE_AFTER = timedelta(seconds=60)
#: A game or analysis that has been waiting this long with no task pending gets one. Its own
#: request is enqueued within milliseconds of the commit; this only catches what a crash lost.
GRACE = timedelta(seconds=2)
_PENDING = (TaskResultStatus.READY, TaskResultStatus.RUNNING)
#: Finished tasks are kept this long (the admin shows them; ``reply_latency`` reads them), then
#: deleted by the workers, every ``PRUNE_EVERY`` seconds.
KEEP_FINISHED = timedelta(days=1)
PRUNE_EVERY = 600.0


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


# --- Recovery after a crash ---------------------------------------------------------------------


def worker_id() -> str:
    """This process as a task worker: ``host:pid:start``, so that a worker on the same machine
    can tell whether it is still alive (a recycled pid has another start time)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{_started(os.getpid())}"


def _started(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), or ``None`` if it is not running."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:  # no /proc here: whether the pid is in use is all we can tell
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return "0"
    return stat.rpartition(")")[2].split()[19]


def _alive(worker: str, started_at: datetime | None, now: datetime) -> bool:
    host, _, rest = worker.partition(":")
    pid, _, start = rest.partition(":")
    if host == socket.gethostname()[:40] and pid.isdigit():
        return _started(int(pid)) == start
    return started_at is not None and now - started_at < STALE_AFTER


def fail_dead_tasks(queues: list[str]) -> int:
    """Mark failed the running tasks whose worker has died; returns how many."""
    now = timezone.now()
    failed = 0
    running = DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING, queue_name__in=queues)
    for found in running.only("worker_ids", "started_at"):
        worker = found.worker_ids[-1] if found.worker_ids else ""
        if _alive(worker, found.started_at, now):
            continue
        # Only if it is still running: the worker may have finished it meanwhile.
        failed += DBTaskResult.objects.filter(pk=found.pk, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.FAILED,
            finished_at=now,
            exception_class_path="game.tasks.WorkerDied",
            traceback=f"The worker {worker} stopped while running this task.",
        )
    if failed:
        log.warning("%s task(s) of queues %s died with their worker", failed, ",".join(queues))
    return failed


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


def prune_finished(queues: list[str]) -> int:
    """Delete the finished tasks of ``queues`` older than :data:`KEEP_FINISHED`."""
    old = timezone.now() - KEEP_FINISHED
    finished = (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)
    found = DBTaskResult.objects.filter(
        queue_name__in=queues, status__in=finished, finished_at__lt=old
    )
    return found.delete()[0]


_pruned_at = -PRUNE_EVERY


#: Each queue's recoveries: what a worker of it runs to ask again for lost work.
_RECOVERIES: dict[str, list[Callable[[], int]]] = {}


def recovers(queue: str, recovery: Callable[[], int]) -> None:
    """A worker of ``queue`` runs ``recovery`` when it starts and every few seconds after."""
    _RECOVERIES.setdefault(queue, []).append(recovery)


def recover(queues: list[str]) -> None:
    """What a worker of ``queues`` runs when it starts and every few seconds after."""
    global _pruned_at
    if time.monotonic() - _pruned_at >= PRUNE_EVERY:
        prune_finished(queues)
        _pruned_at = time.monotonic()
    fail_dead_tasks(queues)
    for queue in queues:
        for recovery in _RECOVERIES.get(queue, ()):
            recovery()


recovers(COMPUTER_QUEUE, ask_for_lost_replies)
recovers(CLOCK_QUEUE, ask_for_lost_flag_checks)
background.answer(background.REPLY, ask_for_reply)
background.answer(background.FLAG_CHECK, ask_for_flag_check)
