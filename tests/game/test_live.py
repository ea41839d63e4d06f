"""The games this process keeps in memory (``game.live.LIVE_GAMES``): what a turn played here is
checked on, and its viewers' updates rendered from, instead of reading the game back."""

from functools import partial

import pytest
from django.db import connection

from game.engine import GameState
from game.live import LIVE_GAMES, LiveGames
from game.models import Game, Move
from game.options import GameOptions
from game.selectors import check_state, history_of, stored_state
from game.services import GameError
from game.services.endings import game_offer_draw, game_resign
from game.services.play import game_play_move
from game.services.starting import game_create_seek, game_join
from game.table_markup import render_table
from game.tables import tables_for

pytestmark = pytest.mark.django_db


def _play(game, players, turns, capture):
    for _ in range(turns):
        history = history_of(game)
        moves = list(history.legal_moves())
        move = next((m for m in moves if not m.is_take), moves[0])
        with capture(execute=True):
            game_play_move(
                game_id=game.pk,
                user=players[history.position.to_move],
                notation=str(move),
                expected_ply=history.ply,
            )
        game.refresh_from_db()
    return game


def _read(game_id):
    return Game.objects.select_related("seat0", "seat1").get(pk=game_id)


def test_a_committed_turn_leaves_the_game_as_stored_and_the_tables_as_a_fresh_read_gives_them(
    alice, bob, django_capture_on_commit_callbacks
):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    with django_capture_on_commit_callbacks(execute=True):
        game = game_join(game_id=seek.pk, user=bob, trump="H")
    stored = _read(game.pk)
    LIVE_GAMES.read(stored)
    game = _play(stored, (alice, bob), 5, django_capture_on_commit_callbacks)

    snapshot = LIVE_GAMES.at(game.pk, game.version)
    assert snapshot is not None and snapshot.version == game.version
    assert snapshot.state == _read(game.pk).state
    kept = tables_for(snapshot, [0, 1, None])
    fresh = tables_for(_read(game.pk), [0, 1, None])
    for table, read in zip(kept, fresh, strict=True):
        assert render_table(table) == render_table(read)


def test_a_game_not_read_here_first_is_left_for_a_reader(
    alice, bob, django_capture_on_commit_callbacks
):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    with django_capture_on_commit_callbacks(execute=True):
        game = game_join(game_id=seek.pk, user=bob, trump="H")
    assert LIVE_GAMES.at(game.pk, 0) is None  # its players were never read here
    game = _play(game, (alice, bob), 1, django_capture_on_commit_callbacks)
    assert LIVE_GAMES.at(game.pk, 0) is None


def test_a_turn_whose_earlier_turns_are_unknown_leaves_them_to_be_read(
    alice, bob, django_capture_on_commit_callbacks
):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    read = _read(game.pk)
    read.version -= 1  # a snapshot behind the game: the turns between are not known
    LIVE_GAMES.read(read)
    game = _play(game, (alice, bob), 1, django_capture_on_commit_callbacks)
    assert LIVE_GAMES.at(game.pk, 0) is None  # left for a reader to read whole


def test_an_older_version_never_replaces_a_newer_one_and_a_newer_one_is_asked_for_in_vain(
    alice, bob
):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    game = game_join(game_id=seek.pk, user=bob, trump="H")
    newer, older = _read(game.pk), _read(game.pk)
    older.version -= 1
    live = LiveGames()
    live.read(newer)
    live.read(older)
    assert live.at(game.pk, newer.version).version == newer.version
    assert live.at(game.pk, newer.version + 1) is None


