"""The site's websockets, routed in :mod:`game.routing`: the table's socket
(:mod:`~game.consumers.table`), the lobby's seeks and quick pairing (:mod:`~game.consumers.lobby`),
a logged-in user's own socket (:mod:`~game.consumers.user`), and what they share
(:mod:`~game.consumers.sockets`). Consumers hold no game logic: they parse, authorise, and hand
the work to a service or a read; a banned user's sockets are refused, and close when the ban is
given.
"""
