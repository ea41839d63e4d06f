"""Everything that changes stored games: the only writers (DESIGN.md).

Each service is keyword-only and runs in one transaction. A change locks the
game row (``select_for_update``), and every save is conditional on the version
it read, so two submissions for one ply can never both land (the unique
``game + ply`` constraint backs that up). A person's turn is first checked
against the game as this process last committed or read it (``LIVE_GAMES``),
without reading the row: its save then finds the row at that version, or the
turn is checked again on the row read locked. After the commit, viewers are
told that the game changed, with its new version.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import services as accounts
from accounts.ratings import is_provisional
from accounts.selectors import ratings_now
from chat import services as chat_services
from chat.models import ChatMessage
from game import ai, background, engine
from game.engine import fairness
from game.live import (
    LIVE_GAMES,
    ComputerToMove,
    Event,
    Progress,
    events_of,
    game_group,
    publish,
    publish_joined,
    publish_lobby,
    send_after_commit,
)
from game.models import Game, Move
from game.selectors import (
    abandoned,
    chat_room,
    history_of,
    set_state,
    start_position,
    stored_state,
)

#: Time controls offered in the lobby: (minutes, increment in seconds).
TIME_CONTROLS = ((1, 1), (3, 2), (5, 3), (10, 5), (15, 10))


#: ``ai.choose_move``'s shape: position, level, seconds, and the earlier positions.
Chooser = Callable[..., str]


class GameError(Exception):
    """A request the game cannot carry out; the message is for the player."""


class TooManySeeks(GameError):
    """A player asked for another seek while ``LIMIT_OPEN_SEEKS`` of theirs wait for an
    opponent: what frees one is its cancelling or someone joining it, not time."""


class _Stale(Exception):
    """The game was saved meanwhile: the version a change started from is not the row's."""


def _locked(game_id: int) -> Game:
    """The game's row, locked for this transaction."""
    return Game.objects.select_for_update().get(pk=game_id)


def _save(
    game: Game,
    fields: list[str],
    state: engine.GameState | None = None,
    move: Move | None = None,
) -> Progress:
    """Save the changed ``fields`` under a new version where the row is still at the version
    read, with ``move`` (a turn's row in the log) when a turn landed, and publish it once
    committed; a computer to move next is asked to reply. A save that finds the row moved on
    writes nothing and raises :class:`_Stale`.

    Written in the caller's transaction if it is in one, else in one of its own: a turn checked
    on the kept game is checked before, with no transaction open, as on SQLite beginning one
    takes the write lock that every other writer waits for."""
    game.version += 1
    if state is not None:
        set_state(game, state)
        fields = [*fields, "state"]
    columns = tuple(dict.fromkeys([*fields, "version"]))
    changes = {name: getattr(game, name) for name in columns}
    with transaction.atomic(savepoint=False):  # a stale save leaves a caller's as it was
        row = Game.objects.filter(pk=game.pk, version=game.version - 1)
        saved = row.update(**changes) == 1
        if saved and move is not None:  # a turn that lost the race stops before its ply's move
            move.save(force_insert=True)
    if not saved:
        raise _Stale(game.pk)
    progress = Progress(game, state, events_of(game, state, move), move, columns)
    publish(progress)
    _ask_for_computer_reply(game, progress.events)
    return progress


def table_rules(deck: int, must_beat: bool, sixes_to_owner: bool) -> engine.Rules:
    """A new table's variants, checked: RULES.md gives sixes to owner to the 36-card pack only
    (the engine plays it on any pack, as positions of other sites may carry it)."""
    if sixes_to_owner and deck != 36:
        raise GameError(_("Sixes to owner needs the 36-card pack: a smaller pack has no sixes."))
    try:
        return engine.Rules(deck=deck, must_beat=must_beat, sixes_to_owner=sixes_to_owner)
    except engine.EngineError as error:
        raise GameError(str(error)) from None


def _suit(letter: str) -> str:
    try:
        return engine.Suit.parse(letter).letter
    except engine.EngineError:
        raise GameError(_("Choose a trump suit: spades, hearts, diamonds or clubs.")) from None


