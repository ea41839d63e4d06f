"""A socket listening to a group, for the tests of what a change tells the sockets."""

import asyncio


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
