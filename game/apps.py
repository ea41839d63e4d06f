from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GameConfig(AppConfig):
    name = "game"
    verbose_name = _("Game")

    def ready(self) -> None:
        # The tasks register the background work the services ask for (game.background). The
        # receivers answer accounts' signals (a closed account's games). Embedded task workers
        # are started by `manage.py runserver` (yourtrumps_site/serving/workers.py).
        from game import receivers, tasks  # noqa: F401
