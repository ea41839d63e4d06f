"""Task workers: the processes that run the background tasks (:mod:`game.tasks`).

A worker is ``manage.py db_worker`` (this project's, which extends
django-tasks-db's): it serves its queues, claiming one ready task at a time
(``SKIP LOCKED`` on PostgreSQL, an exclusive transaction on SQLite) and running
it in its own process. When idle it sleeps until the earliest task falls due,
looking again at least every ``TASK_POLL_SECONDS``: the computer's reply,
asked for at the commit and due after the pause, starts within milliseconds of
falling due. On start and every few seconds it runs :func:`game.tasks.recover`.

With ``TASK_WORKER=embedded`` each web server starts its own workers, one per
queue (:func:`start_embedded`), and they die with it, even under ``SIGKILL``:
the kernel kills them when their parent goes (``PR_SET_PDEATHSIG``), and a
thread checks the parent as well where that is not available.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
import time

from django.conf import settings
from django.db import OperationalError, close_old_connections
from django.db.models import Min
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult, DBTaskResultQuerySet, get_date_max
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from game import tasks

log = logging.getLogger(__name__)

QUEUES = [tasks.COMPUTER_QUEUE, tasks.ANALYSIS_QUEUE]
#: How often a worker runs :func:`game.tasks.recover` (besides on start).
RECOVER_EVERY = 3.0


class Worker(db_worker.Worker):
    """django-tasks-db's worker, waking when a task falls due and recovering lost work."""

    def run(self) -> None:
        queues = QUEUES if self.process_all_queues else self.queue_names
        log.info("task worker %s serving %s", self.worker_id, ",".join(queues))
        recovered_at = 0.0
        while self.running:
            close_old_connections()
            if time.monotonic() - recovered_at >= RECOVER_EVERY:
                tasks.recover(queues)
                recovered_at = time.monotonic()
            mine = DBTaskResult.objects.filter(
                backend_name=self.backend_name, queue_name__in=queues
            )
            # Reads first: the claim's transaction locks SQLite's writers, so take it only for a
            # task that is due.
            if not mine.ready().exists():
                if self.batch:  # nothing is due: a batch is done
                    return
                time.sleep(_until_due(mine, self.interval))
                continue
            task_result = self._claim(mine.ready())
            if task_result is not None:
                self.run_task(task_result)
                if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                    return

    def _claim(self, due: DBTaskResultQuerySet) -> DBTaskResult | None:
        """The first due task, marked as ours (``None`` if another worker was quicker)."""
        try:
            with exclusive_transaction(due.db):
                found = due.get_locked()
                if found is not None:
                    found.claim(self.worker_id)
                return found
        except OperationalError as error:
            if is_locked_database_exception(error):
                return None
            raise


def _until_due(mine: DBTaskResultQuerySet, poll: float) -> float:
    """Seconds to sleep, when none of ``mine`` is due: until the earliest falls due, or ``poll``
    if that is sooner (a new task may come meanwhile)."""
    waiting = mine.filter(status=TaskResultStatus.READY).exclude(run_after=get_date_max())
    due = waiting.aggregate(due=Min("run_after"))["due"]
    if due is None:
        return poll
    return min(poll, max(0.0, (due - timezone.now()).total_seconds()))


# --- Dying with the parent ----------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """End this process when ``parent`` ends, however it ends."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above: nobody will signal
        os._exit(1)

    def watch() -> None:  # where prctl is missing, or its signal was lost
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


# --- Embedded workers: started by a web server ----------------------------------------------------

_embedded: list[subprocess.Popen[bytes]] = []


def start_embedded() -> list[subprocess.Popen[bytes]]:
    """Start a worker process per queue, children of this process that die with it.

    Call from the thread that lives as long as the process (the main thread): the
    kernel's parent-death signal follows the thread that started the child.
    """
    if not _embedded:
        for queue in QUEUES:
            command = [
                sys.executable,
                str(settings.BASE_DIR / "manage.py"),
                "db_worker",
                f"--queue-name={queue}",
                f"--parent={os.getpid()}",
                "--no-reload",
                "--no-startup-delay",
            ]
            _embedded.append(subprocess.Popen(command))
        log.info("started task workers %s", [p.pid for p in _embedded])
    return _embedded


def is_web_server(argv: list[str], environ: dict[str, str] | os._Environ[str]) -> bool:
    """Whether this process is a web server: Daphne, or ``runserver``'s serving process (with
    autoreload, the child that serves, not the parent that watches the files)."""
    program = argv[0] if argv else ""
    if os.path.basename(program) == "daphne" or program.endswith("daphne/__main__.py"):
        return True
    if os.path.basename(program) == "manage.py" and argv[1:2] == ["runserver"]:
        return environ.get("RUN_MAIN") == "true" or "--noreload" in argv
    return False
