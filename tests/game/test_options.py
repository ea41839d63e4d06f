"""A game's options as one value (``game.options.GameOptions``): checked when made, written to a
row and read back unchanged, cleaned from the lobby's forms, and kept by everything that makes a
game from another's options: a challenge, its acceptance, a rematch, a pairing."""

from __future__ import annotations

import doctest
from dataclasses import FrozenInstanceError

import pytest

from game import challenges, options, pool
from game.forms import ChallengeForm, ComputerForm, SeekForm
from game.models import Challenge, Game
from game.options import GameOptions
from game.services import GameError
from game.services.endings import game_resign
from game.services.starting import (
    game_create_seek,
    game_create_vs_computer,
    game_join,
    game_rematch,
)

pytestmark = pytest.mark.django_db

#: Every option away from its default, and the defaults: each must survive a round trip.
CHOSEN = [
    GameOptions(),
    GameOptions(deck=24, must_beat=True, time_control=(3, 2), rated=True),
    GameOptions(deck=36, sixes_to_owner=True, time_control=(15, 10)),
    GameOptions(deck=32, rated=True),
]


def test_the_options_docstring_examples_run_as_written():
    assert doctest.testmod(options).failed == 0


@pytest.mark.parametrize("chosen", CHOSEN, ids=str)
def test_options_written_to_a_game_or_a_challenge_read_back_the_same(chosen, alice):
    assert GameOptions.of(Game(**chosen.fields())) == chosen
    assert GameOptions.of(Challenge(**chosen.fields())) == chosen


@pytest.mark.parametrize("chosen", CHOSEN, ids=str)
def test_a_seek_stores_its_options_as_given(chosen, alice):
    seek = game_create_seek(user=alice, trump="S", options=chosen)
    assert GameOptions.of(Game.objects.get(pk=seek.pk)) == chosen


def test_the_clock_is_stored_in_seconds_and_has_the_lobby_s_speed():
    chosen = GameOptions(time_control=(10, 5))
    assert (chosen.clock_initial, chosen.clock_increment) == (600, 5)
    assert chosen.speed == Game(**chosen.fields()).speed
    untimed = GameOptions()
    assert (untimed.clock_initial, untimed.clock_increment) == (None, 0)


def test_options_are_a_value_equal_by_their_fields_and_never_changed():
    assert GameOptions(time_control=[3, 2]) == GameOptions(time_control=(3, 2))  # as from JSON
    assert len({GameOptions(deck=24), GameOptions(deck=24)}) == 1
    with pytest.raises(FrozenInstanceError):
        GameOptions().rated = True  # type: ignore[misc]


@pytest.mark.parametrize(
    ("chosen", "why"),
    [
        ({"deck": 32, "sixes_to_owner": True}, "Sixes to owner needs the 36-card pack"),
        ({"deck": 24, "sixes_to_owner": True}, "Sixes to owner needs the 36-card pack"),
        ({"deck": 40}, "40"),  # the engine's own words, naming the pack it does not know
        ({"time_control": (2, 0)}, "time control is not offered"),
        ({"time_control": (3, 3)}, "time control is not offered"),
    ],
)
def test_options_the_game_does_not_offer_are_refused_saying_why(chosen, why):
    with pytest.raises(GameError, match=why):
        GameOptions(**chosen)


def test_a_row_whose_clock_is_not_whole_minutes_has_no_options_to_read():
    with pytest.raises(GameError, match="time control is not offered"):
        GameOptions.of(Game(clock_initial=90, clock_increment=1))


def test_the_lobby_s_forms_clean_into_one_options_value():
    seek = SeekForm({"trump": "S", "deck": "24", "must_beat": "on", "clock": "3+2", "rated": "on"})
    assert seek.is_valid(), seek.errors
    assert seek.cleaned_data["options"] == GameOptions(
        deck=24, must_beat=True, time_control=(3, 2), rated=True
    )
    casual = ChallengeForm({"trump": "H", "deck": "36", "sixes_to_owner": "on", "clock": ""})
    assert casual.is_valid(), casual.errors
    assert casual.cleaned_data["options"] == GameOptions(sixes_to_owner=True)
    computer = ComputerForm({"trump": "D", "deck": "32", "clock": "1+1", "level": "easy"})
    assert computer.is_valid(), computer.errors
    assert computer.cleaned_data["options"] == GameOptions(deck=32, time_control=(1, 1))


def test_a_form_with_options_the_game_refuses_says_why_and_has_none():
    form = SeekForm({"trump": "S", "deck": "32", "sixes_to_owner": "on", "clock": ""})
    assert not form.is_valid()
    assert "Sixes to owner needs the 36-card pack" in str(form.errors["sixes_to_owner"])
    assert "options" not in form.cleaned_data


def test_a_challenge_keeps_its_options_from_the_challenge_to_the_game(alice, bob):
    chosen = GameOptions(deck=32, must_beat=True, time_control=(5, 3), rated=True)
    made = challenges.challenge_create(challenger=alice, challenged=bob, trump="S", options=chosen)
    assert GameOptions.of(Challenge.objects.get(pk=made.pk)) == chosen
    game = challenges.challenge_accept(challenge_id=made.pk, user=bob, trump="H")
    assert GameOptions.of(Game.objects.get(pk=game.pk)) == chosen


def test_a_rematch_is_played_by_the_options_of_the_game_before(alice, bob):
    chosen = GameOptions(deck=24, must_beat=True, time_control=(3, 2), rated=True)
    seek = game_create_seek(user=alice, trump="S", options=chosen)
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    game_resign(game_id=game.pk, user=bob)
    assert game_rematch(game_id=game.pk, user=bob) is None  # asked: alice's answer starts it
    rematch = game_rematch(game_id=game.pk, user=alice)
    assert GameOptions.of(Game.objects.get(pk=rematch.pk)) == chosen


def test_a_game_against_the_computer_keeps_its_options_and_is_never_rated(alice):
    chosen = GameOptions(deck=36, sixes_to_owner=True, time_control=(10, 5))
    game = game_create_vs_computer(user=alice, level="easy", trump="S", options=chosen)
    assert GameOptions.of(Game.objects.get(pk=game.pk)) == chosen
    with pytest.raises(ValueError, match="cannot be rated"):
        game_create_vs_computer(
            user=alice, level="easy", trump="S", options=GameOptions(rated=True)
        )


def test_a_pairing_plays_the_time_control_and_rating_its_players_chose_on_the_pool_s_pack(
    alice, bob
):
    for user in (alice, bob):
        paired = pool.pool_enter(
            user=user, channel_name=f"socket-{user.pk}", time_control=(1, 1), rated=False
        )
    assert isinstance(paired, pool.Paired)
    game = Game.objects.get(pk=paired.game.pk)
    assert GameOptions.of(game) == GameOptions(time_control=(1, 1), rated=False)
