"""Game services: every way a game starts and ends, and the paths a move must not slip through."""

import random
import secrets
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction

from game import engine, live
from game.ai.players import choose
from game.engine import fairness
from game.models import Game, Move
from game.options import GameOptions
from game.selectors import check_state, history_of, stored_state
from game.services import GameError
from game.services.endings import (
    game_abort,
    game_claim_abandoned,
    game_claim_timeout,
    game_decline_draw,
    game_offer_draw,
    game_resign,
)
from game.services.play import game_play_computer_move, game_play_move
from game.services.starting import (
    game_cancel_seek,
    game_create_seek,
    game_create_vs_computer,
    game_join,
    game_rematch,
)
from tests.engine.helpers import make_position
from tests.engine.test_game import LOOP
from tests.engine.test_game import START as LOOP_START
from tests.groups import told_to_group

pytestmark = pytest.mark.django_db


#: The server's secret and the two seats' parts of the fixture's deal: the same deal every run.
SECRET, PART0, PART1 = "5e" * 32, "a0" * 32, "0b" * 32


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S", part=PART0)
    Game.objects.filter(pk=seek.pk).update(secret=SECRET, commitment=fairness.commitment(SECRET))
    return game_join(game_id=seek.pk, user=bob, trump="H", part=PART1)


SEED = 20261129


def easy_player(seed=SEED):
    """The easy level with its chances drawn from ``seed``: the same game every run.

    Called like :func:`game.ai.choose_move`, so it can stand in for the computer too.
    """
    rng = random.Random(seed)

    def turn(position, level="easy", seconds=None, *, history=()):
        start = engine.position_from_json(position)
        seen = Counter(engine.position_from_json(p).key for p in history)
        seen[start.key] += 1
        return str(choose(start, level, seconds, seen, rng).move)

    return turn


def mover(game, alice, bob):
    return (alice, bob)[history_of(game).position.to_move]


def play(game, user, notation=None):
    """Play ``notation`` (default: the first legal turn) as ``user`` at the current ply."""
    history = history_of(game)
    notation = notation or str(history.legal_moves()[0])
    return game_play_move(game_id=game.pk, user=user, notation=notation, expected_ply=history.ply)


# -- starting ------------------------------------------------------------------------------


def test_a_seek_waits_then_a_join_deals_from_the_stored_seed(alice, bob):
    seek = game_create_seek(
        user=alice, trump="s", options=GameOptions(deck=24, time_control=(3, 2))
    )
    assert seek.status == Game.Status.SEEKING and seek.trump0 == "S"
    game = game_join(game_id=seek.pk, user=bob, trump="D")
    assert game.status == Game.Status.ACTIVE and game.seat1 == bob
    assert game.clock0_ms == game.clock1_ms == 180_000
    dealt = engine.deal(game.seed, (engine.Suit.S, engine.Suit.D), engine.Rules(deck=24))
    assert history_of(game).position == dealt
    assert game.first_player == dealt.to_move


def test_join_is_refused_for_own_seek_same_trump_and_a_started_game(alice, bob, carol):
    seek = game_create_seek(user=alice, trump="S")
    with pytest.raises(GameError, match="your own game"):
        game_join(game_id=seek.pk, user=alice, trump="H")
    with pytest.raises(GameError, match="must differ"):
        game_join(game_id=seek.pk, user=bob, trump="S")
    game_join(game_id=seek.pk, user=bob, trump="H")
    with pytest.raises(GameError, match="no longer waiting"):
        game_join(game_id=seek.pk, user=carol, trump="D")


def test_bad_settings_are_refused(alice):
    with pytest.raises(GameError, match="trump"):
        game_create_seek(user=alice, trump="X")
    with pytest.raises(GameError, match="time control"):
        game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(2, 1)))
    with pytest.raises(GameError, match="deck"):
        game_create_seek(user=alice, trump="S", options=GameOptions(deck=52))
    with pytest.raises(GameError, match="level"):
        game_create_vs_computer(user=alice, level="grandmaster", trump="S")


