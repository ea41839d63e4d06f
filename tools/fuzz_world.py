"""The rows the fuzzer's inputs aim at (:class:`World`, made through the services as the site
makes them) and what a refused input must leave as it was (:func:`stored_state`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.test import Client


@dataclass
class World:
    """The rows the inputs aim at: players in several roles, games in every state, a record,
    a report and a warning, so that valid ids reach deep into the views."""

    users: dict[str, Any]
    game_ids: list[int]
    ids: list[int]
    usernames: list[str]
    tokens: list[str]
    record_text: str

    def user(self, role: str) -> Any:
        return self.users.get(role) or AnonymousUser()


ROLES = ("anon", "alice", "carol", "mod", "root")


def make_world() -> World:
    """Create the rows :class:`World` describes, through the services (as the site does)."""
    from archive.models import ImportedGame
    from game.models import Game
    from game.services.chat import game_chat_post
    from game.services.endings import game_resign
    from game.services.starting import game_create_seek, game_create_vs_computer, game_join
    from moderation import services as moderation
    from moderation.models import ModeratorWarning, Report

    users = get_user_model().objects
    alice = users.create_user("fuzz-alice", password="pw-fuzz-alice-1")
    bob = users.create_user("fuzz-bob", password="pw-fuzz-bob-1")
    carol = users.create_user("fuzz-carol", password="pw-fuzz-carol-1")
    mod = users.create_user("fuzz-mod", password="pw-fuzz-mod-1")
    moderation.moderator_grant(user=mod)
    mod = users.get(pk=mod.pk)
    root = users.create_superuser("fuzz-root", password="pw-fuzz-root-1")

    game_create_seek(user=alice, trump="S")
    private = game_create_seek(user=bob, trump="S", private=True)
    active = game_join(game_id=game_create_seek(user=alice, trump="S").pk, user=bob, trump="H")
    game_chat_post(game_id=active.pk, user=alice, text="good luck")
    finished = game_join(game_id=game_create_seek(user=bob, trump="D").pk, user=alice, trump="C")
    game_resign(game_id=finished.pk, user=alice)
    game_create_vs_computer(user=carol, level="easy", trump="H")
    record_text = Client().get(f"/games/{finished.pk}/replay/record.txt").content.decode()
    imported = ImportedGame.objects.create(text=record_text)
    moderation.report_create(reporter=bob, reported=alice, reason="abuse", text="rude", game=active)
    moderation.moderation_warn(moderator=mod, user=carol, reason="be kind")
    report = Report.objects.order_by("-pk").first()
    warning = ModeratorWarning.objects.order_by("-pk").first()
    game_ids = list(Game.objects.values_list("pk", flat=True))
    ids = sorted({*game_ids, imported.pk, getattr(report, "pk", 1), getattr(warning, "pk", 1)})
    return World(
        users={"alice": alice, "carol": carol, "mod": mod, "root": root},
        game_ids=game_ids,
        ids=ids,
        usernames=[u.username for u in (alice, bob, carol, mod, root)],
        tokens=[private.invite_token],
        record_text=record_text,
    )


def stored_state() -> tuple[Any, ...]:
    """What a refused input must leave as it was: every game's version and status, and the
    number of rows of everything players and moderators create."""
    from archive.models import Analysis, ImportedGame
    from chat.models import ChatMessage
    from game.models import Game, Move
    from moderation.models import ModerationAction, Report

    return (
        tuple(Game.objects.order_by("pk").values_list("pk", "version", "status")),
        Move.objects.count(),
        ChatMessage.objects.count(),
        Report.objects.count(),
        ModerationAction.objects.count(),
        get_user_model().objects.filter(Q(is_active=True)).count(),
        ImportedGame.objects.count(),
        Analysis.objects.count(),
    )


STATE_PARTS = (
    "games",
    "moves",
    "chat lines",
    "reports",
    "moderation actions",
    "active users",
    "imported records",
    "analyses",
)


def changed_parts(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    """Which parts of :func:`stored_state` differ, and how (for a game: its row)."""
    parts = []
    for name, old, new in zip(STATE_PARTS, before, after, strict=True):
        if old != new:
            detail = sorted(set(new) - set(old)) if name == "games" else f"{old} -> {new}"
            parts.append(f"{name} {detail}")
    return "; ".join(parts)
