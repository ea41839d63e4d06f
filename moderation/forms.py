"""Forms: a player's report, a moderator's reason (and a mute's duration), the log's filter."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from moderation import actions
from moderation.actions import Action
from moderation.models import Report
from moderation.services import MUTE_DURATIONS


class ReportForm(forms.Form):
    reason = forms.ChoiceField(label=_("Reason"), choices=Report.Reason.choices)
    text = forms.CharField(
        label=_("What happened"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("The moderators read this: say what you saw, and when."),
    )


class ReasonForm(forms.Form):
    """Every moderator's action asks why; the answer goes into the moderation log."""

    reason = forms.CharField(
        label=_("Reason"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=_("Recorded in the moderation log."),
    )


def _duration_label(seconds: int) -> str:
    """``15 minutes``, ``1 hour``, ``7 days``: in the language of the request that asks."""
    if seconds % 86400 == 0:
        days = seconds // 86400
        return ngettext("%(n)d day", "%(n)d days", days) % {"n": days}
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}
    minutes = seconds // 60
    return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}


class MuteForm(ReasonForm):
    duration = forms.TypedChoiceField(
        label=_("Mute chat for"),
        coerce=lambda seconds: timedelta(seconds=int(seconds)),
        choices=(),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # Labels built per form, so that they follow the request's language.
        self.fields["duration"].choices = [
            (int(d.total_seconds()), _duration_label(int(d.total_seconds())))
            for d in MUTE_DURATIONS
        ]
        self.order_fields(["duration", "reason"])


def action_form(action: Action, data: Any = None, *, prefix: str | None = None) -> ReasonForm:
    """The form ``action`` is asked on: a reason, and how long for a mute."""
    return (MuteForm if action.duration else ReasonForm)(data, prefix=prefix)


class LogFilterForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("Action"), required=False, choices=[("", _("any")), *actions.CHOICES]
    )
    moderator = forms.CharField(label=_("Moderator"), required=False)
    user = forms.CharField(label=_("On user"), required=False)
    game = forms.IntegerField(label=_("Game"), required=False, min_value=1)