def test_a_seek_can_be_cancelled_by_its_creator_only(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    with pytest.raises(GameError, match="Only the player who created"):
        game_cancel_seek(game_id=seek.pk, user=bob)
    cancelled = game_cancel_seek(game_id=seek.pk, user=alice)
    assert cancelled.status == Game.Status.ABORTED
    assert cancelled.reason == Game.Reason.CANCELLED


# -- moves -----------------------------------------------------------------------------


def test_a_move_is_stored_with_its_ply_and_the_position_replays(game, alice, bob):
    user = mover(game, alice, bob)
    result = play(game, user)
    assert result.move.ply == 0 and result.move.player == game.seat_of(user)
    stored = Game.objects.get(pk=game.pk)
    assert result.state == stored_state(stored)
    assert stored.moves.get().key == result.state.key
    assert check_state(stored)
    assert result.game.version > game.version


def test_a_repetition_is_counted_from_the_log_while_the_state_keeps_one_count(game, alice, bob):
    # The engine's loop (tests/engine/test_game.py): its last turn makes a position's third
    # arising. Set on the table as the game's state at ply 0; every turn then goes through the
    # service, which counts the earlier arisings in the move log's keys.
    Game.objects.filter(pk=game.pk).update(
        state=engine.GameState.start(make_position(*LOOP_START)).to_json()
    )
    sizes = set()
    for ply, notation in enumerate(LOOP):
        stored = Game.objects.get(pk=game.pk)
        assert stored.status == Game.Status.ACTIVE, f"over before turn {ply}"
        user = (alice, bob)[stored_state(stored).position.to_move]
        progress = game_play_move(game_id=game.pk, user=user, notation=notation, expected_ply=ply)
        sizes.add(len(progress.game.state["seen"]))
    assert progress.game.status == Game.Status.FINISHED
    assert progress.game.reason == Game.Reason.REPETITION
    assert stored_state(progress.game).repetitions() == 3
    assert sizes == {1}


def test_a_turn_stores_every_column_it_wrote_and_its_move_as_played(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(3, 2)))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    result = play(game, mover(game, alice, bob))
    stored = Game.objects.get(pk=game.pk)
    assert {"state", "version", "clock0_ms", "turn_started_at"} <= set(result.columns)
    for column in result.columns:
        assert getattr(stored, column) == getattr(result.game, column), column
    move = Move.objects.get(game=game, ply=result.move.ply)
    assert (move.player, move.notation, move.time_spent_ms) == (
        result.move.player,
        result.move.notation,
        result.move.time_spent_ms,
    )
    assert move.created_at == stored.turn_started_at  # the turn's one clock reading


def test_a_stale_or_repeated_submission_for_a_ply_is_refused(game, alice, bob):
    user = mover(game, alice, bob)
    first = str(history_of(game).legal_moves()[0])
    game_play_move(game_id=game.pk, user=user, notation=first, expected_ply=0)
    with pytest.raises(GameError, match="out of date"):
        game_play_move(game_id=game.pk, user=user, notation=first, expected_ply=0)
    assert Move.objects.filter(game=game).count() == 1


def test_the_log_admits_one_move_per_ply(game, alice, bob):
    play(game, mover(game, alice, bob))
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.create(game=game, ply=0, player=0, notation="take")


def test_an_illegal_turn_is_refused_with_the_engines_reason(game, alice, bob):
    user = mover(game, alice, bob)
    with pytest.raises(GameError, match="not allowed: take: the pile is empty"):
        play(game, user, "take")
    with pytest.raises(GameError, match="not allowed"):
        play(game, user, "QS-QS")
    assert not Move.objects.filter(game=game).exists()


def test_only_the_player_to_move_may_move(game, alice, bob, carol):
    waiting = bob if mover(game, alice, bob) == alice else alice
    with pytest.raises(GameError, match="not your turn"):
        play(game, waiting)
    with pytest.raises(GameError, match="Only the players"):
        play(game, carol)
    with pytest.raises(GameError, match="Only the players"):
        play(game, AnonymousUser())


def test_a_whole_game_ends_by_the_rules_with_its_reason(game, alice, bob):
    easy = easy_player()
    history = history_of(game)  # kept here: replaying the log every turn made this quadratic
    while game.status == Game.Status.ACTIVE:
        turn = easy(engine.position_to_json(history.position))
        game_play_move(
            game_id=game.pk,
            user=(alice, bob)[history.position.to_move],
            notation=turn,
            expected_ply=history.ply,
        )
        history.play(turn)
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.reason in (Game.Reason.EMPTY_HAND, Game.Reason.LAST_CARD, Game.Reason.REPETITION)
    outcome = history_of(game).outcome
    assert outcome is not None and outcome.winner == game.winner
    assert check_state(game)


# -- ends other than the rules ---------------------------------------------------------------


