"""The computer's reply to a person, as run by a task worker (:func:`game.tasks.computer_reply`).

The search runs where the server says (:mod:`game.cpu`): in a worker process's own
process, or in a child of the web server whose embedded worker thread asked.
"""

from __future__ import annotations

import logging
from functools import partial

from game import ai, cpu
from game.models import Game
from game.selectors import stored_state
from game.services import GameError
from game.services.play import game_play_computer_move

log = logging.getLogger(__name__)


def reply(game_id: int, ply: int) -> None:
    """Play the computer's turn ``ply`` in ``game_id``, if the game still waits for it.

    A request for a ply the game has left (a duplicate, or one a recovery asked
    for again) is dropped before the search; one the game leaves during the
    search is refused by the services.
    """
    try:
        game = Game.objects.only("state", "status").get(pk=game_id)
        if game.status != Game.Status.ACTIVE or stored_state(game).ply != ply:
            log.info("computer reply for game %s ply %s: no longer wanted", game_id, ply)
            return
        search = partial(cpu.run, "computer", ai.choose_move)
        game_play_computer_move(game_id=game_id, choose=search)
    except (GameError, Game.DoesNotExist) as error:
        log.info("computer reply in game %s refused: %s", game_id, error)
