"""What every task worker runs to recover lost work: on start and every :data:`RECOVER_EVERY`
seconds, in a thread beside it (:func:`start_recovery`).

A round (:func:`recover`) marks failed the tasks whose worker died mid-run
(:func:`fail_dead_tasks`), deletes the finished tasks older than :data:`KEEP_FINISHED`, then
runs its queues' recoveries: the apps' functions that ask again for every reply, flag check or
analysis left with no task pending. The site names them by queue in
``settings.SERVING_TASK_RECOVERIES``, as Django names middleware: this package imports no app.

A worker's id says where it runs (``host:pid:start``, :func:`worker_id`), so that a worker on
the same machine sees at once whether another is alive; one elsewhere is taken to have died
when its task has run for :data:`STALE_AFTER`. The tasks are django-tasks-db's rows
(``DBTaskResult``), read and written here past its backend's API.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

log = logging.getLogger(__name__)

#: A task on another machine still running after this long is taken to have died with its worker
#: (every task is short: a reply thinks at most ``PERFECT_SECONDS``, an analysis step about a
#: second). On this machine a dead worker is seen at once, by its process id.
STALE_AFTER = timedelta(seconds=60)
#: Finished tasks are kept this long (the admin shows them; ``reply_latency`` reads them), then
#: deleted by the workers, every ``PRUNE_EVERY`` seconds.
KEEP_FINISHED = timedelta(days=1)
PRUNE_EVERY = 600.0
#: How often a worker's recovery runs :func:`recover` (besides on start).
RECOVER_EVERY = 3.0


class WorkerDied(Exception):
    """What a task that died with its worker is recorded as having raised."""


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
            exception_class_path=f"{WorkerDied.__module__}.{WorkerDied.__qualname__}",
            traceback=f"The worker {worker} stopped while running this task.",
        )
    if failed:
        log.warning("%s task(s) of queues %s died with their worker", failed, ",".join(queues))
    return failed


def prune_finished(queues: list[str]) -> int:
    """Delete the finished tasks of ``queues`` older than :data:`KEEP_FINISHED`."""
    old = timezone.now() - KEEP_FINISHED
    finished = (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)
    found = DBTaskResult.objects.filter(
        queue_name__in=queues, status__in=finished, finished_at__lt=old
    )
    return found.delete()[0]


def recoveries(queue: str) -> list[Callable[[], int]]:
    """The functions ``settings.SERVING_TASK_RECOVERIES`` names for ``queue``."""
    return [import_string(path) for path in settings.SERVING_TASK_RECOVERIES.get(queue, ())]


_pruned_at = -PRUNE_EVERY


def recover(queues: list[str]) -> None:
    """What a worker of ``queues`` runs when it starts and every few seconds after."""
    global _pruned_at
    if time.monotonic() - _pruned_at >= PRUNE_EVERY:
        prune_finished(queues)
        _pruned_at = time.monotonic()
    fail_dead_tasks(queues)
    for queue in queues:
        for recovery in recoveries(queue):
            recovery()


def recover_now(queues: list[str]) -> None:
    """One round of :func:`recover`, logging rather than raising what goes wrong: it is tried
    again a round later."""
    try:
        close_old_connections()
        recover(queues)
    except Exception:
        log.exception("task recovery of %s: trying again in %s s", ",".join(queues), RECOVER_EVERY)


def start_recovery(queues: list[str]) -> threading.Thread:
    """Run :func:`recover_now` for ``queues`` now and every :data:`RECOVER_EVERY` seconds, in a
    daemon thread of this process (it ends with the process)."""

    def loop() -> None:
        while True:
            recover_now(queues)
            time.sleep(RECOVER_EVERY)

    thread = threading.Thread(target=loop, daemon=True, name="tasks-recovery")
    thread.start()
    return thread