def test_resignation_gives_the_game_to_the_opponent(game, alice, bob, carol):
    with pytest.raises(GameError):
        game_resign(game_id=game.pk, user=carol)
    finished = game_resign(game_id=game.pk, user=bob)
    assert (finished.status, finished.reason, finished.winner) == (
        Game.Status.FINISHED,
        Game.Reason.RESIGNATION,
        0,
    )
    with pytest.raises(GameError, match="not in play"):
        play(finished, alice)


def test_abort_only_before_both_players_have_moved(alice, bob):
    first = game_join(game_id=game_create_seek(user=alice, trump="S").pk, user=bob, trump="H")
    aborted = game_abort(game_id=first.pk, user=alice)
    assert aborted.status == Game.Status.ABORTED and aborted.winner is None

    second = game_join(game_id=game_create_seek(user=alice, trump="S").pk, user=bob, trump="H")
    play(second, mover(second, alice, bob))
    play(second, mover(second, alice, bob))
    with pytest.raises(GameError, match="no longer be aborted"):
        game_abort(game_id=second.pk, user=alice)


def test_a_draw_offer_is_accepted_by_the_opponent_or_declined(game, alice, bob):
    offered = game_offer_draw(game_id=game.pk, user=alice)
    assert offered.draw_offer == 0
    declined = game_decline_draw(game_id=game.pk, user=bob)
    assert declined.draw_offer is None
    game_offer_draw(game_id=game.pk, user=alice)
    agreed = game_offer_draw(game_id=game.pk, user=bob)
    assert (agreed.status, agreed.reason, agreed.winner) == (
        Game.Status.FINISHED,
        Game.Reason.AGREEMENT,
        None,
    )


@pytest.mark.parametrize("deck", [32, 24])
def test_sixes_to_owner_is_refused_for_a_pack_without_sixes(alice, deck):
    with pytest.raises(GameError, match="needs the 36-card pack"):
        game_create_seek(user=alice, trump="S", options=GameOptions(deck=deck, sixes_to_owner=True))
    with pytest.raises(GameError, match="needs the 36-card pack"):
        game_create_vs_computer(
            user=alice, level="easy", trump="S", options=GameOptions(deck=deck, sixes_to_owner=True)
        )
    assert not Game.objects.exists()


def test_a_draw_offer_stands_through_its_makers_turn_until_the_opponent_moves(game, alice, bob):
    maker = mover(game, alice, bob)
    opponent = bob if maker == alice else alice
    game_offer_draw(game_id=game.pk, user=maker)
    after_own_turn = play(game, maker).game
    assert after_own_turn.draw_offer == game.seat_of(maker)  # the opponent may still answer
    after_reply = play(Game.objects.get(pk=game.pk), opponent).game
    assert after_reply.draw_offer is None  # moving on instead of accepting declines it


def test_a_flagged_player_loses_on_time(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(1, 1)))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=game.turn_started_at - timedelta(seconds=61)
    )
    user = mover(game, alice, bob)
    with pytest.raises(GameError, match="Time ran out"):
        play(Game.objects.get(pk=game.pk), user)
    game.refresh_from_db()
    assert (game.status, game.reason) == (Game.Status.FINISHED, Game.Reason.TIMEOUT)
    assert game.winner == 1 - game.seat_of(user)
    assert not Move.objects.filter(game=game).exists()


def test_a_timeout_can_be_claimed_by_anyone(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(1, 1)))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    assert game_claim_timeout(game_id=game.pk).status == Game.Status.ACTIVE
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=game.turn_started_at - timedelta(seconds=90)
    )
    claimed = game_claim_timeout(game_id=game.pk)
    assert (claimed.status, claimed.reason) == (Game.Status.FINISHED, Game.Reason.TIMEOUT)


def test_clocks_are_charged_and_given_the_increment(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(3, 2)))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=game.turn_started_at - timedelta(seconds=10)
    )
    result = play(Game.objects.get(pk=game.pk), mover(game, alice, bob))
    seat = result.move.player
    left = result.game.clock0_ms if seat == 0 else result.game.clock1_ms
    assert 171_000 <= left <= 172_100  # 180 s - 10 s spent + 2 s increment
    assert result.move.time_spent_ms >= 10_000


# -- the computer and rematches ------------------------------------------------------------------


