"""The chat lines and the players' mutes move from moderation to the chat app: their tables stay
as they are (``moderation_chatmessage``, ``moderation_chatmute``), only Django's idea of whose
models they are changes (state only), and so do their content types, which the admin's log and
the moderators' permission to read chat point at. A moderator's chat mute becomes the chat's own
``Silence``, copied from moderation's ``Standing.chat_muted_until`` where one is in force."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

MODELS = ("chatmessage", "chatmute")


def move_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="moderation", model__in=MODELS).update(app_label="chat")


def move_content_types_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label="chat", model__in=MODELS).update(app_label="moderation")


def copy_mutes(apps, schema_editor):
    Standing = apps.get_model("moderation", "Standing")
    Silence = apps.get_model("chat", "Silence")
    muted = Standing.objects.filter(chat_muted_until__gt=django.utils.timezone.now())
    Silence.objects.bulk_create(
        Silence(user_id=standing.user_id, until=standing.chat_muted_until) for standing in muted
    )


def copy_mutes_back(apps, schema_editor):
    Standing = apps.get_model("moderation", "Standing")
    for silence in apps.get_model("chat", "Silence").objects.all():
        Standing.objects.update_or_create(
            user_id=silence.user_id, defaults={"chat_muted_until": silence.until}
        )


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("game", "0009_imported_games_and_analyses_move_to_the_archive"),
        ("moderation", "0002_chat_started"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="ChatMessage",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("text", models.CharField(max_length=200, verbose_name="message")),
                        ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                        ("author", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="chat_messages", to=settings.AUTH_USER_MODEL, verbose_name="author")),
                        ("game", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="chat_messages", to="game.game")),
                    ],
                    options={
                        "verbose_name": "chat message",
                        "verbose_name_plural": "chat messages",
                        "db_table": "moderation_chatmessage",
                        "ordering": ("created_at", "pk"),
                    },
                ),
                migrations.CreateModel(
                    name="ChatMute",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("muted", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="chat_mutes", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "verbose_name": "muted player",
                        "verbose_name_plural": "muted players",
                        "db_table": "moderation_chatmute",
                        "constraints": [models.UniqueConstraint(fields=("user", "muted"), name="one_chat_mute_per_pair")],
                    },
                ),
            ],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
        migrations.CreateModel(
            name="Silence",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("until", models.DateTimeField(verbose_name="muted in chat until")),
                ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="chat_silence", to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "verbose_name": "chat mute by a moderator",
                "verbose_name_plural": "chat mutes by moderators",
            },
        ),
        migrations.RunPython(copy_mutes, copy_mutes_back),
    ]
