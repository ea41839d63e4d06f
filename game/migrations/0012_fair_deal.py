from django.db import migrations, models


class Migration(migrations.Migration):
    """The parts of a fair deal; games made before have none and keep their stored seed."""

    dependencies = [
        ("game", "0011_move_created_at_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="secret",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="game",
            name="commitment",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="game",
            name="part0",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="game",
            name="part1",
            field=models.CharField(blank=True, editable=False, max_length=64),
        ),
        migrations.AddField(
            model_name="game",
            name="part0_from_browser",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.AddField(
            model_name="game",
            name="part1_from_browser",
            field=models.BooleanField(default=False, editable=False),
        ),
    ]
