"""Writes to players' accounts: signing up, the language, the email address and its proof,
closing an account, and rating games."""

import logging
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, BaseUserManager
from django.core import signing
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import verification
from accounts.glicko2 import Glicko, Result, rate
from accounts.models import ChallengesFrom, Profile, Rating, RatingChange
from accounts.ratings import START, TAU, as_of, periods_between
from accounts.selectors import email_verified
from accounts.signals import account_closed

logger = logging.getLogger(__name__)


class AccountError(Exception):
    """A request about an account that cannot be carried out; the message is for the player."""


@transaction.atomic
def user_sign_up(
    *, username: str, password: str, email: str = "", language: str = "", site_url: str
) -> AbstractBaseUser:
    """Create a player's account; the form has validated the name and the password. ``language``:
    the one they signed up in, kept for their next logins. An ``email`` is sent its verification
    link, at ``site_url`` (the site's address as the player reached it: ``https://host``)."""
    email = BaseUserManager.normalize_email(email)
    user = get_user_model().objects.create_user(username=username, password=password, email=email)
    if language:
        profile_set_language(user=user, language=language)
    if email:
        _send_verification(user, site_url)
    return user


def profile_set_language(*, user: AbstractBaseUser, language: str) -> None:
    """Keep ``language`` (a code of ``settings.LANGUAGES``) as the player's own."""
    if language not in dict(settings.LANGUAGES):
        raise ValueError(f"not a language of the site: {language!r}")
    Profile.objects.update_or_create(user=user, defaults={"language": language})


def profile_set_challenges_from(*, user: AbstractBaseUser, choice: str) -> None:
    """Keep whose challenges ``user`` hears: a value of :class:`ChallengesFrom`."""
    Profile.objects.update_or_create(
        user=user, defaults={"challenges_from": ChallengesFrom(choice)}
    )


@transaction.atomic
def email_change(*, user: AbstractBaseUser, email: str, site_url: str) -> bool:
    """Give ``user`` a new email address (``""``: none), unverified until its link, sent now, is
    followed. Answers whether anything changed."""
    email = BaseUserManager.normalize_email(email)
    if email == user.email:
        return False
    user.email = email
    user.save(update_fields=["email"])
    Profile.objects.update_or_create(user=user, defaults={"verified_email": ""})
    if email:
        _send_verification(user, site_url)
    return True


def email_verification_resend(*, user: AbstractBaseUser, site_url: str) -> None:
    """Send the link for ``user``'s address again (how often: the view's limit)."""
    if not user.email:
        raise AccountError(_("Give an email address first."))
    if email_verified(user):
        raise AccountError(_("Your email address is already verified."))
    _send_verification(user, site_url)


def email_verify(*, token: str) -> AbstractBaseUser:
    """Follow a verification link: the address it names becomes its user's verified address, if
    it is still theirs and no other account has verified it. Answers the user."""
    try:
        user_id, email = verification.read_token(token)
    except signing.SignatureExpired:
        raise AccountError(
            _("This link has expired: ask for a new one in your settings.")
        ) from None
    except signing.BadSignature:
        raise AccountError(_("This link is not valid: check that it was copied whole.")) from None
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or user.email.casefold() != email.casefold():
        raise AccountError(_("This link is for an address that is no longer on the account."))
    try:
        with transaction.atomic():
            Profile.objects.update_or_create(user=user, defaults={"verified_email": user.email})
    except IntegrityError:  # the constraint: one account per verified address
        raise AccountError(_("This address is already verified for another account.")) from None
    return user


def _send_verification(user: AbstractBaseUser, site_url: str) -> None:
    """Send ``user``'s address its link once the transaction commits, in the language active
    now."""
    email = user.email
    path = reverse("accounts:verify_email", args=[verification.make_token(user, email)])
    context = {
        "user": user,
        "link": site_url + path,
        "days": verification.MAX_AGE.days,
    }
    subject = "".join(render_to_string("accounts/email/verify_subject.txt", context).splitlines())
    body = render_to_string("accounts/email/verify.txt", context)

    def send() -> None:
        try:
            send_mail(subject, body, None, [email])
        except Exception:  # as Django's password reset: logged, and the player may ask again
            logger.exception("Failed to send the verification email to user %s", user.pk)

    transaction.on_commit(send)


