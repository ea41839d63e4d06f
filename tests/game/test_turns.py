"""The live table's turns in words: who played each, the last one spoken, repetitions counted."""

import re

import pytest

from game import engine
from game.engine.state import repetition_key
from game.models import Game
from game.selectors import stored_state
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from game.table_markup import render_table, render_turn
from game.tables import table_for, tables_for
from game.turns import Turn, moved_cards, spoken, turn_at


def cards(text: str) -> list[engine.Card]:
    return [engine.Card.parse(c) for c in text.split()]


def test_each_turn_has_its_mover_from_the_first_player_on():
    moves = ["7H", "take", "9C"]
    turns = [turn_at(moves, ply, first=1, names=("anna", "bob")) for ply in range(3)]
    assert [(t.number, t.name, t.notation) for t in turns] == [
        (1, "bob", "7H"),
        (2, "anna", "take"),
        (3, "bob", "9C"),
    ]


@pytest.mark.parametrize(
    ("notation", "pile", "words"),
    [
        ("7D", "7D", "bob led 7♦."),
        ("JC-7D", "6H 9C JC 7D", "bob beat 9♣ with J♣ and laid 7♦."),
        ("TS", "9C TS", "bob beat 9♣ with 10♠, their last card."),
        ("take", "6H", "bob took from the pile; 1 left on it."),
    ],
)
def test_the_last_turn_is_spoken_with_the_card_it_answered(notation, pile, words):
    assert spoken(Turn(4, 1, "bob", notation), cards(pile)) == words


def test_the_cards_a_turn_put_on_the_pile_are_marked():
    assert moved_cards(Turn(1, 0, "anna", "JC-7D")) == frozenset(cards("JC 7D"))
    assert moved_cards(Turn(2, 1, "bob", "take")) == frozenset()
    assert moved_cards(None) == frozenset()


@pytest.mark.django_db
def test_the_table_counts_a_position_seen_twice(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    html = render_table(table_for(game, 0))
    assert "second time" not in html
    state = stored_state(game)
    game.state["seen"][repetition_key(state.position.key)] = 2
    game.save(update_fields=["state"])
    game = Game.objects.get(pk=game.pk)
    assert "This position has arisen for the second time — a third is a draw." in render_table(
        table_for(game, 0)
    )


@pytest.mark.django_db
def test_a_turn_s_update_carries_one_log_line_and_stays_the_same_size_all_game(alice, bob):
    """The whole table carries the move log; a turn's update only the turn's line, so that what
    each viewer is sent after a turn does not grow with the game (issue 53's 6 KB per viewer is
    not met yet: a hand of buttons still weighs more)."""
    import random

    from game.engine import GameState
    from game.selectors import stored_state
    from game.table_markup import render_table, render_turn
    from game.tables import tables_for

    rng = random.Random(5)
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    sizes = {}
    for ply in range(120):
        state: GameState = stored_state(game)
        going_on = [m for m in state.legal_moves() if state.play(m).outcome is None]
        game_play_move(
            game_id=game.pk,
            user=(alice, bob)[state.position.to_move],
            notation=str(rng.choice(going_on)),
            expected_ply=ply,
        )
        game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
        if ply + 1 in (10, 120):
            last = (game.moves.order_by("ply").last().notation,)
            spectator = tables_for(game, [None], last)[0]
            update = render_turn(spectator)
            assert update.count('class="move-log__turn"') == 1
            assert f'<span class="move-log__n">{ply + 1}.</span>' in update
            whole = render_table(tables_for(game, [None])[0])
            assert whole.count('class="move-log__turn"') == ply + 1
            sizes[ply + 1] = len(update.encode())
    assert sizes[120] < 2 * sizes[10]  # the hands differ in size; the log does not count


@pytest.mark.django_db
def test_a_turn_s_update_swaps_what_the_turn_changed_and_one_s_own_hand_only_for_its_holder(
    alice, bob
):
    game = game_join(game_id=game_create_seek(user=alice, trump="S").pk, user=bob, trump="H")
    state = stored_state(game)
    mover = state.position.to_move
    move = str(state.legal_moves()[0])
    game_play_move(game_id=game.pk, user=(alice, bob)[mover], notation=move, expected_ply=0)
    game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
    tables = tables_for(game, [mover, 1 - mover, None], (move,))
    moved, to_move, watching = (set(re.findall(r'\bid="([^"]+)"', render_turn(t))) for t in tables)
    every = {"table-turn", "seat-head-0", "seat-head-1", f"hand-{mover}", "pile", "table-notes"}
    players = {"controls", "table-actions"}
    assert moved == every | players
    assert to_move - {"seconds"} == every | players | {f"hand-{1 - mover}"}  # now buttons
    assert watching == every
    # Each id the update swaps is one the whole table has, for htmx to find it.
    whole = set(re.findall(r'\bid="([^"]+)"', render_table(table_for(game, 1 - mover))))
    assert to_move <= whole
