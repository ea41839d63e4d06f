"""The site's own socket pieces (``yourtrumps_site.sockets``)."""

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from yourtrumps_site.sockets import ForgetQueries


# On Channels' database thread, whose connection an earlier socket test may have left open:
# ``database_sync_to_async`` checks it first (``close_old_connections``).
@pytest.mark.django_db
async def test_a_socket_forgets_the_debug_query_log_where_channels_reads_its_user():
    """Channels reads each new socket's session and user on one thread, where no request ever
    starts to forget ``DEBUG``'s log of them: each socket forgets it there first."""

    @database_sync_to_async
    def logged() -> int:  # as a crowd's handshakes logged them
        connection.queries_log.extend({"sql": "SELECT 1", "time": "0.000"} for _ in range(50))
        return len(connection.queries_log)

    @database_sync_to_async
    def still_logged() -> int:
        return len(connection.queries_log)

    reached = []

    async def site(scope, receive, send) -> None:
        reached.append(scope["type"])

    assert await logged() >= 50
    await ForgetQueries(site)({"type": "websocket"}, None, None)
    assert reached == ["websocket"]
    assert await still_logged() == 0
