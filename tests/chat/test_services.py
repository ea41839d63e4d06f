"""The chat's services and reads, through live play's door
(``game.services.chat.game_chat_post``): who writes and who reads, the limits on a line, and each
player's mutes."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from chat import services as chat_services
from chat.models import ChatMessage
from chat.selectors import chat_for
from chat.services import CHAT_BURST, CHAT_MAX_LENGTH, CHAT_WINDOW, ChatError
from game.selectors import chat_room
from game.services.chat import game_chat_post
from game.services.starting import game_create_seek, game_create_vs_computer, game_join

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    seek = game_create_seek(user=alice, trump="S")
    return game_join(game_id=seek.pk, user=bob, trump="H")


# --- Lines ------------------------------------------------------------------------------------


def test_the_players_chat_and_spectators_read(game, alice, bob, carol):
    game_chat_post(game_id=game.pk, user=alice, text="  good   luck ")
    game_chat_post(game_id=game.pk, user=bob, text="you too")
    for viewer in (alice, bob, carol, AnonymousUser()):
        chat = chat_for(chat_room(game), viewer)
        assert [(m.author.username, m.text) for m in chat.messages] == [
            ("alice", "good luck"),
            ("bob", "you too"),
        ]
    assert chat_for(chat_room(game), alice).writer and not chat_for(chat_room(game), carol).writer
    for spectator in (carol, AnonymousUser()):
        with pytest.raises(ChatError, match="spectators read"):
            game_chat_post(game_id=game.pk, user=spectator, text="hello")


def test_a_game_against_the_computer_or_a_seek_has_no_chat(alice):
    computer = game_create_vs_computer(user=alice, level="beginner", trump="S")
    seek = game_create_seek(user=alice, trump="S")
    for game in (computer, seek):
        assert not chat_for(chat_room(game), alice).open
        with pytest.raises(ChatError, match="two people"):
            game_chat_post(game_id=game.pk, user=alice, text="hi")


def test_chat_has_a_length_limit_and_no_empty_lines(game, alice):
    game_chat_post(game_id=game.pk, user=alice, text="x" * CHAT_MAX_LENGTH)
    with pytest.raises(ChatError, match=f"at most {CHAT_MAX_LENGTH} characters"):
        game_chat_post(game_id=game.pk, user=alice, text="x" * (CHAT_MAX_LENGTH + 1))
    with pytest.raises(ChatError, match="Write something"):
        game_chat_post(game_id=game.pk, user=alice, text=" \n ")
    assert ChatMessage.objects.count() == 1


def test_chat_is_rate_limited_per_player(game, alice, bob):
    start = timezone.now()
    for i in range(CHAT_BURST):
        game_chat_post(game_id=game.pk, user=alice, text=f"line {i}", now=start)
    with pytest.raises(ChatError, match="too fast"):
        game_chat_post(game_id=game.pk, user=alice, text="one more", now=start)
    game_chat_post(game_id=game.pk, user=bob, text="my turn to talk", now=start)
    later = start + CHAT_WINDOW + timedelta(seconds=1)
    game_chat_post(game_id=game.pk, user=alice, text="calmer now", now=later)
    assert ChatMessage.objects.filter(author=alice).count() == CHAT_BURST + 1


def test_a_player_mutes_their_opponent_and_no_longer_sees_them(game, alice, bob, carol):
    game_chat_post(game_id=game.pk, user=bob, text="you are bad")
    game_chat_post(game_id=game.pk, user=alice, text="gg")
    chat_services.chat_mute_set(user=alice, other=bob, muted=True)
    mine = chat_for(chat_room(game), alice)
    assert mine.opponent_muted and [m.text for m in mine.messages] == ["gg"]
    # Only alice's view changes: bob and spectators see everything; bob may still write.
    assert [m.text for m in chat_for(chat_room(game), carol).messages] == ["you are bad", "gg"]
    game_chat_post(game_id=game.pk, user=bob, text="still here")
    assert [m.text for m in chat_for(chat_room(game), bob).messages][-1] == "still here"
    assert [m.text for m in chat_for(chat_room(game), alice).messages] == ["gg"]
    chat_services.chat_mute_set(user=alice, other=bob, muted=False)
    assert len(chat_for(chat_room(game), alice).messages) == 3
    with pytest.raises(ChatError, match="yourself"):
        chat_services.chat_mute_set(user=alice, other=alice, muted=True)


def test_a_new_chat_line_is_announced_after_the_commit(
    game, alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        game_chat_post(game_id=game.pk, user=alice, text="hi")
    assert len(callbacks) == 1
