"""A socket's pushes come in its visitor's language, as the page that opened it."""

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import override_settings

from tests.catalogues import write_catalogue
from tests.game.test_consumers import make_game, play_first_turn
from yourtrumps_site.socket_language import language_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def made_up_catalogues(tmp_path):
    """Galician and Hebrew that say which language they are, for "to move" (on the table)."""
    write_catalogue(tmp_path, "gl", {"to move": "xoga [gl]"})
    write_catalogue(tmp_path, "he", {"to move": "[he] תורו"})
    with override_settings(LOCALE_PATHS=[tmp_path]):
        yield


@pytest.mark.parametrize(
    ("headers", "language"),
    [
        ([], "en"),
        ([(b"accept-language", b"he-IL,he;q=0.9,en;q=0.5")], "he"),
        ([(b"accept-language", b"de,hy;q=0.5")], "hy"),
    ],
)
def test_a_socket_speaks_its_browsers_language(headers, language):
    assert language_of({"headers": headers, "cookies": {}}) == language


def test_the_menus_choice_wins_over_the_browsers_language():
    scope = {
        "headers": [(b"accept-language", b"he")],
        "cookies": {settings.LANGUAGE_COOKIE_NAME: "gl"},
    }
    assert language_of(scope) == "gl"


async def watch(path: str, *headers: tuple[bytes, bytes]) -> WebsocketCommunicator:
    from yourtrumps_site.asgi import application

    socket = WebsocketCommunicator(application, path, [(b"origin", b"http://localhost"), *headers])
    connected, _ = await socket.connect()
    assert connected
    return socket


async def test_spectators_get_the_table_each_in_their_own_language(made_up_catalogues):
    game, alice, bob = await make_game()
    path = f"/ws/games/{game.pk}/"
    english = await watch(path)
    galician = await watch(path, (b"accept-language", b"gl"))
    hebrew = await watch(path, (b"cookie", f"{settings.LANGUAGE_COOKIE_NAME}=he".encode()))
    sockets = {"to move": english, "xoga [gl]": galician, "[he] תורו": hebrew}
    for words, socket in sockets.items():  # on connecting, within the shared table's second
        assert f'<span class="seat__turn">{words}</span>' in await socket.receive_from(timeout=5)

    await play_first_turn(game, alice, bob)

    for words, socket in sockets.items():  # and every push after
        pushed = await socket.receive_from(timeout=5)
        assert 'data-ply="1"' in pushed and f'<span class="seat__turn">{words}</span>' in pushed
        await socket.disconnect()
