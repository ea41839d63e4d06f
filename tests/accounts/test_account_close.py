"""Closing one's own account from the settings page, confirmed with the password: the login is
refused, the name is shown as closed wherever a player's name shows, the chat lines are hidden,
the seeks are cancelled and the games in play resigned, the email address is dropped; the games
stay with the opponents."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import Profile
from accounts.selectors import email_verified
from accounts.services import account_close, email_change, email_verify
from accounts.verification import make_token
from chat.services import ChatError
from game.models import Game
from game.services import GameError
from game.services.chat import game_chat_post
from game.services.starting import (
    game_create_seek,
    game_create_vs_computer,
    game_join,
    game_rematch,
)
from tests.games import finished_game

pytestmark = pytest.mark.django_db
CLOSED = "Closed account"


@pytest.fixture
def played(alice, bob):
    """A game alice won against bob, with a line of chat from each."""
    game = finished_game(alice, bob)
    game_chat_post(game_id=game.pk, user=alice, text="well played, bob")
    game_chat_post(game_id=game.pk, user=bob, text="thanks, alice")
    return game


def close_from_settings(client, user, password: str):
    client.force_login(user)
    return client.post(reverse("accounts:close"), {"password": password})


def test_the_settings_page_offers_closing_with_the_password(client, alice):
    client.force_login(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert f'action="{reverse("accounts:close")}"' in page and 'name="password"' in page


def test_a_wrong_password_closes_nothing(client, alice):
    response = close_from_settings(client, alice, "not-my-password")

    assert response.status_code == 400 and "That is not your password." in response.content.decode()
    assert get_user_model().objects.get(pk=alice.pk).is_active
    assert not Profile.objects.filter(user=alice, closed_at__isnull=False).exists()


def test_closing_logs_out_and_the_login_is_refused_with_a_clear_message(client, alice):
    response = close_from_settings(client, alice, "pw-alice-123")

    assert response.status_code == 302 and response.url == reverse("game:home")
    assert "Your account is closed" in client.get(response.url).content.decode()
    assert not client.get(reverse("accounts:settings")).wsgi_request.user.is_authenticated
    login = client.post(
        reverse("accounts:login"), {"username": "alice", "password": "pw-alice-123"}
    )
    assert login.status_code == 200
    assert "This account was closed by its owner" in login.content.decode()


def test_closing_ends_every_session_of_the_account(client, alice):
    client.force_login(alice)
    account_close(user=get_user_model().objects.get(pk=alice.pk))
    assert not client.get(reverse("game:lobby")).wsgi_request.user.is_authenticated


def test_the_email_address_is_dropped(client, alice):
    email_change(user=alice, email="alice@example.org", site_url="http://testserver")
    email_verify(token=make_token(alice, "alice@example.org"))
    assert email_verified(alice)

    close_from_settings(client, alice, "pw-alice-123")

    closed = get_user_model().objects.get(pk=alice.pk)
    assert closed.email == "" and not email_verified(closed)
    assert Profile.objects.get(user=alice).verified_email == ""


def test_the_name_is_shown_as_closed_on_the_finished_game_and_in_the_games_list(
    client, played, alice, bob
):
    account_close(user=alice)
    client.force_login(bob)

    table = client.get(reverse("game:table", args=[played.pk])).content.decode()
    replay = client.get(reverse("archive:replay", args=[played.pk])).content.decode()
    games = client.get(reverse("archive:archive")).content.decode()
    profile = client.get(reverse("accounts:profile", args=["bob"])).content.decode()
    record = client.get(reverse("archive:record", args=[played.pk])).content.decode()

    for page in (table, replay, games, profile):
        assert CLOSED in page and "alice" not in page.replace("thanks, alice", "")
        assert "bob" in page
    assert f"Player0: {CLOSED}\n" in record and "Player1: bob\n" in record


def test_the_closed_account_profile_says_so_and_shows_no_name(client, played, alice):
    account_close(user=alice)

    page = client.get(reverse("accounts:profile", args=["alice"])).content.decode()

    assert "This player closed their account" in page
    assert "alice" not in page.split("<main", 1)[1]


def test_the_closed_player_chat_lines_are_hidden(client, played, alice, bob):
    account_close(user=alice)
    client.force_login(bob)

    table = client.get(reverse("game:table", args=[played.pk])).content.decode()

    assert "thanks, alice" in table and "well played, bob" not in table
    assert f"Mute <bdi>{CLOSED}</bdi>" in table  # the opponent's name in the chat's controls too


def test_a_line_from_a_socket_left_open_is_refused_as_closed_not_banned(played, alice):
    account_close(user=alice)
    with pytest.raises(ChatError, match=r"Your account is closed\."):
        game_chat_post(game_id=played.pk, user=alice, text="still here?")


def test_the_open_seeks_are_cancelled_and_the_games_in_play_resigned(alice, bob, carol):
    seek = game_create_seek(user=alice, trump="S")
    playing = game_join(game_id=game_create_seek(user=bob, trump="S").pk, user=alice, trump="H")
    computer = game_create_vs_computer(user=alice, level="beginner", trump="D")
    others = game_create_seek(user=carol, trump="C")

    account_close(user=alice)

    seek.refresh_from_db()
    assert (seek.status, seek.reason) == (Game.Status.ABORTED, Game.Reason.CANCELLED)
    for game in (playing, computer):
        game.refresh_from_db()
        assert (game.status, game.reason) == (Game.Status.FINISHED, Game.Reason.RESIGNATION)
        assert game.seat_of(alice) == 1 - game.winner
    others.refresh_from_db()
    assert others.status == Game.Status.SEEKING


def test_the_opponent_cannot_start_a_rematch_with_a_closed_account(played, alice, bob):
    game_rematch(game_id=played.pk, user=alice)
    account_close(user=alice)

    with pytest.raises(GameError, match="can no longer play"):
        game_rematch(game_id=played.pk, user=bob)
    assert not played.rematches.exists()


def test_the_games_stay_with_the_opponent(client, played, alice, bob):
    account_close(user=alice)

    assert Game.objects.filter(pk=played.pk, seat0=alice, seat1=bob).exists()
    page = client.get(reverse("archive:archive"), {"player": "bob"}).content.decode()
    assert f"#{played.pk}" in page or f"/games/{played.pk}/" in page