def test_a_new_player_leaves_the_game_for_a_reader(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    live = LiveGames()
    live.read(_read(seek.pk))
    joined = game_join(game_id=seek.pk, user=bob, trump="H")
    live.saved(Game.objects.get(pk=joined.pk))  # seat 1 taken since
    assert live.at(seek.pk, 0) is None


def test_only_the_latest_games_are_kept(alice, bob):
    live = LiveGames(size=2)
    games = []
    for _ in range(3):
        seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
        games.append(_read(game_join(game_id=seek.pk, user=bob, trump="H").pk))
        live.read(games[-1])
    assert live.at(games[0].pk, 0) is None
    assert live.at(games[1].pk, 0) is not None and live.at(games[2].pk, 0) is not None


def test_games_that_end_are_forgotten_so_only_the_games_in_play_are_kept(
    alice, bob, django_capture_on_commit_callbacks
):
    """However many games come and go, the games kept are those in play: a game over (resigned,
    won on the table, aborted, drawn) is dropped when its end is saved here, heard from
    elsewhere, or read."""
    capture = django_capture_on_commit_callbacks
    in_play = _kept_game(alice, bob, capture)
    other = LiveGames()  # another process, following each game from the messages
    ended = []
    for number in range(12):
        game = _kept_game(alice, bob, capture)
        other.read(_read(game.pk))
        # A resignation, or a draw offered and accepted: each change heard by the other process.
        ends = [game_resign] if number % 2 else [game_offer_draw] * 2
        for end, user in zip(ends, (alice, bob), strict=False):
            change = partial(end, game_id=game.pk, user=user)
            other.heard(game.pk, _heard(game, change, capture))
        assert _read(game.pk).status == Game.Status.FINISHED
        ended.append(game.pk)
    assert LIVE_GAMES.at(in_play.pk, in_play.version) is not None
    for kept in (LIVE_GAMES, other):
        assert [pk for pk in ended if kept.at(pk, 0) is not None] == []
    LIVE_GAMES.read(_read(ended[0]))  # a finished game read (its result table) is not kept
    assert LIVE_GAMES.at(ended[0], 0) is None


def test_what_is_kept_is_a_copy_its_reader_may_go_on_changing(alice, bob):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    game = _read(game_join(game_id=seek.pk, user=bob, trump="H").pk)
    live = LiveGames()
    live.read(game)
    game.version += 5
    game.status = Game.Status.ABORTED
    kept = live.at(game.pk, 0)
    assert kept is not None and kept.version == game.version - 5
    assert kept.status == Game.Status.ACTIVE and str(kept.seat1) == "bob"


def _kept_game(alice, bob, capture):
    """A game whose players and turns this process read, then two turns played here."""
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    with capture(execute=True):
        game = game_join(game_id=seek.pk, user=bob, trump="H")
    LIVE_GAMES.read(_read(game.pk))
    return _play(_read(game.pk), (alice, bob), 2, capture)


def test_a_turn_on_a_kept_game_reads_only_how_often_its_position_arose(
    alice, bob, django_capture_on_commit_callbacks, django_assert_num_queries
):
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    history = history_of(game)
    # The count of the new position's key in the log, the game's row (an UPDATE conditional on
    # its version) and the move's INSERT: the row itself is not read.
    with django_assert_num_queries(3) as captured:
        game_play_move(
            game_id=game.pk,
            user=(alice, bob)[history.position.to_move],
            notation=str(history.legal_moves()[0]),
            expected_ply=history.ply,
        )
    (read,) = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("SELECT")]
    assert "COUNT(" in read and '"game_move"' in read and '"game_game"' not in read
    assert history_of(_read(game.pk)).ply == history.ply + 1


