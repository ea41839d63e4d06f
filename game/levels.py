"""The computer's levels named for people, in their language; the engine's ``LEVELS`` are codes
("easy" was shown as is on a Hebrew page)."""

from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

LEVEL_NAMES: dict[str, Promise] = {
    "beginner": pgettext_lazy("computer level", "beginner"),
    "easy": pgettext_lazy("computer level", "easy"),
    "medium": pgettext_lazy("computer level", "medium"),
    "hard": pgettext_lazy("computer level", "hard"),
    "perfect": pgettext_lazy("computer level", "perfect"),
}


def level_name(level: str) -> str:
    """``level`` (one of ``game.ai.LEVELS``) in the active language."""
    return str(LEVEL_NAMES[level])
