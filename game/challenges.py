"""Challenges: one player invites another to a game with the options they chose; the other
accepts it (a game like any other begins, rated or casual) or declines it with a reason.

These are services (DESIGN.md): keyword-only, one transaction each, the challenge's row locked.
Each change tells both players' sockets once committed (``challenge.changed`` to their user
groups, :mod:`game.live`): the challenged player sees a challenge on whatever page they are on,
and the challenger sees the answer. A challenge keeps its :class:`~game.options.GameOptions` in
its row, and the game is made and dealt from them by the same code as a seek's
(:mod:`game.services.dealing`).

A challenge waits :data:`EXPIRY` for its answer. Lichess keeps one while the challenger's page
is open, which needs the page to ping; a fixed expiry needs nothing running: a challenge past it
is shown to no one (:func:`game.selectors.challenges_waiting`), and refused and marked expired when
answered.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import ChallengesFrom
from accounts.ratings import NEAR_RATING, Speed
from accounts.selectors import challenges_from, player_name, ratings_now
from chat.selectors import has_muted
from game.live import send_after_commit, user_group
from game.models import Challenge, Game
from game.options import GameOptions
from game.services import GameError
from game.services.dealing import deal_part, new_game, start, suit
from game.templatetags.bidi import isolate

#: How long a challenge waits for its answer: long enough to see it between two games, short
#: enough that its answer still finds the challenger waiting.
EXPIRY = timedelta(minutes=10)


def refusal(challenger: AbstractBaseUser, challenged: AbstractBaseUser) -> str | None:
    """Why ``challenger`` may not challenge ``challenged`` at all, whatever the options; ``None``
    if they may. A mute is told as a refusal, without naming it."""
    name = isolate(player_name(challenged))
    if challenger.pk == challenged.pk:
        return _("You cannot challenge yourself.")
    if not challenger.is_active:
        return _("Your account cannot challenge anyone.")
    if not challenged.is_active:
        return _("%(name)s can no longer play.") % {"name": name}
    chosen = challenges_from(challenged)
    if chosen == ChallengesFrom.NO_ONE:
        return _("%(name)s does not accept challenges.") % {"name": name}
    if has_muted(challenged, challenger):
        return _("%(name)s does not accept your challenges.") % {"name": name}
    return None


def _refusal_in_speed(
    challenger: AbstractBaseUser, challenged: AbstractBaseUser, speed: Speed, now: datetime
) -> str | None:
    """:func:`refusal`, and whether their ratings in ``speed`` are near enough for a player who
    hears only players near their rating."""
    refused = refusal(challenger, challenged)
    if refused is not None or challenges_from(challenged) != ChallengesFrom.NEAR:
        return refused
    ratings = ratings_now([challenger.pk, challenged.pk], speed, now)
    if abs(ratings[challenger.pk].rating - ratings[challenged.pk].rating) <= NEAR_RATING:
        return None
    return _(
        "%(name)s accepts challenges only from players within %(points)s points of their "
        "%(speed)s rating."
    ) % {"name": isolate(player_name(challenged)), "points": NEAR_RATING, "speed": speed.label}


def _tell(challenge: Challenge) -> None:
    """Once committed, both players' sockets hear that ``challenge`` changed."""
    message = {"type": "challenge.changed", "challenge": challenge.pk}
    for user_id in (challenge.challenger_id, challenge.challenged_id):
        send_after_commit(user_group(user_id), message)


@transaction.atomic
def challenge_create(
    *,
    challenger: AbstractBaseUser,
    challenged: AbstractBaseUser,
    trump: str,
    options: GameOptions = GameOptions(),
    now: datetime | None = None,
) -> Challenge:
    """``challenger`` challenges ``challenged`` to a game played by ``options`` (``trump`` is the
    challenger's own), refused with a :class:`GameError` that says why: a player who does not
    hear this challenger's challenges, or one already waiting for its answer."""
    now = now or timezone.now()
    trump = suit(trump)
    refused = _refusal_in_speed(challenger, challenged, options.speed, now)
    if refused is not None:
        raise GameError(refused)
    waiting = Challenge.objects.filter(
        challenger=challenger,
        challenged=challenged,
        status=Challenge.Status.PENDING,
        expires_at__gt=now,
    )
    if waiting.exists():
        raise GameError(
            _("You have already challenged %(name)s: wait for their answer, or cancel it.")
            % {"name": isolate(player_name(challenged))}
        )
    challenge = Challenge.objects.create(
        challenger=challenger,
        challenged=challenged,
        trump=trump,
        **options.fields(),
        created_at=now,
        expires_at=now + EXPIRY,
    )
    _tell(challenge)
    return challenge


