from django.db import migrations, models


def fill_states(apps, schema_editor):
    """Give every dealt game the state its move log leads to (the engine is pure: safe here)."""
    from game import engine

    Game = apps.get_model("game", "Game")
    for game in Game.objects.exclude(trump1="").exclude(status="seeking").iterator():
        rules = engine.Rules(
            deck=game.deck, must_beat=game.must_beat, sixes_to_owner=game.sixes_to_owner
        )
        trumps = (engine.Suit.parse(game.trump0), engine.Suit.parse(game.trump1))
        start = engine.deal(game.seed, trumps, rules, first=game.first_player)
        notations = game.moves.order_by("ply").values_list("notation", flat=True)
        game.state = engine.Game.replay(start, notations).state.to_json()
        game.save(update_fields=["state"])


class Migration(migrations.Migration):
    dependencies = [
        ("game", "0004_merge_0003_moderation_0003_replays"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="state",
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(fill_states, migrations.RunPython.noop),
    ]