@pytest.mark.django_db(transaction=True)
def test_a_turn_on_a_kept_game_is_checked_before_its_write_begins(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    """On SQLite beginning the write takes the lock every other writer waits for: the turn's
    checks and its new state are worked out before, and only its two statements hold it."""
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    history = history_of(game)
    checked, wrote = [], []
    check = stored_state

    def noted_check(game):
        checked.append(connection.in_atomic_block)
        return check(game)

    def noted_write(execute, sql, params, many, context):
        if not sql.startswith("BEGIN"):  # SQLite's, taking the write lock
            wrote.append((sql.split()[0], connection.in_atomic_block))
        return execute(sql, params, many, context)

    monkeypatch.setattr("game.services.play.stored_state", noted_check)
    with connection.execute_wrapper(noted_write):
        game_play_move(
            game_id=game.pk,
            user=(alice, bob)[history.position.to_move],
            notation=str(history.legal_moves()[0]),
            expected_ply=history.ply,
        )
    assert checked == [False]
    # The position's count, then the game's row and the move's.
    assert wrote == [("SELECT", False), ("UPDATE", True), ("INSERT", True)]
    assert history_of(_read(game.pk)).ply == history.ply + 1


def test_a_kept_game_behind_the_row_neither_refuses_a_good_turn_nor_lets_a_stale_one_land(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    behind = LIVE_GAMES.at(game.pk, game.version)
    # Another process plays a turn: this one keeps the game as it was before it.
    game = _play(game, (alice, bob), 1, django_capture_on_commit_callbacks)
    LIVE_GAMES.clear()
    LIVE_GAMES.read(behind)
    history = history_of(game)
    players = (alice, bob)
    stale = stored_state(behind)  # the turn it would allow is no longer the game's
    with pytest.raises(GameError, match="moved on"):
        game_play_move(
            game_id=game.pk,
            user=players[stale.position.to_move],
            notation=str(stale.position.legal_moves()[0]),
            expected_ply=stale.ply,
        )
    assert Move.objects.filter(game=game).count() == history.ply  # its write left no turn
    game_play_move(
        game_id=game.pk,
        user=players[history.position.to_move],
        notation=str(history.legal_moves()[0]),
        expected_ply=history.ply,
    )
    stored = _read(game.pk)
    assert stored.version == game.version + 1 and history_of(stored).ply == history.ply + 1
    assert check_state(stored)


def test_a_socket_arriving_at_a_kept_current_game_reads_its_version_alone(
    alice, bob, django_capture_on_commit_callbacks
):
    from django.test.utils import CaptureQueriesContext

    from game.consumers.table import _arrive

    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as captured:
        arrival = _arrive.func(game.pk, bob)
    games = [q["sql"] for q in captured.captured_queries if '"game_game"' in q["sql"]]
    assert len(games) == 1 and games[0].startswith('SELECT "game_game"."version"')
    # The whole table's move log, read once (a turn's update needs none).
    moves = [q for q in captured.captured_queries if '"game_move"' in q["sql"]]
    assert len(moves) == 1 and '"game_move"."notation"' in moves[0]["sql"]
    assert arrival.version == game.version and f'data-version="{game.version}"' in arrival.html


def test_a_socket_arriving_where_the_kept_game_is_behind_reads_the_row(
    alice, bob, django_capture_on_commit_callbacks
):
    from game.consumers.table import _arrive

    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    behind = LIVE_GAMES.at(game.pk, game.version)
    game = _play(game, (alice, bob), 1, django_capture_on_commit_callbacks)  # "elsewhere"
    LIVE_GAMES.clear()
    LIVE_GAMES.read(behind)
    arrival = _arrive.func(game.pk, alice)
    assert arrival.version == game.version and f'data-ply="{history_of(game).ply}"' in arrival.html
    assert LIVE_GAMES.at(game.pk, game.version) is not None  # and keeps what it read


def test_a_turn_played_here_is_checked_and_shown_from_the_state_it_stored_without_reading_it(
    alice, bob, django_capture_on_commit_callbacks, monkeypatch
):
    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    with django_capture_on_commit_callbacks(execute=True):
        game = game_join(game_id=seek.pk, user=bob, trump="H")
    LIVE_GAMES.read(_read(game.pk))
    players, capture = (alice, bob), django_capture_on_commit_callbacks
    history = history_of(_play(_read(game.pk), players, 1, capture))
    while all(m.is_take for m in history.legal_moves()):  # a deal where the lead can't be beaten
        history = history_of(_play(_read(game.pk), players, 1, capture))
    reads = []
    real = GameState.from_json
    monkeypatch.setattr(GameState, "from_json", lambda data: reads.append(data) or real(data))

    move = next(m for m in history.legal_moves() if not m.is_take)
    with django_capture_on_commit_callbacks(execute=True):
        progress = game_play_move(
            game_id=game.pk,
            user=(alice, bob)[history.position.to_move],
            notation=str(move),
            expected_ply=history.ply,
        )
    snapshot = LIVE_GAMES.at(game.pk, progress.game.version)
    assert snapshot is not None
    assert stored_state(snapshot) is progress.state
    assert reads == [], "the turn's check and the kept game read the state they had"
    # A game whose state is replaced (a fresh read) is read again, and then kept.
    fresh = _read(game.pk)
    assert stored_state(fresh) == progress.state and stored_state(fresh) is stored_state(fresh)
    assert len(reads) == 1


# --- Following a change another process made (``LiveGames.heard``) ---------------------------


def _heard(game, change, capture):
    """Run ``change`` (a service call) and return the message its commit told the game's group."""
    from game.live import game_group
    from tests.groups import told_to_group

    def committed():
        with capture(execute=True):
            change()

    return told_to_group(game_group(game.pk), committed)


def _columns(game):
    return {f.attname: getattr(game, f.attname) for f in Game._meta.concrete_fields}


def _turn(game, players):
    history = history_of(game)
    move = next((m for m in history.legal_moves() if not m.is_take), history.legal_moves()[0])
    return lambda: game_play_move(
        game_id=game.pk,
        user=players[history.position.to_move],
        notation=str(move),
        expected_ply=history.ply,
    )


def test_a_process_keeping_the_version_before_follows_a_turn_played_elsewhere_with_no_read(
    alice, bob, django_capture_on_commit_callbacks, django_assert_num_queries
):
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    other = LiveGames()  # another process, which read the game at this version
    other.read(_read(game.pk))
    for _ in range(4):
        message = _heard(game, _turn(game, (alice, bob)), django_capture_on_commit_callbacks)
        with django_assert_num_queries(0):
            other.heard(game.pk, message)
        game = _read(game.pk)
        followed = other.at(game.pk, game.version)
        assert followed is not None
        # The row as stored, column for column, its state as a fresh read has it.
        assert _columns(followed) == _columns(game)
        assert stored_state(followed) == stored_state(game)
        kept = tables_for(followed, [0, 1, None])
        fresh = tables_for(game, [0, 1, None])
        for table, read in zip(kept, fresh, strict=True):
            assert render_table(table) == render_table(read)


def test_a_change_without_a_turn_is_followed_too_and_the_end_forgets_the_game(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    other = LiveGames()
    other.read(_read(game.pk))
    offer = _heard(
        game,
        lambda: game_offer_draw(game_id=game.pk, user=alice),
        django_capture_on_commit_callbacks,
    )
    other.heard(game.pk, offer)
    game = _read(game.pk)
    followed = other.at(game.pk, game.version)
    assert followed is not None and _columns(followed) == _columns(game)
    assert followed.draw_offer == 0
    resign = _heard(
        game,
        lambda: game_resign(game_id=game.pk, user=bob),
        django_capture_on_commit_callbacks,
    )
    other.heard(game.pk, resign)
    assert other.at(game.pk, 0) is None  # over: not kept, here or where it was played
    assert LIVE_GAMES.at(game.pk, 0) is None


def test_a_change_that_cannot_be_followed_is_left_for_a_reader(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    behind = LiveGames()  # missed a version: it cannot know the turn between
    behind.read(_read(game.pk))
    first = _heard(game, _turn(game, (alice, bob)), django_capture_on_commit_callbacks)
    game = _read(game.pk)
    second = _heard(game, _turn(game, (alice, bob)), django_capture_on_commit_callbacks)
    behind.heard(game.pk, second)
    assert behind.at(game.pk, 0) is None
    behind.heard(game.pk, first)  # too late: nothing kept to follow from
    assert behind.at(game.pk, 0) is None

    seek = game_create_seek(user=alice, trump="S", options=GameOptions(deck=24))
    waiting = LiveGames()
    waiting.read(_read(seek.pk))
    # The deal is a new state with no turn: only a read gives it (and the new player).
    joined = _heard(
        seek,
        lambda: game_join(game_id=seek.pk, user=bob, trump="H"),
        django_capture_on_commit_callbacks,
    )
    waiting.heard(seek.pk, joined)
    assert waiting.at(seek.pk, 0) is None


def test_a_change_this_process_saved_is_heard_as_already_kept(
    alice, bob, django_capture_on_commit_callbacks
):
    game = _kept_game(alice, bob, django_capture_on_commit_callbacks)
    message = _heard(game, _turn(game, (alice, bob)), django_capture_on_commit_callbacks)
    kept = LIVE_GAMES.at(game.pk, message["version"])
    LIVE_GAMES.heard(game.pk, message)
    assert LIVE_GAMES.at(game.pk, message["version"]) is kept
