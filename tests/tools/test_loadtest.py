"""The load test (``manage.py loadtest``): its figures and parsing, and a short run against a live
Daphne that asserts correctness only (never timing): no errors of any kind, no lost relay, every
socket's last table at the stored game's version, and the stored games sound."""

import gc
import io
import ipaddress
import json
import multiprocessing
import os
import subprocess
import sys

import pytest
from channels.testing import ChannelsLiveServerTestCase

from tests.served import database_url, served
from tools import loadtest, pairing
from tools.loadtest.config import (
    MAX_GAMES,
    MAX_SECONDS,
    Config,
    LoadTestError,
    check_loopback,
    parse_think,
)
from tools.loadtest.database import database_checks
from tools.loadtest.figures import (
    OUTSIDE,
    POST_PARTS,
    Latency,
    Seated,
    Slice,
    SliceEnd,
    Stats,
    percentile,
    server_timing,
)
from tools.loadtest.host import HostCpu, resident_kb
from tools.loadtest.player import Player
from tools.loadtest.report import Report
from tools.loadtest.runner import without_cycle_collection
from tools.loadtest.set_up import sign_up_address
from tools.loadtest.table import read_table

TABLE = (
    '<div id="table" hx-swap-oob="outerHTML" class="table-view" data-ply="7" data-version="9" '
    'data-status="active">\n'
    '<form hx-post="/games/3/move/"><input type="hidden" name="csrfmiddlewaretoken" value="x">'
    '<input type="hidden" name="ply" value="7"><input type="hidden" name="move" value="take">'
    "</form>\n"
    '<button type="button" data-beater="QS" aria-controls="seconds-QS">Q</button>\n'
    '<div class="second-cards" id="seconds-QS" hidden><form class="seconds" data-turn>'
    '<input type="hidden" name="ply" value="7"><button name="move" value="QS-6D">6</button>'
    '<button name="move" value="QS-7D">7</button></form></div></div>'
)


def test_percentile_interpolates_between_neighbours() -> None:
    assert percentile([3.0, 1.0, 2.0, 4.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 0) == 1.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 100) == 4.0
    assert percentile(list(map(float, range(101))), 99) == pytest.approx(99.0)
    assert percentile([7.0], 95) == 7.0


def test_latency_is_reported_in_milliseconds_and_empty_is_nan() -> None:
    figures = Latency.of([0.010, 0.020, 0.030])
    assert (figures.count, figures.p50, figures.max) == (3, pytest.approx(20.0), 30.0)
    empty = Latency.of([])
    assert empty.count == 0 and empty.p99 != empty.p99  # NaN


def test_the_table_tag_gives_ply_version_status_and_the_turns_offered() -> None:
    table = read_table(TABLE, received=1.5)
    assert table is not None
    assert (table.ply, table.version, table.status, table.received) == (7, 9, "active", 1.5)
    assert table.moves() == ["take", "QS-6D", "QS-7D"]  # a beat's second cards are in the table
    assert table.error() is None
    assert read_table('<div id="chat">a line</div>', 0.0) is None


def test_a_refused_move_is_read_from_its_notice() -> None:
    html = (
        '<div id="table" data-ply="2" data-version="3" data-status="active">'
        '<div class="notice notice--error" role="alert">It&#x27;s not your turn.</div></div>'
    )
    table = read_table(html, 0.0)
    assert table is not None and table.error() == "It's not your turn."


@pytest.mark.parametrize("url", ["http://example.org", "http://10.0.0.5:8000", "ftp://localhost"])
def test_only_loopback_servers_are_load_tested(url: str) -> None:
    with pytest.raises(LoadTestError):
        check_loopback(url)
    for good in ("http://127.0.0.1:8000/", "http://localhost:8000", "http://[::1]:8000"):
        assert check_loopback(good) == good.rstrip("/")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="all of 127/8 is Linux's")
