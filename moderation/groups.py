"""The "Moderators" group and the permissions it holds (superusers hold them all anyway)."""

from typing import Any

from django.contrib.auth.models import Group, Permission

from moderation.actions import PERMISSIONS

MODERATORS = "Moderators"

#: (app label, codename) of every permission a moderator holds: what the moderation pages and the
#: admin show, and every permission a moderator's action needs (moderation.actions).
MODERATOR_PERMISSIONS = (
    ("moderation", "view_report"),
    ("moderation", "view_moderationaction"),
    ("chat", "view_chatmessage"),
    ("auth", "view_user"),
    ("game", "view_game"),
    ("game", "view_move"),
    *(("moderation", permission.codename) for permission in PERMISSIONS),
)


def ensure_moderators_group(**kwargs: Any) -> Group:
    """Create the group if needed and give it exactly :data:`MODERATOR_PERMISSIONS`."""
    group, _ = Group.objects.get_or_create(name=MODERATORS)
    permissions = [
        Permission.objects.get(content_type__app_label=app, codename=codename)
        for app, codename in MODERATOR_PERMISSIONS
    ]
    group.permissions.set(permissions)
    return group
