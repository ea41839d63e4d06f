"""How the site's servers listen: with room for a crowd connecting at once, and, for ``manage.py
serve``, on one address shared by several processes.

Daphne listens through Twisted, whose TCP endpoints hold 50 connections waiting to be accepted.
When a crowd connects at once (the 1,000 sockets of 500 games), the kernel drops the rest, and
each dropped client tries again only after its SYN's retransmission timeout (1 s, then 3 s,
7 s, ...): the load test saw sockets take 15-18 s to open while the server sat half idle.
"""

from __future__ import annotations

import socket

#: Connections a port holds before they are accepted: Twisted's default of 50 drops a crowd that
#: connects at once (the 1,000 sockets of 500 games).
BACKLOG = 1024


def with_backlog(endpoint: str, backlog: int = BACKLOG) -> str:
    """A Twisted endpoint description, TCP ones listening with room for ``backlog``."""
    if endpoint.startswith("tcp:") and ":backlog=" not in endpoint:
        return f"{endpoint}:backlog={backlog}"
    return endpoint


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` that other sockets may share (``SO_REUSEPORT``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock
