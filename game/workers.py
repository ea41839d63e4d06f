"""Task workers: the processes that run the background tasks (:mod:`game.tasks`).

A worker is ``manage.py db_worker`` (this project's, which extends
django-tasks-db's): it serves its queues, claiming one ready task at a time
(``SKIP LOCKED`` on PostgreSQL, an exclusive transaction on SQLite) and running
it in its own process. When idle it sleeps until the earliest task falls due,
or until a task is queued, looking again at least every ``TASK_POLL_SECONDS``:
the computer's reply, asked for at the commit and due after the pause, starts
within milliseconds of falling due. On PostgreSQL a worker hears of every task
queued, by any process, through ``LISTEN`` (:class:`game.tasks.Listener`), so
it need not look often. On start and every few seconds it runs
:func:`game.tasks.recover`.

With ``TASK_WORKER=embedded`` each web server serves the queues itself, from a
thread per queue (:func:`start_embedded`), its searches in child processes that
die with it, even under ``SIGKILL`` (:mod:`game.cpu`). Those threads are woken
by the process's own :data:`game.tasks.DOORBELL` when it queues a task, so they
look in the database only every ``EMBEDDED_POLL_SECONDS`` otherwise (for tasks
queued elsewhere: a command, another process); polling every 50 ms was a
twentieth of a busy server's CPU.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from django.apps import apps
from django.conf import settings
from django.db import OperationalError, close_old_connections, connection
from django.db.models import Min
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult, DBTaskResultQuerySet, get_date_max
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from game import cpu, tasks

log = logging.getLogger(__name__)

#: The queues the settings name: the computer's replies, the analyses (``archive.tasks``), the
#: flag checks.
QUEUES: list[str] = settings.TASKS["default"]["QUEUES"]
#: How often a worker runs :func:`game.tasks.recover` (besides on start).
RECOVER_EVERY = 3.0
#: How often an embedded worker looks for tasks its own process did not queue.
EMBEDDED_POLL_SECONDS = 1.0
#: Seconds a worker waits before trying again after an error outside its tasks.
RETRY_AFTER = 1.0


class Worker(db_worker.Worker):
    """django-tasks-db's worker, waking when a task falls due and recovering lost work."""

    def run(self) -> None:
        # An embedded worker starts in the game app's ready(), before the apps after it: the
        # tasks backend, whose signal gives a task queued without a time its run_after, among
        # them. Recovering before that failed (NOT NULL on run_after) and killed the thread.
        apps.ready_event.wait()
        queues = QUEUES if self.process_all_queues else self.queue_names
        log.info("task worker %s serving %s", self.worker_id, ",".join(queues))
        # On PostgreSQL a task queued by any process wakes this worker; on SQLite, one queued by
        # its own (an embedded worker's web server).
        listener = tasks.Listener() if connection.vendor == "postgresql" else None
        try:
            self._serve(queues, listener)
        finally:
            if listener is not None:
                listener.close()

    def _serve(self, queues: list[str], listener: tasks.Listener | None) -> None:
        recovered_at = 0.0
        while self.running:
            rings = tasks.DOORBELL.rings  # a task queued from here on wakes the wait below
            try:
                close_old_connections()
                if time.monotonic() - recovered_at >= RECOVER_EVERY:
                    tasks.recover(queues)
                    recovered_at = time.monotonic()
                mine = DBTaskResult.objects.filter(
                    backend_name=self.backend_name, queue_name__in=queues
                )
                # Reads first: the claim's transaction locks SQLite's writers, so take it only
                # for a task that is due.
                if not mine.ready().exists():
                    if self.batch:  # nothing is due: a batch is done
                        return
                    sleep = _until_due(mine, self.interval)
                    if listener is not None:
                        listener.wait(sleep)
                    else:
                        tasks.DOORBELL.wait(rings, sleep)
                    continue
                task_result = self._claim(mine.ready())
            except Exception:
                # A worker outlives what goes wrong around its tasks (a task's own failure is
                # recorded on it): an embedded one has nobody to restart it.
                log.exception("task worker %s: trying again in %s s", self.worker_id, RETRY_AFTER)
                time.sleep(RETRY_AFTER)
                continue
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


# --- Embedded workers: threads of a web server ------------------------------------------------

_embedded: list[threading.Thread] = []


def start_embedded() -> list[threading.Thread]:
    """Serve each queue from a thread of this web process; their CPU work goes to children of
    it (:mod:`game.cpu`), which die with it.

    Threads, not processes of their own: what they record is published from this process, so
    it reaches this process's sockets on the in-memory channel layer too. Call from the thread
    that lives as long as the process (the main thread): the kernel's parent-death signal
    follows the thread that started the child.
    """
    if not _embedded:
        cpu.use_children()
        for queue in QUEUES:
            worker = Worker(
                queue_names=[queue],
                interval=EMBEDDED_POLL_SECONDS,
                batch=False,
                backend_name="default",
                startup_delay=False,
                max_tasks=None,
                worker_id=tasks.worker_id(),
                excluded_queue_names=[],
            )
            thread = threading.Thread(target=worker.run, daemon=True, name=f"tasks-{queue}")
            thread.start()
            _embedded.append(thread)
        log.info("serving the task queues %s from this web server", QUEUES)
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
