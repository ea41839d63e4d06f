"""Mark the games whose chat has lines (``Game.chat_started``), so that they are still read."""

from django.db import migrations


def mark_started(apps, schema_editor):
    Game = apps.get_model("game", "Game")
    ChatMessage = apps.get_model("moderation", "ChatMessage")
    started = ChatMessage.objects.values("game_id")
    Game.objects.filter(pk__in=started).update(chat_started=True)


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0008_game_chat_started"),
        ("moderation", "0001_initial"),
    ]

    operations = [migrations.RunPython(mark_started, migrations.RunPython.noop)]
