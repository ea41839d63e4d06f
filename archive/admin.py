"""Moderators' view of imported records and analyses."""

from django.contrib import admin
from django.http import HttpRequest

from archive.models import Analysis, ImportedGame


@admin.register(ImportedGame)
class ImportedGameAdmin(admin.ModelAdmin):
    list_display = ("id", "uploaded_by", "created_at")
    search_fields = ("uploaded_by__username", "=id")
    readonly_fields = ("uploaded_by", "created_at")


@admin.register(Analysis)
class AnalysisAdmin(admin.ModelAdmin):
    """Analyses are the computer's work: read here, asked for (and restarted) from the replay
    page, never made by hand (a hand-made one has no thinking time and nobody to run it)."""

    list_display = ("id", "game", "imported", "requested_by", "status", "done", "total")
    list_filter = ("status",)
    search_fields = ("=game__id", "=imported__id")
    readonly_fields = (
        "game",
        "imported",
        "status",
        "seconds",
        "positions",
        "only",
        "done",
        "total",
        "error",
        "requested_by",
        "created_at",
        "updated_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