def _clock(time_control: tuple[int, int] | None) -> tuple[int | None, int]:
    if time_control is None:
        return None, 0
    if tuple(time_control) not in TIME_CONTROLS:
        raise GameError(_("That time control is not offered."))
    minutes, increment = time_control
    return minutes * 60, increment


def deal_secret() -> str:
    """A secret for a game about to be created, the server's part of its deal: drawn before the
    creator's browser sends its part, when the lobby shows its commitment."""
    return secrets.token_hex(32)


def _committed(secret: str = "") -> dict[str, str]:
    """A new game's secret (``secret`` if it is one, from :func:`deal_secret`, else one drawn
    now) and the commitment shown for it."""
    if not fairness.is_part(secret):
        secret = deal_secret()
    return {"secret": secret, "commitment": fairness.commitment(secret)}


def _deal_part(part: str) -> tuple[str, bool]:
    """A seat's part of the deal and whether its browser sent it: the server draws one for a
    browser without JavaScript (or sending something not spelled as a part), and the computer."""
    if fairness.is_part(part):
        return part, True
    return secrets.token_hex(32), False


def _seed_of(game: Game) -> int:
    """The seed of the game's deal: made from its three parts, once both seats have one; a game
    created before deals could be checked has no secret and keeps its stored seed."""
    if not game.secret:
        return game.seed
    return fairness.seed_of(game.secret, game.part0, game.part1)


def _start(game: Game, now: datetime) -> engine.GameState:
    """Deal from the game's seed and set the clocks running; returns the game's first state."""
    game.seed = _seed_of(game)
    dealt = engine.deal(game.seed, game.trumps, game.rules, first=game.first_player)
    game.first_player = dealt.to_move
    state = engine.GameState.start(dealt)
    set_state(game, state)
    game.status = Game.Status.ACTIVE
    game.started_at = game.turn_started_at = now
    if game.clock_initial is not None:
        game.clock0_ms = game.clock1_ms = game.clock_initial * 1000
        # The first flag check, due when the first flag could fall; each check asks for the next.
        due = now + timedelta(seconds=game.clock_initial)
        ask = partial(background.ask, background.FLAG_CHECK)
        transaction.on_commit(lambda: ask(game.pk, due), robust=True)
    if game.rated:
        _note_ratings(game, now)
    return state


#: The columns of a rated game's ratings as it began (``Game.rating0`` and the rest).
_RATING_FIELDS = ["rating0", "rating1", "provisional0", "provisional1"]


def _note_ratings(game: Game, now: datetime) -> None:
    """Note on a rated game its players' ratings in its speed as they stand ``now`` (seat 0's
    alone while its seek waits), for the lobby and the table."""
    players = [user_id for user_id in (game.seat0_id, game.seat1_id) if user_id is not None]
    current = ratings_now(players, game.speed, now)
    for seat, user_id in enumerate(players):
        setattr(game, f"rating{seat}", round(current[user_id].rating))
        setattr(game, f"provisional{seat}", is_provisional(current[user_id].deviation))


def _new_game(
    user: object,
    trump: str,
    deck: int,
    must_beat: bool,
    sixes_to_owner: bool,
    time_control: tuple[int, int] | None,
    part: str = "",
    secret: str = "",
) -> Game:
    """An unsaved game with its creator in seat 0, the table's settings checked, the server's
    ``secret`` (drawn now if none) and seat 0's ``part`` (from its browser; drawn by the server
    if none) of the deal."""
    table_rules(deck, must_beat, sixes_to_owner)
    initial, increment = _clock(time_control)
    part0, from_browser = _deal_part(part)
    return Game(
        **_committed(secret),
        part0=part0,
        part0_from_browser=from_browser,
        seat0=user,
        trump0=_suit(trump),
        deck=deck,
        must_beat=must_beat,
        sixes_to_owner=sixes_to_owner,
        clock_initial=initial,
        clock_increment=increment,
    )


