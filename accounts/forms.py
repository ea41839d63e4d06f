from collections.abc import Iterator
from typing import ClassVar

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.models import ChallengesFrom
from accounts.ratings import NEAR_RATING
from accounts.selectors import email_verified, is_closed_name


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
    """Django's login form, which also says plainly when an account is closed or banned."""

    error_messages: ClassVar[dict[str, object]] = {
        **AuthenticationForm.error_messages,
        "closed": _("This account was closed by its owner: no one can log in to it."),
        "banned": _("This account has been banned by the moderators."),
    }

    def clean(self) -> dict[str, object]:
        username = self.cleaned_data.get("username")
        if username and is_closed_name(username):
            raise ValidationError(self.error_messages["closed"], code="closed")
        # Otherwise only a moderator's ban makes an account inactive
        # (moderation.services.moderation_ban).
        users = get_user_model().objects
        if username and users.filter(username=username, is_active=False).exists():
            raise ValidationError(self.error_messages["banned"], code="banned")
        return super().clean()


class EmailForm(forms.Form):
    """The settings' email address: a new one, or none."""

    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        help_text=_("Only to reset a forgotten password. Leave it empty to remove it."),
    )


class ChallengesFromForm(forms.Form):
    """Whose challenges the player hears."""

    challenges_from = forms.ChoiceField(
        label=_("Who may challenge you"),
        choices=ChallengesFrom.choices,
        widget=forms.RadioSelect,
        help_text=_("Players near your rating: within %(points)s points in the game's speed.")
        % {"points": NEAR_RATING},
    )


class AccountCloseForm(forms.Form):
    """Closing one's account, confirmed with one's password."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user: AbstractBaseUser, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise ValidationError(_("That is not your password."), code="password_incorrect")
        return password


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's password reset, whose link goes only to an address its owner verified."""

    def get_users(self, email: str) -> Iterator[AbstractBaseUser]:
        return (user for user in super().get_users(email) if email_verified(user))
