"""Quick pairing's pool (``game.pool``): near ratings first, a range that widens with the wait,
nobody paired twice however many arrive at once, and leaving."""

from __future__ import annotations

import doctest
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from accounts.models import Rating
from accounts.ratings import Speed
from game import pool
from game.models import Game, PoolEntry
from game.services import GameError
from tests.games import dealt_game
from tests.threads import at_once

pytestmark = pytest.mark.django_db

BLITZ = (3, 2)


def player(name: str, rating: float | None = None):
    """A player, rated ``rating`` in blitz (established: deviation 60) or new to it."""
    user = get_user_model().objects.create_user(name, password=f"pw-{name}-123")
    if rating is not None:
        Rating.objects.create(
            user=user,
            speed=Speed.BLITZ,
            rating=rating,
            deviation=60,
            games=30,
            rated_at=timezone.now(),
        )
    return user


def enter(user, now=None, *, time_control=BLITZ, rated=True):
    return pool.pool_enter(
        user=user,
        channel_name=f"socket-{user.username}",
        time_control=time_control,
        rated=rated,
        now=now,
    )


def ask(user, now):
    return pool.pool_ask(channel_name=f"socket-{user.username}", now=now)


def test_the_range_starts_at_100_grows_50_a_second_and_is_open_after_10_seconds():
    ranges = [pool.rating_range(timedelta(seconds=s)) for s in (0, 0.9, 1, 4, 9.9, 10, 60)]
    assert ranges == [100, 100, 150, 300, 550, None, None]


def test_the_pool_s_docstring_examples_run_as_written():
    assert doctest.testmod(pool).failed == 0


def test_an_arrival_is_paired_with_the_closest_rating_in_range_into_a_game_in_play():
    far, near, newcomer = player("far", 1590), player("near", 1480), player("new", 1500)
    now = timezone.now()
    assert enter(far, now) == pool.Waiting(1590, 100)
    assert enter(near, now + timedelta(seconds=0.1)) == pool.Waiting(1480, 100)  # 110 apart
    paired = enter(newcomer, now + timedelta(seconds=0.2))
    assert isinstance(paired, pool.Paired)
    game = Game.objects.get(pk=paired.game.pk)
    assert (game.seat0, game.seat1) == (near, newcomer)  # who waited longer sits first
    assert game.status == Game.Status.ACTIVE and game.rated
    assert (game.clock_initial, game.clock_increment) == (180, 2)
    assert game.trump0 != game.trump1
    assert (game.rating0, game.rating1) == (1480, 1500)
    assert list(PoolEntry.objects.values_list("user__username", flat=True)) == ["far"]


def test_the_range_widens_with_the_wait_until_any_rating_is_accepted():
    low, high = player("low", 1500), player("high", 1800)
    start = timezone.now()
    enter(low, start)
    assert enter(high, start) == pool.Waiting(1800, 100)
    for second in range(1, 4):  # both ask each second, as their sockets do: 300 apart
        now = start + timedelta(seconds=second)
        widened = 100 + 50 * second
        assert [ask(low, now), ask(high, now)] == [
            pool.Waiting(1500, widened),
            pool.Waiting(1800, widened),
        ]
    assert not Game.objects.exists()
    assert isinstance(ask(low, start + timedelta(seconds=4)), pool.Paired)  # at ±300
    assert ask(high, start + timedelta(seconds=4)) is None
    assert Game.objects.count() == 1


def test_after_ten_seconds_any_rating_is_accepted():
    low, high = player("low", 1000), player("high", 2500)
    start = timezone.now()
    enter(low, start)
    enter(high, start)
    for second in range(1, 11):  # both ask each second, as their sockets do
        now = start + timedelta(seconds=second)
        asked = ask(low, now), ask(high, now)
        if Game.objects.exists():
            break
    assert second == 10
    assert isinstance(asked[0], pool.Paired)


def test_only_the_same_time_control_and_the_same_rated_or_casual_are_paired():
    alice, bob, carol = player("alice"), player("bob"), player("carol")
    enter(alice, time_control=(1, 1))
    assert isinstance(enter(bob, time_control=(3, 2)), pool.Waiting)
    assert isinstance(enter(carol, time_control=(3, 2), rated=False), pool.Waiting)
    assert not Game.objects.exists()


def test_an_entry_whose_socket_stopped_asking_is_paired_with_nobody():
    ghost, alice = player("ghost"), player("alice")
    start = timezone.now()
    enter(ghost, start)
    assert isinstance(enter(alice, start + timedelta(seconds=6)), pool.Waiting)


