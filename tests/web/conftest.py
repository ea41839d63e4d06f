"""The web tests' task worker, and a socket listening to a group."""

import asyncio

import pytest


@pytest.fixture
def run_tasks(monkeypatch):
    """Runs the background tasks that are due, here and now, as a task worker would (in the
    test's transaction, so without closing its connection between tasks)."""
    from game import workers

    monkeypatch.setattr(workers, "close_old_connections", lambda: None)

    def run() -> None:
        workers.Worker(
            queue_names=list(workers.QUEUES),
            interval=0,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id="test-worker",
            excluded_queue_names=[],
        ).run()

    return run


def told_to_group(group, change):
    """Run ``change`` (sync, in this thread, with its database) while a socket of this process
    listens to ``group``, and return the first message the group was told. The socket's channel
    is made, joined and read in one event loop: the Redis pub/sub layer keeps a process's
    channels per loop."""
    from asgiref.sync import async_to_sync, sync_to_async
    from channels.layers import get_channel_layer

    layer = get_channel_layer()

    async def listen():
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        try:
            await sync_to_async(change)()
            return await asyncio.wait_for(layer.receive(channel), 10)
        finally:
            await layer.group_discard(group, channel)

    return async_to_sync(listen)()
