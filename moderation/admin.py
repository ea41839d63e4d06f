"""Moderation in the Django admin: reports, the log, chat, and actions on users and games.

Every action asks for a reason on an intermediate page (and a duration for a mute), then calls the
same services as the moderator pages, so each one lands in the moderation log. The user and game
admins are Django's and the game app's own, extended with those actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from chat.models import ChatMessage, Silence
from game.admin import GameAdmin
from game.models import Game
from moderation import services
from moderation.forms import MuteForm, ReasonForm
from moderation.models import ModerationAction, ModeratorWarning, Report, Standing
from moderation.services import ModerationError

Apply = Callable[[Any, Any, dict[str, Any]], object]


def reason_action(
    name: str,
    description: str,
    permission: str,
    apply: Apply,
    form_class: type[ReasonForm] = ReasonForm,
) -> Callable[..., HttpResponse | None]:
    """An admin action that first asks for a reason, then calls ``apply(moderator, obj, data)``
    for each selected object; refusals are reported one by one."""

    def action(
        modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Model]
    ) -> HttpResponse | None:
        applying = "apply" in request.POST
        form = form_class(request.POST if applying else None)
        if applying and form.is_valid():
            done = 0
            for obj in queryset:
                try:
                    apply(request.user, obj, form.cleaned_data)
                except (ModerationError, PermissionDenied) as error:
                    modeladmin.message_user(request, f"{obj}: {error}", messages.ERROR)
                else:
                    done += 1
            if done:
                modeladmin.message_user(
                    request,
                    ngettext(
                        "%(action)s: done for %(n)d item.",
                        "%(action)s: done for %(n)d items.",
                        done,
                    )
                    % {"action": description, "n": done},
                    messages.SUCCESS,
                )
            return None
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": description,
            "form": form,
            "queryset": queryset,
            "action": name,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/moderation/reason_form.html", context)

    action.__name__ = name
    return admin.action(description=description, permissions=[permission])(action)


class ModerationPermissions:
    """``has_<permission>_permission`` for the permissions the actions name."""

    def _has(self, request: HttpRequest, codename: str) -> bool:
        return request.user.has_perm(f"moderation.{codename}")

    def has_warn_user_permission(self, request: HttpRequest) -> bool:
        return self._has(request, "warn_user")

    def has_mute_user_permission(self, request: HttpRequest) -> bool:
        return self._has(request, "mute_user")

    def has_ban_user_permission(self, request: HttpRequest) -> bool:
        return self._has(request, "ban_user")

    def has_moderate_game_permission(self, request: HttpRequest) -> bool:
        return self._has(request, "moderate_game")

    def has_handle_report_permission(self, request: HttpRequest) -> bool:
        return self._has(request, "handle_report")


# --- Users: warn, mute, ban, unban -------------------------------------------------------------

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class ModeratedUserAdmin(ModerationPermissions, UserAdmin):
    list_display = ("username", "email", "is_active", "is_staff", "date_joined", "last_login")
    actions = (
        reason_action(
            "warn_users",
            _("Warn the selected users"),
            "warn_user",
            lambda moderator, user, data: services.moderation_warn(
                moderator=moderator, user=user, reason=data["reason"]
            ),
        ),
        reason_action(
            "mute_users",
            _("Mute the selected users in chat"),
            "mute_user",
            lambda moderator, user, data: services.moderation_mute(
                moderator=moderator,
                user=user,
                reason=data["reason"],
                duration=data["duration"],
            ),
            MuteForm,
        ),
        reason_action(
            "ban_users",
            _("Ban the selected users"),
            "ban_user",
            lambda moderator, user, data: services.moderation_ban(
                moderator=moderator, user=user, reason=data["reason"]
            ),
        ),
        reason_action(
            "unban_users",
            _("Unban the selected users"),
            "ban_user",
            lambda moderator, user, data: services.moderation_unban(
                moderator=moderator, user=user, reason=data["reason"]
            ),
        ),
    )


# --- Games: abort, annul ------------------------------------------------------------------------

admin.site.unregister(Game)


@admin.register(Game)
class ModeratedGameAdmin(ModerationPermissions, GameAdmin):
    list_display = (*GameAdmin.list_display, "annulled")
    list_filter = (*GameAdmin.list_filter, "annulled")
    readonly_fields = (*GameAdmin.readonly_fields, "annulled")
    actions = (
        reason_action(
            "abort_games",
            _("Abort the selected games"),
            "moderate_game",
            lambda moderator, game, data: services.moderation_abort_game(
                moderator=moderator, game_id=game.pk, reason=data["reason"]
            ),
        ),
        reason_action(
            "annul_games",
            _("Annul the selected games"),
            "moderate_game",
            lambda moderator, game, data: services.moderation_annul_game(
                moderator=moderator, game_id=game.pk, reason=data["reason"]
            ),
        ),
    )


# --- Reports, the log, chat ---------------------------------------------------------------------


@admin.register(Report)
class ReportAdmin(ModerationPermissions, admin.ModelAdmin):
    list_display = ("id", "reported", "reason", "reporter", "game", "status", "created_at")
    list_filter = ("status", "reason", "created_at")
    search_fields = ("reported__username", "reporter__username", "text", "=game__id")
    readonly_fields = (
        "reporter",
        "reported",
        "game",
        "reason",
        "text",
        "status",
        "created_at",
        "handled_by",
        "handled_at",
    )
    actions = (
        reason_action(
            "resolve_reports",
            _("Resolve the selected reports"),
            "handle_report",
            lambda moderator, report, data: services.report_resolve(
                moderator=moderator, report_id=report.pk, reason=data["reason"]
            ),
        ),
        reason_action(
            "dismiss_reports",
            _("Dismiss the selected reports"),
            "handle_report",
            lambda moderator, report, data: services.report_dismiss(
                moderator=moderator, report_id=report.pk, reason=data["reason"]
            ),
        ),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players report from the site


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows written only by the services: the admin browses them."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "moderator", "kind", "user", "game", "report", "reason")
    list_filter = ("kind", "created_at", ("moderator", admin.RelatedOnlyFieldListFilter))
    search_fields = ("user__username", "moderator__username", "reason", "=game__id")
    date_hierarchy = "created_at"


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "game", "author", "text")
    search_fields = ("author__username", "text", "=game__id")
    list_filter = ("created_at",)


@admin.register(ModeratorWarning)
class ModeratorWarningAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "text", "seen_at")
    search_fields = ("user__username",)


@admin.register(Standing)
class StandingAdmin(ReadOnlyAdmin):
    list_display = ("user", "banned_at")
    search_fields = ("user__username",)


@admin.register(Silence)
class SilenceAdmin(ReadOnlyAdmin):
    list_display = ("user", "until")
    search_fields = ("user__username",)
