"""``manage.py bench_layer``: both layers carry the whole burst, and it refuses to time nothing."""

import os
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="REDIS_URL is not set: the site uses the in-memory channel layer",
)
def test_it_times_the_burst_through_both_layers() -> None:
    out = StringIO()
    call_command("bench_layer", messages=50, rounds=1, stdout=out)
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "round 1, channels-redis layer",
        "round 1, the site's layer",
    ]
    assert all("50 messages sent in" in line and "all received in" in line for line in lines)


@override_settings(
    CHANNEL_LAYERS={
        "default": {"BACKEND": "yourtrumps_site.serving.channel_layer.EmbeddedChannelLayer"}
    }
)
def test_without_redis_it_says_what_to_set() -> None:
    with pytest.raises(CommandError, match="REDIS_URL"):
        call_command("bench_layer")
