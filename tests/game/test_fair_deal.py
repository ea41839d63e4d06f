"""A deal nobody can rig (``game.engine.fairness``): the seed follows from the server's secret,
committed to as the game is created, and each seat's part; a browser without JavaScript gets a
part the server draws; the deal page checks it all once the game is over, and not before."""

import hashlib
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from game import engine
from game.engine import fairness
from game.models import Game
from game.options import GameOptions
from game.selectors import history_of, start_position
from game.services.endings import game_resign
from game.services.starting import (
    game_cancel_seek,
    game_create_seek,
    game_create_vs_computer,
    game_join,
    game_rematch,
)
from game.templatetags.cards import face
from tests.games import DEAL, LEGACY_DEAL

pytestmark = pytest.mark.django_db

PART0, PART1 = "a0" * 32, "0b" * 32


def fair_game(alice, bob, part0=PART0, part1=PART1) -> Game:
    seek = game_create_seek(user=alice, trump="S", part=part0, options=GameOptions(deck=24))
    return game_join(game_id=seek.pk, user=bob, trump="H", part=part1)


# -- the services ---------------------------------------------------------------------------------


def test_a_seek_commits_to_its_secret_before_anyone_joins(alice):
    seek = game_create_seek(user=alice, trump="S", part=PART0)
    assert fairness.is_part(seek.secret) and len(seek.secret) == 64
    assert seek.commitment == hashlib.sha256(seek.secret.encode()).hexdigest()
    assert (seek.part0, seek.part0_from_browser, seek.part1) == (PART0, True, "")
    other = game_create_seek(user=alice, trump="S", part=PART0)
    assert other.secret != seek.secret  # drawn afresh for every game


def test_the_join_deals_from_the_secret_and_both_browsers_parts(alice, bob):
    game = fair_game(alice, bob)
    stored = Game.objects.get(pk=game.pk)
    assert (stored.part0, stored.part1) == (PART0, PART1)
    assert stored.part0_from_browser and stored.part1_from_browser
    parts = fairness.DealParts(stored.secret, PART0, PART1)
    assert stored.seed == parts.seed
    dealt = parts.deal((engine.Suit.S, engine.Suit.H), engine.Rules(deck=24))
    assert history_of(stored).position == dealt == start_position(stored)


@pytest.mark.parametrize("sent", ["", "not hex at all", "AB" * 32, "ab" * 33])
def test_a_browser_without_javascript_gets_a_part_the_server_draws(alice, bob, sent):
    game = Game.objects.get(pk=fair_game(alice, bob, part0=sent, part1=sent).pk)
    assert fairness.is_part(game.part0) and fairness.is_part(game.part1)
    assert game.part0 != game.part1 and sent not in (game.part0, game.part1)
    assert not game.part0_from_browser and not game.part1_from_browser
    assert game.seed == fairness.seed_of(game.secret, game.part0, game.part1)


def test_server_drawn_parts_give_a_different_deal_each_time(alice, bob):
    """Without JavaScript on either side the deal is still random: no two games alike."""
    hands = {start_position(fair_game(alice, bob, "", "")).hands for _ in range(5)}
    assert len(hands) == 5


def test_a_game_against_the_computer_takes_the_players_part_and_draws_the_computers(alice):
    game = game_create_vs_computer(user=alice, level="easy", trump="C", part=PART0)
    assert (game.part0, game.part0_from_browser, game.part1_from_browser) == (PART0, True, False)
    assert fairness.is_part(game.part1)
    assert game.seed == fairness.seed_of(game.secret, PART0, game.part1)
    assert history_of(game).position == engine.deal(game.seed, game.trumps, game.rules)


def test_a_rematch_has_a_secret_of_its_own_and_server_drawn_parts(alice, bob):
    game = fair_game(alice, bob)
    game_resign(game_id=game.pk, user=alice)
    game_rematch(game_id=game.pk, user=bob)
    rematch = game_rematch(game_id=game.pk, user=alice)
    assert rematch is not None and rematch.secret != game.secret
    assert rematch.commitment == fairness.commitment(rematch.secret)
    assert rematch.seed == fairness.seed_of(rematch.secret, rematch.part0, rematch.part1)
    assert not rematch.part0_from_browser and not rematch.part1_from_browser


