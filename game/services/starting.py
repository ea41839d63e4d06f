"""How games begin: a seek (open, or private for its invitee), joined; a pairing from the pool;
a game against the computer; a rematch. Each is dealt by :mod:`game.services.dealing`."""

from __future__ import annotations

import random
import secrets

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from game import ai, engine
from game.live import events_of, publish_joined, publish_lobby
from game.models import Game
from game.options import GameOptions
from game.selectors import start_position
from game.services import GameError
from game.services.dealing import (
    RATING_FIELDS,
    committed,
    deal_part,
    new_game,
    note_ratings,
    seed_of,
    start,
    suit,
)
from game.services.saving import ask_for_computer_reply, locked, save


class TooManySeeks(GameError):
    """A player asked for another seek while ``LIMIT_OPEN_SEEKS`` of theirs wait for an
    opponent: what frees one is its cancelling or someone joining it, not time."""


@transaction.atomic
def game_create_seek(
    *,
    user: object,
    trump: str,
    options: GameOptions = GameOptions(),
    private: bool = False,
    part: str = "",
    secret: str = "",
) -> Game:
    """An open seek (or a private game waiting for its invitee) in seat 0, played by ``options``,
    with ``part`` as seat 0's part of the deal (none: the server draws it) and ``secret`` as the
    server's (from :func:`~game.services.dealing.deal_secret`; none: drawn now); a player may
    have ``LIMIT_OPEN_SEEKS`` waiting at once (:class:`TooManySeeks`)."""
    limit = settings.LIMIT_OPEN_SEEKS
    if Game.objects.filter(seat0=user, status=Game.Status.SEEKING).count() >= limit:
        raise TooManySeeks(
            ngettext(
                "You already have %(count)s game waiting for an opponent: cancel it, or wait "
                "for someone to join it, before you create another.",
                "You already have %(count)s games waiting for an opponent: cancel one, or wait "
                "for someone to join one, before you create another.",
                limit,
            )
            % {"count": limit}
        )
    game = new_game(user, trump, options, part, secret)
    game.private = private
    if game.rated:
        note_ratings(game, timezone.now())
    game.save()
    if not private:
        publish_lobby()
    return game


def game_create_paired(*, seat0: object, seat1: object, options: GameOptions) -> Game:
    """A game between two players the quick-pairing pool matched (``game.pool``), played by
    ``options``, dealt and in play at once, inside the caller's transaction. No one chose a
    trump, so each gets a suit of their own at random (RULES.md: the two differ); who starts is
    the deal's, at random too."""
    trump0, trump1 = random.sample([s.letter for s in engine.Suit], 2)
    game = new_game(seat0, trump0, options)
    game.seat1 = seat1  # type: ignore[assignment]
    game.part1 = deal_part("")[0]  # no browser sent one: the pairing came over a socket
    game.trump1 = trump1
    start(game, timezone.now())
    game.save()
    return game


def _invited(game: Game, invite_token: str | None) -> bool:
    """Whether ``invite_token`` is the game's, compared in constant time (as bytes, since
    ``compare_digest`` refuses non-ASCII text)."""
    if not invite_token:
        return False
    return secrets.compare_digest(invite_token.encode(), game.invite_token.encode())


@transaction.atomic
def game_join(
    *, game_id: int, user: object, trump: str, invite_token: str | None = None, part: str = ""
) -> Game:
    """Take seat 1 of a seek with a trump of one's own and ``part`` as one's part of the deal
    (none: the server draws it); the deal is made and play begins.

    A private game takes only its invitee: ``invite_token`` must be the game's own (from the
    link its creator shared). Ids are sequential, so the id alone must never be enough.
    """
    game = locked(game_id)
    if game.private and not _invited(game, invite_token):
        raise GameError(_("This game is by invitation only: open the link its creator shared."))
    if game.status != Game.Status.SEEKING:
        raise GameError(_("This game is no longer waiting for an opponent."))
    if game.seat0_id == getattr(user, "pk", None):
        raise GameError(_("You cannot join your own game."))
    game.trump1 = suit(trump)
    if game.trump1 == game.trump0:
        raise GameError(_("Your trump suit must differ from your opponent's."))
    game.seat1 = user  # type: ignore[assignment]
    game.part1, game.part1_from_browser = deal_part(part)
    start(game, timezone.now())
    publish_lobby()
    publish_joined(game)
    save(
        game,
        [
            "seat1",
            "trump1",
            "seed",
            "part1",
            "part1_from_browser",
            "first_player",
            "state",
            "status",
            "started_at",
            "turn_started_at",
            "clock0_ms",
            "clock1_ms",
            *RATING_FIELDS,
        ],
    )
    return game


