"""Moderation services: reports, and each moderator's action with its log
entry, its effect, and the refusals around it."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, Group
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.utils import timezone

from chat.models import ChatMessage
from chat.selectors import chat_for
from chat.services import ChatError
from game.models import Game
from game.selectors import chat_room
from game.services.chat import game_chat_post
from game.services.starting import game_create_seek, game_join
from moderation import services
from moderation.groups import MODERATOR_PERMISSIONS, MODERATORS
from moderation.models import ModerationAction, ModeratorWarning, Report, Standing
from moderation.selectors import is_banned, is_moderator
from moderation.services import ModerationError

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H")


def report(reporter, reported, **kwargs):
    return services.report_create(
        reporter=reporter,
        reported=reported,
        reason=kwargs.pop("reason", "abuse"),
        text=kwargs.pop("text", "rude in chat"),
        **kwargs,
    )


def only_log_entry(**filters):
    (entry,) = ModerationAction.objects.filter(**filters)
    return entry


# --- The Moderators group ------------------------------------------------------------------------


def test_the_moderators_group_holds_the_moderation_permissions(moderator, alice, root):
    group = Group.objects.get(name=MODERATORS)
    held = {(p.content_type.app_label, p.codename) for p in group.permissions.all()}
    assert held == set(MODERATOR_PERMISSIONS)
    assert moderator.is_staff and is_moderator(moderator) and is_moderator(root)
    assert not is_moderator(alice) and not is_moderator(AnonymousUser())


def test_the_moderator_command_grants_and_revokes(alice):
    call_command("moderator", "alice")
    alice.refresh_from_db()
    assert alice.is_staff and alice.groups.filter(name=MODERATORS).exists()
    call_command("moderator", "alice", "--remove")
    alice = get_user_model().objects.get(pk=alice.pk)
    assert not alice.is_staff and not is_moderator(alice)


# --- Reports ------------------------------------------------------------------------------------


def test_a_player_reports_another_about_a_game(game, alice, bob):
    made = report(alice, bob, game=game, reason="cheating", text="  engine moves  ")
    assert (made.reporter, made.reported, made.game, made.reason, made.text, made.status) == (
        alice,
        bob,
        game,
        "cheating",
        "engine moves",
        Report.Status.OPEN,
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reason": "spite"}, "Choose a reason"),
        ({"text": "   "}, "Say what happened"),
    ],
)
def test_a_report_needs_a_reason_and_text(alice, bob, kwargs, message):
    with pytest.raises(ModerationError, match=message):
        report(alice, bob, **kwargs)


def test_reports_refused_on_oneself_twice_or_about_someone_elses_game(alice, bob, carol, game):
    with pytest.raises(ModerationError, match="yourself"):
        report(alice, alice)
    with pytest.raises(ModerationError, match="did not play"):
        report(alice, carol, game=game)
    report(alice, bob)
    with pytest.raises(ModerationError, match="already reported bob"):
        report(alice, bob)
    assert Report.objects.count() == 1


# --- Moderators' actions -------------------------------------------------------------------------


def test_a_warning_is_logged_and_waits_for_its_user(moderator, alice):
    action = services.moderation_warn(moderator=moderator, user=alice, reason=" be polite ")
    assert (action.kind, action.moderator, action.user, action.reason) == (
        "warn",
        moderator,
        alice,
        "be polite",
    )
    warning = ModeratorWarning.objects.get(user=alice)
    assert warning.text == "be polite" and warning.seen_at is None
    services.warning_acknowledge(user=alice, warning_id=warning.pk)
    warning.refresh_from_db()
    assert warning.seen_at is not None


def test_a_mute_refuses_chat_until_it_ends(moderator, game, alice, bob):
    action = services.moderation_mute(
        moderator=moderator, user=alice, reason="spam", duration=timedelta(hours=1)
    )
    assert action.kind == "mute" and action.until > timezone.now() + timedelta(minutes=59)
    with pytest.raises(ChatError, match="muted you in chat"):
        game_chat_post(game_id=game.pk, user=alice, text="hello?")
    assert chat_for(chat_room(game), alice).muted_until == action.until
    game_chat_post(game_id=game.pk, user=bob, text="quiet now")
    after = action.until + timedelta(seconds=1)
    game_chat_post(game_id=game.pk, user=alice, text="I am back", now=after)
    assert list(ChatMessage.objects.values_list("author__username", flat=True)) == ["bob", "alice"]


def test_a_mute_takes_only_the_offered_durations(moderator, alice):
    with pytest.raises(ModerationError, match="durations"):
        services.moderation_mute(
            moderator=moderator, user=alice, reason="spam", duration=timedelta(minutes=3)
        )
    assert not ModerationAction.objects.exists()


def test_a_ban_ends_games_refuses_login_and_chat_and_is_logged(
    moderator, game, alice, bob, carol, client
):
    seek = game_create_seek(user=alice, trump="D")
    action = services.moderation_ban(moderator=moderator, user=alice, reason="cheating")
    assert action.kind == "ban" and action.user == alice
    alice.refresh_from_db()
    assert not alice.is_active and is_banned(alice)
    game.refresh_from_db()
    seek.refresh_from_db()
    assert (game.status, game.reason, game.winner) == ("finished", Game.Reason.MODERATOR, 1)
    assert seek.status == Game.Status.ABORTED
    with pytest.raises(ChatError, match="banned"):
        game_chat_post(game_id=game.pk, user=alice, text="unfair!")
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice-123"})
    assert response.status_code == 200
    assert "This account has been banned by the moderators." in response.content.decode()
    assert "_auth_user_id" not in client.session
    with pytest.raises(ModerationError, match="already banned"):
        services.moderation_ban(moderator=moderator, user=alice, reason="again")


def test_a_banned_users_session_is_refused_on_the_next_request(moderator, alice, client):
    client.force_login(alice)
    assert client.get("/play/").context["user"] == alice
    services.moderation_ban(moderator=moderator, user=alice, reason="cheating")
    assert not client.get("/play/").context["user"].is_authenticated


def test_an_unban_lets_the_user_log_in_again(moderator, alice, client):
    services.moderation_ban(moderator=moderator, user=alice, reason="cheating")
    action = services.moderation_unban(moderator=moderator, user=alice, reason="appeal accepted")
    assert action.kind == "unban"
    alice.refresh_from_db()
    assert alice.is_active and not Standing.objects.get(user=alice).banned
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice-123"})
    assert response.status_code == 302
    with pytest.raises(ModerationError, match="not banned"):
        services.moderation_unban(moderator=moderator, user=alice, reason="again")


def test_game_actions_are_logged_with_the_game(moderator, game):
    abort = services.moderation_abort_game(moderator=moderator, game_id=game.pk, reason="bug")
    annul = services.moderation_annul_game(moderator=moderator, game_id=game.pk, reason="bug")
    assert (abort.kind, abort.game, annul.kind, annul.game) == (
        "abort_game",
        game,
        "annul_game",
        game,
    )
    with pytest.raises(ModerationError, match="already over"):
        services.moderation_abort_game(moderator=moderator, game_id=game.pk, reason="again")
    game.refresh_from_db()
    assert game.annulled and game.status == Game.Status.ABORTED


def test_resolving_and_dismissing_reports(moderator, alice, bob, carol):
    first, second = report(alice, bob), report(carol, bob)
    resolved = services.report_resolve(moderator=moderator, report_id=first.pk, reason="warned")
    dismissed = services.report_dismiss(moderator=moderator, report_id=second.pk, reason="fine")
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.handled_by, second.status) == ("resolved", moderator, "dismissed")
    assert (resolved.kind, resolved.user, resolved.report) == ("resolve_report", bob, first)
    assert (dismissed.kind, dismissed.report) == ("dismiss_report", second)
    with pytest.raises(ModerationError, match="already been handled"):
        services.report_dismiss(moderator=moderator, report_id=first.pk, reason="again")


def test_an_action_taken_from_a_report_is_logged_with_it(moderator, alice, bob):
    made = report(alice, bob)
    services.moderation_warn(moderator=moderator, user=bob, reason="language", report=made)
    assert only_log_entry(kind="warn").report == made


def test_every_action_needs_a_reason(moderator, alice, game):
    calls = [
        lambda: services.moderation_warn(moderator=moderator, user=alice, reason=" "),
        lambda: services.moderation_mute(
            moderator=moderator, user=alice, reason="", duration=timedelta(hours=1)
        ),
        lambda: services.moderation_ban(moderator=moderator, user=alice, reason=""),
        lambda: services.moderation_abort_game(moderator=moderator, game_id=game.pk, reason=""),
    ]
    for call in calls:
        with pytest.raises(ModerationError, match="Give a reason"):
            call()
    assert not ModerationAction.objects.exists()
    alice.refresh_from_db()
    assert alice.is_active


def test_moderators_cannot_act_on_themselves_or_on_each_other(moderator, root):
    other = get_user_model().objects.create_user("other-mod", password="pw-other-12345")
    services.moderator_grant(user=other)
    with pytest.raises(ModerationError, match="themselves"):
        services.moderation_warn(moderator=moderator, user=moderator, reason="x")
    with pytest.raises(ModerationError, match="superuser"):
        services.moderation_ban(moderator=moderator, user=other, reason="x")
    services.moderation_warn(moderator=root, user=other, reason="a superuser may")
    assert ModerationAction.objects.count() == 1


def test_players_cannot_take_moderators_actions(alice, bob, game):
    with pytest.raises(PermissionDenied):
        services.moderation_ban(moderator=alice, user=bob, reason="I lost")
    with pytest.raises(PermissionDenied):
        services.moderation_annul_game(moderator=alice, game_id=game.pk, reason="I lost")
    with pytest.raises(PermissionDenied):
        services.moderation_warn(moderator=AnonymousUser(), user=bob, reason="x")
    bob.refresh_from_db()
    assert bob.is_active and not ModerationAction.objects.exists()


# --- Logging in ---------------------------------------------------------------------------------


def test_password_guessing_is_locked_out_by_axes(alice, client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post("/accounts/login/", {"username": "alice", "password": "guess"})
        assert response.status_code == 200
    # The last failure allowed locks the name out from this address; the right password too.
    response = client.post("/accounts/login/", {"username": "alice", "password": "guess"})
    assert response.status_code == 429
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice-123"})
    assert response.status_code == 429
    assert "Too many attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
