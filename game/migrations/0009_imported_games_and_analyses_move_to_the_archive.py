"""The imported records and the analyses now belong to the archive (``archive`` 0001): the game
app forgets them, leaving their tables to it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0008_game_chat_started"),
        ("archive", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="Analysis"),
                migrations.DeleteModel(name="ImportedGame"),
            ],
        ),
    ]
