"""The authorisation matrix: every moderation and chat action, tried by every kind of visitor.

Anonymous visitors and banned users (whose session is refused) are sent to log in; players and
other users are refused the moderators' pages and actions; moderators and superusers may do them.
Chat over the websocket is tried in tests/moderation/test_moderation_consumers.py.
"""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from chat.models import ChatMute
from game.services.starting import game_create_seek, game_join
from moderation import services
from moderation.models import ModerationAction, Report

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "player", "opponent", "other", "banned", "muted", "moderator", "superuser")
LOGIN, FORBIDDEN, OK = "login", "forbidden", "ok"


class World:
    """A game between alice and bob, with a report about bob and a user to act on."""

    def __init__(self) -> None:
        users = get_user_model().objects
        make = users.create_user  # no password: quick, and nobody logs in by password here
        self.alice, self.bob, self.carol, self.dave, self.yuri, self.zoe = (
            make(name) for name in ("alice", "bob", "carol", "dave", "yuri", "zoe")
        )
        self.root = users.create_superuser("root", password=None)
        self.mod = make("mod")
        services.moderator_grant(user=self.mod)
        seek = game_create_seek(user=self.alice, trump="S")
        self.game = game_join(game_id=seek.pk, user=self.bob, trump="H")
        self.report = services.report_create(
            reporter=self.yuri, reported=self.bob, reason="abuse", text="rude", game=self.game
        )
        # Somebody for "unban" to act on.
        services.moderation_ban(moderator=self.root, user=self.zoe, reason="spam")

    def log_in(self, client, role: str):
        users = {
            "player": self.alice,
            "opponent": self.bob,
            "other": self.carol,
            "banned": self.dave,
            "muted": self.alice,
            "moderator": self.mod,
            "superuser": self.root,
        }
        user = users.get(role)
        if user is not None:
            client.force_login(user)
        if role == "banned":  # banned after logging in: the session is refused from then on
            services.moderation_ban(moderator=self.root, user=self.dave, reason="cheating")
        if role == "muted":
            services.moderation_mute(
                moderator=self.root, user=self.alice, reason="spam", duration=timedelta(hours=1)
            )
        return user


@pytest.fixture
def world():
    return World()


def outcome(response) -> str:
    if response.status_code == 302 and response.url.startswith("/accounts/login/"):
        return LOGIN
    if response.status_code == 403:
        return FORBIDDEN
    assert response.status_code in (200, 302), response.status_code
    return OK


def expect(role: str, *, allowed: set[str]) -> str:
    if role in ("anonymous", "banned"):
        return LOGIN
    return OK if role in allowed else FORBIDDEN


PLAYERS_AND_OTHERS = {"player", "opponent", "other", "muted", "moderator", "superuser"}
THE_TWO_PLAYERS = {"player", "opponent", "muted"}
MODERATORS = {"moderator", "superuser"}


@pytest.mark.parametrize("role", ROLES)
def test_reporting_a_player(client, world, role):
    user = world.log_in(client, role)
    target = world.alice if user == world.bob else world.bob
    before = Report.objects.count()
    response = client.post(
        f"/players/{target.username}/report/?game={world.game.pk}",
        {"reason": "abuse", "text": "insults in chat"},
    )
    assert outcome(response) == expect(role, allowed=PLAYERS_AND_OTHERS)
    created = Report.objects.count() - before
    assert created == (1 if outcome(response) == OK else 0)
    if created:
        assert response.url == world.game.get_absolute_url()


@pytest.mark.parametrize("role", ROLES)
def test_muting_the_opponent(client, world, role):
    world.log_in(client, role)
    response = client.post(f"/games/{world.game.pk}/chat/mute/", {"mute": "on"})
    assert outcome(response) == expect(role, allowed=THE_TWO_PLAYERS)
    assert ChatMute.objects.exists() == (outcome(response) == OK)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    "page",
    [
        "/moderation/",
        "/moderation/log/",
        "/moderation/users/bob/",
        "/moderation/games/{game}/",
        "/moderation/reports/{report}/",
    ],
)
def test_the_moderators_pages(client, world, role, page):
    world.log_in(client, role)
    response = client.get(page.format(game=world.game.pk, report=world.report.pk))
    assert outcome(response) == expect(role, allowed=MODERATORS)


ACTIONS = [
    ("users/carol/warn", {"warn-reason": "language"}, "warn"),
    ("users/carol/mute", {"mute-reason": "spam", "mute-duration": "3600"}, "mute"),
    ("users/carol/ban", {"ban-reason": "cheating"}, "ban"),
    ("users/zoe/unban", {"ban-reason": "appeal"}, "unban"),
    ("games/{game}/abort", {"game-reason": "a bug"}, "abort_game"),
    ("games/{game}/annul", {"game-reason": "a bug"}, "annul_game"),
    ("reports/{report}/resolve", {"close-reason": "warned"}, "resolve_report"),
    ("reports/{report}/dismiss", {"close-reason": "nothing wrong"}, "dismiss_report"),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("path", "data", "kind"), ACTIONS, ids=[a[2] for a in ACTIONS])
def test_the_moderators_actions(client, world, role, path, data, kind):
    world.log_in(client, role)
    before = ModerationAction.objects.filter(kind=kind).count()
    url = "/moderation/" + path.format(game=world.game.pk, report=world.report.pk) + "/"
    response = client.post(url, data)
    assert outcome(response) == expect(role, allowed=MODERATORS)
    logged = ModerationAction.objects.filter(kind=kind).count() - before
    assert logged == (1 if outcome(response) == OK else 0)
    if logged:
        entry = ModerationAction.objects.filter(kind=kind).first()
        assert entry.moderator == (world.mod if role == "moderator" else world.root)
        assert entry.reason == next(iter(data.values()))
