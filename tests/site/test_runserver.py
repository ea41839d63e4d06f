"""``manage.py runserver`` (``make run``): Daphne's server, listening with room for a crowd."""

from daphne.management.commands.runserver import Command as DaphneRunserver
from django.core.management import get_commands, load_command_class

from yourtrumps_site.serving.listen import BACKLOG, with_backlog
from yourtrumps_site.serving.management.commands.runserver import CrowdServer

LOOPBACK = "tcp:port=8000:interface=127.0.0.1"


def test_runserver_is_daphnes_asgi_server_with_the_crowd_backlog():
    command = load_command_class(get_commands()["runserver"], "runserver")
    assert isinstance(command, DaphneRunserver) and command.server_cls is CrowdServer


def test_tcp_endpoints_listen_with_the_backlog_and_others_are_left_alone():
    assert with_backlog(LOOPBACK) == f"{LOOPBACK}:backlog={BACKLOG}"
    assert with_backlog(f"{LOOPBACK}:backlog=5") == f"{LOOPBACK}:backlog=5"  # chosen: kept
    assert with_backlog("unix:/run/yourtrumps.sock") == "unix:/run/yourtrumps.sock"
    assert with_backlog("fd:fileno=3") == "fd:fileno=3"


def test_the_server_listens_on_its_endpoints_with_the_backlog():
    server = CrowdServer(application=None, endpoints=[LOOPBACK, "fd:fileno=3"])
    assert server.endpoints == [f"{LOOPBACK}:backlog={BACKLOG}", "fd:fileno=3"]
