"""Moderation's stored state: reports, the moderators' log, warnings and standings.

The log (:class:`ModerationAction`) is append-only: every moderator's decision writes one row,
saying who did what, when, on whom and why. A user's :class:`Standing` holds what is in force now
(a ban; a chat mute is the chat's own, ``chat.models.Silence``); a ban also makes the
account inactive, so that Django refuses its logins
and its sessions everywhere (pages and websockets alike).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from game.models import Game
from moderation import actions


class Report(models.Model):
    """A player's report of another player, perhaps about one game."""

    class Reason(models.TextChoices):
        CHEATING = "cheating", _("cheating")
        ABUSE = "abuse", _("abuse")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        RESOLVED = "resolved", _("resolved")
        DISMISSED = "dismissed", _("dismissed")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_made",
        verbose_name=_("reported by"),
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reports_received",
        verbose_name=_("reported user"),
    )
    game = models.ForeignKey(
        Game,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports",
        verbose_name=_("game"),
    )
    reason = models.CharField(_("reason"), max_length=12, choices=Reason.choices)
    text = models.TextField(_("what happened"), max_length=2000)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.OPEN
    )
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports_handled",
        verbose_name=_("handled by"),
    )
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)

    class Meta:
        ordering = ("created_at",)
        indexes = (models.Index(fields=["status", "created_at"]),)
        verbose_name = _("report")
        verbose_name_plural = _("reports")

    def __str__(self) -> str:
        return f"#{self.pk} {self.reported}: {self.get_reason_display()}"


class ModerationAction(models.Model):
    """One entry of the moderation log: who did what, when, on whom and why. What it did is one
    of the registry's actions (:mod:`moderation.actions`), stored by its code."""

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="moderation_actions_taken",
        verbose_name=_("moderator"),
    )
    kind = models.CharField(_("action"), max_length=16, choices=actions.CHOICES)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="moderation_actions_received",
        verbose_name=_("on user"),
    )
    game = models.ForeignKey(
        Game,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="moderation_actions",
        verbose_name=_("on game"),
    )
    report = models.ForeignKey(
        Report,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="actions",
        verbose_name=_("report"),
    )
    reason = models.TextField(_("why"), max_length=2000)
    until = models.DateTimeField(_("in force until"), null=True, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")
        permissions = tuple((p.codename, p.description) for p in actions.PERMISSIONS)

    def __str__(self) -> str:
        target = self.user or (f"#{self.game_id}" if self.game_id else "")
        return f"{self.moderator}: {self.get_kind_display()} {target}"


class ModeratorWarning(models.Model):
    """A moderator's warning, shown to its user on their next visit until they acknowledge it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="moderator_warnings",
        verbose_name=_("user"),
    )
    action = models.OneToOneField(
        ModerationAction, on_delete=models.CASCADE, related_name="warning"
    )
    text = models.TextField(_("message"), max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(_("acknowledged at"), null=True, blank=True)

    class Meta:
        ordering = ("created_at",)
        verbose_name = _("warning")
        verbose_name_plural = _("warnings")

    def __str__(self) -> str:
        return f"{self.user}: {self.text[:40]}"


class Standing(models.Model):
    """What is in force on a user now: a ban. No row means nothing is."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="standing"
    )
    banned_at = models.DateTimeField(_("banned at"), null=True, blank=True)

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")

    def __str__(self) -> str:
        return str(self.user)

    @property
    def banned(self) -> bool:
        return self.banned_at is not None
