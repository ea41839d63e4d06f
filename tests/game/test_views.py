"""Pages and htmx partials: signing up, the lobby, the table, moves and actions."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from game.models import Game
from game.options import GameOptions
from game.selectors import history_of
from game.services.endings import game_resign
from game.services.play import game_play_move
from game.services.starting import game_cancel_seek, game_create_seek, game_join

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H")


def client_for(client, user):
    client.force_login(user)
    return client


def test_sign_up_logs_in_and_goes_to_the_lobby(client):
    response = client.post(
        reverse("accounts:signup"),
        {"username": "newbie", "password1": "a-long-pass-42", "password2": "a-long-pass-42"},
    )
    assert response.status_code == 302 and response.url == reverse("game:lobby")
    assert client.get(reverse("game:lobby")).context["user"].username == "newbie"


def test_sign_up_errors_are_shown_on_the_form(client):
    response = client.post(
        reverse("accounts:signup"), {"username": "x", "password1": "a", "password2": "b"}
    )
    assert response.status_code == 200
    assert 'class="field__error"' in response.content.decode()
    assert not get_user_model().objects.filter(username="x").exists()


def test_profile_shows_the_record(client, game, alice, bob):
    game_resign(game_id=game.pk, user=bob)
    page = client.get(reverse("accounts:profile", args=["alice"])).content.decode()
    assert "alice" in page and f"#{game.pk}" in page


def test_lobby_lists_open_seeks_and_offers_forms_to_players(client, alice, bob):
    game_create_seek(user=alice, trump="D")
    anonymous = client.get(reverse("game:lobby")).content.decode()
    assert "alice" in anonymous and "Sign up" in anonymous
    page = client_for(client, bob).get(reverse("game:lobby")).content.decode()
    assert "Create the game" in page and "Play the computer" in page


def test_creating_and_joining_a_seek_through_the_pages(client, alice, bob):
    client_for(client, alice)
    response = client.post(reverse("game:seek_create"), {"trump": "S", "deck": 36, "clock": "3+2"})
    game = Game.objects.get()
    assert response.url == reverse("game:table", args=[game.pk])
    assert game.clock_initial == 180 and game.clock_increment == 2
    assert "Waiting for an opponent" in client.get(response.url).content.decode()
    client_for(client, bob)
    client.post(reverse("game:join", args=[game.pk]), {"trump": "H"})
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.seat1 == bob


def test_a_move_by_htmx_returns_the_fresh_table(client, game, alice, bob):
    history = history_of(game)
    user = (alice, bob)[history.position.to_move]
    lead = str(history.legal_moves()[0])
    response = client_for(client, user).post(
        reverse("game:move", args=[game.pk]), {"move": lead, "ply": 0}, **HTMX
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="table"' in html and 'data-ply="1"' in html and "<html" not in html
    assert lead in html  # in the move list


def test_a_page_whose_socket_is_open_gets_its_table_once_over_the_socket(client, game, alice, bob):
    history = history_of(game)
    user = (alice, bob)[history.position.to_move]
    url = reverse("game:move", args=[game.pk])
    live = {**HTMX, "HTTP_X_TABLE_LIVE": "1"}
    response = client_for(client, user).post(url, {"move": "take", "ply": 0}, **live)
    assert response.status_code == 200 and "the pile is empty" in response.content.decode()
    lead = str(history.legal_moves()[0])
    response = client.post(url, {"move": lead, "ply": 0}, **live)
    assert response.status_code == 204 and not response.content  # the socket brings it
    assert history_of(game).ply == 1


def test_a_refused_move_comes_back_as_a_message_not_an_error_page(client, game, alice, bob):
    user = (alice, bob)[history_of(game).position.to_move]
    response = client_for(client, user).post(
        reverse("game:move", args=[game.pk]), {"move": "take", "ply": 0}, **HTMX
    )
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()
    assert "the pile is empty" in response.content.decode()
    stale = client.post(reverse("game:move", args=[game.pk]), {"move": "take", "ply": 7}, **HTMX)
    assert "out of date" in stale.content.decode()


def test_the_table_carries_each_beat_s_second_cards_hidden_until_its_card_is_picked(
    client, game, alice, bob
):
    history = history_of(game)
    leader = (alice, bob)[history.position.to_move]
    game_play_move(
        game_id=game.pk, user=leader, notation=str(history.legal_moves()[0]), expected_ply=0
    )
    position = history_of(game).position
    beats = [m for m in position.legal_moves() if m.second is not None]
    if not beats:
        pytest.skip("this deal's first lead cannot be beaten")
    other = (alice, bob)[position.to_move]
    html = client_for(client, other).get(reverse("game:table", args=[game.pk]), **HTMX)
    html = html.content.decode()
    # The beating cards, and one set of second cards that the page's script pairs with the card
    # picked (any but itself): every beat the rules allow, and no other.
    beaters = re.findall(r'data-beater="([^"]+)"[^>]*aria-controls="seconds"', html)
    seconds = re.findall(r'data-second="([^"]+)" name="move"', html)
    offered = [f"{b}-{s}" for b in beaters for s in seconds if s != b]
    assert sorted(offered) == sorted(str(b) for b in beats)
    assert html.count('<div class="second-cards" id="seconds" hidden>') == 1
    assert "then play a second card" in html and "data-unpick" in html


def test_spectators_see_the_table_without_buttons(client, game):
    html = client.get(reverse("game:table", args=[game.pk])).content.decode()
    assert "You are watching." in html or "Waiting" not in html
    assert 'name="move"' not in html


def test_resign_and_rematch_through_the_pages(client, game, alice, bob):
    client_for(client, alice)
    client.post(reverse("game:action", args=[game.pk, "resign"]), **HTMX)
    game.refresh_from_db()
    assert game.reason == Game.Reason.RESIGNATION and game.winner == 1
    response = client.post(reverse("game:rematch", args=[game.pk]))
    assert response.url == reverse("game:table", args=[game.pk])  # it waits for bob
    assert not Game.objects.filter(rematch_of=game).exists()
    client_for(client, bob)
    assert "alice asks for a rematch" in client.get(reverse("game:table", args=[game.pk])).text
    response = client.post(reverse("game:rematch", args=[game.pk]))
    rematch = Game.objects.get(rematch_of=game)
    assert response.url == reverse("game:table", args=[rematch.pk])


def test_playing_the_computer_it_answers_each_turn(
    client, alice, settings, run_tasks, django_capture_on_commit_callbacks
):
    """Each page's POST asks for the reply on commit; a task worker plays it."""
    settings.COMPUTER_PAUSE = 0
    client_for(client, alice)
    table = {"trump": "C", "deck": 24, "level": "beginner"}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("game:computer_create"), table)
    game = Game.objects.get()
    assert game.ai_level == "beginner"
    for _ in range(400):
        run_tasks()  # the computer's turn, if it is to move (it may start)
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        history = history_of(game)
        assert history.position.to_move == 0, "the computer's turn was not played"
        turn = {"move": str(history.legal_moves()[0]), "ply": history.ply}
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("game:move", args=[game.pk]), turn, **HTMX)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED


