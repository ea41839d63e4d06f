"""The server's process is set up for a crowd's long-lived objects (``yourtrumps_site.asgi``)."""

import gc

import yourtrumps_site.asgi  # noqa: F401  (the set-up happens on import)


def test_the_collector_leaves_start_up_objects_alone_and_young_ones_to_reference_counting():
    assert gc.get_freeze_count() > 0
    young, middle, old = gc.get_threshold()
    assert young >= 50_000 and middle >= 20 and old >= 100
