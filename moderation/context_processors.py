"""Template context on every page: the warnings a user has still to acknowledge."""

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from moderation.selectors import pending_warnings


def moderation(request: HttpRequest) -> dict[str, object]:
    # Lazy: read only by the pages that show it (base.html, for a logged-in user).
    return {"pending_warnings": SimpleLazyObject(lambda: pending_warnings(request.user))}
