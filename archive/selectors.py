"""The archive's reads: finished games, filtered; a player's own games."""

from __future__ import annotations

from datetime import date

from django.db.models import Prefetch, Q, QuerySet

from game.models import Game, Move


def archive(
    *,
    player: str | None = None,
    result: str | None = None,
    reason: str | None = None,
    opponent: str | None = None,
    deck: int | None = None,
    must_beat: bool | None = None,
    sixes_to_owner: bool | None = None,
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[Game]:
    """Finished games, newest first, narrowed by whichever filters are given.

    ``result`` (win / draw / loss) is the named ``player``'s; a draw needs no
    player; annulled games have no result. ``opponent`` is ``"person"``,
    ``"computer"`` or a computer level.
    """
    games = Game.objects.filter(status=Game.Status.FINISHED).select_related("seat0", "seat1")
    if player:
        in_seat0 = Q(seat0__username__iexact=player)
        in_seat1 = Q(seat1__username__iexact=player, ai_level="")
        games = games.filter(in_seat0 | in_seat1)
        if result == "win":
            games = games.filter(Q(in_seat0, winner=0) | Q(in_seat1, winner=1))
        elif result == "loss":
            games = games.filter(Q(in_seat0, winner=1) | Q(in_seat1, winner=0))
    if result == "draw":
        games = games.filter(winner__isnull=True)
    if result:
        games = games.filter(annulled=False)  # an annulled game is kept, but won by no one
    if reason:
        games = games.filter(reason=reason)
    if opponent == "person":
        games = games.filter(ai_level="")
    elif opponent == "computer":
        games = games.exclude(ai_level="")
    elif opponent:
        games = games.filter(ai_level=opponent)
    if deck:
        games = games.filter(deck=deck)
    if must_beat is not None:
        games = games.filter(must_beat=must_beat)
    if sixes_to_owner is not None:
        games = games.filter(sixes_to_owner=sixes_to_owner)
    if since:
        games = games.filter(finished_at__date__gte=since)
    if until:
        games = games.filter(finished_at__date__lte=until)
    return games.order_by("-finished_at", "-pk")


def games_of(user: object) -> QuerySet[Game]:
    """``user``'s games that are over and were dealt (finished, or aborted after the deal),
    oldest first, each with its move log in ply order."""
    return (
        Game.objects.filter(Q(seat0=user) | Q(seat1=user, ai_level=""))
        .filter(status__in=(Game.Status.FINISHED, Game.Status.ABORTED), started_at__isnull=False)
        .select_related("seat0", "seat1")
        .prefetch_related(Prefetch("moves", queryset=Move.objects.order_by("ply")))
        .order_by("pk")
    )
