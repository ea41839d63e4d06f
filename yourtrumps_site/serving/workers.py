"""Task workers: the processes and threads that run the background tasks.

A worker is django-tasks-db's ``Worker`` as shipped: it claims one ready task at
a time (``SKIP LOCKED`` on PostgreSQL, an exclusive transaction on SQLite) and,
when none is ready, sleeps ``TASK_POLL_MS`` before looking again. So a task
starts within one poll interval of falling due: the computer's reply, due after
its pause, waits up to that much longer. Beside each worker a thread runs the
recovery (:mod:`yourtrumps_site.serving.recovery`).

``manage.py db_worker`` runs one in its own process. With ``TASK_WORKER=embedded``
the site's ``manage.py runserver`` serves the queues itself, from a thread per
queue (:func:`start_embedded`), its searches in child processes that die with it,
even under ``SIGKILL`` (:mod:`yourtrumps_site.serving.cpu`). Nothing else starts
embedded workers: a bare ``daphne`` runs no tasks.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django_tasks_db.management.commands.db_worker import Worker

from yourtrumps_site.serving import cpu, recovery

log = logging.getLogger(__name__)

#: The queues the settings name: the computer's replies, the analyses, the flag checks.
QUEUES: list[str] = settings.TASKS["default"]["QUEUES"]
#: Seconds an embedded worker waits before serving again after an error outside its tasks.
RETRY_AFTER = 1.0


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
    CPU work goes to children of it (:mod:`yourtrumps_site.serving.cpu`), which die with it.

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
                worker_id=recovery.worker_id(),
                excluded_queue_names=[],
            )
            thread = threading.Thread(
                target=serve_forever, args=(worker,), daemon=True, name=f"tasks-{queue}"
            )
            thread.start()
            _embedded.append(thread)
        _embedded.append(recovery.start_recovery(QUEUES))
        log.info("serving the task queues %s from this web server", QUEUES)
    return _embedded
