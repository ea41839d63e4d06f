"""Private games: only the invitee with the link can take the free seat."""

import pytest
from django.urls import reverse

from game.models import Game
from game.services import GameError
from game.services.starting import game_create_seek, game_join

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def private(alice):
    return game_create_seek(user=alice, trump="S", private=True)


def test_a_stranger_cannot_join_a_private_game_by_its_id(client, private, bob):
    client.force_login(bob)
    for headers in ({}, HTMX):
        client.post(reverse("game:join", args=[private.pk]), {"trump": "H"}, **headers)
    private.refresh_from_db()
    assert private.status == Game.Status.SEEKING and private.seat1 is None
    table = client.get(reverse("game:table", args=[private.pk])).content.decode()
    assert "by invitation only" in table
    assert reverse("game:join", args=[private.pk]) not in table  # no form that cannot work
    assert private.invite_token not in table  # only its creator sees the link


def test_the_invitee_with_the_link_joins(client, private, bob):
    link = reverse("game:invite", args=[private.invite_token])
    client.force_login(bob)
    page = client.get(link).content.decode()
    assert "<bdi>alice</bdi> invites you to a game" in page and f'action="{link}"' in page
    response = client.post(link, {"trump": "H"})
    assert response.url == reverse("game:table", args=[private.pk])
    private.refresh_from_db()
    assert private.status == Game.Status.ACTIVE and private.seat1 == bob


def test_a_wrong_token_is_refused(client, private, bob):
    client.force_login(bob)
    wrong = private.invite_token[:-1] + ("A" if private.invite_token[-1] != "A" else "B")
    assert client.post(reverse("game:invite", args=[wrong]), {"trump": "H"}).status_code == 404
    with pytest.raises(GameError, match="invitation only"):
        game_join(game_id=private.pk, user=bob, trump="H", invite_token=wrong)
    with pytest.raises(GameError, match="invitation only"):
        game_join(game_id=private.pk, user=bob, trump="H", invite_token="é" * 16)
    private.refresh_from_db()
    assert private.status == Game.Status.SEEKING and private.version == 0


def test_the_invite_link_sends_a_visitor_to_log_in_first(client, private):
    link = reverse("game:invite", args=[private.invite_token])
    assert "Log in to join" in client.get(link).content.decode()
    response = client.post(link, {"trump": "H"})
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))
    private.refresh_from_db()
    assert private.status == Game.Status.SEEKING


def test_a_refused_join_by_link_says_why_on_the_invitation(client, private, bob):
    link = reverse("game:invite", args=[private.invite_token])
    client.force_login(bob)
    response = client.post(link, {"trump": "S"}, follow=True)  # alice's trump
    assert response.redirect_chain[-1][0] == link
    assert "must differ" in response.content.decode()


def test_a_public_seek_can_still_be_joined_by_id(client, alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    client.force_login(bob)
    client.post(reverse("game:join", args=[seek.pk]), {"trump": "H"})
    seek.refresh_from_db()
    assert seek.status == Game.Status.ACTIVE and seek.seat1 == bob
