"""The server's process is set up for a crowd's long-lived objects (``yourtrumps_site.asgi``)."""

import gc
import pprint
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import autobahn.websocket.protocol
from daphne.http_protocol import WebRequest
from twisted.web.test.requesthelper import DummyChannel

import yourtrumps_site.asgi  # noqa: F401  (the set-up happens on import)


def test_the_collector_leaves_start_up_objects_alone_and_young_ones_to_reference_counting():
    assert gc.get_freeze_count() > 0
    young, middle, old = gc.get_threshold()
    assert young >= 50_000 and middle >= 20 and old >= 100


def test_the_channel_layer_is_made_at_start_up_not_by_the_first_request():
    # In a fresh process: this one's layer may have been made by earlier tests.
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "import yourtrumps_site.asgi\n"
            "from channels.layers import DEFAULT_CHANNEL_LAYER, channel_layers\n"
            "print(DEFAULT_CHANNEL_LAYER in channel_layers.backends)",
        ],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
    )
    assert made.stdout.strip() == "True"


def test_autobahns_settings_dump_is_made_only_when_its_line_is_written():
    settings = [
        ("autoPingInterval", 0, "WebSocketServerFactory"),
        ("utf8validateIncoming", True, ""),
    ]
    dump = autobahn.websocket.protocol.pformat(settings)
    assert not isinstance(dump, str)  # nothing formatted yet
    assert f"\n{dump}" == "\n" + pprint.pformat(settings)  # as a log line


def test_autobahns_timings_still_read_as_text():
    timings = autobahn.websocket.protocol.Timings()
    timings.track("onOpen")
    text = str(timings)
    assert isinstance(text, str) and "onOpen" in text


def test_daphne_leaves_a_posted_form_to_django_to_parse():
    channel = DummyChannel()
    connected = []
    channel.factory = SimpleNamespace(server=SimpleNamespace(protocol_connected=connected.append))
    request = WebRequest(channel)
    assert connected == [request]  # Daphne's own set-up still ran
    assert request._parsePOSTFormSubmission is False  # Twisted will not parse the body


def test_sockets_that_open_together_are_first_pinged_apart():
    # Daphne pings a quiet socket once ``ping_interval`` has passed since it last heard of it,
    # looking every 2 s: a crowd opening together would be pinged together every interval.
    from daphne.ws_protocol import WebSocketProtocol

    server = SimpleNamespace(ping_interval=20, log_action=lambda *args: None)
    opened = time.time()
    last_pings = []
    for _ in range(200):
        socket = SimpleNamespace(
            server=server, request=SimpleNamespace(path="/ws/games/1/"), client_addr=None
        )
        socket.last_ping = opened  # as Daphne's onConnect sets it
        WebSocketProtocol.onOpen(socket)
        last_pings.append(socket.last_ping)
    assert all(opened - 20 <= ping <= time.time() for ping in last_pings)
    sweeps = {int((ping - (opened - 20)) // 2) for ping in last_pings}  # first pinged in which
    assert len(sweeps) >= 8  # of the interval's ten sweeps
