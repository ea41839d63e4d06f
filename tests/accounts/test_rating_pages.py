"""Ratings where players look: beside the names in the lobby's seeks and at the table, the
changes in a rated game's result, the ratings and their history on a profile, and the
leaderboards."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from accounts.models import Rating
from accounts.ratings import Speed
from accounts.services import account_close
from game.models import Game
from game.options import GameOptions
from game.services.endings import game_resign
from game.services.starting import game_create_seek
from moderation import services as moderation
from tests.games import dealt_game

pytestmark = pytest.mark.django_db


def page(client, user, name, *args) -> str:
    if user is not None:
        client.force_login(user)
    return client.get(reverse(name, args=args)).content.decode()


def established(username: str, rating: float, *, away: timedelta = timedelta(0), games=30):
    """A player with a settled rating in blitz, last rated ``away`` ago."""
    user = get_user_model().objects.create_user(username, password=f"pw-{username}-123")
    Rating.objects.create(
        user=user,
        speed=Speed.BLITZ,
        rating=rating,
        deviation=60,
        games=games,
        rated_at=timezone.now() - away,
    )
    return user


# --- The lobby --------------------------------------------------------------------------------


def test_the_lobby_shows_a_rated_seeks_rating_and_whether_a_seek_is_rated(client, alice, bob):
    game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(5, 3), rated=True))
    game_create_seek(user=bob, trump="H")
    html = page(client, None, "game:lobby")
    assert '<bdi>alice</bdi> <span class="rating" dir="ltr">1500?</span></span>' in html
    assert "5+3 · rated</span>" in html
    assert '<bdi>bob</bdi></span> <span class="seek__what">' in html
    assert "untimed · casual</span>" in html


def test_a_seek_is_rated_when_the_lobbys_box_is_ticked_as_it_is_at_first(client, alice):
    html = page(client, alice, "game:lobby")
    assert re.search(r'<input type="checkbox" name="rated"[^>]* checked', html)
    fields = {"trump": "S", "deck": "36", "clock": "3+2"}
    client.post(reverse("game:seek_create"), {**fields, "rated": "on"})
    client.post(reverse("game:seek_create"), fields)  # the box unticked
    assert list(Game.objects.order_by("pk").values_list("rated", flat=True)) == [True, False]


def test_a_rated_invitation_and_its_waiting_table_say_it_is_rated(client, alice, bob):
    seek = game_create_seek(
        user=alice, trump="S", private=True, options=GameOptions(time_control=(3, 2), rated=True)
    )
    said = "A rated game (Blitz): the result changes both players' ratings."
    assert said in page(client, alice, "game:table", seek.pk)
    assert said in page(client, bob, "game:invite", seek.invite_token)
    casual = game_create_seek(user=alice, trump="S", private=True)
    assert "A rated game" not in page(client, bob, "game:invite", casual.invite_token)


# --- The table --------------------------------------------------------------------------------


def test_a_rated_tables_players_have_their_ratings_beside_their_names(client, alice, bob):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    html = page(client, alice, "game:table", game.pk)
    rated = r'<span class="seat__name"><bdi>(\w+)</bdi></span> <span class="rating"'
    names = re.findall(rated, html)
    assert sorted(names) == ["alice", "bob"]
    assert html.count('<span class="rating" dir="ltr">1500?</span>') == 2


def test_a_casual_table_shows_no_ratings(client, alice, bob):
    game = dealt_game(alice, bob, (3, 2))
    assert 'class="rating"' not in page(client, alice, "game:table", game.pk)


def test_both_tables_show_the_rating_changes_when_a_rated_game_ends(client, alice, bob):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=game.pk, user=bob)
    winner, loser = (Rating.objects.get(user=user) for user in (alice, bob))
    gained, lost = round(winner.rating) - 1500, 1500 - round(loser.rating)
    for viewer in (alice, bob, None):
        client.logout()
        html = page(client, viewer, "game:table", game.pk)
        assert f'<span class="rating-change rating-change--up" dir="ltr">+{gained}</span>' in html
        assert f'rating-change--down" dir="ltr">\N{MINUS SIGN}{lost}</span>' in html
        assert f'<span class="rating" dir="ltr">{round(winner.rating)}?</span>' in html


def test_an_annulled_games_result_shows_no_rating_change(client, alice, bob, moderator):
    game = dealt_game(alice, bob, (3, 2), rated=True)
    game_resign(game_id=game.pk, user=bob)
    moderation.moderation_annul_game(moderator=moderator, game_id=game.pk, reason="cheating")
    html = page(client, alice, "game:table", game.pk)
    assert "rating-change" not in html
    assert "this game counts for nothing" in html


# --- A player's profile -----------------------------------------------------------------------


def test_a_profile_shows_each_speeds_rating_and_its_history(client, alice, bob, carol):
    for opponent in (bob, carol):
        game = dealt_game(alice, opponent, (3, 2), rated=True)
        game_resign(game_id=game.pk, user=opponent)
    blitz = Rating.objects.get(user=alice, speed=Speed.BLITZ)
    html = page(client, None, "accounts:profile", "alice")
    assert f'<span class="ratings__figure" dir="ltr">{round(blitz.rating)}?</span>' in html
    assert f'<span class="rating" dir="ltr">±{round(blitz.deviation)}</span>' in html
    assert reverse("accounts:leaderboard", args=["blitz"]) in html
    # The chart: three points (before the first game, after each), rising left to right.
    points = re.search(r'<polyline class="rating-chart__line" points="([^"]+)"', html).group(1)
    ys = [float(point.split(",")[1]) for point in points.split()]
    assert len(ys) == 3 and ys[0] > ys[1] > ys[2]
    assert f"2 changes: from 1500 to {round(blitz.rating)}" in html


def test_a_profile_without_rated_games_says_so(client, alice):
    assert "No rated games yet." in page(client, None, "accounts:profile", "alice")


def test_the_charts_coordinates_are_not_localized(client, alice, bob):
    """A decimal comma (Galician) would be no number to the browser."""
    for _ in range(2):
        game = dealt_game(alice, bob, (3, 2), rated=True)
        game_resign(game_id=game.pk, user=bob)
    client.cookies["django_language"] = "gl"
    html = page(client, None, "accounts:profile", "alice")
    points = re.search(r'class="rating-chart__line" points="([^"]+)"', html).group(1)
    assert re.fullmatch(r"[\d.]+,[\d.]+( [\d.]+,[\d.]+)+", points)


# --- The leaderboards -------------------------------------------------------------------------


def test_the_leaderboard_lists_established_active_players_best_first(client, moderator):
    established("best", 1900)
    established("second", 1700)
    established("rusty", 2000, away=timedelta(days=800))  # provisional again after so long
    established("closed", 2100)
    account_close(user=get_user_model().objects.get(username="closed"))
    banned = established("banned", 2200)
    moderation.moderation_ban(moderator=moderator, user=banned, reason="cheating")
    newcomer = get_user_model().objects.create_user("newcomer", password="pw-newcomer-123")
    Rating.objects.create(user=newcomer, speed=Speed.BLITZ, rating=2300, games=2)

    html = page(client, None, "accounts:leaderboard", "blitz")

    listed = re.findall(r'<td><a href="/accounts/players/(\w+)/"><bdi>', html)
    assert listed == ["best", "second"]
    assert '<span dir="ltr">1900</span>' in html
    assert 'aria-current="page">Blitz</a>' in html


def test_the_leaderboard_keeps_fifty(client):
    for rank in range(52):
        established(f"p{rank:02}", 2000 - rank)
    html = page(client, None, "accounts:leaderboard", "blitz")
    listed = re.findall(r'<td><a href="/accounts/players/(\w+)/"><bdi>', html)
    assert listed == [f"p{rank:02}" for rank in range(50)]


def test_a_speed_without_established_players_says_so_and_an_unknown_speed_is_not_found(client):
    html = page(client, None, "accounts:leaderboard", "bullet")
    assert "No one has an established Bullet rating yet." in html
    assert client.get("/accounts/players/leaderboard/classical/").status_code == 404


def test_the_menu_leads_to_the_leaderboard(client):
    html = page(client, None, "game:home")
    assert f'<a href="{reverse("accounts:leaderboard", args=["blitz"])}">Leaderboard</a>' in html
