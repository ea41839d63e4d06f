"""Right-to-left pages: what has a direction of its own is isolated, so that a Hebrew page
neither turns a name's punctuation about ("!alice") nor a numbered turn (".1 KH") nor a score."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.template import Context, Template
from django.urls import reverse

from game.options import GameOptions
from game.services.starting import game_create_seek, game_join
from tests.games import finished_game

pytestmark = pytest.mark.django_db
HEBREW = {"accept-language": "he"}
DASH = "\N{EN DASH}"


def test_the_filters_escape_and_isolate() -> None:
    rendered = Template("{% load bidi %}{{ name|bdi }} {{ turn|ltr }} {{ name|isolate }}").render(
        Context({"name": "<b>alice!</b>", "turn": "QS-9D"})
    )

    assert rendered == (
        '<bdi>&lt;b&gt;alice!&lt;/b&gt;</bdi> <bdi dir="ltr">QS-9D</bdi> '
        "\u2068&lt;b&gt;alice!&lt;/b&gt;\u2069"
    )


@pytest.fixture
def players():
    users = get_user_model().objects
    return users.create_user("alice!", password="pw-alice-123"), users.create_user("bob")


def test_a_table_isolates_names_and_reads_the_clocks_left_to_right(client, players) -> None:
    alice, bob = players
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(time_control=(3, 2)))
    game = game_join(game_id=seek.pk, user=bob, trump="H")

    html = client.get(reverse("game:table", args=[game.pk]), headers=HEBREW).content.decode()

    assert '<html lang="he" dir="rtl">' in html
    assert '<span class="seat__name"><bdi>alice!</bdi></span>' in html
    assert (
        len(re.findall(r'<span class="clock[^"]*" dir="ltr" data-ms="\d+">\d+:\d\d</span>', html))
        == 2
    )


def test_a_replay_keeps_numbered_turns_scores_and_names_apart(client, players) -> None:
    alice, bob = players
    game = finished_game(alice, bob)
    first = game.moves.order_by("ply").first().notation

    replay = client.get(reverse("archive:replay", args=[game.pk]), headers=HEBREW).content.decode()
    archive = client.get(reverse("archive:archive"), headers=HEBREW).content.decode()

    assert f'<bdi dir="ltr" class="notation">1. {first}</bdi>' in replay
    assert f"<h1><bdi>alice!</bdi> {DASH} <bdi>bob</bdi></h1>" in replay
    assert f"<title>\u2068alice!\u2069 {DASH} \u2068bob\u2069 · " in replay
    assert re.search(f'<td><bdi dir="ltr">(1{DASH}0|0{DASH}1|½{DASH}½)</bdi></td>', archive)
    assert f"<td><bdi>alice!</bdi> {DASH} <bdi>bob</bdi></td>" in archive
