"""Moderation's pages: the report form, the chat on the table, warnings at the next visit, the
queue, a report handled end to end, the moderator's user and game pages, and the log's filter."""

from datetime import UTC, datetime, timedelta

import pytest

from chat.models import Silence
from game.services.chat import game_chat_post
from game.services.starting import game_create_seek, game_create_vs_computer, game_join
from moderation import services
from moderation.models import ModerationAction, Report

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H")


def page(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_table_shows_the_chat_and_report_links_to_a_player(client, game, alice, bob):
    game_chat_post(game_id=game.pk, user=bob, text="have fun")
    client.force_login(alice)
    html = page(client, f"/games/{game.pk}/")
    assert 'id="chat-log"' in html and "have fun" in html
    assert 'id="chat-form"' in html and "ws-send" in html and 'maxlength="200"' in html
    assert "Mute <bdi>bob</bdi>" in html and f"/players/bob/report/?game={game.pk}" in html
    assert "/players/alice/report/" not in html and "Moderate this game" not in html


def test_a_spectator_reads_the_chat_without_a_form(client, game, carol):
    game_chat_post(game_id=game.pk, user=game.seat0, text="hello")
    client.force_login(carol)
    html = page(client, f"/games/{game.pk}/")
    assert "hello" in html and 'id="chat-form"' not in html and "spectators read it" in html
    assert "Report <bdi>alice</bdi>" in html and "Report <bdi>bob</bdi>" in html
    assert "Mute" not in html


def test_a_game_against_the_computer_has_no_chat(client, alice):
    game = game_create_vs_computer(user=alice, level="beginner", trump="S")
    client.force_login(alice)
    assert 'id="chat"' not in page(client, f"/games/{game.pk}/")


def test_muting_by_htmx_returns_the_chat_without_the_opponents_lines(client, game, alice, bob):
    game_chat_post(game_id=game.pk, user=bob, text="noisy line")
    client.force_login(alice)
    html = client.post(f"/games/{game.pk}/chat/mute/", {"mute": "on"}, **HTMX).content.decode()
    assert 'id="chat"' in html and "noisy line" not in html and "Unmute <bdi>bob</bdi>" in html
    html = client.post(f"/games/{game.pk}/chat/mute/", {"mute": "off"}, **HTMX).content.decode()
    assert "noisy line" in html and "Mute <bdi>bob</bdi>" in html


def test_reporting_from_a_profile(client, alice, bob):
    client.force_login(alice)
    assert "/players/bob/report/" in page(client, "/accounts/players/bob/")
    assert "/report/" not in page(client, "/accounts/players/alice/")  # not oneself
    html = page(client, "/players/bob/report/")
    assert 'name="reason"' in html and 'name="text"' in html and "csrfmiddlewaretoken" in html
    response = client.post("/players/bob/report/", {"reason": "other", "text": "odd name"})
    assert response.status_code == 302 and response.url == "/accounts/players/bob/"
    assert "the moderators will look" in page(client, response.url)
    assert Report.objects.get().text == "odd name"


@pytest.mark.parametrize("method", ["get", "post"])
def test_reporting_oneself_is_refused_back_on_ones_profile_once(client, alice, method):
    client.force_login(alice)
    response = getattr(client, method)("/players/alice/report/", {"reason": "abuse", "text": "me"})
    assert response.status_code == 302 and response.url == "/accounts/players/alice/"
    assert page(client, response.url).count("You cannot report yourself.") == 1
    assert not Report.objects.exists()


def test_a_refused_report_is_a_message_on_the_form(client, alice, bob):
    client.force_login(alice)
    response = client.post("/players/bob/report/", {"reason": "abuse", "text": ""})
    assert "field__error" in response.content.decode() and not Report.objects.exists()


def test_a_muted_player_is_told_once_with_one_full_stop(client, moderator, game, alice):
    services.moderation_mute(
        moderator=moderator, user=alice, reason="spam", duration=timedelta(minutes=15)
    )
    # A time after noon: English's date format then ends in "p.m.", a full stop of its own.
    Silence.objects.filter(user=alice).update(until=datetime(2999, 1, 1, 15, 0, tzinfo=UTC))
    client.force_login(alice)
    html = page(client, f"/games/{game.pk}/")
    assert html.count("A moderator has muted you in chat until 01/01/2999 3 p.m.") == 1
    assert "p.m.." not in html


def test_a_warning_is_shown_at_the_next_visit_until_acknowledged(client, moderator, alice):
    services.moderation_warn(moderator=moderator, user=alice, reason="Mind your language.")
    client.force_login(alice)
    html = page(client, "/play/")
    assert "A warning from the moderators:" in html and "Mind your language." in html
    warning = alice.moderator_warnings.get()
    response = client.post(f"/warnings/{warning.pk}/seen/", {"next": "/play/"})
    assert response.status_code == 302 and response.url == "/play/"
    assert "Mind your language." not in page(client, "/play/")


def test_only_its_user_acknowledges_a_warning(client, moderator, alice, bob):
    services.moderation_warn(moderator=moderator, user=alice, reason="Mind your language.")
    client.force_login(bob)
    warning = alice.moderator_warnings.get()
    assert client.post(f"/warnings/{warning.pk}/seen/").status_code == 404
    warning.refresh_from_db()
    assert warning.seen_at is None


@pytest.mark.parametrize(
    "url",
    [
        "/players/bob/report/",
        "/games/{game}/chat/mute/",
        "/moderation/users/bob/ban/",
        "/moderation/games/{game}/annul/",
    ],
)
def test_every_post_needs_the_csrf_token(game, moderator, url):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(moderator if url.startswith("/moderation/") else game.seat0)
    data = {"reason": "abuse", "text": "x", "ban-reason": "x", "game-reason": "x", "mute": "on"}
    response = client.post(url.format(game=game.pk), data, **HTMX)
    assert response.status_code == 403
    assert not ModerationAction.objects.exists() and not Report.objects.exists()


def test_a_banned_profile_says_so_and_moderators_get_their_links(client, moderator, alice, bob):
    services.moderation_ban(moderator=moderator, user=bob, reason="cheating")
    client.force_login(moderator)
    html = page(client, "/accounts/players/bob/")
    assert "This account is banned." in html and "/moderation/users/bob/" in html
    assert 'href="/moderation/"' in page(client, "/play/")  # the nav's Moderation link
    client.force_login(alice)
    assert 'href="/moderation/"' not in page(client, "/play/")


def test_the_queue_shows_open_reports_with_recent_games_and_chat(client, moderator, game, alice):
    game_chat_post(game_id=game.pk, user=game.seat1, text="you cheat, idiot")
    made = services.report_create(
        reporter=alice, reported=game.seat1, reason="abuse", text="insults", game=game
    )
    handled = services.report_create(reporter=game.seat1, reported=alice, reason="other", text="x")
    services.report_dismiss(moderator=moderator, report_id=handled.pk, reason="nothing")
    client.force_login(moderator)
    html = page(client, "/moderation/")
    assert (
        f"/moderation/reports/{made.pk}/" in html
        and f"/moderation/reports/{handled.pk}/" not in html
    )
    assert "insults" in html and "you cheat, idiot" in html
    assert f"/moderation/games/{game.pk}/" in html


def test_the_queue_says_how_long_ago_a_report_came_just_now_within_the_minute(
    client, moderator, alice, bob
):
    services.report_create(reporter=alice, reported=bob, reason="other", text="x")
    old = services.report_create(reporter=bob, reported=alice, reason="other", text="y")
    Report.objects.filter(pk=old.pk).update(created_at=old.created_at - timedelta(hours=3))
    client.force_login(moderator)
    html = page(client, "/moderation/")
    assert "reported by <bdi>alice</bdi>, just now" in html and "0 minutes" not in html
    assert "reported by <bdi>bob</bdi>, 3\xa0hours ago" in html  # kept on one line


def test_a_moderator_handles_a_report_end_to_end(client, moderator, game, alice, bob):
    made = services.report_create(
        reporter=alice, reported=bob, reason="cheating", text="engine", game=game
    )
    client.force_login(moderator)
    html = page(client, f"/moderation/reports/{made.pk}/")
    assert "engine" in html and "Warn" in html and "Ban" in html and "Resolve" in html
    url = f"/moderation/reports/{made.pk}/"
    for action, data in (
        ("warn", {"warn-reason": "first warning"}),
        ("mute", {"mute-reason": "insults", "mute-duration": "900"}),
        ("ban", {"ban-reason": "engine use"}),
    ):
        response = client.post(
            f"/moderation/users/bob/{action}/", {**data, "report": made.pk, "next": url}
        )
        assert response.status_code == 302 and response.url == url
    response = client.post(f"/moderation/reports/{made.pk}/resolve/", {"close-reason": "banned"})
    assert response.status_code == 302 and response.url == "/moderation/"
    made.refresh_from_db()
    assert made.status == Report.Status.RESOLVED
    kinds = list(made.actions.order_by("pk").values_list("kind", flat=True))
    assert kinds == ["warn", "mute", "ban", "resolve_report"]
    html = page(client, "/moderation/")
    assert "The report is resolved." in html and "No open reports." in html


def test_an_action_without_a_reason_is_refused_with_a_message(client, moderator, bob):
    client.force_login(moderator)
    response = client.post("/moderation/users/bob/ban/", {"ban-reason": "  "}, follow=True)
    assert "Give a reason" in response.content.decode()
    bob.refresh_from_db()
    assert bob.is_active and not ModerationAction.objects.exists()


def test_the_game_page_aborts_and_annuls(client, moderator, game):
    game_chat_post(game_id=game.pk, user=game.seat0, text="hi there")
    client.force_login(moderator)
    html = page(client, f"/moderation/games/{game.pk}/")
    assert "hi there" in html and "Abort the game" in html and "Annul the game" in html
    client.post(f"/moderation/games/{game.pk}/abort/", {"game-reason": "stuck"})
    html = page(client, f"/moderation/games/{game.pk}/")
    assert f"Game {game.pk} has been aborted." in html and "Abort the game" not in html
    client.post(f"/moderation/games/{game.pk}/annul/", {"game-reason": "test game"})
    html = page(client, f"/moderation/games/{game.pk}/")
    assert "annulled" in html and "Annul the game" not in html
    assert "counts for nothing" in page(client, f"/games/{game.pk}/")


def test_the_log_lists_every_action_and_filters(client, moderator, root, game, alice, bob):
    services.moderation_warn(moderator=moderator, user=alice, reason="warned alice")
    services.moderation_mute(
        moderator=root, user=bob, reason="muted bob", duration=timedelta(minutes=15)
    )
    services.moderation_annul_game(moderator=moderator, game_id=game.pk, reason="annulled it")
    client.force_login(moderator)
    html = page(client, "/moderation/log/")
    for reason in ("warned alice", "muted bob", "annulled it"):
        assert reason in html
    for query, shown in (
        ("kind=mute", {"muted bob"}),
        ("moderator=root", {"muted bob"}),
        ("user=alice", {"warned alice"}),
        (f"game={game.pk}", {"annulled it"}),
        ("kind=ban", set()),
    ):
        html = page(client, f"/moderation/log/?{query}")
        assert {r for r in ("warned alice", "muted bob", "annulled it") if r in html} == shown
    html = page(client, "/moderation/log/?game=none")
    assert 'class="field__error"' in html and "warned alice" in html  # unfiltered, and says why