def test_leaving_takes_the_player_out_of_the_pool():
    alice, bob = player("alice"), player("bob")
    enter(alice)
    pool.pool_leave(channel_name="socket-alice")
    assert isinstance(enter(bob), pool.Waiting)
    assert ask(alice, timezone.now()) is None


def test_entering_from_another_page_replaces_the_first(
    monkeypatch, django_capture_on_commit_callbacks
):
    told = []
    monkeypatch.setattr(
        pool, "tell_after_commit", lambda channel, message: told.append((channel, message))
    )
    alice = player("alice")
    enter(alice)
    pool.pool_enter(user=alice, channel_name="second", time_control=BLITZ)
    assert list(PoolEntry.objects.values_list("channel_name", flat=True)) == ["second"]
    assert told == [("socket-alice", {"type": "pool.left"})]


def test_both_sockets_are_told_the_table_once_committed(
    django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr("game.live.get_channel_layer", lambda: Layer(sent))
    alice, bob = player("alice"), player("bob")
    with django_capture_on_commit_callbacks(execute=True):
        enter(alice)
        paired = enter(bob)
    url = paired.game.get_absolute_url()
    assert sorted(sent) == [
        ("socket-alice", {"type": "pool.paired", "url": url}),
        ("socket-bob", {"type": "pool.paired", "url": url}),
    ]


class Layer:
    def __init__(self, sent):
        self.sent = sent

    async def send(self, channel, message):
        self.sent.append((channel, message))


def test_a_banned_or_closed_account_cannot_enter():
    alice = player("alice")
    alice.is_active = False
    alice.save()
    with pytest.raises(GameError):
        enter(alice)
    assert not PoolEntry.objects.exists()


def test_a_time_control_the_pool_does_not_offer_is_refused():
    with pytest.raises(GameError, match="not offered"):
        enter(player("alice"), time_control=(15, 10))


def test_a_player_with_a_timed_game_in_play_cannot_enter_but_an_untimed_one_does_not_stop_them():
    alice, bob, carol = player("alice"), player("bob"), player("carol")
    dealt_game(alice, bob, None)
    assert isinstance(enter(alice), pool.Waiting)
    dealt_game(bob, carol, (5, 3))
    with pytest.raises(GameError, match="Finish your game"):
        enter(carol)


# --- Under real concurrent transactions -------------------------------------------------------


def games_of(users) -> dict[str, int]:
    return {
        user.username: Game.objects.filter(Q(seat0=user) | Q(seat1=user)).count() for user in users
    }


@pytest.mark.django_db(transaction=True)
def test_two_arrivals_racing_for_one_waiting_player_are_not_both_paired_with_them():
    waiting = player("waiting")
    racers = [player("racer1"), player("racer2")]
    enter(waiting)
    results = at_once([lambda user=user: enter(user) for user in racers])
    assert not [r for r in results if isinstance(r, BaseException)]
    assert games_of([waiting, *racers])["waiting"] == 1
    assert sorted(type(r).__name__ for r in results) == ["Paired", "Waiting"]


@pytest.mark.django_db(transaction=True)
def test_twenty_arrivals_at_once_are_all_paired_each_once_by_their_next_ask():
    players = [player(f"p{n}") for n in range(20)]
    results = at_once([lambda user=user: enter(user) for user in players])
    assert not [r for r in results if isinstance(r, BaseException)]
    # Arrivals that missed each other (each one's entry not yet committed) meet on their next
    # ask (the sockets ask at random moments, one after another here).
    now = timezone.now() + timedelta(seconds=1)
    for user in players:
        ask(user, now)
    assert set(games_of(players).values()) == {1}
    assert Game.objects.count() == 10
    assert not PoolEntry.objects.exists()


def test_the_lobby_offers_the_pool_s_time_controls_to_players_only(client):
    page = client.get("/play/").content.decode()
    assert 'id="pool"' not in page
    client.force_login(player("alice"))
    page = client.get("/play/").content.decode()
    for clock, speed in (("1+1", "Bullet"), ("3+2", "Blitz"), ("5+3", "Blitz"), ("10+5", "Rapid")):
        assert f'data-clock="{clock}" disabled><span class="pool__minutes">{clock}</span>' in page
        assert f'<span class="pool__speed">{speed}</span>' in page
    assert 'data-clock="15+10"' not in page
