"""The registry of moderators' actions (moderation.actions) drives the rest: the codes the log
stores and shows, the permissions, the buttons each page offers and the views they post to, the
admin's actions and the log's filter. Each test goes through every registered action, so that an
action added to the registry is tried everywhere at once."""

import html

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command

from game.services.starting import game_create_seek, game_join
from moderation import services
from moderation.actions import ACTIONS, PERMISSIONS, On, by_code, find
from moderation.groups import MODERATORS
from moderation.models import ModerationAction
from moderation.services import MUTE_DURATIONS

pytestmark = pytest.mark.django_db

#: What the log holds, written out here and not read from the registry: renaming a code would
#: strand the rows stored under it.
STORED = [
    "warn",
    "mute",
    "ban",
    "unban",
    "abort_game",
    "annul_game",
    "resolve_report",
    "dismiss_report",
]
EACH = pytest.mark.parametrize("action", ACTIONS, ids=[action.code for action in ACTIONS])


@pytest.fixture
def target(action, root, alice, bob, carol):
    """What ``action`` applies to, in a state where it applies (a banned user for an unban)."""
    if action.on is On.USER:
        if action.offered(carol):
            return carol
        services.moderation_ban(moderator=root, user=carol, reason="spam")
        return get_user_model().objects.get(pk=carol.pk)
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    if action.on is On.GAME:
        return game
    return services.report_create(reporter=alice, reported=bob, reason="abuse", text="x", game=game)


def page_of(target) -> str:
    if isinstance(target, get_user_model()):
        return f"/moderation/users/{target.username}/"
    folder = "games" if hasattr(target, "seat0") else "reports"
    return f"/moderation/{folder}/{target.pk}/"


def url_of(action, target) -> str:
    key = target.username if action.on is On.USER else target.pk
    return f"/moderation/{action.on}s/{key}/{action.name}/"


def form_data(action) -> dict[str, str]:
    data = {f"{action.form}-reason": "because"}
    if action.duration:
        data[f"{action.form}-duration"] = str(int(MUTE_DURATIONS[0].total_seconds()))
    return data


def staff_with(*codenames: str):
    """A user who may open the moderation pages and holds only these actions' permissions."""
    user = get_user_model().objects.create_user("-".join(("staff", *codenames)))
    wanted = ("view_report", *codenames)
    user.user_permissions.set(
        Permission.objects.filter(content_type__app_label="moderation", codename__in=wanted)
    )
    return get_user_model().objects.get(pk=user.pk)  # fresh: no cached permissions


def logged(code: str) -> int:
    return ModerationAction.objects.filter(kind=code).count()


def test_the_registry_keeps_the_codes_the_log_stores():
    assert [action.code for action in ACTIONS] == STORED
    field = ModerationAction._meta.get_field("kind")
    assert [code for code, _label in field.choices] == STORED
    assert max(map(len, STORED)) <= field.max_length
    assert all(by_code(code).code == code for code in STORED) and by_code("explode") is None


def test_the_migrations_already_hold_the_choices_and_permissions_the_registry_derives():
    call_command("makemigrations", "moderation", check=True, dry_run=True, verbosity=0)


def test_each_action_is_named_once_per_target_and_bound_to_one_service():
    for on in On:
        names = [action.name for action in ACTIONS if action.on is on]
        assert len(names) == len(set(names)), on
    for action in ACTIONS:
        assert find(action.on, action.name) is action
        assert action.service.__module__ == "moderation.services"
        # Actions asked on one form share its target and its fields.
        sharing = [a for a in ACTIONS if a.on is action.on and a.form == action.form]
        assert {a.duration for a in sharing} == {action.duration}


def test_the_moderators_hold_every_permission_an_action_needs():
    meta = {codename for codename, _ in ModerationAction._meta.permissions}
    assert meta == {permission.codename for permission in PERMISSIONS}
    assert {action.permission for action in ACTIONS} == set(PERMISSIONS)
    held = set(Group.objects.get(name=MODERATORS).permissions.values_list("codename", flat=True))
    assert meta <= held


@EACH
def test_performing_each_action_writes_a_log_line_with_its_code(moderator, action, target):
    before = logged(action.code)
    entry = action.perform(
        moderator=moderator, target=target, reason="because", duration=MUTE_DURATIONS[0]
    )
    assert (entry.kind, entry.moderator, entry.reason) == (action.code, moderator, "because")
    assert logged(action.code) == before + 1
    assert entry.get_kind_display() == str(action.label)


@EACH
def test_each_action_is_offered_and_done_with_its_permission_only(client, action, target):
    others = [p.codename for p in PERMISSIONS if p != action.permission]
    client.force_login(staff_with(*others))
    assert url_of(action, target) not in client.get(page_of(target)).content.decode()
    before = logged(action.code)
    assert client.post(url_of(action, target), form_data(action)).status_code == 403
    assert logged(action.code) == before

    client.force_login(staff_with(action.permission.codename))
    shown = client.get(page_of(target)).content.decode()
    assert f'action="{url_of(action, target)}"' in shown or (
        f'formaction="{url_of(action, target)}"' in shown
    )
    assert f">{html.escape(str(action.button))}</button>" in shown
    response = client.post(url_of(action, target), form_data(action), follow=True)
    assert response.status_code == 200
    assert logged(action.code) == before + 1
    done = str(action.done) % {"name": target, "pk": target.pk}
    assert html.escape(done) in response.content.decode()


@pytest.mark.parametrize(
    "path",
    ["users/bob/explode", "games/{game}/ban", "reports/{report}/warn", "users/bob/resolve"],
)
def test_an_unknown_action_is_refused_with_a_message(client, moderator, alice, bob, path):
    seek = game_create_seek(user=alice, trump="S")
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    made = services.report_create(reporter=alice, reported=bob, reason="abuse", text="x")
    client.force_login(moderator)
    url = f"/moderation/{path.format(game=game.pk, report=made.pk)}/"
    data = {f"{action.form}-reason": "because" for action in ACTIONS}
    response = client.post(url, data, follow=True)
    assert response.status_code == 200 and "Unknown action." in response.content.decode()
    assert not ModerationAction.objects.exists()


@pytest.mark.parametrize(
    ("on", "changelist"),
    [
        (On.USER, "/admin/auth/user/"),
        (On.GAME, "/admin/game/game/"),
        (On.REPORT, "/admin/moderation/report/"),
    ],
)
def test_the_admin_offers_each_action_on_its_list(client, moderator, alice, bob, on, changelist):
    game_create_seek(user=alice, trump="S")
    services.report_create(reporter=alice, reported=bob, reason="abuse", text="x")
    client.force_login(moderator)  # (a list offers its actions once it has rows)
    shown = client.get(changelist).content.decode()
    for action in ACTIONS:
        option = f'<option value="{action.admin_name}">{action.admin}</option>'
        assert (option in shown) == (action.on is on), action.code


def test_the_admin_offers_an_action_only_with_its_permission(client):
    staffer = staff_with("ban_user")
    staffer.is_staff = True
    staffer.save()
    staffer.user_permissions.add(Permission.objects.get(codename="view_user"))
    client.force_login(staffer)
    shown = client.get("/admin/auth/user/").content.decode()
    offered = {action.code for action in ACTIONS if f'value="{action.admin_name}"' in shown}
    assert offered == {"ban", "unban"}


def test_the_log_can_be_filtered_by_each_action(client, moderator):
    client.force_login(moderator)
    shown = client.get("/moderation/log/").content.decode()
    for action in ACTIONS:
        assert f'<option value="{action.code}">{action.label}</option>' in shown