@transaction.atomic
def game_create_seek(
    *,
    user: object,
    trump: str,
    deck: int = 36,
    must_beat: bool = False,
    sixes_to_owner: bool = False,
    time_control: tuple[int, int] | None = None,
    private: bool = False,
    rated: bool = False,
    part: str = "",
    secret: str = "",
) -> Game:
    """An open seek (or a private game waiting for its invitee) in seat 0, ``rated`` or casual,
    with ``part`` as seat 0's part of the deal (none: the server draws it) and ``secret`` as the
    server's (from :func:`deal_secret`; none: drawn now); a player may have ``LIMIT_OPEN_SEEKS``
    waiting at once (:class:`TooManySeeks`)."""
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
    game = _new_game(user, trump, deck, must_beat, sixes_to_owner, time_control, part, secret)
    game.private = private
    game.rated = rated
    if rated:
        _note_ratings(game, timezone.now())
    game.save()
    if not private:
        publish_lobby()
    return game


def game_create_paired(
    *, seat0: object, seat1: object, time_control: tuple[int, int], rated: bool
) -> Game:
    """A game between two players the quick-pairing pool matched (``game.pool``), dealt and in
    play at once, inside the caller's transaction. No one chose a trump, so each gets a suit of
    their own at random (RULES.md: the two differ); who starts is the deal's, at random too."""
    trump0, trump1 = random.sample([suit.letter for suit in engine.Suit], 2)
    game = _new_game(seat0, trump0, 36, False, False, time_control)
    game.seat1 = seat1  # type: ignore[assignment]
    game.part1 = _deal_part("")[0]  # no browser sent one: the pairing came over a socket
    game.trump1 = trump1
    game.rated = rated
    _start(game, timezone.now())
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
    game = _locked(game_id)
    if game.private and not _invited(game, invite_token):
        raise GameError(_("This game is by invitation only: open the link its creator shared."))
    if game.status != Game.Status.SEEKING:
        raise GameError(_("This game is no longer waiting for an opponent."))
    if game.seat0_id == getattr(user, "pk", None):
        raise GameError(_("You cannot join your own game."))
    game.trump1 = _suit(trump)
    if game.trump1 == game.trump0:
        raise GameError(_("Your trump suit must differ from your opponent's."))
    game.seat1 = user  # type: ignore[assignment]
    game.part1, game.part1_from_browser = _deal_part(part)
    _start(game, timezone.now())
    publish_lobby()
    publish_joined(game)
    _save(
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
            *_RATING_FIELDS,
        ],
    )
    return game


@transaction.atomic
def game_cancel_seek(*, game_id: int, user: object) -> Game:
    game = _locked(game_id)
    if game.seat0_id != getattr(user, "pk", None):
        raise GameError(_("Only the player who created a seek can cancel it."))
    if game.status != Game.Status.SEEKING:
        raise GameError(_("This game has already begun."))
    game.status = Game.Status.ABORTED
    game.reason = Game.Reason.CANCELLED
    game.finished_at = timezone.now()
    publish_lobby()
    _save(game, ["status", "reason", "finished_at"])
    return game


@transaction.atomic
def game_create_vs_computer(
    *,
    user: object,
    level: str,
    trump: str,
    deck: int = 36,
    must_beat: bool = False,
    sixes_to_owner: bool = False,
    time_control: tuple[int, int] | None = None,
    part: str = "",
    secret: str = "",
) -> Game:
    """A game against the computer, dealt at once from the server's ``secret`` (as for
    :func:`game_create_seek`), the player's ``part`` (none: the server draws it) and the
    computer's, which the server draws; the computer takes another trump."""
    if level not in ai.LEVELS:
        raise GameError(_("Choose a level: %(levels)s.") % {"levels": ", ".join(ai.LEVELS)})
    game = _new_game(user, trump, deck, must_beat, sixes_to_owner, time_control, part, secret)
    game.ai_level = level
    game.part1, game.part1_from_browser = _deal_part("")
    others = [s.letter for s in engine.Suit if s.letter != game.trump0]
    game.trump1 = random.Random(_seed_of(game)).choice(others)
    state = _start(game, timezone.now())
    game.save()
    _ask_for_computer_reply(game, events_of(game, state, None))  # the computer may start
    return game


