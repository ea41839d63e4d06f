"""Everything that changes stored games: the only writers (DESIGN.md).

Each service is keyword-only and runs in one transaction. A change locks the
game row (``select_for_update``), and every save is conditional on the version
it read, so two submissions for one ply can never both land (the unique
``game + ply`` constraint backs that up). A person's turn is first checked
against the game as this process last committed or read it (``LIVE_GAMES``),
without reading the row: its save then finds the row at that version, or the
turn is checked again on the row read locked. After the commit, viewers are
told that the game changed, with its new version.

The services by what they do:

- :mod:`~game.services.play`: the one service that plays a turn, a person's or the computer's;
- :mod:`~game.services.starting`: seeks and their joining, pairings, games against the
  computer, rematches; dealt by :mod:`~game.services.dealing`;
- :mod:`~game.services.endings`: resigning, aborting, draws, claims, leaving;
- :mod:`~game.services.moderators`: moderators' decisions on games;
- :mod:`~game.services.chat`: a game's chat lines;
- :mod:`~game.services.saving`: how each of them writes the game and publishes the change.
"""


class GameError(Exception):
    """A request the game cannot carry out; the message is for the player."""
