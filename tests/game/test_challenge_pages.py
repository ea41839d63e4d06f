"""Challenges on the pages: the form on a player's profile (or why one cannot challenge them),
the notices on every logged-in page with forms that work without JavaScript, their htmx answers,
"Challenge again" on a finished game, the challenges page, and the preference in the settings."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.urls import reverse

from accounts import services as accounts
from accounts.selectors import challenges_from
from game import challenges
from game.models import Challenge, Game
from game.services.endings import game_resign
from game.services.starting import game_create_vs_computer
from tests.games import dealt_game

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
OPTIONS = {"trump": "S", "deck": "36", "clock": "3+2", "rated": "on"}


def profile(client, player) -> str:
    return client.get(reverse("accounts:profile", args=[player.username])).content.decode()


def test_a_profile_offers_the_challenge_form_to_another_logged_in_player(client, alice, bob):
    form_action = reverse("game:challenge_create", args=["bob"])
    assert form_action not in profile(client, bob)  # logged out
    client.force_login(alice)
    html = profile(client, bob)
    assert f'action="{form_action}"' in html and 'name="clock"' in html and 'name="rated"' in html
    assert reverse("game:challenge_create", args=["alice"]) not in profile(client, alice)


def test_a_profile_says_why_its_player_cannot_be_challenged(client, alice, bob):
    accounts.profile_set_challenges_from(user=bob, choice="no_one")
    client.force_login(alice)
    html = profile(client, bob)
    assert "does not accept challenges." in html
    assert reverse("game:challenge_create", args=["bob"]) not in html


def test_a_challenge_posted_without_javascript_is_sent_and_listed_on_every_page(client, alice, bob):
    client.force_login(alice)
    response = client.post(reverse("game:challenge_create", args=["bob"]), OPTIONS)
    assert response.status_code == 302 and response["Location"] == reverse("game:challenges")
    made = Challenge.objects.get()
    assert (made.challenger, made.challenged, made.clock, made.rated) == (alice, bob, "3+2", True)

    client.force_login(bob)
    html = client.get(reverse("game:lobby")).content.decode()
    assert 'ws-connect="/ws/me/"' in html
    assert "alice</bdi> challenges you" in html
    accept = reverse("game:challenge_accept", args=[made.pk])
    # A plain form, with its own token, for a page without JavaScript.
    assert f'method="post" action="{accept}"' in html
    notices = html.split('id="challenges"', 1)[1].split("</div>\n  </div>", 1)[0]
    assert "csrfmiddlewaretoken" in notices
    assert 'challenges you <span class="rating" dir="ltr">1500?</span>' in notices
    # Spades are the challenger's: the trumps offered to accept with are the other three.
    assert '<option value="S">' not in notices and '<option value="H">' in notices


def test_a_refused_challenge_over_htmx_says_why_in_the_notices(client, alice, bob):
    accounts.profile_set_challenges_from(user=bob, choice="no_one")
    client.force_login(alice)
    response = client.post(reverse("game:challenge_create", args=["bob"]), OPTIONS, **HTMX)
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()
    assert "does not accept challenges." in response.content.decode()
    assert not Challenge.objects.exists()


def test_a_challenge_sent_over_htmx_answers_the_notices_with_it_waiting(client, alice, bob):
    client.force_login(alice)
    response = client.post(reverse("game:challenge_create", args=["bob"]), OPTIONS, **HTMX)
    assert "Your challenge to <bdi>bob</bdi> waits for an answer" in response.content.decode()


def test_accepting_goes_to_the_new_table(client, alice, bob):
    made = challenges.challenge_create(challenger=alice, challenged=bob, trump="S")
    client.force_login(bob)
    url = reverse("game:challenge_accept", args=[made.pk])

    response = client.post(url, {"trump": "H"}, **HTMX)

    game = Game.objects.get()
    assert response.status_code == 204 and response["HX-Redirect"] == game.get_absolute_url()
    assert client.post(url, {"trump": "H"})["Location"] == game.get_absolute_url()  # again


def test_declining_and_cancelling_by_post(client, alice, bob):
    declined = challenges.challenge_create(challenger=alice, challenged=bob, trump="S")
    client.force_login(bob)
    response = client.post(
        reverse("game:challenge_decline", args=[declined.pk]), {"reason": "later"}
    )
    assert response["Location"] == reverse("game:challenges")
    declined.refresh_from_db()
    assert (declined.status, declined.decline_reason) == ("declined", "later")

    cancelled = challenges.challenge_create(challenger=alice, challenged=bob, trump="S")
    response = client.post(reverse("game:challenge_cancel", args=[cancelled.pk]), **HTMX)
    assert "Only the challenger can cancel" in response.content.decode()
    client.force_login(alice)
    client.post(reverse("game:challenge_cancel", args=[cancelled.pk]))
    cancelled.refresh_from_db()
    assert cancelled.status == "cancelled"

    html = client.get(reverse("game:challenges")).content.decode()
    assert "This is not the right time for me, please ask again later." in html
    assert "Cancelled" in html


def test_a_finished_games_players_may_challenge_again_with_its_options(client, alice, bob):
    game = dealt_game(alice, bob, (5, 3), rated=True)
    game_resign(game_id=game.pk, user=bob)
    client.force_login(bob)
    html = client.get(game.get_absolute_url()).content.decode()
    assert "Challenge again" in html
    action = reverse("game:challenge_create", args=["alice"])
    form = html.split(f'action="{action}"', 1)[1].split("</form>", 1)[0]
    assert 'name="trump" value="H"' in form and 'name="clock" value="5+3"' in form

    fields = dict(
        field.split('" value="') for field in form.split('name="')[1:] if 'value="' in field
    )
    data = {name: value.split('"', 1)[0] for name, value in fields.items()}
    client.post(action, data)

    made = Challenge.objects.get()
    assert (made.challenger, made.challenged, made.trump, made.clock) == (bob, alice, "H", "5+3")
    assert made.rated and made.deck == game.deck


def test_no_challenge_again_after_a_game_against_the_computer(client, alice):
    game = game_create_vs_computer(user=alice, level="easy", trump="S")
    game_resign(game_id=game.pk, user=alice)
    client.force_login(alice)
    assert "Challenge again" not in client.get(game.get_absolute_url()).content.decode()


def test_the_settings_choose_whose_challenges_one_hears(client, alice):
    client.force_login(alice)
    html = client.get(reverse("accounts:settings")).content.decode()
    assert 'name="challenges_from" value="near"' in html
    response = client.post(reverse("accounts:challenges_from"), {"challenges_from": "near"})
    assert response["Location"] == reverse("accounts:settings")
    assert challenges_from(alice) == "near"
    client.post(reverse("accounts:challenges_from"), {"challenges_from": "nobody at all"})
    assert challenges_from(alice) == "near"


@override_settings(LIMIT_CHALLENGES="2/h")
def test_challenges_past_the_limit_are_refused(client, alice, bob, carol):
    dmitri = get_user_model().objects.create_user("dmitri", password="pw-dmitri-123")
    client.force_login(alice)
    for player in (bob, carol):
        client.post(reverse("game:challenge_create", args=[player.username]), OPTIONS)
    response = client.post(reverse("game:challenge_create", args=[dmitri.username]), OPTIONS)
    assert response.status_code == 429
    assert "You have sent too many challenges for now." in response.content.decode()
    assert not Challenge.objects.filter(challenged=dmitri).exists()
