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
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import ngettext

from chat.models import ChatMessage, Silence
from game.admin import GameAdmin
from game.models import Game
from moderation import actions
from moderation.actions import Action, On
from moderation.forms import action_form
from moderation.models import ModerationAction, ModeratorWarning, Report, Standing
from moderation.services import ModerationError

AdminAction = Callable[[admin.ModelAdmin, HttpRequest, QuerySet[Model]], HttpResponse | None]


def admin_action(action: Action) -> AdminAction:
    """The admin's action for ``action``: it first asks for a reason (and a mute's duration),
    then performs it on each selected object; refusals are reported one by one."""

    def run(
        modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Model]
    ) -> HttpResponse | None:
        applying = "apply" in request.POST
        form = action_form(action, request.POST if applying else None)
        if applying and form.is_valid():
            done = 0
            for obj in queryset:
                try:
                    action.perform(moderator=request.user, target=obj, **form.cleaned_data)
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
                    % {"action": action.admin, "n": done},
                    messages.SUCCESS,
                )
            return None
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": action.admin,
            "form": form,
            "queryset": queryset,
            "action": action.admin_name,
            "opts": modeladmin.model._meta,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/moderation/reason_form.html", context)

    run.__name__ = action.admin_name
    return admin.action(description=action.admin)(run)


ADMIN_ACTIONS = {action.code: admin_action(action) for action in actions.ACTIONS}


class ModeratorActions:
    """The registry's actions on what this admin lists (``moderated``), each offered to whoever
    holds its permission."""

    moderated: On

    def get_actions(self, request: HttpRequest) -> dict[str, tuple[AdminAction, str, Any]]:
        offered = super().get_actions(request)  # type: ignore[misc]
        if IS_POPUP_VAR in request.GET:
            return offered
        for action in actions.on(self.moderated):
            if action.allowed(request.user):
                run = ADMIN_ACTIONS[action.code]
                offered[action.admin_name] = (run, action.admin_name, action.admin)
        return offered


# --- Users: warn, mute, ban, unban -------------------------------------------------------------

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class ModeratedUserAdmin(ModeratorActions, UserAdmin):
    moderated = On.USER
    list_display = ("username", "email", "is_active", "is_staff", "date_joined", "last_login")


# --- Games: abort, annul ------------------------------------------------------------------------

admin.site.unregister(Game)


@admin.register(Game)
class ModeratedGameAdmin(ModeratorActions, GameAdmin):
    moderated = On.GAME
    list_display = (*GameAdmin.list_display, "annulled")
    list_filter = (*GameAdmin.list_filter, "annulled")
    readonly_fields = (*GameAdmin.readonly_fields, "annulled")


# --- Reports, the log, chat ---------------------------------------------------------------------


@admin.register(Report)
class ReportAdmin(ModeratorActions, admin.ModelAdmin):
    moderated = On.REPORT
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
