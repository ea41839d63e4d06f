"""The engine's exceptions: one base class, split by cause.

Every one is a :class:`ValueError`, so callers that only care that input was
bad can catch that; callers that care why catch the subclass.
"""


class EngineError(ValueError):
    """Input the rules engine cannot accept."""


class NotationError(EngineError):
    """Text or JSON that does not spell a card, a turn or a position."""


class IllegalMoveError(EngineError):
    """A well-formed turn that the rules do not allow in this position."""
