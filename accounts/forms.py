from typing import ClassVar

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _


class SignUpForm(UserCreationForm):
    """A username and a password (twice); an email address only if the player wants one."""

    email = forms.EmailField(
        label=_("Email (optional)"),
        required=False,
        help_text=_("Only to recover a forgotten password."),
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")


class LoginForm(AuthenticationForm):
    """Django's login form, which also says plainly when an account is banned."""

    error_messages: ClassVar[dict[str, object]] = {
        **AuthenticationForm.error_messages,
        "banned": _("This account has been banned by the moderators."),
    }

    def clean(self) -> dict[str, object]:
        # Only a moderator's ban makes an account inactive (moderation.services.moderation_ban).
        username = self.cleaned_data.get("username")
        users = get_user_model().objects
        if username and users.filter(username=username, is_active=False).exists():
            raise ValidationError(self.error_messages["banned"], code="banned")
        return super().clean()
