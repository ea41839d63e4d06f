"""``manage.py db_worker``: django-tasks-db's worker command, with the site's recovery beside it.

It replaces the library's command of the same name (the serving app comes first in
``INSTALLED_APPS``) and keeps its options and its worker, with these defaults: the
site's queues, ``TASK_POLL_MS`` between looks, and a worker id that says where it
runs (``host:pid:start``, see :func:`yourtrumps_site.serving.recovery.worker_id`).
Beside the worker a thread runs the recovery
(:func:`yourtrumps_site.serving.recovery.start_recovery`); with ``--batch`` it
runs once, before the worker.

Run one per queue for the fastest replies (``--queue-name=computer`` and
``--queue-name=analysis``), as many as you like, on any machine that reaches the
database.
"""

from __future__ import annotations

import os
from argparse import ArgumentParser
from typing import Any

from django.conf import settings
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands import db_worker

from yourtrumps_site.serving import recovery, workers


class Command(db_worker.Command):
    help = "Run a task worker: the computer's replies, the analyses and the flag checks"

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.set_defaults(
            queue_name=",".join(workers.QUEUES),
            interval=settings.TASK_POLL_SECONDS,
            worker_id=recovery.worker_id(),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        named = options["queue_name"].split(",")
        queues = workers.QUEUES if "*" in named else named
        if options["batch"]:
            recovery.recover_now(queues)
        # With --reload the worker runs in a child of this process: the recovery goes there.
        elif not options["reload"] or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            recovery.start_recovery(queues)
        super().handle(*args, **options)