def test_each_player_signs_up_from_a_loopback_address_of_its_own() -> None:
    """The site counts sign-ups per address (LIMIT_SIGNUPS): a run's players come from as many
    addresses, in 127/8 but past 127.0.x.y, and another run takes another block of them."""
    url = "http://127.0.0.1:8000"
    first = [sign_up_address(url, "a1b2c3", n) for n in range(2 * MAX_GAMES)]
    assert len(set(first)) == len(first)
    loopback, named = ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("127.0.0.0/16")
    assert all(a in loopback and a not in named for a in map(ipaddress.ip_address, first))
    other = {sign_up_address(url, "00fe01", n) for n in range(2 * MAX_GAMES)}
    assert other.isdisjoint(first)
    assert sign_up_address("http://[::1]:8000", "a1b2c3", 0) is None  # no such block


def test_think_ranges_and_bounds() -> None:
    assert parse_think("0.5-1") == (0.5, 1.0)
    assert parse_think("2") == (2.0, 2.0)
    for bad in ("1-0.5", "fast", "-1"):
        with pytest.raises(LoadTestError):
            parse_think(bad)
    with pytest.raises(LoadTestError):
        Config(urls=["http://127.0.0.1:8000"], games=MAX_GAMES + 1).check()
    with pytest.raises(LoadTestError):
        Config(urls=["http://127.0.0.1:8000"], seconds=MAX_SECONDS + 1).check()


def test_a_start_ply_needs_the_servers_database_and_seats_everyone_first() -> None:
    url = "http://127.0.0.1:8000"
    with pytest.raises(LoadTestError, match="needs --players db"):
        Config(urls=[url], players_via="http", start_ply=20).check()
    with pytest.raises(LoadTestError, match="--start-ply must be between"):
        Config(urls=[url], players_via="db", start_ply=-1).check()
    config = Config(urls=[url], players_via="db", start_ply=20)
    config.check()
    assert config.seat_first


def test_the_report_prints_every_figure() -> None:
    lat = Latency.of([0.01, 0.02])
    report = Report(
        url="http://127.0.0.1:8000",
        games=2,
        think=(0.5, 1.0),
        players_via="db",
        via="post",
        seconds=10.0,
        moves=40,
        moves_per_second=4.0,
        turn=lat,
        relay=lat,
        socket_connect=lat,
        sockets_opened=4,
        own_sockets_opened=4,
        sockets_open_seconds=0.2,
        games_started=2,
        games_finished=1,
        errors={"HTTP 500: POST move": 3, "lost relay": 1},
        client_cpu_seconds=1.0,
        server_cpu_seconds={"123": 5.0},
        load_average_start=(0.5, 0.4, 0.3),
        load_average_end=(1.5, 0.9, 0.4),
        set_up_seconds=1.0,
        client_lag=Latency.of([0.001, 0.003]),
        speed_probe_seconds=(0.061, 0.094),
        host_cpu=HostCpu(cores=2, busy=0.82, steal=0.001),
        post_parts={"queue": lat, "view": lat, "outside": lat},
        all_seated=Seated(seconds=8.0, moves=36, turn=lat, relay=lat),
    )
    text = report.format()
    for expected in (
        "4.0 moves/s",
        "turn (post)",
        "relay",
        "3  HTTP 500: POST move",
        "of each POST, in the server's handler (its Server-Timing) and outside it:",
        "    outside" + " " * 14 + "2" + " " * 6 + "15.0",  # its count, then p50 in ms
        "pid 123",
        "once all 4 sockets were open, the last 8.0 s: 36 moves, 4.5 moves/s",
        "4 opened in all; and the players' own sockets (/ws/me/), 4 opened",
        "client's lag" + " " * 11 + "2" + " " * 7 + "2.0",  # its count, then p50 in ms
        "the speed probe took 0.061 s of CPU before the play, 0.094 s after; "
        "its 2 cores 82% busy over the play, 0.1% stolen",
    ):
        assert expected in text
    assert report.error_count == 4
    assert '"error_count": 4' in report.to_json()