def _locked(challenge_id: int) -> Challenge:
    """The challenge's row, locked for this transaction (:class:`GameError` if there is none)."""
    challenge = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
    if challenge is None:
        raise GameError(_("There is no such challenge."))
    return challenge


def _answerable(challenge: Challenge, now: datetime) -> bool:
    """Whether ``challenge`` still waits for its answer; one whose time ran out is marked
    expired (its players told), for the caller to commit and then refuse."""
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= now:
        challenge.status = Challenge.Status.EXPIRED
        challenge.save(update_fields=["status"])
        _tell(challenge)
    return challenge.status == Challenge.Status.PENDING


def _not_answerable(challenge: Challenge) -> GameError:
    """Why ``challenge``, answered already, cannot be answered now."""
    return GameError(
        {
            Challenge.Status.EXPIRED: _("This challenge has expired."),
            Challenge.Status.CANCELLED: _("This challenge was cancelled."),
            Challenge.Status.DECLINED: _("This challenge was declined."),
        }.get(Challenge.Status(challenge.status), _("This challenge was accepted."))
    )


def _answer(
    challenge: Challenge, status: Challenge.Status, now: datetime, fields: tuple[str, ...] = ()
) -> None:
    challenge.status = status
    challenge.answered_at = now
    challenge.save(update_fields=["status", "answered_at", *fields])
    _tell(challenge)


def challenge_accept(
    *, challenge_id: int, user: AbstractBaseUser, trump: str, now: datetime | None = None
) -> Game:
    """The challenged player accepts with ``trump`` as theirs: the game is dealt and begins, in
    the same transaction. Accepted again (a second click, a second page), it answers the same
    game."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenged_id != user.pk:
            raise GameError(_("Only the challenged player can accept a challenge."))
        if challenge.status == Challenge.Status.ACCEPTED and challenge.game is not None:
            return challenge.game
        if _answerable(challenge, now):
            return _begin(challenge, user, trump, now)
    raise _not_answerable(challenge)


def _begin(challenge: Challenge, user: AbstractBaseUser, trump: str, now: datetime) -> Game:
    """The game ``challenge`` names, between its two players, dealt and saved; the challenge
    accepted."""
    challenger = challenge.challenger
    if not challenger.is_active:
        raise GameError(
            _("%(name)s can no longer play.") % {"name": isolate(player_name(challenger))}
        )
    game = new_game(challenger, challenge.trump, GameOptions.of(challenge))
    game.seat1 = user  # type: ignore[assignment]
    game.part1 = deal_part("")[0]  # the challenge's answer carries no browser's part
    game.trump1 = suit(trump)
    if game.trump1 == game.trump0:
        raise GameError(_("Your trump suit must differ from your opponent's."))
    start(game, now)
    game.save()
    challenge.game = game
    _answer(challenge, Challenge.Status.ACCEPTED, now, ("game",))
    return game


def challenge_decline(
    *, challenge_id: int, user: AbstractBaseUser, reason: str, now: datetime | None = None
) -> Challenge:
    """The challenged player declines, with one of the fixed reasons
    (:class:`Challenge.DeclineReason`), which the challenger is shown."""
    now = now or timezone.now()
    try:
        chosen = Challenge.DeclineReason(reason)
    except ValueError:
        raise GameError(_("Choose a reason from the list.")) from None
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenged_id != user.pk:
            raise GameError(_("Only the challenged player can decline a challenge."))
        if _answerable(challenge, now):
            challenge.decline_reason = chosen
            _answer(challenge, Challenge.Status.DECLINED, now, ("decline_reason",))
            return challenge
    raise _not_answerable(challenge)


def challenge_cancel(
    *, challenge_id: int, user: AbstractBaseUser, now: datetime | None = None
) -> Challenge:
    """The challenger takes back a challenge still waiting for its answer."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenger_id != user.pk:
            raise GameError(_("Only the challenger can cancel a challenge."))
        if _answerable(challenge, now):
            _answer(challenge, Challenge.Status.CANCELLED, now)
            return challenge
    raise _not_answerable(challenge)
