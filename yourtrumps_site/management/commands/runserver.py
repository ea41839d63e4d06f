"""``manage.py runserver``: Daphne's development server, listening with room for a crowd.

Daphne listens through Twisted, whose TCP endpoints hold 50 connections waiting to be
accepted. When a crowd connects at once (the 1,000 sockets of 500 games), the kernel drops
the rest, and each dropped client tries again only after its SYN's retransmission timeout
(1 s, then 3 s, 7 s, ...): the load test saw sockets take 15-18 s to open while the server
sat half idle. This server listens with the backlog of ``manage.py serve``.

With ``TASK_WORKER=embedded`` (``make run``) the serving process also serves the task queues,
from threads of its own (:func:`yourtrumps_site.serving.workers.start_embedded`). Under the
autoreloader that is the child that serves, which then dies with its parent, the process
watching the files.
"""

from __future__ import annotations

import os
from typing import Any

from daphne.management.commands.runserver import Command as DaphneRunserver
from daphne.server import Server
from django.conf import settings

from yourtrumps_site.management.commands.serve import BACKLOG
from yourtrumps_site.serving import parent_death, workers


def with_backlog(endpoint: str, backlog: int = BACKLOG) -> str:
    """A Twisted endpoint description, TCP ones listening with room for ``backlog``."""
    if endpoint.startswith("tcp:") and ":backlog=" not in endpoint:
        return f"{endpoint}:backlog={backlog}"
    return endpoint


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
