"""What a player keeps beside Django's user: their settings, their proven email address, and
whether they closed their account."""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _


class Profile(models.Model):
    """A player's settings; made when they first choose one (or give an email address, or close
    their account)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    #: The language they chose in the menu (a code of ``settings.LANGUAGES``), applied whenever
    #: they log in; empty until they choose one.
    language = models.CharField(_("language"), max_length=8, blank=True, default="")
    #: The user's email address once they followed the link sent to it; empty until then, and
    #: again when the address changes. No two accounts share one (in any case).
    verified_email = models.EmailField(_("verified email address"), blank=True, default="")
    #: When the player closed their account (``accounts.services.account_close``).
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                Lower("verified_email"),
                condition=~models.Q(verified_email=""),
                name="one_account_per_verified_email",
            ),
        )

    def __str__(self) -> str:
        return str(self.user)
