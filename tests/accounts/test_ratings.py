"""Ratings at a game's end: a rated game between people changes each player's rating in its
speed once, in the transaction that ends it, however it ends and however many ask; casual
games, games against the computer and aborted games change nothing; an annulment takes the
change back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Rating, RatingChange
from accounts.ratings import START, Speed
from game.live import LIVE_GAMES
from game.models import Game
from game.options import GameOptions
from game.selectors import notations_of, stored_state
from game.services import saving
from game.services.endings import game_abort, game_claim_timeout, game_offer_draw, game_resign
from game.services.play import game_play_move
from game.services.starting import (
    game_create_seek,
    game_create_vs_computer,
    game_join,
    game_rematch,
)
from moderation import services as moderation
from tests.games import dealt_game, play_to_the_end, play_turns
from tests.threads import at_once, errors_of

pytestmark = pytest.mark.django_db


def rating(user, speed=Speed.BLITZ) -> Rating:
    return Rating.objects.get(user=user, speed=speed)


def changes(game) -> list[RatingChange]:
    return list(RatingChange.objects.filter(game=game).order_by("user_id", "annulment"))


def flag_fallen(game: Game) -> None:
    """The player to move has been thinking for longer than their clock had."""
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(hours=1))


def test_a_rated_game_won_moves_the_winner_up_and_the_loser_down_once(alice, bob):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=game.pk, user=bob)

    winner, loser = rating(alice), rating(bob)
    assert winner.rating > START.rating > loser.rating
    assert winner.deviation < START.deviation and loser.deviation < START.deviation
    assert (winner.games, loser.games) == (1, 1)
    assert winner.rated_at == loser.rated_at == Game.objects.get(pk=game.pk).finished_at
    won, lost = changes(game)
    assert (won.user, lost.user, won.speed) == (alice, bob, Speed.BLITZ)
    assert (won.rating_before, won.rating_after) == (START.rating, winner.rating)
    assert won.change > 0 > lost.change
    assert not Rating.objects.exclude(speed=Speed.BLITZ).exists()


def test_a_draw_between_newcomers_leaves_their_ratings_where_they_were(alice, bob):
    game = dealt_game(alice, bob, None, rated=True)
    game_offer_draw(game_id=game.pk, user=alice)
    game_offer_draw(game_id=game.pk, user=bob)
    for user in (alice, bob):
        assert rating(user, Speed.UNTIMED).rating == pytest.approx(START.rating)
        assert rating(user, Speed.UNTIMED).deviation < START.deviation
    assert [change.change for change in changes(game)] == [0, 0]


def test_a_game_played_to_its_end_is_rated_in_its_speed(alice, bob):
    game = play_to_the_end(dealt_game(alice, bob, (1, 1), rated=True), (alice, bob))
    assert game.winner is not None
    assert len(changes(game)) == 2
    assert rating((alice, bob)[game.winner], Speed.BULLET).rating > START.rating


def test_a_timeout_claimed_twice_is_rated_once(alice, bob):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    flag_fallen(game)
    game_claim_timeout(game_id=game.pk)
    game_claim_timeout(game_id=game.pk)
    assert Game.objects.get(pk=game.pk).reason == Game.Reason.TIMEOUT
    assert len(changes(game)) == 2
    assert rating(alice).games == rating(bob).games == 1


def test_casual_games_and_games_against_the_computer_change_no_rating(alice, bob):
    casual = dealt_game(alice, bob, (3, 2))
    game_resign(game_id=casual.pk, user=bob)
    computer = game_create_vs_computer(user=alice, level="easy", trump="S")
    game_resign(game_id=computer.pk, user=alice)
    assert not computer.rated
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_an_aborted_rated_game_changes_no_rating(alice, bob):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_abort(game_id=game.pk, user=alice)
    assert not RatingChange.objects.exists()


def test_a_rated_game_notes_its_players_ratings_as_it_begins(alice, bob, carol):
    """Seat 0's as its seek waits (for the lobby), both once it is dealt (for the table)."""
    earlier = dealt_game(alice, carol, (3, 2), rated=True)
    game_resign(game_id=earlier.pk, user=carol)
    seek = game_create_seek(
        user=alice, trump="S", options=GameOptions(time_control=(5, 3), rated=True)
    )
    assert (seek.seat_rating(0), seek.seat_rating(1)) == (f"{round(rating(alice).rating)}?", "")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    game = Game.objects.get(pk=game.pk)
    assert (game.rating0, game.provisional0) == (round(rating(alice).rating), True)
    assert (game.seat_rating(1), game.speed) == ("1500?", Speed.BLITZ)