def test_a_seek_made_before_fair_deals_is_dealt_from_its_stored_seed(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    Game.objects.filter(pk=seek.pk).update(**LEGACY_DEAL)
    game = game_join(game_id=seek.pk, user=bob, trump="H", part=PART1)
    assert game.seed == DEAL


# -- the deal page ------------------------------------------------------------------------------


def page(client, game: Game) -> str:
    response = client.get(reverse("archive:deal", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_before_the_end_the_deal_page_shows_the_commitment_and_nothing_else(client, alice, bob):
    game = Game.objects.get(pk=fair_game(alice, bob).pk)
    html = page(client, game)
    assert "still in play" in html and game.commitment in html
    assert game.secret not in html and str(game.seed) not in html
    assert "Verified" not in html


def test_a_seek_never_dealt_has_no_deal_page(client, alice):
    seek = game_create_seek(user=alice, trump="S")
    game_cancel_seek(game_id=seek.pk, user=alice)
    assert client.get(reverse("archive:deal", args=[seek.pk])).status_code == 404


def test_after_the_end_anyone_sees_the_parts_and_the_deal_verified(client, alice, bob):
    game = fair_game(alice, bob, part1="")
    game_resign(game_id=game.pk, user=bob)
    game.refresh_from_db()
    html = page(client, game)  # not logged in
    assert "Verified" in html and "Not verified" not in html
    for shown in (game.secret, game.commitment, PART0, game.part1, str(game.seed)):
        assert shown in html
    assert "from their browser" in html and "drawn by the server" in html
    start = start_position(game)
    for seat in (0, 1):  # each hand, card by card, as chips
        assert all(f'title="{name}"' in html for name in card_names(start, seat))


def card_names(position: engine.Position, seat: int) -> list[str]:
    return [face(card)["name"] for card in position.hand(seat)]


def test_other_parts_pasted_in_deal_otherwise_and_are_not_verified(client, alice, bob):
    game = fair_game(alice, bob)
    game_resign(game_id=game.pk, user=bob)
    game.refresh_from_db()
    url = reverse("archive:deal", args=[game.pk])
    own = {"secret": game.secret, "part0": PART0, "part1": PART1}
    assert "Verified" in client.get(url, own).content.decode()
    changed = client.get(url, {**own, "part1": "0c" * 32}).content.decode()
    assert "Not verified" in changed and "other hands than the game was played with" in changed
    forged = client.get(url, {**own, "secret": "5e" * 32}).content.decode()
    assert "does not match the commitment" in forged
    bad = client.get(url, {**own, "part0": "XYZ"}).content.decode()
    assert "Write 32 to 64 lowercase hexadecimal digits." in bad and "Verified" in bad


def test_a_game_made_before_fair_deals_says_so(client, alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    Game.objects.filter(pk=seek.pk).update(**LEGACY_DEAL)
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    game_resign(game_id=game.pk, user=bob)
    assert "predates verifiable deals" in page(client, game)


def test_the_result_and_the_replay_link_to_the_deal_page(client, alice, bob):
    game = fair_game(alice, bob)
    client.force_login(alice)
    url = reverse("archive:deal", args=[game.pk])
    assert url not in client.get(reverse("game:table", args=[game.pk])).content.decode()
    game_resign(game_id=game.pk, user=bob)
    for shown in ("game:table", "archive:replay"):
        html = client.get(reverse(shown, args=[game.pk])).content.decode()
        assert f'href="{url}"' in html and "Check this deal" in html, shown


def test_the_admin_shows_the_seed_only_once_the_game_is_over(client, alice, bob):
    staff = get_user_model().objects.create_superuser("mod", password="pw-mod-12345")
    client.force_login(staff)
    game = Game.objects.get(pk=fair_game(alice, bob).pk)
    change = f"/admin/game/game/{game.pk}/change/"
    html = client.get(change).content.decode()
    assert "shown once the game is over" in html
    assert str(game.seed) not in html and game.secret not in html
    game_resign(game_id=game.pk, user=bob)
    assert str(game.seed) in client.get(change).content.decode()


def test_the_lobby_and_the_seek_show_the_commitment(client, alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    client.force_login(bob)
    lobby = client.get(reverse("game:lobby")).content.decode()
    assert seek.commitment[:12] in lobby and f'<code title="{seek.commitment}" dir="ltr">' in lobby
    assert seek.commitment in client.get(reverse("game:table", args=[seek.pk])).content.decode()
    assert 'name="part" data-deal-part' in lobby  # the forms' part, filled by deal-part.js


def lobby_commitment(client) -> str:
    html = client.get(reverse("game:lobby")).content.decode()
    commitments = set(re.findall(r'<code class="commitment__full" dir="ltr">([0-9a-f]{64})<', html))
    assert len(commitments) == 1  # one, shown with both forms
    return commitments.pop()


@pytest.mark.parametrize(
    ("url", "options"),
    [("game:seek_create", {}), ("game:computer_create", {"level": "easy"})],
)
def test_the_lobby_commits_to_the_next_games_secret_before_the_browser_sends_its_part(
    client, alice, url, options
):
    client.force_login(alice)
    shown = lobby_commitment(client)
    assert lobby_commitment(client) == shown  # the same until a game takes it
    data = {"trump": "S", "deck": "36", "clock": "", "part": PART0, **options}
    assert client.post(reverse(url), data).status_code == 302
    game = Game.objects.latest("pk")
    assert game.commitment == shown and game.part0 == PART0
    assert lobby_commitment(client) != shown  # the next game's


def test_a_game_created_without_a_lobby_visit_draws_its_secret_then(client, alice):
    client.force_login(alice)
    data = {"trump": "S", "deck": "36", "clock": "", "part": PART0}
    client.post(reverse("game:seek_create"), data)
    game = Game.objects.latest("pk")
    assert game.commitment == fairness.commitment(game.secret) and fairness.is_part(game.secret)
