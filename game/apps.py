import os
import sys

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class GameConfig(AppConfig):
    name = "game"
    verbose_name = _("Game")

    def ready(self) -> None:
        # The tasks register the background work the services ask for (game.background). A web
        # server with embedded task workers starts them here, in its main thread (the
        # parent-death signal of their search processes follows the thread that started them).
        # See game.workers. The receivers answer accounts' signals (a closed account's games).
        from game import cpu, receivers, tasks, workers  # noqa: F401

        if settings.TASK_WORKER == "embedded" and workers.is_web_server(sys.argv, os.environ):
            if os.environ.get("RUN_MAIN") == "true":  # runserver's child: not without its parent
                cpu.die_with_parent(os.getppid())
            workers.start_embedded()