def _ask_for_computer_reply(game: Game, events: tuple[Event, ...]) -> None:
    """If ``events`` leave the computer to move, ask a worker for its reply once the commit lands
    (:mod:`game.tasks`). Should the process die first, the workers' recovery asks."""
    for event in events:
        if isinstance(event, ComputerToMove):
            ask = partial(background.ask, background.REPLY, game.pk, event.ply)
            transaction.on_commit(ask, robust=True)  # a failure is logged; recovery asks again


def _finish(game: Game, now: datetime, reason: str, winner: int | None) -> None:
    game.status = Game.Status.FINISHED
    game.reason = reason
    game.winner = winner
    game.finished_at = now
    game.draw_offer = None
    if game.rated:
        _rate(game, now)


def _rate(game: Game, now: datetime) -> None:
    """Rate a rated game that ends ``now``, in the transaction that ends it and on its row
    locked at the version the end was decided on; a turn checked on the game as kept, with no
    transaction open (``game_play_move``), ends it again on the row read locked."""
    if not connection.in_atomic_block or _locked_version(game.pk) != game.version:
        raise _Stale(game.pk)
    accounts.ratings_record_game(
        game_id=game.pk,
        speed=game.speed,
        players=(game.seat0_id, game.seat1_id),
        score=0.5 if game.winner is None else 1.0 - game.winner,
        now=now,
    )


def _locked_version(game_id: int) -> int:
    """The version of the game's row, locked for this transaction."""
    return Game.objects.select_for_update().values_list("version", flat=True).get(pk=game_id)


_OUTCOME_REASONS = {
    engine.Termination.EMPTY_HAND: Game.Reason.EMPTY_HAND,
    engine.Termination.LAST_CARD: Game.Reason.LAST_CARD,
    engine.Termination.REPETITION: Game.Reason.REPETITION,
}


def _record_move(game: Game, seat: int, notation: str, expected_ply: int) -> Progress | None:
    """Check and store one turn, inside the caller's transaction: on a locked game row, or on
    the game as last committed (its save raises :class:`_Stale` if the row moved on).

    Returns ``None`` when the mover's clock had already run out: the game is
    then finished on time instead, and the caller says so once that is committed.
    """
    if game.status != Game.Status.ACTIVE:
        raise GameError(_("The game is not in play."))
    state = stored_state(game)
    if expected_ply != state.ply:
        raise GameError(_("The game has moved on: your view was out of date."))
    if state.position.to_move != seat:
        raise GameError(_("It is not your turn."))
    now = timezone.now()
    if _flag(game, seat, now):
        return None
    try:
        move = engine.Move.parse(notation)
        after = state.play(move)
    except engine.EngineError as error:
        raise GameError(_("That turn is not allowed: %(reason)s") % {"reason": error}) from None
    after = after.counted(_arisen_before(game, after) + 1)
    spent = _elapsed_ms(game, now)
    if game.is_timed:
        field = "clock0_ms" if seat == 0 else "clock1_ms"
        setattr(game, field, getattr(game, field) - spent + game.clock_increment * 1000)
    stored = Move(
        game=game,
        ply=expected_ply,
        player=seat,
        notation=str(move),
        time_spent_ms=spent,
        created_at=now,
        key=after.key,
    )
    game.turn_started_at = now
    if game.draw_offer != seat:  # a turn answers the opponent's offer; one's own stands
        game.draw_offer = None
    outcome = after.outcome
    if outcome is not None:
        _finish(game, now, _OUTCOME_REASONS[outcome.termination], outcome.winner)
    return _save(game, [*_CLOCK_FIELDS, *_END_FIELDS, "turn_started_at"], after, stored)


