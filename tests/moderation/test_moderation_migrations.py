"""The moderation app's data migrations, run forward on rows written before them."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("game", "0007_table_offers"), ("moderation", "0001_initial")]
AFTER = [("moderation", "0002_chat_started")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def test_the_games_whose_chat_has_lines_are_marked_started(transactional_db):
    apps = _migrate(BEFORE)
    try:
        User = apps.get_model("auth", "User")
        Game = apps.get_model("game", "Game")
        ChatMessage = apps.get_model("moderation", "ChatMessage")
        alice, bob = (User.objects.create(username=name) for name in ("alice", "bob"))
        quiet, chatty = (Game.objects.create(seat0=alice, seat1=bob, trump0="S") for _ in "ab")
        ChatMessage.objects.create(game=chatty, author=bob, text="gg")

        apps = _migrate(AFTER)
        Game = apps.get_model("game", "Game")
        started = dict(Game.objects.values_list("pk", "chat_started"))
        assert started == {quiet.pk: False, chatty.pk: True}
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