@transaction.atomic
def account_close(*, user: AbstractBaseUser) -> None:
    """Close ``user``'s account for good (the form has checked their password): they can no
    longer log in, and their sessions end; every page shows them as a closed account; their chat
    lines are hidden; their email address is dropped. The account row stays, so that their
    opponents keep the games they played and no one else takes the name.

    Then :data:`accounts.signals.account_closed` is sent, in this transaction: accounts knows
    nothing of games (it is the lowest layer), so the game app reacts and ends the player's
    seeks and games in play through its own services; if that fails, nothing is closed.
    """
    Profile.objects.update_or_create(
        user=user, defaults={"closed_at": timezone.now(), "verified_email": ""}
    )
    user.email = ""
    user.is_active = False
    user.set_unusable_password()
    user.save(update_fields=["email", "is_active", "password"])
    account_closed.send(sender=type(user), user=user)


# --- Ratings ----------------------------------------------------------------------------------


def _locked_ratings(user_ids: Iterable[int], speed: str) -> dict[int, Rating]:
    """The players' ratings in ``speed`` (made at the start for a player never rated in it),
    locked for this transaction in the order of their ids: two games of the same players ending
    at once take turns, and never each wait for the other."""
    ids = sorted(set(user_ids))
    Rating.objects.bulk_create(
        [Rating(user_id=user_id, speed=speed) for user_id in ids], ignore_conflicts=True
    )
    rows = Rating.objects.select_for_update().filter(user_id__in=ids, speed=speed)
    return {row.user_id: row for row in rows.order_by("user_id")}


def _change(row: Rating, after: Glicko, game_id: int, now: datetime, **more: object) -> None:
    """Give ``row`` the figures ``after``, and write the change in its player's history."""
    RatingChange.objects.create(
        user_id=row.user_id,
        speed=row.speed,
        game_id=game_id,
        rating_before=row.rating,
        rating_after=after.rating,
        deviation_before=row.deviation,
        deviation_after=after.deviation,
        volatility_before=row.volatility,
        volatility_after=after.volatility,
        created_at=now,
        **more,
    )
    row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility


@transaction.atomic
def ratings_record_game(
    *, game_id: int, speed: str, players: tuple[int, int], score: float, now: datetime
) -> None:
    """Rate the game ``game_id`` that ends ``now`` between ``players`` (user ids, seat 0 first)
    in ``speed``: seat 0 scored ``score`` (1 a win, 0.5 a draw, 0 a loss). Each is rated against
    the other as they stood before it, their deviations grown by the time since their last
    rated game in the speed. Live play calls it in the transaction that ends the game; the
    history's constraint refuses a second rating of a game."""
    rows = _locked_ratings(players, speed)
    seats = [rows[player] for player in players]
    current = [as_of(row.glicko, row.rated_at, now) for row in seats]
    afters = [
        rate(
            row.glicko,
            [Result(current[1 - seat], score if seat == 0 else 1 - score)],
            tau=TAU,
            periods=periods_between(row.rated_at, now),
            ceiling=START.deviation,
        )
        for seat, row in enumerate(seats)
    ]
    for row, after in zip(seats, afters, strict=True):
        _change(row, after, game_id, now)
        row.games += 1
        row.rated_at = now
        row.save()


@transaction.atomic
def ratings_annul_game(*, game_id: int, now: datetime) -> None:
    """Take back what the game ``game_id`` did to its players' ratings (a moderator annulled
    it): each loses the points it gave them, or gets back the points it cost them, and the
    game no longer counts among their rated games. For a player whose last rated game in the
    speed it still is, the deviation and volatility go back to what they were before it too;
    otherwise they stay, as the later games built on them. When they last played stays. Nothing
    for a game that changed no rating."""
    changes = RatingChange.objects.filter(game_id=game_id, annulment=False).order_by("user_id")
    if not changes:
        return
    rows = _locked_ratings([change.user_id for change in changes], changes[0].speed)
    for change in changes:
        row = rows[change.user_id]
        left = Glicko(change.rating_after, change.deviation_after, change.volatility_after)
        if row.glicko == left:  # as the game left it: nothing rated since
            after = Glicko(change.rating_before, change.deviation_before, change.volatility_before)
        else:
            points = change.rating_after - change.rating_before
            after = Glicko(row.rating - points, row.deviation, row.volatility)
        _change(row, after, game_id, now, annulment=True)
        row.games -= 1
        row.save()
