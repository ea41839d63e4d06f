"""The archive's stored data: records people uploaded, and the computer's analyses of finished
and imported games. (A finished game itself stays the live game's row: ``game.models.Game``.)"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from game.models import Game


class ImportedGame(models.Model):
    """A game record someone uploaded: kept as its text, replayed by the viewer like a game."""

    text = models.TextField(_("record"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="imported_games",
        verbose_name=_("uploaded by"),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "game_importedgame"  # made by the game app, before the archive had its own
        ordering = ("-created_at",)
        verbose_name = _("imported game")
        verbose_name_plural = _("imported games")

    def __str__(self) -> str:
        return f"import #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("archive:imported", args=[self.pk])


class Analysis(models.Model):
    """The computer's review of one finished or imported game, filled in position by position.

    ``positions[k]`` is ``game.ai.analyse`` of the position before ply ``k``
    (value for the player to move, best turns, exact); ``only[k]`` says
    whether turn ``k`` was the only one to keep a proven result (``None``
    where unchecked or unproven). See :mod:`game.ai.review`.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("waiting to start")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    game = models.OneToOneField(
        Game, on_delete=models.CASCADE, null=True, blank=True, related_name="analysis"
    )
    imported = models.OneToOneField(
        ImportedGame, on_delete=models.CASCADE, null=True, blank=True, related_name="analysis"
    )
    status = models.CharField(
        _("status"), max_length=8, choices=Status.choices, default=Status.QUEUED
    )
    seconds = models.FloatField(_("thinking time per position (s)"))
    #: Who asked (last): each user may have a few analyses under way (``ANALYSES_PER_USER``).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="analyses",
        verbose_name=_("requested by"),
    )
    positions = models.JSONField(default=list)
    only = models.JSONField(default=dict)
    #: Steps done and to do: a review per position, then an only-move check per kept result.
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "game_analysis"
        constraints = (
            models.CheckConstraint(
                condition=models.Q(game__isnull=True) ^ models.Q(imported__isnull=True),
                name="analysis_of_one_game",
            ),
        )
        verbose_name = _("analysis")
        verbose_name_plural = _("analyses")

    def __str__(self) -> str:
        return f"analysis of {self.game or self.imported} ({self.status})"

    @property
    def running(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def percent(self) -> int:
        return 100 * self.done // self.total if self.total else 0