def test_a_slice_counts_the_turns_sent_in_it_their_relays_the_games_ended_and_errors() -> None:
    now = [100.0]
    stats = Stats(clock=lambda: now[0], play_start=100.0)
    for sent, relay in ((100.5, 0.010), (101.9, 0.030), (102.0, 0.020), (103.5, 0.040)):
        stats.turn_sent.append(sent)
        stats.turn.append(relay)
        stats.relay_sent.append(sent)
        stats.relay.append(relay)
    for at in (101.0, 102.5, 102.6):
        now[0] = at
        stats.error("lost relay")
    stats.finished_at += [103.0]
    first = stats.slice_of(100.0, SliceEnd(102.0, {7: 2048}, 150))
    second = stats.slice_of(102.0, SliceEnd(104.0, {7: None}, 90))
    assert (first.start, first.end, first.moves, first.errors) == (0.0, 2.0, 2, 1)
    assert first.relay.count == 2 and first.relay.max == pytest.approx(30.0)
    assert (second.moves, second.errors, second.relay.p50) == (2, 2, pytest.approx(30.0))
    assert (first.games_ended, second.games_ended) == (0, 1)
    assert first.resident_kb == {"7": 2048} and second.resident_kb == {"7": None}
    assert first.format().split() == [
        *("0-2", "s", "2", "20.0", "29.0", "29.8"),  # seconds, moves, relay p50 / p95 / p99
        *("0", "1", "150", "2.0"),  # games ended, errors, plies in play, MB
    ]
    assert second.format().endswith("gone")


def test_resident_memory_is_read_from_proc_and_a_process_gone_has_none() -> None:
    assert resident_kb(os.getpid()) > 1024  # this Python holds more than a megabyte
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert resident_kb(gone.pid) is None


def test_the_report_gives_each_slice_and_the_memory_once_seated_and_at_the_end() -> None:
    lat = Latency.of([0.002, 0.004])
    report = Report(
        url="http://127.0.0.1:8000",
        games=2,
        think=(2.0, 5.0),
        players_via="db",
        via="socket",
        seconds=600.0,
        moves=40,
        moves_per_second=4.0,
        turn=lat,
        relay=lat,
        socket_connect=lat,
        sockets_opened=4,
        own_sockets_opened=0,
        sockets_open_seconds=0.2,
        games_started=5,
        games_finished=3,
        errors={},
        client_cpu_seconds=1.0,
        server_cpu_seconds={"123": 5.0},
        load_average_start=(0.5, 0.4, 0.3),
        load_average_end=(1.5, 0.9, 0.4),
        set_up_seconds=1.0,
        slice_seconds=300,
        slices=[
            Slice(0, 300, 25, lat, 0, 0, 900, {"123": 204800}),
            Slice(300, 600, 15, lat, 3, 1, 640, {"123": 215040}),
        ],
        resident_kb_seated={"123": 102400},
        resident_kb_end={"123": 215040},
    )
    text = report.format()
    for expected in (
        "each 300 s of the play: the games ended in it; at its end, the plies of the games in play"
        " and the resident memory (MB):",
        "pid 123",
        "resident memory (MB) once all seated, at the end: pid 123 100.0 → 210.0",
    ):
        assert expected in text
    rows = [line.split() for line in text.splitlines() if line.startswith("    ")]
    assert rows[-2:] == [
        ["0-300", "s", "25", "3.0", "3.9", "4.0", "0", "0", "900", "200.0"],
        ["300-600", "s", "15", "3.0", "3.9", "4.0", "3", "1", "640", "210.0"],
    ]
    assert [piece["moves"] for piece in json.loads(report.to_json())["slices"]] == [25, 15]