def _arisen_before(game: Game, state: engine.GameState) -> int:
    """How many times ``state``'s position arose earlier in ``game``: after a turn of its log
    (one indexed count), or as the deal (only a position with an empty pile can be the deal)."""
    key = state.key
    times = Move.objects.filter(game_id=game.pk, key=key).count()
    if not state.position.pile and start_position(game).key == state.position.key:
        times += 1
    return times


_END_FIELDS = ["status", "reason", "winner", "finished_at", "draw_offer"]
_CLOCK_FIELDS = ["clock0_ms", "clock1_ms"]


def _elapsed_ms(game: Game, now: datetime) -> int:
    assert game.turn_started_at is not None
    return max(0, int((now - game.turn_started_at).total_seconds() * 1000))


def _flag(game: Game, seat: int, now: datetime) -> bool:
    """If ``seat`` (to move) has run out of time, finish the game on time and save it."""
    if not game.is_timed:
        return False
    field = "clock0_ms" if seat == 0 else "clock1_ms"
    if getattr(game, field) - _elapsed_ms(game, now) > 0:
        return False
    setattr(game, field, 0)
    _finish(game, now, Game.Reason.TIMEOUT, 1 - seat)
    _save(game, [*_CLOCK_FIELDS, *_END_FIELDS])
    return True


def _moved(result: Progress | None) -> Progress:
    if result is None:
        raise GameError(_("Time ran out: the game is over."))
    return result


def game_play_move(*, game_id: int, user: object, notation: str, expected_ply: int) -> Progress:
    """A person's turn. ``expected_ply`` is the ply their page showed: a stale one is refused.

    Checked first on the game as this process last committed or read it, with no read: a turn
    played here after the opponent's turn played here (most turns) then costs two writes. When
    the row has moved on, or that game refuses the turn (it may be behind the row), the row read
    locked decides."""
    # A request's user is read when first used (its session, then its row): read it here, not
    # under the write lock, which on SQLite every other writer waits for meanwhile.
    getattr(user, "pk", None)
    kept = LIVE_GAMES.latest(game_id)
    if kept is not None:
        try:  # checked with no transaction open: only its save writes (_save)
            result = _person_turn(kept, user, notation, expected_ply)
        except (_Stale, GameError):
            pass
        else:
            return _moved(result)
    with transaction.atomic():
        result = _person_turn(_locked(game_id), user, notation, expected_ply)
    return _moved(result)


def _person_turn(game: Game, user: object, notation: str, expected_ply: int) -> Progress | None:
    """``user``'s turn on ``game``, read locked or as kept: only a player of it may move."""
    seat = game.seat_of(user)
    if seat is None:
        raise GameError(_("Only the players of this game can move."))
    return _record_move(game, seat, notation, expected_ply)


def game_play_computer_move(
    *, game_id: int, seconds: float | None = None, choose: Chooser = ai.choose_move
) -> Progress | None:
    """The computer's turn, if it is the computer's to play; ``None`` otherwise.

    The search (``choose``, by default in this process) runs before the
    transaction, with no lock held: it is CPU work, so call this from a worker,
    never on the event loop. The turn is then recorded like a person's, so if
    the game moved on meanwhile it is refused.
    """
    game = Game.objects.get(pk=game_id)
    if not game.ai_level or game.status != Game.Status.ACTIVE:
        return None
    history = history_of(game)  # the search needs the earlier positions, for repetition
    if history.position.to_move != 1 or history.outcome is not None:
        return None
    move = choose(
        engine.position_to_json(history.position),
        game.ai_level,
        seconds,
        history=[engine.position_to_json(p) for p in history.positions[:-1]],
    )
    with transaction.atomic():
        locked = _locked(game_id)
        result = _record_move(locked, 1, move, history.ply)
    return _moved(result)


def _player_seat(game: Game, user: object) -> int:
    seat = game.seat_of(user)
    if seat is None:
        raise GameError(_("Only the players of this game can do that."))
    if game.status != Game.Status.ACTIVE:
        raise GameError(_("The game is not in play."))
    return seat


