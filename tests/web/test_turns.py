"""The live table's turns in words: who played each, the last one spoken, repetitions counted."""

import pytest

from game import engine, services
from game.engine.state import repetition_key
from game.models import Game
from game.selectors import stored_state
from game.table_markup import render_table
from game.tables import table_for
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
    seek = services.game_create_seek(user=alice, trump="S")
    game = services.game_join(game_id=seek.pk, user=bob, trump="H")
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
def test_the_move_log_renders_each_turn_once_and_its_viewers_share_it(alice, bob, monkeypatch):
    """A turn renders one new item of the log (and its last one again, unmarked), not the whole
    log; the viewers' tables hold the same string; the bytes are those of a log rendered whole;
    a game that ends is not kept, and of those in play the latest ``size``."""
    from game import table_markup
    from game.selectors import history_of
    from game.table_markup import MOVE_LOGS, MoveLogs, render_table_parts
    from game.tables import tables_for

    rendered = []
    real_move_line = table_markup.move_line

    def counting(turn, current):
        rendered.append((turn.number, current))
        return real_move_line(turn, current)

    monkeypatch.setattr(table_markup, "move_line", counting)
    seek = services.game_create_seek(user=alice, trump="S", deck=24)
    game = services.game_join(game_id=seek.pk, user=bob, trump="H")
    for ply in range(4):
        history = history_of(game)
        services.game_play_move(
            game_id=game.pk,
            user=(alice, bob)[history.position.to_move],
            notation=str(history.legal_moves()[0]),
            expected_ply=ply,
        )
        game = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
        rendered.clear()
        logs = [render_table_parts(table)[1] for table in tables_for(game, [0, 1, None])]
        assert rendered == ([(ply, False)] if ply else []) + [(ply + 1, True)]
        assert logs[0] is logs[1] is logs[2]
        MOVE_LOGS.clear()
        assert render_table_parts(table_for(game, 0))[1] == logs[0]  # as rendered whole
    services.game_resign(game_id=game.pk, user=bob)
    ended = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
    assert list(MOVE_LOGS._logs) == [game.pk]
    render_table_parts(table_for(ended, 0))  # a resignation adds no turn to the kept log
    assert MOVE_LOGS._logs == {}  # over: rendered once more, then forgotten
    logs_of_two = MoveLogs(size=2)
    for game_id in (1, 2, 3):
        game.pk = game_id
        logs_of_two.items(game, ("take",))
    assert list(logs_of_two._logs) == [2, 3]
