"""What the site owns of its server: request threads, the in-memory channel layer's sweep, the
watches that heal sockets and connections after a Redis or PostgreSQL restart, the task workers
with their recovery and the child processes of their searches, and the code of frameworks
overridden where a measured figure asked for it (README.md).

:data:`WRITTEN_AGAINST` names the release of each package whose code (private names and
undocumented behaviour included) the modules here copy, override, patch or lean on:
``tests/serving/test_versions.py`` fails when the installed release is another, so that an
upgrade is read against them before it ships.
"""

#: Package (as installed) -> the release the code here was written against.
WRITTEN_AGAINST = {
    # handler.py; management/commands/db_worker.py: the autoreloader's DJANGO_AUTORELOAD_ENV
    "django": "5.2.19",
    "asgiref": "3.13.0",  # handler.py: ThreadSensitiveContext(executor=)
    "channels": "4.3.2",  # channel_layer.py (the in-memory layer)
    # layer_watch.py: the pub/sub layer forgets its subscriptions when Redis restarts
    "channels-redis": "4.3.0",
    # pool_watch.py: the pool hands out dead connections after a restart, 1 s then 2 s apart
    "psycopg-pool": "3.3.3",
    # workers.py: the `Worker` of its db_worker command, built with that command's keywords;
    # recovery.py: its `DBTaskResult` rows, read and marked failed past the backend; the
    # db_worker command extends its command's options and `handle`
    "django-tasks-db": "0.13.0",
    # recovery.py: a row marked failed by hand is read back as django-tasks reads a failure
    # (`TaskResultStatus`, the exception class imported from `exception_class_path`)
    "django-tasks": "0.12.0",
    # management/commands/runserver.py: Daphne's command's `server_cls` and `inner_run`, and
    # `daphne.server.Server`'s `endpoints`, none of them documented
    "daphne": "4.2.3",
}