@transaction.atomic
def game_resign(*, game_id: int, user: object) -> Game:
    game = _locked(game_id)
    seat = _player_seat(game, user)
    _finish(game, timezone.now(), Game.Reason.RESIGNATION, 1 - seat)
    _save(game, _END_FIELDS)
    return game


@transaction.atomic
def game_abort(*, game_id: int, user: object) -> Game:
    """End with no result, allowed only while fewer than two turns have been played."""
    game = _locked(game_id)
    _player_seat(game, user)
    if game.moves.count() >= 2:
        raise GameError(_("Both players have made a turn: the game can no longer be aborted."))
    game.status = Game.Status.ABORTED
    game.reason = Game.Reason.ABORTED
    game.finished_at = timezone.now()
    _save(game, ["status", "reason", "finished_at"])
    return game


@transaction.atomic
def game_offer_draw(*, game_id: int, user: object) -> Game:
    """Offer a draw, or accept the opponent's standing offer."""
    game = _locked(game_id)
    seat = _player_seat(game, user)
    if game.against_computer:
        raise GameError(_("The computer does not agree to draws."))
    if game.draw_offer == 1 - seat:
        _finish(game, timezone.now(), Game.Reason.AGREEMENT, None)
        _save(game, _END_FIELDS)
    elif game.draw_offer is None:
        game.draw_offer = seat
        _save(game, ["draw_offer"])
    return game


@transaction.atomic
def game_decline_draw(*, game_id: int, user: object) -> Game:
    """Decline the opponent's draw offer (both tables say so until the next turn), or withdraw
    one's own."""
    game = _locked(game_id)
    seat = _player_seat(game, user)
    if game.draw_offer == 1 - seat:
        game.draw_offer = None
        game.draw_declined_ply = stored_state(game).ply
        _save(game, ["draw_offer", "draw_declined_ply"])
    elif game.draw_offer == seat:
        game.draw_offer = None
        _save(game, ["draw_offer"])
    return game


@transaction.atomic
def game_claim_timeout(*, game_id: int) -> Game:
    """Finish the game on time if the player to move has run out (anyone may ask)."""
    game = _locked(game_id)
    if game.status == Game.Status.ACTIVE:
        _flag(game, stored_state(game).position.to_move, timezone.now())
    return game


@transaction.atomic
def game_claim_abandoned(*, game_id: int, user: object) -> Game:
    """The waiting player wins an untimed game whose opponent has gone silent."""
    game = _locked(game_id)
    seat = _player_seat(game, user)
    if stored_state(game).position.to_move == seat:
        raise GameError(_("It is your turn: the game waits for you, not for your opponent."))
    if not abandoned(game):
        raise GameError(_("Your opponent may still be thinking: wait a little longer."))
    _finish(game, timezone.now(), Game.Reason.ABANDONED, seat)
    _save(game, _END_FIELDS)
    return game


@transaction.atomic
def game_rematch(*, game_id: int, user: object) -> Game | None:
    """Ask for a rematch, or agree to the opponent's: once both want it (the computer always
    does), a new game with the same seats, trumps and rules, whose loser (or non-starter) leads.
    ``None`` while it waits for the opponent, who is told on their table."""
    game = _locked(game_id)
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
        _save(game, ["rematch_offer"])
        return None
    starter = (1 - game.winner) if game.winner is not None else 1 - start_position(game).to_move
    rematch = Game(
        # Its deal's parts are all the server's: a rematch starts from one click.
        **_committed(),
        part0=_deal_part("")[0],
        part1=_deal_part("")[0],
        seat0=game.seat0,
        seat1=game.seat1,
        ai_level=game.ai_level,
        trump0=game.trump0,
        trump1=game.trump1,
        deck=game.deck,
        must_beat=game.must_beat,
        sixes_to_owner=game.sixes_to_owner,
        clock_initial=game.clock_initial,
        clock_increment=game.clock_increment,
        rated=game.rated,
        rematch_of=game,
        first_player=starter,
    )
    state = _start(rematch, timezone.now())
    rematch.save()
    _ask_for_computer_reply(rematch, events_of(rematch, state, None))
    _save(game, [])
    return rematch


