"""Calls made at the same moment from threads of their own, for tests of races between
transactions."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from django.db import connections


def at_once(calls: Sequence[Callable[[], object]]) -> list[object]:
    """Run each of ``calls`` in a thread of its own, all released at the same moment; what each
    returned or raised, in the order they finished. Each thread closes its database connections."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = []

    def run(call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=30)
            results.append(call())
        except BaseException as error:
            results.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


def errors_of(results: list[object]) -> list[BaseException]:
    return [result for result in results if isinstance(result, BaseException)]
