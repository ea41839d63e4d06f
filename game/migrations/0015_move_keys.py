"""Each turn's position key beside it in the log, and every stored state cut to the count of
its own position (``Move.key``): the state then stays the same size all game."""

from django.db import migrations, models


def keys_from_the_log(apps, schema_editor):
    from game import engine

    Game = apps.get_model("game", "Game")
    Move = apps.get_model("game", "Move")
    dealt = Game.objects.exclude(state=None).exclude(trump1="")
    for game in dealt.iterator():
        start = engine.deal(
            game.seed,
            (engine.Suit.parse(game.trump0), engine.Suit.parse(game.trump1)),
            engine.Rules(
                deck=game.deck, must_beat=game.must_beat, sixes_to_owner=game.sixes_to_owner
            ),
            first=game.first_player,
        )
        state = engine.GameState.start(start)
        moves = list(Move.objects.filter(game_id=game.pk).order_by("ply"))
        for move in moves:
            state = state.play(move.notation)
            move.key = state.key
        Move.objects.bulk_update(moves, ["key"], batch_size=500)
        game.state = state.counted(state.repetitions()).to_json()
        game.save(update_fields=["state"])


class Migration(migrations.Migration):
    dependencies = [("game", "0014_challenges")]

    operations = [
        migrations.AddField(
            model_name="move",
            name="key",
            field=models.CharField(default="", editable=False, max_length=100),
        ),
        migrations.AddIndex(
            model_name="move",
            index=models.Index(fields=["game", "key"], name="move_position"),
        ),
        migrations.RunPython(keys_from_the_log, migrations.RunPython.noop, elidable=True),
    ]
