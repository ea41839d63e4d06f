"""A player's games on their profile (``accounts/profile.html``): accounts knows nothing of the
games, so the profile's template asks for them here."""

from __future__ import annotations

from django import template

from game.selectors import player_record, recent_games

register = template.Library()


@register.inclusion_tag("game/_player_games.html")
def player_games(player: object) -> dict[str, object]:
    """``player``'s record (played, won, drawn, lost) and their recent games."""
    return {"player": player, "record": player_record(player), "games": recent_games(player)}