def test_a_page_that_saw_the_clock_run_out_has_the_server_judge_it(client, alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(1, 1)))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    html = client.get(reverse("game:table", args=[game.pk])).content.decode()
    assert f'data-claim="{reverse("game:claim_timeout", args=[game.pk])}"' in html
    assert "clock--running" in html
    client.post(reverse("game:claim_timeout", args=[game.pk]), **HTMX)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE  # time is left: nothing happens
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=game.turn_started_at - timedelta(seconds=61)
    )
    response = client.post(reverse("game:claim_timeout", args=[game.pk]), **HTMX)
    game.refresh_from_db()
    assert game.reason == Game.Reason.TIMEOUT
    assert "Time ran out" in response.content.decode()  # the result, and why


def test_a_private_game_stays_out_of_the_lobby_and_its_link_opens_it(client, alice, bob):
    private = game_create_seek(user=alice, trump="S", private=True)
    assert "alice" not in client.get(reverse("game:lobby")).content.decode()
    page = client_for(client, alice).get(reverse("game:table", args=[private.pk])).content.decode()
    link = reverse("game:invite", args=[private.invite_token])
    assert link in page  # the creator sees the link to share
    client_for(client, bob)
    assert "<bdi>alice</bdi> invites you" in client.get(link).content.decode()
    client.post(link, {"trump": "C"})
    private.refresh_from_db()
    assert private.status == Game.Status.ACTIVE and private.seat1 == bob


