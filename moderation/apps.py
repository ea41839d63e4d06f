from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from moderation import services  # noqa: F401  (binds each action to its service)
        from moderation.groups import ensure_moderators_group

        # After every migrate (and every test flush): the group and its permissions exist.
        post_migrate.connect(ensure_moderators_group, sender=self)