def test_a_rated_games_rematch_is_rated(alice, bob):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=game.pk, user=bob)
    game_rematch(game_id=game.pk, user=bob)
    rematch = game_rematch(game_id=game.pk, user=alice)
    assert rematch.rated and rematch.rating0 == round(rating(alice).rating)


def test_an_annulment_takes_the_games_change_back_whole(alice, bob, moderator):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=game.pk, user=bob)
    moderation.moderation_annul_game(moderator=moderator, game_id=game.pk, reason="cheating")

    for user in (alice, bob):
        back = rating(user)
        assert (back.glicko, back.games) == (START, 0)
    won, taken_back, lost, given_back = changes(game)
    assert taken_back.change == -won.change
    assert taken_back.annulment and given_back.annulment
    assert given_back.change == -lost.change


def test_an_annulment_after_later_games_takes_back_only_the_points(alice, bob, carol, moderator):
    first = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=first.pk, user=bob)
    later = dealt_game(alice, carol, (3, 2), rated=True)
    game_resign(game_id=later.pk, user=alice)
    before = rating(alice)
    points = changes(first)[0].rating_after - changes(first)[0].rating_before

    moderation.moderation_annul_game(moderator=moderator, game_id=first.pk, reason="cheating")

    after = rating(alice)
    assert after.rating == pytest.approx(before.rating - points)
    assert (after.deviation, after.volatility, after.games) == (
        before.deviation,
        before.volatility,
        1,
    )
    assert rating(bob).rating == START.rating  # bob played no rated game since: all of it back


def test_a_deviation_grows_with_the_time_since_the_last_rated_game(alice, bob):
    """Two established players (deviation 60), one back after a year: the year grows theirs to
    about 110 (lichess's figure) before the game shrinks it a little; the other's only shrinks."""
    now = timezone.now()
    for user, last in ((alice, now - timedelta(days=365)), (bob, now)):
        Rating.objects.create(
            user=user, speed=Speed.BLITZ, deviation=60, games=50, rated_at=last, rating=1500
        )
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=game.pk, user=bob)
    back, stayed = changes(game)
    assert back.deviation_before == stayed.deviation_before == 60
    assert 100 < back.deviation_after < 110
    assert stayed.deviation_after < 60
    assert back.change > -stayed.change > 0  # the surer rating moves less


# --- Under real concurrent transactions -------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_games_of_the_same_players_ending_together_are_both_rated(alice, bob):
    """Both games' timeouts claimed twice at once: each game is rated once, one after the other
    (the second from the ratings the first left: no change lost)."""
    for user in (alice, bob):  # rated before: their rows are there to be read and locked
        Rating.objects.create(user=user, speed=Speed.BLITZ, games=1, rated_at=timezone.now())
    games = [dealt_game(alice, bob, (3, 2), rated=True) for _ in range(2)]
    for game in games:
        flag_fallen(game)
    claims = [lambda g=g: game_claim_timeout(game_id=g.pk) for g in games for _ in "ab"]

    assert errors_of(at_once(claims)) == []

    assert RatingChange.objects.count() == 4
    for user in (alice, bob):
        first, second = RatingChange.objects.filter(user=user).order_by("pk")
        assert first.game_id != second.game_id
        assert second.rating_before == first.rating_after
        assert rating(user).rating == second.rating_after
        assert rating(user).games == 3


@pytest.mark.django_db(transaction=True)
def test_a_last_turn_checked_on_the_kept_game_is_rated_on_the_row_read_locked(
    alice, bob, monkeypatch
):
    """Outside a transaction a turn is checked on the game kept in memory; the one that ends a
    rated game is played again on the row read locked, so that the ratings are written in the
    same transaction as the end."""
    casual = play_to_the_end(dealt_game(alice, bob, (3, 2)), (alice, bob))  # the same turns
    game = dealt_game(alice, bob, (3, 2), rated=True)
    play_turns(game, (alice, bob), turns=len(notations_of(casual.pk)) - 1)
    kept = Game.objects.select_related("seat0", "seat1").get(pk=game.pk)
    LIVE_GAMES.read(kept)
    state = stored_state(kept)
    last = next(m for m in state.position.legal_moves() if state.play(m).outcome is not None)
    locked = []
    read_locked = saving.locked

    def counted(game_id: int) -> Game:
        locked.append(game_id)
        return read_locked(game_id)

    monkeypatch.setattr("game.services.play.locked", counted)

    game_play_move(
        game_id=game.pk,
        user=(alice, bob)[state.position.to_move],
        notation=str(last),
        expected_ply=state.ply,
    )

    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert locked == [game.pk]
    assert len(changes(game)) == 2
