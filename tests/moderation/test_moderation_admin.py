"""Moderation from the Django admin: actions ask for a reason first, then land in the log."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME

from game.models import Game
from game.services.starting import game_create_seek, game_join
from moderation import services
from moderation.models import ModerationAction, Report

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, moderator):
    client.force_login(moderator)
    return client


def act(client, changelist, action, pks, **form):
    data = {"action": action, ACTION_CHECKBOX_NAME: [str(pk) for pk in pks], **form}
    return client.post(changelist, data)


def test_a_moderator_browses_the_moderation_admin(staff):
    index = staff.get("/admin/").content.decode()
    for section in ("Reports", "Moderation log", "Chat messages", "Users", "Games"):
        assert section in index
    assert staff.get("/admin/moderation/moderationaction/add/").status_code == 403
    assert staff.get("/admin/moderation/report/add/").status_code == 403


def test_a_player_cannot_open_the_admin(client, alice):
    client.force_login(alice)
    assert client.get("/admin/moderation/report/").status_code == 302


def test_a_ban_from_the_admin_asks_for_a_reason_first(staff, moderator, bob):
    changelist = "/admin/auth/user/"
    assert "Ban the selected users" in staff.get(changelist).content.decode()
    asked = act(staff, changelist, "ban_users", [bob.pk])
    html = asked.content.decode()
    assert asked.status_code == 200 and 'name="reason"' in html and "bob" in html
    bob.refresh_from_db()
    assert bob.is_active  # nothing happens before the reason is given
    again = act(staff, changelist, "ban_users", [bob.pk], apply="1", reason="")
    assert again.status_code == 200 and not ModerationAction.objects.exists()
    done = act(staff, changelist, "ban_users", [bob.pk], apply="1", reason="engine use")
    assert done.status_code == 302
    bob.refresh_from_db()
    assert not bob.is_active
    entry = ModerationAction.objects.get()
    assert (entry.kind, entry.moderator, entry.user, entry.reason) == (
        "ban",
        moderator,
        bob,
        "engine use",
    )


def test_warn_mute_and_unban_from_the_admin(staff, alice, bob, root):
    services.moderation_ban(moderator=root, user=bob, reason="spam")
    changelist = "/admin/auth/user/"
    act(staff, changelist, "warn_users", [alice.pk], apply="1", reason="manners")
    act(
        staff,
        changelist,
        "mute_users",
        [alice.pk],
        apply="1",
        reason="flood",
        duration="86400",
    )
    act(staff, changelist, "unban_users", [bob.pk], apply="1", reason="appeal")
    kinds = set(ModerationAction.objects.exclude(moderator=root).values_list("kind", flat=True))
    assert kinds == {"warn", "mute", "unban"}
    assert alice.moderator_warnings.get().text == "manners"
    assert alice.chat_silence.in_force()


def test_a_refused_admin_action_is_reported_per_item(staff, moderator):
    act(staff, "/admin/auth/user/", "warn_users", [moderator.pk], apply="1", reason="self")
    response = staff.get("/admin/auth/user/")
    assert "Moderators cannot act on themselves." in response.content.decode()
    assert not ModerationAction.objects.exists()


def test_abort_and_annul_games_from_the_admin(staff, alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    act(staff, "/admin/game/game/", "abort_games", [game.pk], apply="1", reason="stuck")
    act(staff, "/admin/game/game/", "annul_games", [game.pk], apply="1", reason="a test")
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.ABORTED and game.annulled
    assert list(ModerationAction.objects.order_by("pk").values_list("kind", flat=True)) == [
        "abort_game",
        "annul_game",
    ]


def test_resolve_and_dismiss_reports_from_the_admin(staff, alice, bob, carol):
    first = services.report_create(reporter=alice, reported=bob, reason="abuse", text="a")
    second = services.report_create(reporter=carol, reported=bob, reason="abuse", text="b")
    changelist = "/admin/moderation/report/"
    assert "Resolve the selected reports" in staff.get(changelist).content.decode()
    act(staff, changelist, "resolve_reports", [first.pk], apply="1", reason="warned")
    act(staff, changelist, "dismiss_reports", [second.pk], apply="1", reason="no")
    statuses = dict(Report.objects.values_list("pk", "status"))
    assert statuses == {first.pk: "resolved", second.pk: "dismissed"}
    log = staff.get("/admin/moderation/moderationaction/?kind__exact=resolve_report")
    assert "warned" in log.content.decode() and ">no<" not in log.content.decode()