def test_a_server_timing_header_gives_each_duration_in_seconds() -> None:
    header = "queue;dur=0.1, thread;dur=2.5, view;desc=the view;dur=12, publish"
    assert server_timing(header) == {"queue": 0.0001, "thread": 0.0025, "view": 0.012}
    assert server_timing("view;dur=soon") == {}


def test_the_host_cpu_is_shared_out_between_two_readings() -> None:
    # user, nice, system, idle, iowait, irq, softirq, steal (clock ticks since boot)
    start = [100, 0, 20, 500, 5, 0, 5, 0]
    end = [160, 0, 40, 510, 5, 0, 5, 10]  # 100 ticks: 90 busy, of them 10 stolen
    host = HostCpu.between(start, end)
    assert host is not None and host.busy == pytest.approx(0.9) and host.steal == pytest.approx(0.1)
    assert HostCpu.between(start, None) is None  # no /proc/stat: no figure


def test_a_pairing_waits_from_the_later_arrival_and_a_game_told_to_three_is_a_problem() -> None:
    players = [Player(None, f"p{n}", None, "") for n in range(5)]  # type: ignore[arg-type]
    arrivals = [
        pairing.Arrival(players[0], arrived=1.0, told=3.5, game_id=7),
        pairing.Arrival(players[1], arrived=3.0, told=3.25, game_id=7),
        pairing.Arrival(players[2], arrived=4.0, told=4.5, game_id=8),
        pairing.Arrival(players[3], arrived=4.0, told=4.5, game_id=8),
        pairing.Arrival(players[4], arrived=4.0, told=4.5, game_id=8),
    ]
    samples, pairs, problems = pairing.waits(arrivals)
    assert samples == [0.5, 0.25]  # from the second arrival, at 3.0
    assert pairs == {7: ["p0", "p1"], 8: ["p2", "p3", "p4"]}
    assert problems == ["game 8 was told to 3 players"]


def test_the_client_plays_without_its_cycle_collector_and_gets_it_back_after() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), without_cycle_collection():
        assert not gc.isenabled()
        raise RuntimeError("a run that fails still gives the collector back")
    assert gc.isenabled()
    gc.disable()
    try:
        with without_cycle_collection():
            pass
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