def test_the_waiting_player_is_offered_the_claim_when_the_opponent_goes_silent(
    client, game, alice, bob
):
    waiting = bob if history_of(game).position.to_move == 0 else alice
    client_for(client, waiting)
    html = client.get(reverse("game:table", args=[game.pk])).content.decode()
    assert "Claim the game" not in html and 'hx-trigger="load delay:' in html  # it re-checks
    Game.objects.filter(pk=game.pk).update(
        turn_started_at=game.turn_started_at - timedelta(minutes=6)
    )
    html = client.get(reverse("game:table", args=[game.pk])).content.decode()
    assert "Claim the game" in html
    client.post(reverse("game:action", args=[game.pk, "claim-abandoned"]), **HTMX)
    game.refresh_from_db()
    assert game.reason == Game.Reason.ABANDONED


def test_the_lobby_lists_a_players_games_in_play(client, game, alice):
    html = client_for(client, alice).get(reverse("game:lobby")).content.decode()
    assert "Your games" in html and reverse("game:table", args=[game.pk]) in html


def test_the_lobby_lists_the_oldest_seeks_and_counts_the_rest(client, alice, django_user_model):
    from game.selectors import LOBBY_SEEKS

    players = [django_user_model.objects.create_user(f"p{i}") for i in range(LOBBY_SEEKS + 3)]
    seeks = [game_create_seek(user=player, trump="S") for player in players]
    client.force_login(alice)
    html = client.get(reverse("game:lobby")).content.decode()
    listed = re.findall(r'href="/games/(\d+)/">Join', html)
    assert listed == [str(seek.pk) for seek in seeks[:LOBBY_SEEKS]]  # first come, first served
    assert "and 3 more games waiting" in html


def test_a_cancelled_seek_leaves_the_lobby_and_its_table_says_so(client, alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    client_for(client, alice)
    response = client.post(reverse("game:action", args=[seek.pk, "cancel"]), **HTMX)
    assert response.status_code == 200
    assert "Game cancelled" in response.content.decode()  # the page changes at once
    page = client.get(reverse("game:table", args=[seek.pk])).content.decode()
    assert "cancelled this game before anyone joined" in page
    assert "Cancel the game" not in page and "A quiet sound" not in page
    client_for(client, bob)
    lobby = client.get(reverse("game:lobby")).content.decode()
    assert reverse("game:join", args=[seek.pk]) not in lobby


def test_a_seek_a_moderator_stopped_opens_as_aborted(client, alice, moderator):
    from moderation.services import moderation_abort_game

    seek = game_create_seek(user=alice, trump="S")
    moderation_abort_game(moderator=moderator, game_id=seek.pk, reason="spam")
    page = client_for(client, alice).get(reverse("game:table", args=[seek.pk])).content.decode()
    assert "A moderator stopped this game before anyone joined." in page


def test_the_lobby_refuses_sixes_to_owner_with_a_small_pack_and_says_why(client, alice):
    client_for(client, alice)
    form = {"trump": "S", "deck": "32", "sixes_to_owner": "on", "clock": ""}
    response = client.post(reverse("game:seek_create"), form, follow=True)
    assert "Sixes to owner needs the 36-card pack" in response.content.decode()
    assert not Game.objects.exists()


def test_a_seek_names_its_creator_and_no_opponent_wherever_its_players_are_listed(
    client, alice, moderator
):
    seek = game_create_seek(user=alice, trump="D")
    cancelled = game_cancel_seek(game_id=game_create_seek(user=alice, trump="H").pk, user=alice)
    assert str(seek) == f"#{seek.pk} alice vs no opponent (waiting for an opponent)"
    pages = {
        reverse("game:lobby"): alice,  # the seek under "Your games"
        reverse("accounts:profile", args=["alice"]): alice,  # the cancelled seek
        reverse("moderation:user", args=["alice"]): moderator,
        reverse("moderation:game", args=[cancelled.pk]): moderator,
    }
    for page, viewer in pages.items():
        html = client_for(client, viewer).get(page).content.decode()
        assert "<bdi>no opponent</bdi>" in html and "<bdi>?</bdi>" not in html, page
