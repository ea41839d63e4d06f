"""What the site owns of its server: request and socket threads, the channel layer, the SQLite
backend, and the code of frameworks patched where a measured figure asked for it (README.md).

:data:`WRITTEN_AGAINST` names the release of each package whose code (private names included)
the modules here copy, override or patch: ``tests/serving/test_versions.py`` fails when the
installed release is another, so that an upgrade is read against them before it ships.
"""

#: Package (as installed) -> the release the code here was written against.
WRITTEN_AGAINST = {
    "django": "5.2.19",  # handler.py
    "asgiref": "3.13.0",  # handler.py: ThreadSensitiveContext(executor=)
    "channels": "4.3.2",  # socket_threads.py, channel_layer.py (the in-memory layer)
}
