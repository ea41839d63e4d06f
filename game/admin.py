"""Moderators' view of games and their move logs."""

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from game.models import Game, Move


class MoveInline(admin.TabularInline):
    model = Move
    extra = 0
    fields = ("ply", "player", "notation", "time_spent_ms", "created_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "seat0", "seat1", "ai_level", "status", "winner", "reason", "created_at")
    list_filter = ("status", "reason", "ai_level", "deck", "must_beat", "private")
    search_fields = ("seat0__username", "seat1__username", "=id")
    exclude = ("seed",)  # shown as deal_seed, and only once the game is over
    readonly_fields = (
        "deal_seed",
        "invite_token",
        "version",
        "created_at",
        "started_at",
        "finished_at",
    )
    inlines = (MoveInline,)

    @admin.display(description=_("deal seed"))
    def deal_seed(self, game: Game) -> str:
        """The seed once the game is over (:attr:`Game.deal_revealed` says why not before)."""
        return str(game.seed) if game.deal_revealed else _("shown once the game is over")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("game", "ply", "player", "notation", "time_spent_ms", "created_at")
    search_fields = ("=game__id",)
    readonly_fields = ("game", "ply", "player", "notation", "time_spent_ms", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Turns are played, never typed in: a move added here would have no ply (a 500)."""
        return False
