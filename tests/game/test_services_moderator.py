"""Game services for moderators' decisions: abort, annul, and the games a ban ends."""

import pytest

from game.models import Game
from game.selectors import player_record
from game.services import GameError
from game.services.endings import game_resign
from game.services.moderators import game_abort_by_moderator, game_annul, games_forfeit_by_ban
from game.services.starting import game_create_seek, game_create_vs_computer, game_join

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H")


def test_a_moderator_abort_stops_a_game_in_play_with_no_result(game):
    aborted = game_abort_by_moderator(game_id=game.pk)
    assert aborted.status == Game.Status.ABORTED and aborted.reason == Game.Reason.MODERATOR
    assert aborted.winner is None and aborted.version == game.version + 1
    with pytest.raises(GameError, match="already over"):
        game_abort_by_moderator(game_id=game.pk)


def test_a_moderator_abort_takes_a_seek_out_of_the_lobby(alice):
    seek = game_create_seek(user=alice, trump="S")
    game_abort_by_moderator(game_id=seek.pk)
    assert not Game.objects.filter(status=Game.Status.SEEKING).exists()


def test_an_annulled_game_is_kept_but_counts_for_nothing(game, alice, bob):
    game_resign(game_id=game.pk, user=bob)
    assert player_record(alice)["wins"] == 1 and player_record(bob)["losses"] == 1
    annulled = game_annul(game_id=game.pk)
    assert annulled.annulled and annulled.status == Game.Status.FINISHED and annulled.winner == 0
    assert (
        player_record(alice)
        == player_record(bob)
        == {
            "played": 0,
            "wins": 0,
            "draws": 0,
            "losses": 0,
        }
    )
    with pytest.raises(GameError, match="already annulled"):
        game_annul(game_id=game.pk)


def test_annulling_a_game_in_play_stops_it_first(game):
    annulled = game_annul(game_id=game.pk)
    assert annulled.annulled and annulled.status == Game.Status.ABORTED
    assert annulled.reason == Game.Reason.MODERATOR


def test_a_ban_ends_the_players_seeks_and_games_as_losses(alice, bob, carol):
    as_seat1 = game_join(game_id=game_create_seek(user=carol, trump="S").pk, user=alice, trump="H")
    as_seat0 = game_join(game_id=game_create_seek(user=alice, trump="S").pk, user=bob, trump="H")
    seek = game_create_seek(user=alice, trump="D")
    computer = game_create_vs_computer(user=alice, level="beginner", trump="C")
    others = game_join(game_id=game_create_seek(user=bob, trump="S").pk, user=carol, trump="H")
    ended = games_forfeit_by_ban(user=alice)
    assert {g.pk for g in ended} == {as_seat1.pk, as_seat0.pk, seek.pk, computer.pk}
    for game, winner in ((as_seat1, 0), (as_seat0, 1), (computer, 1)):
        game.refresh_from_db()
        assert (game.status, game.reason, game.winner) == (
            Game.Status.FINISHED,
            Game.Reason.MODERATOR,
            winner,
        )
    seek.refresh_from_db()
    assert seek.status == Game.Status.ABORTED and seek.reason == Game.Reason.MODERATOR
    others.refresh_from_db()
    assert others.status == Game.Status.ACTIVE
    assert player_record(carol)["wins"] == 1 and player_record(bob)["wins"] == 1
