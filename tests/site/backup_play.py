"""The game's side of test_backups.py, each step a process of its own on the database its
environment names (``python -m tests.site.backup_play STEP ...``), played through the services:

- ``start``: the schema, two players and a game played part-way; prints the game and its moves;
- ``write STOP``: other players play games, a turn at a time, printing how many turns they have
  played after each, until the file ``STOP`` exists;
- ``next GAME``: the next turn of ``GAME``; prints its moves, how many turns the other games had,
  and whether every game's stored state is what its move log gives.
"""

import json
import sys
from pathlib import Path

import django


def start() -> dict[str, object]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from game.selectors import notations_of
    from tests.games import dealt_game, play_turns

    call_command("migrate", verbosity=0)
    alice = get_user_model().objects.create_user("alice", password="pw-alice-123")
    bob = get_user_model().objects.create_user("bob", password="pw-bob-123")
    game = play_turns(dealt_game(alice, bob, time_control=None), (alice, bob), turns=10)
    return {"game": game.pk, "moves": notations_of(game.pk)}


def write(stop: Path) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from game.models import Game
    from tests.games import dealt_game, play_turns

    if connection.vendor == "sqlite":
        # All of it stays in the write-ahead log, as on a site too busy to checkpoint: a backup
        # that copied the database's file alone would miss every turn played here.
        connection.cursor().execute("PRAGMA wal_autocheckpoint=0")
    carol = get_user_model().objects.create_user("carol", password="pw-carol-123")
    dave = get_user_model().objects.create_user("dave", password="pw-dave-1234")
    turns = 0
    while not stop.exists():
        game = dealt_game(carol, dave, time_control=None)
        while game.status == Game.Status.ACTIVE and not stop.exists():
            play_turns(game, (carol, dave), seed=turns, turns=1)
            turns += 1
            print(turns, flush=True)


def next_turn(game_id: int) -> dict[str, object]:
    from game.models import Game, Move
    from game.selectors import check_state, notations_of
    from tests.games import play_turns

    game = Game.objects.select_related("seat0", "seat1").get(pk=game_id)
    others = Move.objects.exclude(game=game).count()
    play_turns(game, (game.seat0, game.seat1), turns=1)
    played = Game.objects.exclude(status=Game.Status.SEEKING)
    return {
        "moves": notations_of(game_id),
        "other_turns": others,
        "states_agree": all(check_state(g) for g in played),
    }


if __name__ == "__main__":
    django.setup()
    step, *args = sys.argv[1:]
    if step == "start":
        print(json.dumps(start()))
    elif step == "write":
        write(Path(args[0]))
    else:
        print(json.dumps(next_turn(int(args[0]))))
