"""The link that proves an email address is a player's: a token signed with the site's secret
key (``django.core.signing``), naming the user and the address, valid for :data:`MAX_AGE`."""

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.core import signing

#: Keeps these tokens apart from any other value the site signs.
SALT = "accounts.email-verification"
MAX_AGE = timedelta(days=3)


def make_token(user: AbstractBaseUser, email: str) -> str:
    """A token for the link that proves ``email`` is ``user``'s."""
    return signing.dumps([user.pk, email], salt=SALT)


def read_token(token: str) -> tuple[int, str]:
    """The user's id and the address a token names. Raises ``signing.SignatureExpired`` for a
    token older than :data:`MAX_AGE`, ``signing.BadSignature`` for one that was altered or is
    not ours."""
    user_id, email = signing.loads(token, salt=SALT, max_age=MAX_AGE)
    return int(user_id), str(email)