def test_the_computer_answers_its_turns_and_refuses_draws(alice, monkeypatch):
    monkeypatch.setattr(secrets, "token_hex", lambda n: "5e" * n)  # the server's parts: one deal
    game = game_create_vs_computer(user=alice, level="easy", trump="C", part=PART0)
    assert game.status == Game.Status.ACTIVE and game.trump1 in "SHD"
    with pytest.raises(GameError, match="does not agree"):
        game_offer_draw(game_id=game.pk, user=alice)
    alices, computer = easy_player(1), easy_player(2)
    while game.status == Game.Status.ACTIVE:
        if history_of(game).position.to_move == 1:
            assert game_play_computer_move(game_id=game.pk, choose=computer) is not None
        else:
            assert game_play_computer_move(game_id=game.pk, choose=computer) is None
            play(game, alice, alices(engine.position_to_json(history_of(game).position)))
        game.refresh_from_db()
    assert game.reason in (Game.Reason.EMPTY_HAND, Game.Reason.LAST_CARD, Game.Reason.REPETITION)


def test_a_rematch_keeps_the_table_and_the_loser_starts(game, alice, bob):
    game_resign(game_id=game.pk, user=alice)
    assert game_rematch(game_id=game.pk, user=bob) is None  # asked: alice must agree
    assert not Game.objects.filter(rematch_of=game).exists()
    rematch = game_rematch(game_id=game.pk, user=alice)
    assert rematch is not None
    assert (rematch.seat0, rematch.seat1, rematch.trump0, rematch.trump1) == (alice, bob, "S", "H")
    assert rematch.first_player == 0  # alice lost
    assert history_of(rematch).position.to_move == 0
    assert game_rematch(game_id=game.pk, user=bob) == rematch


def test_viewers_are_told_after_the_commit(game, alice, bob, django_capture_on_commit_callbacks):
    played = []

    def turn_then_commit():
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            played.append(play(game, mover(game, alice, bob)))
        assert callbacks  # nothing was told before the commit
        for callback in callbacks:
            callback()

    message = told_to_group(live.game_group(game.pk), turn_then_commit)
    (result,) = played
    assert result.events == (live.Moved(0, result.move.player, result.move.notation),)
    move = result.move
    moved = {"kind": "Moved", "ply": 0, "seat": move.player, "notation": move.notation}
    row = message.pop("row")
    assert message == {
        "type": "game.changed",
        "version": result.game.version,
        "events": [moved],
    }
    # The columns the turn wrote, dates as text: what a process that keeps the version before
    # needs to follow it, the state (one count, whatever the game's length) among them.
    assert set(row) == {"clock0_ms", "clock1_ms", "status", "reason", "winner", "finished_at"} | {
        "draw_offer",
        "turn_started_at",
        "state",
    }
    assert row["state"] == result.game.state
    assert row["turn_started_at"] == result.game.turn_started_at.isoformat()
    assert row["status"] == Game.Status.ACTIVE


def test_a_resignation_says_who_won_and_how(game, alice, bob):
    result = game_resign(game_id=game.pk, user=alice)
    assert result.status == Game.Status.FINISHED
    progress = live.events_of(result, None, None)
    assert progress == (live.Ended(Game.Status.FINISHED, Game.Reason.RESIGNATION, 1),)


def test_a_silent_opponent_in_an_untimed_game_can_be_claimed_against(game, alice, bob):
    waiting = bob if mover(game, alice, bob) == alice else alice
    with pytest.raises(GameError, match="still be thinking"):
        game_claim_abandoned(game_id=game.pk, user=waiting)
    with pytest.raises(GameError, match="your turn"):
        game_claim_abandoned(game_id=game.pk, user=mover(game, alice, bob))
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=game.turn_started_at - timedelta(minutes=6)
    )
    claimed = game_claim_abandoned(game_id=game.pk, user=waiting)
    assert (claimed.status, claimed.reason) == (Game.Status.FINISHED, Game.Reason.ABANDONED)
    assert claimed.winner == game.seat_of(waiting)


@pytest.mark.django_db(transaction=True)
def test_a_turn_reads_a_requests_lazy_user_before_taking_the_write_lock(game, alice, bob):
    from django.db import connection
    from django.utils.functional import SimpleLazyObject

    read_in_transaction = []

    def read_user():  # as AuthenticationMiddleware's request.user: session, then the user's row
        read_in_transaction.append(connection.in_atomic_block)
        return mover(game, alice, bob)

    play(game, SimpleLazyObject(read_user))
    assert read_in_transaction == [False]
    assert Move.objects.filter(game=game).count() == 1
