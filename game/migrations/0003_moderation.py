from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0002_alter_game_reason"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="annulled",
            field=models.BooleanField(
                default=False,
                help_text="Annulled by a moderator: the game is kept but counts for nothing.",
                verbose_name="annulled",
            ),
        ),
    ]
