"""``manage.py db_worker``: django-tasks-db's worker command, running :class:`game.workers.Worker`.

It replaces the library's command of the same name (the ``game`` app comes first in
``INSTALLED_APPS``) and keeps its options, with these defaults: both of the site's
queues, ``TASK_POLL_MS`` between looks, and a worker id that says where it runs
(``host:pid:start``, see :func:`game.tasks.worker_id`). ``--parent`` ties the
worker's life to a process: a web server's embedded workers use it.

Run one per queue for the fastest replies (``--queue-name=computer`` and
``--queue-name=analysis``), as many as you like, on any machine that reaches the
database.
"""

from __future__ import annotations

import os
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker

from game import cpu, tasks, workers


class Command(db_worker.Command):
    help = "Run a task worker: the computer's replies and the analyses (game/tasks.py)"

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.set_defaults(
            queue_name=",".join(workers.QUEUES),
            interval=settings.TASK_POLL_SECONDS,
            worker_id=tasks.worker_id(),
        )
        parser.add_argument(
            "--parent", type=int, help="Stop when the process with this id stops (embedded)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["parent"]:
            cpu.die_with_parent(options["parent"])
        self.configure_logging(options["verbosity"])
        worker = workers.Worker(
            queue_names=options["queue_name"].split(","),
            interval=options["interval"],
            batch=options["batch"],
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
            excluded_queue_names=[],
        )
        if options["reload"] and not options["batch"]:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
