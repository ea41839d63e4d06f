"""What a player keeps beside Django's user: their settings."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """A player's settings; made when they first choose one."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    #: The language they chose in the menu (a code of ``settings.LANGUAGES``), applied whenever
    #: they log in; empty until they choose one.
    language = models.CharField(_("language"), max_length=8, blank=True, default="")

    def __str__(self) -> str:
        return str(self.user)
