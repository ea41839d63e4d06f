import os
import sys

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class GameConfig(AppConfig):
    name = "game"
    verbose_name = _("Game")

    def ready(self) -> None:
        # A web server with embedded task workers starts them here, in its main thread (their
        # parent-death signal follows the thread that started them). See game.workers.
        from game import workers

        if settings.TASK_WORKER == "embedded" and workers.is_web_server(sys.argv, os.environ):
            if os.environ.get("RUN_MAIN") == "true":  # runserver's child: not without its parent
                workers.die_with_parent(os.getppid())
            workers.start_embedded()