class LoadTestAgainstALiveServer(ChannelsLiveServerTestCase):
    """20 games for 10 s against Daphne in a spawned process, on the file test database."""

    serve_static = False

    @classmethod
    def setUpClass(cls) -> None:
        # Spawned, the server starts clean (as the browser tests' server does); restored after.
        cls._start_method = multiprocessing.get_start_method(allow_none=True)
        multiprocessing.set_start_method("spawn", force=True)
        # The POSTs' answers say where their time went, whatever DEBUG the run has.
        cls._server_timing = os.environ.get("SERVER_TIMING")
        os.environ["SERVER_TIMING"] = "true"
        super().setUpClass()

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        multiprocessing.set_start_method(cls._start_method, force=True)
        if cls._server_timing is None:
            del os.environ["SERVER_TIMING"]
        else:
            os.environ["SERVER_TIMING"] = cls._server_timing

    def test_twenty_games_play_without_a_single_error(self) -> None:
        self._play(games=20, seconds=10, seat_first=False)

    def test_games_made_first_then_seated_together_play_without_an_error(self) -> None:
        self._play(games=6, seconds=5, seat_first=True)

    def test_players_signed_up_over_http_play_without_an_error(self) -> None:
        """More players than one address may sign up (LIMIT_SIGNUPS, 10/h by default), each
        signing up over HTTP from an address of its own."""
        self._play(games=6, seconds=4, seat_first=False, players_via="http")

    def test_players_who_keep_their_own_sockets_open_play_without_an_error(self) -> None:
        report = self._play(games=4, seconds=4, seat_first=True, own_sockets=True)
        assert report.own_sockets_opened == 8  # every player's, beside its game's
        assert report.moves > 0

    def test_turns_posted_play_without_an_error_and_say_where_their_time_went(self) -> None:
        report = self._play(games=6, seconds=5, seat_first=False, via="post")
        # Every POST's answer said how long each part of the server's handler took.
        assert list(report.post_parts) == [*POST_PARTS, OUTSIDE]
        assert all(part.count == report.moves for part in report.post_parts.values())

    def test_a_run_cut_into_slices_says_each_with_the_servers_memory_as_games_come_and_go(
        self,
    ) -> None:
        pid = str(self._server_process.pid)
        # Games resign at drawn limits, so that some end in every run however fast it plays.
        report = self._play(
            games=4,
            seconds=9,
            seat_first=True,
            think=(0.01, 0.05),
            slice_seconds=3,
            resign_after=20,
        )
        slices = report.slices
        assert [round(piece.end) for piece in slices] == [3, 6, 9]
        assert [piece.start for piece in slices[1:]] == [piece.end for piece in slices[:-1]]
        assert sum(piece.moves for piece in slices) == report.moves
        assert sum(piece.relay.count for piece in slices) == report.relay.count
        assert sum(piece.errors for piece in slices) == 0
        assert sum(piece.games_ended for piece in slices) == report.games_finished
        assert all(piece.plies_in_play > 0 for piece in slices)
        assert all(piece.resident_kb[pid] > 1024 for piece in slices)
        assert report.resident_kb_seated[pid] > 1024 and report.resident_kb_end[pid] > 1024
        assert report.games_finished > 0 and report.games_started > report.games  # rematches
        progress = self.progress.getvalue()
        assert "all 8 sockets open; resident memory (MB): pid " + pid in progress
        assert "slice 1, 0-3 s: " in progress and "slice 2, 3-6 s: " in progress

    def test_games_resigned_at_their_drawn_limits_are_followed_by_rematches(self) -> None:
        report = self._play(games=3, seconds=6, seat_first=True, think=(0.01, 0.05), resign_after=6)
        assert report.games_resigned > 0
        assert report.games_finished >= report.games_resigned
        assert report.games_started > report.games  # each resignation was followed by a game
        assert f"({report.games_resigned} resigned at the limit)" in report.format()

    def test_games_played_to_a_start_ply_first_go_on_from_there_without_an_error(self) -> None:
        """``--start-ply``: each game is made and played to ply 20 through the services in this
        process before its sockets open; the players' turns then go on from there."""
        from game.models import Game

        report = self._play(games=2, seconds=4, seat_first=False, deck=36, start_ply=20)
        assert report.seat_first and report.start_ply == 20 and report.start_ply_short == 0
        first_games = Game.objects.filter(pk__in=sorted(report.game_ids)[: report.games])
        assert all(game.moves.count() >= 20 for game in first_games)
        assert report.format().startswith(
            f"Load test against {self.live_server_url}: 2 games, think 0.05-0.3 s, players via db,"
            " from ply 20\n"
        )
        assert "played to ply 20 in 2 of 2 games" in self.progress.getvalue()

    def test_a_crowd_entering_the_pool_is_all_paired_without_an_error(self) -> None:
        out = io.StringIO()
        config = Config(
            urls=[self.live_server_url],
            games=8,
            ramp=2,
            players_via="db",
            mode="pairing",
            pool_clock="1+1",
            http_timeout=60,
            pids=[self._server_process.pid],
            seed=18,
            out=out,
        )
        report = pairing.run(config)
        summary = out.getvalue() + report.format()
        print(summary)
        assert report.errors == {} and report.problems == [], summary
        assert (report.players, report.paired, report.games) == (16, 16, 8), summary
        assert report.wait.count == 16, summary
        assert all(len(names) == 2 for names in report.pairs.values()), summary
        assert "16 paired into 8 games" in summary

    def _play(
        self,
        *,
        games: int,
        seconds: float,
        seat_first: bool,
        via: str = "socket",
        # By default through the ORM: the test database is the server's, and no password is
        # hashed per player.
        players_via: str = "db",
        think: tuple[float, float] = (0.05, 0.3),
        slice_seconds: float = 0,
        resign_after: int = 0,
        own_sockets: bool = False,
        deck: int = 24,
        start_ply: int = 0,
    ) -> Report:
        out = self.progress = io.StringIO()
        config = Config(
            urls=[self.live_server_url],
            games=games,
            think=think,
            slice_seconds=slice_seconds,
            resign_after=resign_after,
            own_sockets=own_sockets,
            seconds=seconds,
            ramp=2,
            seat_first=seat_first,
            via=via,
            deck=deck,
            start_ply=start_ply,
            players_via=players_via,
            # Generous: a busy 2-core machine may be slow, and this test asserts no timing.
            relay_timeout=30,
            http_timeout=60,
            progress_every=5,
            pids=[self._server_process.pid],
            seed=18,
            final_checks=[database_checks],
            out=out,
        )
        report = loadtest.run(config)
        summary = out.getvalue() + report.format()
        print(summary)  # shown with -s, and on failure
        assert report.errors == {}, summary
        assert report.problems == [], summary
        assert report.moves > 0, summary
        assert report.sockets_opened >= 2 * config.games, summary
        assert report.relay.count == report.moves, summary  # every move seen by the opponent
        seated = report.all_seated  # the turns once every socket was open are counted apart
        assert seated is not None and 0 < seated.moves <= report.moves, summary
        # The client's own lag was sampled all through the play (10 ms sleeps), seated or not.
        assert 0 < seated.client_lag.count < report.client_lag.count, summary
        assert all(seconds > 0 for seconds in report.speed_probe_seconds), summary
        return report


