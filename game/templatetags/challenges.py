"""Challenges where players see them: the notices of every logged-in page (``#challenges``, kept
current by the user's socket, ``game.consumers.user.UserConsumer``), the challenge form on a
player's profile (accounts knows nothing of games, so its template asks here) and on a finished
game's result."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from accounts.ratings import is_provisional, shown
from accounts.selectors import is_closed, ratings_now
from game.challenges import refusal
from game.forms import TRUMPS, ChallengeForm, DeclineForm
from game.models import Challenge, Game
from game.selectors import challenges_waiting

register = template.Library()


def notices_html(
    user: AbstractBaseUser,
    *,
    request: HttpRequest | None = None,
    answer: Challenge | None = None,
    error: str | None = None,
) -> SafeString:
    """The inside of ``#challenges`` for ``user``: the challenges waiting for their answer, theirs
    waiting for an answer, and, just heard, the ``answer`` to one of theirs or an ``error``."""
    now = timezone.now()
    incoming, outgoing = challenges_waiting(user, now)
    if not (incoming or outgoing or answer or error):
        return mark_safe("")
    context = {
        "incoming": [(challenge, _rating(challenge, now)) for challenge in incoming],
        "outgoing": outgoing,
        "answer": answer,
        "error": error,
        "trumps": TRUMPS,
        "decline_form": DeclineForm(auto_id=False),
    }
    return mark_safe(render_to_string("game/_challenges.html", context, request=request))


def _rating(challenge: Challenge, now: datetime) -> str:
    """The challenger's rating in the challenge's speed, as the lobby writes one (``1500?``)."""
    rating = ratings_now([challenge.challenger_id], challenge.speed, now)[challenge.challenger_id]
    return shown(rating.rating, is_provisional(rating.deviation))


@register.simple_tag(takes_context=True)
def challenge_notices(context: template.Context) -> SafeString:
    """``{% challenge_notices %}``: :func:`notices_html` for the page's user."""
    request = context.get("request")
    return notices_html(context["user"], request=request)


@register.inclusion_tag("game/_challenge_form.html", takes_context=True)
def challenge_form(context: template.Context, player: AbstractBaseUser) -> dict[str, object]:
    """``{% challenge_form player %}``: on ``player``'s profile, a form to challenge them, or why
    the visitor cannot; nothing on one's own profile, a closed account's, or for a visitor who
    is not logged in."""
    user = context["user"]
    shown = user.is_authenticated and user.pk != player.pk and not is_closed(player)
    return {
        "request": context.get("request"),
        "shown": shown,
        "player": player,
        "refused": refusal(user, player) if shown else None,
        "form": ChallengeForm(auto_id="challenge_%s"),
    }


@register.inclusion_tag("game/_challenge_again.html", takes_context=True)
def challenge_again(context: template.Context, game: Game, seat: int) -> dict[str, object]:
    """``{% challenge_again game seat %}``: on a finished game's result, ``seat``'s player may
    challenge their opponent to another game with the same options, their own trump kept."""
    opponent = game.seat1 if seat == 0 else game.seat0
    shown = not game.against_computer and opponent is not None and opponent.is_active
    return {
        "request": context.get("request"),
        "shown": shown,
        "opponent": opponent,
        "trump": game.trump0 if seat == 0 else game.trump1,
        "game": game,
        "clock": f"{game.clock_initial // 60}+{game.clock_increment}" if game.is_timed else "",
    }
