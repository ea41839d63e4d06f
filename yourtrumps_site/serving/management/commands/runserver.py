"""``manage.py runserver``: Daphne's development server, listening with room for a crowd
(:mod:`yourtrumps_site.serving.listen`: the backlog of ``manage.py serve``).

With ``TASK_WORKER=embedded`` (``make run``) the serving process also serves the task queues,
from threads of its own (:func:`yourtrumps_site.serving.workers.start_embedded`). Under the
autoreloader that is the child that serves, which then dies with its parent, the process
watching the files.

It extends Daphne's command past its documented options: ``server_cls`` and ``inner_run``,
and ``daphne.server.Server``'s ``endpoints``.
"""

from __future__ import annotations

import os
from typing import Any

from daphne.management.commands.runserver import Command as DaphneRunserver
from daphne.server import Server
from django.conf import settings

from yourtrumps_site.serving import parent_death, workers
from yourtrumps_site.serving.listen import with_backlog


class CrowdServer(Server):
    """Daphne's server, its TCP endpoints listening with :func:`with_backlog`."""

    def __init__(self, application: Any, endpoints: list[str] | None = None, **options: Any):
        super().__init__(application, [with_backlog(e) for e in endpoints or []], **options)


class Command(DaphneRunserver):
    server_cls = CrowdServer

    def inner_run(self, *args: Any, **options: Any) -> None:
        if settings.TASK_WORKER == "embedded":
            if options["use_reloader"]:  # the autoreloader's child: not without its parent
                parent_death.die_with_parent(os.getppid())
            workers.start_embedded()
        super().inner_run(*args, **options)