needs_postgres_and_redis = pytest.mark.skipif(
    not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")),
    reason="DATABASE_URL and REDIS_URL are not set: make serve's processes need both",
)


@needs_postgres_and_redis
@pytest.mark.django_db(transaction=True)  # the served processes read what the test commits
def test_games_whose_players_sit_on_different_served_processes_play_without_an_error() -> None:
    """``make serve``'s set-up: each game's two players on different Daphne processes, so every
    turn reaches the other player's process through Redis and is followed there from the
    message (``LiveGames.heard``). Every relay is seen, every socket ends at the stored version
    and every stored game replays to its kept state."""
    from django.db import connection

    with served(
        database_url=database_url(connection.settings_dict), redis_url=os.environ["REDIS_URL"]
    ) as site:
        out = io.StringIO()
        report = loadtest.run(
            Config(
                urls=site.own_urls,
                games=6,
                think=(0.05, 0.3),
                seconds=6,
                ramp=1,
                deck=24,
                players_via="db",
                relay_timeout=30,
                http_timeout=60,
                progress_every=5,
                seed=22,
                final_checks=[database_checks],
                out=out,
            )
        )
        summary = out.getvalue() + report.format() + site.log()[-3000:]
    assert report.errors == {}, summary
    assert report.problems == [], summary
    assert report.moves > 0 and report.relay.count == report.moves, summary


@needs_postgres_and_redis
@pytest.mark.django_db(transaction=True)  # the served processes read what the test commits
def test_a_crowd_entering_the_pool_of_two_served_processes_is_all_paired_without_an_error() -> None:
    """``make serve``'s set-up: the players alternate between two Daphne processes, so about half
    the pairs meet across them, through the pool's rows and Redis."""
    from django.db import connection

    with served(
        database_url=database_url(connection.settings_dict), redis_url=os.environ["REDIS_URL"]
    ) as site:
        out = io.StringIO()
        report = pairing.run(
            Config(
                urls=site.own_urls,
                games=10,
                ramp=2,
                players_via="db",
                mode="pairing",
                http_timeout=60,
                seed=22,
                out=out,
            )
        )
        summary = out.getvalue() + report.format() + site.log()[-3000:]
    assert report.errors == {} and report.problems == [], summary
    assert (report.paired, report.games) == (20, 10), summary
