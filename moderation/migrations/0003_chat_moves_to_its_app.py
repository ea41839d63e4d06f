"""The chat's lines and mutes now belong to the chat app (``chat`` 0001, which also copied the
moderators' chat mutes in force): moderation forgets the models, leaving their tables to it, and
drops ``Standing.chat_muted_until``."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0002_chat_started"),
        ("chat", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="ChatMessage"),
                migrations.DeleteModel(name="ChatMute"),
            ],
        ),
        migrations.RemoveField(model_name="standing", name="chat_muted_until"),
    ]
