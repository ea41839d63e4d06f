"""Task workers: the processes and threads that run the background tasks (:mod:`game.tasks`).

A worker is django-tasks-db's ``Worker`` as shipped: it claims one ready task at
a time (``SKIP LOCKED`` on PostgreSQL, an exclusive transaction on SQLite) and,
when none is ready, sleeps ``TASK_POLL_MS`` before looking again. So a task
starts within one poll interval of falling due: the computer's reply, due after
its pause, waits up to that much longer. Beside each worker a thread runs
:func:`game.tasks.recover` on start and every ``RECOVER_EVERY`` seconds
(:func:`start_recovery`).

``manage.py db_worker`` runs one in its own process. With ``TASK_WORKER=embedded``
the site's ``manage.py runserver`` serves the queues itself, from a thread per
queue (:func:`start_embedded`), its searches in child processes that die with it,
even under ``SIGKILL`` (:mod:`game.cpu`). Nothing else starts embedded workers: a
bare ``daphne`` runs no tasks.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections
from django_tasks_db.management.commands.db_worker import Worker

from game import cpu, tasks

log = logging.getLogger(__name__)

#: The queues the settings name: the computer's replies, the analyses (``archive.tasks``), the
#: flag checks.
QUEUES: list[str] = settings.TASKS["default"]["QUEUES"]
#: How often a worker's recovery runs :func:`game.tasks.recover` (besides on start).
RECOVER_EVERY = 3.0
#: Seconds an embedded worker waits before serving again after an error outside its tasks.
RETRY_AFTER = 1.0


def recover_now(queues: list[str]) -> None:
    """One round of :func:`game.tasks.recover`, logging rather than raising what goes wrong:
    it is tried again a round later."""
    try:
        close_old_connections()
        tasks.recover(queues)
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


def serve_forever(worker: Worker) -> None:
    """Run ``worker`` again whenever an error outside its tasks ends its loop (a task's own
    failure is recorded on it): an embedded worker has nobody else to restart it."""
    while True:
        try:
            worker.run()
            return
        except Exception:
            log.exception("task worker %s: serving again in %s s", worker.worker_id, RETRY_AFTER)
            time.sleep(RETRY_AFTER)


# --- Embedded workers: threads of a web server ------------------------------------------------

_embedded: list[threading.Thread] = []


def start_embedded() -> list[threading.Thread]:
    """Serve each queue from a thread of this web process, with the recovery beside them; their
    CPU work goes to children of it (:mod:`game.cpu`), which die with it.

    Threads, not processes of their own: what they record is published from this process, so
    it reaches this process's sockets on the in-memory channel layer too.
    """
    if not _embedded:
        cpu.use_children()
        for queue in QUEUES:
            worker = Worker(
                queue_names=[queue],
                interval=settings.TASK_POLL_SECONDS,
                batch=False,
                backend_name="default",
                startup_delay=False,
                max_tasks=None,
                worker_id=tasks.worker_id(),
                excluded_queue_names=[],
            )
            thread = threading.Thread(
                target=serve_forever, args=(worker,), daemon=True, name=f"tasks-{queue}"
            )
            thread.start()
            _embedded.append(thread)
        _embedded.append(start_recovery(QUEUES))
        log.info("serving the task queues %s from this web server", QUEUES)
    return _embedded
