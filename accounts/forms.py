from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
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
