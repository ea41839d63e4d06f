"""The archive's forms: its filters, and a game record to import."""

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from archive import records
from game.ai import LEVELS
from game.engine import fairness
from game.forms import DECKS
from game.levels import level_name
from game.models import Game

#: Ways a game can end without being played to a result: not in the archive.
UNPLAYED = (Game.Reason.ABORTED, Game.Reason.CANCELLED)

ANY = [("", _("any"))]
YES_NO = [*ANY, ("yes", _("yes")), ("no", _("no"))]


def opponents() -> list[tuple[str, str]]:
    """The archive's opponent filter, named when a form is shown: formatted at import, "the
    computer: %(level)s" stayed English for good."""
    return [
        *ANY,
        ("person", _("a person")),
        ("computer", _("the computer (any level)")),
        *((level, _("the computer: %(level)s") % {"level": level_name(level)}) for level in LEVELS),
    ]


ENDINGS = [
    *ANY,
    *((reason.value, reason.label) for reason in Game.Reason if reason not in UNPLAYED),
]


class ArchiveForm(forms.Form):
    """The archive's filters; every one may be left empty."""

    player = forms.CharField(label=_("Player"), required=False, max_length=150)
    result = forms.ChoiceField(
        label=_("Result"),
        required=False,
        choices=[*ANY, ("win", _("won")), ("draw", _("drawn")), ("loss", _("lost"))],
        help_text=_("Won or lost by the player named."),
    )
    reason = forms.ChoiceField(label=_("Ended by"), required=False, choices=ENDINGS)
    opponent = forms.ChoiceField(label=_("Against"), required=False, choices=opponents)
    deck = forms.TypedChoiceField(
        label=_("Pack"), required=False, choices=[*ANY, *DECKS], coerce=int, empty_value=None
    )
    must_beat = forms.ChoiceField(label=_("Must beat"), required=False, choices=YES_NO)
    sixes_to_owner = forms.ChoiceField(label=_("Sixes to owner"), required=False, choices=YES_NO)
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("result") in ("win", "loss") and not data.get("player"):
            self.add_error("result", _("Name a player to see the games they won or lost."))
        return data

    def filters(self) -> dict[str, Any]:
        """The filters given, as :func:`archive.selectors.archive` takes them."""
        data = self.cleaned_data
        flags = {"yes": True, "no": False}
        return {
            "player": data["player"] or None,
            "result": data["result"] or None,
            "reason": data["reason"] or None,
            "opponent": data["opponent"] or None,
            "deck": data["deck"],
            "must_beat": flags.get(data["must_beat"]),
            "sixes_to_owner": flags.get(data["sixes_to_owner"]),
            "since": data["since"],
            "until": data["until"],
        }


class RecordForm(forms.Form):
    """A game record to import: pasted, or uploaded as a text file."""

    text = forms.CharField(
        label=_("Paste a record"),
        required=False,
        max_length=records.MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
    )
    file = forms.FileField(label=_("or upload a .txt file"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        if upload is not None:
            if upload.size > records.MAX_LENGTH:
                raise forms.ValidationError(_("That file is too large to be a game record."))
            try:
                data["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise forms.ValidationError(_("That file is not UTF-8 text.")) from None
            # A pasted record meets CharField's own NUL check; an uploaded one must meet this.
            if "\x00" in data["text"]:
                raise forms.ValidationError(
                    _("That file holds a NUL character (code 0): it is not a game record.")
                )
        if not data.get("text", "").strip():
            raise forms.ValidationError(_("Paste a record or choose a file."))
        try:
            records.parse(data["text"])
        except records.RecordError as error:
            if error.line:
                message = _("Line %(line)s: %(problem)s") % {
                    "line": error.line,
                    "problem": error.problem,
                }
            else:
                message = error.problem
            raise forms.ValidationError(message) from None
        return data


def _deal_part(label: str) -> forms.RegexField:
    return forms.RegexField(
        label=label,
        regex=fairness.PART,
        max_length=64,
        error_messages={"invalid": _("Write 32 to 64 lowercase hexadecimal digits.")},
        widget=forms.TextInput(attrs={"spellcheck": "false", "autocomplete": "off"}),
    )


class DealPartsForm(forms.Form):
    """Three parts of a deal pasted in (the deal page): dealt with the game's trumps and rules."""

    secret = _deal_part(_("The server's secret"))
    part0 = _deal_part(_("Part of seat 0"))
    part1 = _deal_part(_("Part of seat 1"))

    def parts(self) -> tuple[str, str, str]:
        data = self.cleaned_data
        return data["secret"], data["part0"], data["part1"]
