"""Moderators see users, games and moves in the admin from the start."""

import pytest
from django.contrib.auth import get_user_model

from game.services.starting import game_create_vs_computer

pytestmark = pytest.mark.django_db


def test_the_admin_lists_users_games_and_moves(client):
    staff = get_user_model().objects.create_superuser("mod", password="pw-mod-12345")
    player = get_user_model().objects.create_user("dora", password="pw-dora-12345")
    game = game_create_vs_computer(user=player, level="beginner", trump="S")
    client.force_login(staff)
    for url in (
        "/admin/auth/user/",
        "/admin/game/game/",
        "/admin/game/move/",
        f"/admin/game/game/{game.pk}/change/",
        "/admin/archive/importedgame/",
        "/admin/archive/analysis/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
    assert "dora" in client.get("/admin/game/game/").content.decode()


def test_an_analysis_is_not_made_by_hand_in_the_admin(client):
    """The fuzz found the add form's 500 (no thinking time): it is refused instead."""
    client.force_login(get_user_model().objects.create_superuser("mod", password="pw-mod-12345"))
    assert client.get("/admin/archive/analysis/add/").status_code == 403
    assert client.post("/admin/archive/analysis/add/", {"status": "queued"}).status_code == 403