# --- Moderators' decisions (called by moderation.services, which checks and logs them) ----------


def _end_by_moderator(game: Game, now: datetime) -> None:
    """Stop a seek or a game in play with no result: a moderator's abort."""
    if game.status == Game.Status.SEEKING and not game.private:
        publish_lobby()
    game.status = Game.Status.ABORTED
    game.reason = Game.Reason.MODERATOR
    game.finished_at = now
    game.draw_offer = None


@transaction.atomic
def game_abort_by_moderator(*, game_id: int) -> Game:
    """A moderator stops a seek or a game in play: it ends with no result."""
    game = _locked(game_id)
    if game.status not in (Game.Status.SEEKING, Game.Status.ACTIVE):
        raise GameError(_("The game is already over."))
    _end_by_moderator(game, timezone.now())
    _save(game, _END_FIELDS)
    return game


@transaction.atomic
def game_annul(*, game_id: int) -> Game:
    """A moderator annuls a game: it is kept, but counts for nothing (a game still going is
    stopped first; a rated game's changes to its players' ratings are taken back)."""
    game = _locked(game_id)
    if game.annulled:
        raise GameError(_("The game is already annulled."))
    if game.status in (Game.Status.SEEKING, Game.Status.ACTIVE):
        _end_by_moderator(game, timezone.now())
    elif game.rated:
        accounts.ratings_annul_game(game_id=game.pk, now=timezone.now())
    game.annulled = True
    _save(game, [*_END_FIELDS, "annulled"])
    return game


@transaction.atomic
def games_forfeit_by_ban(*, user: object) -> list[Game]:
    """A banned player's seeks disappear and their games in play end as losses by ban."""
    user_id = getattr(user, "pk", None)
    games = (
        Game.objects.select_for_update()
        .filter(Q(seat0_id=user_id) | Q(seat1_id=user_id, ai_level=""))
        .filter(status__in=(Game.Status.SEEKING, Game.Status.ACTIVE))
        .order_by("pk")
    )
    now = timezone.now()
    ended = []
    for game in games:
        if game.status == Game.Status.SEEKING:
            _end_by_moderator(game, now)
        else:
            seat = game.seat_of(user)
            assert seat is not None
            _finish(game, now, Game.Reason.MODERATOR, 1 - seat)
        _save(game, _END_FIELDS)
        ended.append(game)
    return ended


@transaction.atomic
def game_chat_post(
    *, game_id: int, user: object, text: str, now: datetime | None = None
) -> ChatMessage:
    """A line of the game's chat from one of its players (the chat checks it and refuses it with
    a ``chat.services.ChatError``). The game's viewers are told after the commit; its first line
    marks the game's chat as started, for the sockets that arrive later."""
    game = Game.objects.select_related("seat0", "seat1").get(pk=game_id)
    message = chat_services.chat_post(room=chat_room(game), user=user, text=text, now=now)
    if not game.chat_started:
        Game.objects.filter(pk=game.pk).update(chat_started=True)
    send_after_commit(game_group(game.pk), {"type": "chat.changed"})
    return message


@transaction.atomic
def games_leave(*, user: object) -> None:
    """A player who closes their account leaves every game: their open seeks are cancelled, then
    their games in play resigned (a seek joined meanwhile among them), each through its own
    service, as if they had done it."""
    user_id = getattr(user, "pk", None)
    mine = Game.objects.filter(Q(seat0_id=user_id) | Q(seat1_id=user_id, ai_level=""))
    for status, leave in (
        (Game.Status.SEEKING, game_cancel_seek),
        (Game.Status.ACTIVE, game_resign),
    ):
        for game_id in mine.filter(status=status).values_list("pk", flat=True):
            try:
                leave(game_id=game_id, user=user)
            except GameError:  # it moved on meanwhile: joined, or ended
                continue