@transaction.atomic
def game_cancel_seek(*, game_id: int, user: object) -> Game:
    game = locked(game_id)
    if game.seat0_id != getattr(user, "pk", None):
        raise GameError(_("Only the player who created a seek can cancel it."))
    if game.status != Game.Status.SEEKING:
        raise GameError(_("This game has already begun."))
    game.status = Game.Status.ABORTED
    game.reason = Game.Reason.CANCELLED
    game.finished_at = timezone.now()
    publish_lobby()
    save(game, ["status", "reason", "finished_at"])
    return game


@transaction.atomic
def game_create_vs_computer(
    *,
    user: object,
    level: str,
    trump: str,
    options: GameOptions = GameOptions(),
    part: str = "",
    secret: str = "",
) -> Game:
    """A game against the computer, played by ``options`` (never rated: the computer has no
    rating), dealt at once from the server's ``secret`` (as for :func:`game_create_seek`), the
    player's ``part`` (none: the server draws it) and the computer's, which the server draws;
    the computer takes another trump."""
    if level not in ai.LEVELS:
        raise GameError(_("Choose a level: %(levels)s.") % {"levels": ", ".join(ai.LEVELS)})
    if options.rated:  # no form offers it
        raise ValueError("a game against the computer cannot be rated")
    game = new_game(user, trump, options, part, secret)
    game.ai_level = level
    game.part1, game.part1_from_browser = deal_part("")
    others = [s.letter for s in engine.Suit if s.letter != game.trump0]
    game.trump1 = random.Random(seed_of(game)).choice(others)
    state = start(game, timezone.now())
    game.save()
    ask_for_computer_reply(game, events_of(game, state, None))  # the computer may start
    return game


@transaction.atomic
def game_rematch(*, game_id: int, user: object) -> Game | None:
    """Ask for a rematch, or agree to the opponent's: once both want it (the computer always
    does), a new game with the same seats, trumps and options, whose loser (or non-starter)
    leads.
    ``None`` while it waits for the opponent, who is told on their table."""
    game = locked(game_id)
    seat = game.seat_of(user)
    if seat is None:
        raise GameError(_("Only the players of this game can ask for a rematch."))
    if game.status != Game.Status.FINISHED:
        raise GameError(_("The game is not over yet."))
    existing = game.rematches.first()
    if existing is not None:
        return existing
    if not all(player.is_active for player in (game.seat0, game.seat1) if player is not None):
        raise GameError(_("Your opponent can no longer play."))  # closed or banned since
    if not game.against_computer and game.rematch_offer in (None, seat):
        game.rematch_offer = seat
        save(game, ["rematch_offer"])
        return None
    starter = (1 - game.winner) if game.winner is not None else 1 - start_position(game).to_move
    rematch = Game(
        # Its deal's parts are all the server's: a rematch starts from one click.
        **committed(),
        **GameOptions.of(game).fields(),
        part0=deal_part("")[0],
        part1=deal_part("")[0],
        seat0=game.seat0,
        seat1=game.seat1,
        ai_level=game.ai_level,
        trump0=game.trump0,
        trump1=game.trump1,
        rematch_of=game,
        first_player=starter,
    )
    state = start(rematch, timezone.now())
    rematch.save()
    ask_for_computer_reply(rematch, events_of(rematch, state, None))
    save(game, [])
    return rematch
