"""All of one's own games as one zip file of records, from the settings page."""

import io
import zipfile

import pytest
from django.urls import reverse

from archive import records
from game.services.endings import game_abort, game_resign
from game.services.starting import (
    game_cancel_seek,
    game_create_seek,
    game_create_vs_computer,
    game_join,
)
from tests.games import finished_game

pytestmark = pytest.mark.django_db


def download(client, user) -> tuple[object, zipfile.ZipFile]:
    client.force_login(user)
    response = client.get(reverse("archive:my_records"))
    return response, zipfile.ZipFile(io.BytesIO(response.content))


def test_the_settings_page_links_to_the_download(client, alice):
    client.force_login(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert f'href="{reverse("archive:my_records")}"' in page


def test_the_zip_holds_each_game_record_as_its_own_download_does(client, alice, bob, carol):
    won = finished_game(alice, bob)
    lost = finished_game(bob, alice, time_control=None)
    computer = game_create_vs_computer(user=alice, level="beginner", trump="S")
    game_resign(game_id=computer.pk, user=alice)
    aborted = game_join(game_id=game_create_seek(user=alice, trump="D").pk, user=bob, trump="C")
    game_abort(game_id=aborted.pk, user=bob)
    game_cancel_seek(  # never dealt: no record
        game_id=game_create_seek(user=alice, trump="H").pk, user=alice
    )
    game_join(  # still in play: not yet
        game_id=game_create_seek(user=alice, trump="H").pk, user=bob, trump="S"
    )
    others = finished_game(bob, carol)  # not hers

    response, archive = download(client, alice)

    assert response["Content-Type"] == "application/zip"
    disposition = response["Content-Disposition"]
    assert (
        disposition.startswith('attachment; filename="yourtrumps-alice-') and ".zip" in disposition
    )
    mine = (won, lost, computer, aborted)
    assert archive.namelist() == [f"yourtrumps-{game.pk}.txt" for game in mine]
    for game in mine:
        text = archive.read(f"yourtrumps-{game.pk}.txt").decode()
        single = client.get(reverse("archive:record", args=[game.pk])).content.decode()
        assert text == single
        assert records.parse(text).turns == tuple(
            game.moves.order_by("ply").values_list("notation", flat=True)
        )
    assert f"yourtrumps-{others.pk}.txt" not in archive.namelist()


def test_a_player_without_games_gets_an_empty_zip(client, alice):
    response, archive = download(client, alice)
    assert response.status_code == 200 and archive.namelist() == []


def test_a_non_latin_name_is_kept_in_the_file_name(client, django_user_model):
    armen = django_user_model.objects.create_user("Արմեն", password="pw-armen-123")
    response, _ = download(client, armen)
    assert "filename*=utf-8''yourtrumps-%D4%B1" in response["Content-Disposition"]


def test_the_download_needs_a_login(client):
    response = client.get(reverse("archive:my_records"))
    assert response.status_code == 302 and response.url.startswith(reverse("accounts:login"))
