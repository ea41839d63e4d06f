"""Malformed input over every endpoint, form and socket message: never a 500, never a crashed
consumer, and no stored change from an input that was refused (``tools.fuzz``).

Seeded: a failure names its input's number, and the same seed sends the same inputs again.
``manage.py fuzz`` runs the same generator at ten thousand inputs and more.
"""

import pytest
from channels.db import database_sync_to_async

from tools import fuzz
from tools.fuzz_world import make_world

SEED = 19
HTTP_INPUTS = 2000
SOCKET_INPUTS = 200


@pytest.fixture(autouse=True)
def quick_background_work(settings):
    """The computer and the analyses answer at once: the inputs, not their thinking, are tested."""
    settings.COMPUTER_PAUSE = 0
    settings.ANALYSIS_SECONDS = 0.01


@pytest.mark.django_db
def test_no_request_gets_a_500_or_changes_state_when_refused():
    world = make_world()
    tally = fuzz.Tally()
    fuzz.run_http(fuzz.Inputs(SEED, world), HTTP_INPUTS, tally)
    assert not tally.failures, "\n".join(tally.failures)
    assert sum(tally.statuses.values()) == HTTP_INPUTS
    # The inputs reach the views: pages served, inputs refused, unknown ids not found.
    assert {"200", "302", "400", "404"} <= set(tally.statuses)


@pytest.mark.django_db(transaction=True)
async def test_no_socket_message_crashes_a_consumer_or_changes_state_when_refused():
    world = await database_sync_to_async(make_world)()
    tally = fuzz.Tally()
    await fuzz.run_sockets(fuzz.Inputs(SEED, world), SOCKET_INPUTS, tally)
    assert not tally.failures, "\n".join(tally.failures)
    assert tally.statuses["accepted"] > SOCKET_INPUTS // 2 and tally.statuses["crashed"] == 0
    assert tally.statuses["refused 4404"] > 0  # unknown paths and games, closed with a code
