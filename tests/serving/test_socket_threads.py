"""The sockets' threads (``yourtrumps_site.serving.socket_threads``): each piece of a socket's
database work starts as a request does, with the thread's log of queries (kept with ``DEBUG``)
forgotten, so that a long-lived thread's log does not grow with the turns it writes."""

import threading

import pytest
from django.db import connection
from django.test import override_settings

from yourtrumps_site.serving.socket_threads import in_play_thread, in_socket_thread


def _queries_logged_after_one() -> tuple[int, int]:
    """This thread's identity and how many queries its connection has logged, after one more."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return threading.get_ident(), len(connection.queries_log)


@pytest.mark.django_db(transaction=True)  # the threads use connections of their own
@pytest.mark.parametrize("in_thread", [in_socket_thread, in_play_thread])
async def test_a_thread_logs_only_the_queries_of_its_current_work(in_thread) -> None:
    work = in_thread(_queries_logged_after_one)
    with override_settings(DEBUG=True):
        seen = [await work() for _ in range(6)]
    threads = [thread for thread, _ in seen]
    assert any(threads.count(thread) > 1 for thread in threads)  # a thread was used again
    assert [logged for _, logged in seen] == [1] * 6
