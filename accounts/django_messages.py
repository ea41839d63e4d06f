"""Django's own messages on our account pages that Django 5.2's Armenian catalogue lacks: the
sign-up and password forms showed them in English on an Armenian page.

Marked here in Django's very words, so that the extraction (``make messages``) puts them in our
catalogues, which Django reads before its own (``LOCALE_PATHS``). No code reads this tuple: it
exists for the extraction, and a test checks that Django still says each message.
"""

# Django's typographic apostrophes (U+2019), as its messages have them:
# ruff: noqa: RUF001

from django.utils.translation import gettext_noop

DJANGO_MESSAGES = (
    # django.contrib.auth.models: the username's help text
    gettext_noop("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
    # django.contrib.auth.validators.UnicodeUsernameValidator
    gettext_noop(
        "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ "
        "characters."
    ),
    # django.contrib.auth.forms: signing up, changing and resetting a password (Django's
    # Armenian has "Email" in English, and asks for the *old* password on the confirmation)
    gettext_noop("The two password fields didn’t match."),
    gettext_noop("Enter the same password as before, for verification."),
    gettext_noop("Email"),
    # django.contrib.auth.password_validation: help texts and refusals
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("Your password can’t be entirely numeric."),
)
