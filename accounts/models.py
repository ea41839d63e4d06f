"""What a player keeps beside Django's user: their settings, their proven email address,
whether they closed their account, and their ratings with their history."""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from accounts.glicko2 import Glicko
from accounts.ratings import START, Speed, signed


class ChallengesFrom(models.TextChoices):
    """Whose challenges a player hears (``game.challenges`` checks it; accounts knows no games)."""

    EVERYONE = "everyone", _("Everyone")
    NEAR = "near", _("Players near my rating")
    NO_ONE = "no_one", _("No one")


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
    challenges_from = models.CharField(
        _("challenges from"),
        max_length=8,
        choices=ChallengesFrom.choices,
        default=ChallengesFrom.EVERYONE,
    )

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


class Rating(models.Model):
    """A player's Glicko-2 rating in one speed (:mod:`accounts.ratings`), as their last rated
    game in it left it; a player with no row in a speed stands at ``ratings.START`` in it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    speed = models.CharField(_("speed"), max_length=8, choices=Speed.choices)
    rating = models.FloatField(_("rating"), default=START.rating)
    deviation = models.FloatField(_("rating deviation"), default=START.deviation)
    volatility = models.FloatField(_("rating volatility"), default=START.volatility)
    games = models.PositiveIntegerField(_("rated games"), default=0)
    #: When the player's last rated game in the speed ended: the deviation grows from then.
    rated_at = models.DateTimeField(_("last rated game"), null=True, blank=True)

    class Meta:
        constraints = (
            models.UniqueConstraint(fields=["user", "speed"], name="one_rating_per_speed"),
        )
        indexes = (models.Index(fields=["speed", "-rating"]),)
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")

    def __str__(self) -> str:
        return f"{self.user} {self.speed} {round(self.rating)}"

    @property
    def glicko(self) -> Glicko:
        return Glicko(self.rating, self.deviation, self.volatility)


class RatingChange(models.Model):
    """One change of a player's rating in a speed: a rated game's result, or its reversal
    (``annulment``) when a moderator annuls the game. A player's changes in a speed, in the
    order they were written, are their rating's history.

    Accounts knows a game only by its id (a foreign key by name, as the chat does): live play
    imports accounts, never the reverse. A game that changed ratings is kept (annulled, not
    deleted), so that the history stays whole.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    speed = models.CharField(_("speed"), max_length=8, choices=Speed.choices)
    game = models.ForeignKey("game.Game", on_delete=models.PROTECT, related_name="rating_changes")
    annulment = models.BooleanField(_("reversed by an annulment"), default=False)
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    deviation_before = models.FloatField()
    deviation_after = models.FloatField()
    volatility_before = models.FloatField()
    volatility_after = models.FloatField()
    created_at = models.DateTimeField()

    class Meta:
        # The order they were written in, under their players' locks (``created_at`` is when
        # the game ended: two games ending at once may be rated in the other order).
        ordering = ("pk",)
        constraints = (
            # A game changes each player's rating once, and its annulment takes that back once.
            models.UniqueConstraint(
                fields=["game", "user", "annulment"], name="one_rating_change_per_game"
            ),
        )
        indexes = (models.Index(fields=["user", "speed"]),)
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")

    def __str__(self) -> str:
        return f"{self.user} {self.speed} {signed(self.change)} (game {self.game_id})"

    @property
    def change(self) -> int:
        """The change in whole points, as shown: the rating after, shown, less the one before."""
        return round(self.rating_after) - round(self.rating_before)
