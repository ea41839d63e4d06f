"""The chat's stored state: the lines of a game's chat, each player's mutes of others, and the
mutes moderators give.

The chat knows a game only by its id (a foreign key by name): live play imports the chat, never
the reverse. Its two first tables keep the names they had under moderation.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ChatMessage(models.Model):
    """A line of a game's chat between its two players (spectators may read it)."""

    game = models.ForeignKey("game.Game", on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_messages",
        verbose_name=_("author"),
    )
    text = models.CharField(_("message"), max_length=200)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        db_table = "moderation_chatmessage"
        ordering = ("created_at", "pk")
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")

    def __str__(self) -> str:
        return f"{self.author}: {self.text}"


class ChatMute(models.Model):
    """A player's own choice not to see another player's chat."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes"
    )
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "moderation_chatmute"
        constraints = (
            models.UniqueConstraint(fields=["user", "muted"], name="one_chat_mute_per_pair"),
        )
        verbose_name = _("muted player")
        verbose_name_plural = _("muted players")

    def __str__(self) -> str:
        return f"{self.user} mutes {self.muted}"


class Silence(models.Model):
    """A moderator's chat mute: the user's lines are refused until ``until``. Moderation gives it
    (and logs it); the chat enforces it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_silence"
    )
    until = models.DateTimeField(_("muted in chat until"))

    class Meta:
        verbose_name = _("chat mute by a moderator")
        verbose_name_plural = _("chat mutes by moderators")

    def __str__(self) -> str:
        return f"{self.user} until {self.until:%Y-%m-%d %H:%M}"

    def in_force(self, now: datetime | None = None) -> bool:
        return self.until > (now or timezone.now())
