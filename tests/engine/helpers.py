"""Small builders shared by the engine tests."""

from game.engine import Card, CardSet, Position, Rules, Suit


def make_position(
    hand0: str,
    hand1: str,
    pile: str = "",
    *,
    trumps: str = "SH",
    to_move: int = 0,
    **rules: object,
) -> Position:
    """A checked position from card texts: ``make_position("JC 6S", "KH", "9C")``."""
    return Position(
        trumps=(Suit.parse(trumps[0]), Suit.parse(trumps[1])),
        hands=(CardSet.parse(hand0).mask, CardSet.parse(hand1).mask),
        pile=tuple(Card.parse(c) for c in pile.split()),
        to_move=to_move,
        rules=Rules(**rules),  # type: ignore[arg-type]
    ).check()


def moves_of(position: Position) -> list[str]:
    return [str(m) for m in position.legal_moves()]
