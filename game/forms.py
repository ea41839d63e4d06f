"""The lobby's forms: a seek, a game against the computer, joining with a trump."""

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from game.ai import LEVELS
from game.levels import LEVEL_NAMES
from game.models import Challenge
from game.options import TIME_CONTROLS, GameOptions
from game.services import GameError

TRUMPS = [("S", _("♠ Spades")), ("H", _("♥ Hearts")), ("D", _("♦ Diamonds")), ("C", _("♣ Clubs"))]
DECKS = [
    (36, _("36 cards (6 to ace)")),
    (32, _("32 cards (7 to ace)")),
    (24, _("24 cards (9 to ace)")),
]
CLOCKS = [("", _("Untimed")), *((f"{m}+{i}", f"{m}+{i}") for m, i in TIME_CONTROLS)]


def deal_part() -> forms.CharField:
    """A player's part of the deal: random hex that ``static/js/deal-part.js`` writes as the form
    is sent. Empty without JavaScript, and anything not spelled as a part counts as none: the
    server then draws the part itself (``game.services.dealing``)."""
    return forms.CharField(
        required=False, max_length=64, widget=forms.HiddenInput(attrs={"data-deal-part": ""})
    )


class GameOptionsForm(forms.Form):
    """What every new game asks: a trump of one's own and the options it is played by, cleaned
    into one :class:`~game.options.GameOptions` (``cleaned_data["options"]``; rated where the
    form asks, else casual)."""

    trump = forms.ChoiceField(label=_("Your trump suit"), choices=TRUMPS)
    deck = forms.TypedChoiceField(label=_("Pack"), choices=DECKS, coerce=int, initial=36)
    must_beat = forms.BooleanField(
        label=_("Must beat"), required=False, help_text=_("Take only when no card beats.")
    )
    sixes_to_owner = forms.BooleanField(
        label=_("Sixes to owner"),
        required=False,
        help_text=_("36 cards: each player is handed the six of their own trump suit."),
    )
    clock = forms.ChoiceField(
        label=_("Time control (minutes + seconds a turn)"), choices=CLOCKS, required=False
    )
    part = deal_part()

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if "deck" in data and "clock" in data:
            try:
                data["options"] = GameOptions(
                    deck=data["deck"],
                    must_beat=data["must_beat"],
                    sixes_to_owner=data["sixes_to_owner"],
                    time_control=_time_control(data["clock"]),
                    rated=data.get("rated", False),
                )
            except GameError as error:  # of the choices offered, only sixes on a small pack
                self.add_error("sixes_to_owner", str(error))
        return data


def _time_control(clock: str) -> tuple[int, int] | None:
    """The lobby's ``3+2`` as (minutes, increment); ``None`` for an untimed game (``""``)."""
    if not clock:
        return None
    minutes, increment = clock.split("+")
    return int(minutes), int(increment)


class SeekForm(GameOptionsForm):
    private = forms.BooleanField(
        label=_("Private game"), required=False, help_text=_("Only those with the link can join.")
    )
    rated = forms.BooleanField(
        label=_("Rated"),
        required=False,
        initial=True,
        help_text=_("The result changes both players' ratings. Untick for a casual game."),
    )


class ComputerForm(GameOptionsForm):
    level = forms.ChoiceField(
        label=_("Computer level"),
        choices=[(level, LEVEL_NAMES[level]) for level in LEVELS],
        initial="easy",
    )


class ChallengeForm(GameOptionsForm):
    """A challenge's options: a seek's, for one opponent."""

    rated = SeekForm.declared_fields["rated"]


class DeclineForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("Reason"), choices=Challenge.DeclineReason.choices, initial="generic"
    )


class JoinForm(forms.Form):
    trump = forms.ChoiceField(label=_("Your trump suit"), choices=TRUMPS)
    part = deal_part()
