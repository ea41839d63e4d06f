"""The server's process is set up for a crowd's long-lived objects (``yourtrumps_site.asgi``)."""

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import yourtrumps_site.asgi  # noqa: F401  (the set-up happens on import)


def test_the_collector_leaves_start_up_objects_alone_and_young_ones_longer():
    from yourtrumps_site.serving.collector import THRESHOLDS

    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == THRESHOLDS


def test_a_cycle_that_lived_long_is_freed_by_the_collector_on_its_own():
    """A closed socket's objects hold each other in cycles and lived as long as their game: only
    a full collection frees them, and one comes as a crowd's work goes on, unasked."""

    class Part:
        other: object = None

    first, second = Part(), Part()
    first.other, second.other = second, first
    gone = weakref.ref(first)
    gc.collect()  # it survives a full collection: old, as a game's socket is when it closes
    del first, second
    kept = []
    for _ in range(200):  # the crowd's objects, made and kept
        kept.append([[] for _ in range(10_000)])
        if gone() is None:
            break
    assert gone() is None


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


@pytest.mark.parametrize(
    ("redis_url", "watched"), [("", False), ("redis://127.0.0.1:6399/0", True)]
)
def test_the_sockets_are_watched_on_redis_only(redis_url: str, watched: bool) -> None:
    """On Redis a socket that would hear nothing is closed for its page to reconnect; the
    in-memory layer of one process loses nothing (``serving.layer_watch``)."""
    made = subprocess.run(
        [
            sys.executable,
            "-c",
            "import yourtrumps_site.asgi as asgi\n"
            "from yourtrumps_site.serving.layer_watch import LayerWatch\n"
            "print(isinstance(asgi.sockets, LayerWatch))",
        ],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        check=True,
    )
    assert made.stdout.strip() == str(watched)
