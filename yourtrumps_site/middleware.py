"""The site's safety nets around every view: refused inputs answered plainly, never a 500.

- :class:`RefuseNulMiddleware` answers 400 with a page saying why when the path, the query or a
  posted field holds a NUL character. No view wants one, PostgreSQL refuses them in text (a 500
  deep inside a query), and one check here covers every form and URL, today's and tomorrow's.
- :class:`NotFoundMiddleware` turns an object that does not exist (``Model.DoesNotExist`` from a
  service given an unknown id) into the site's 404, so views and services need not each catch it.
- :class:`PermissionsPolicyMiddleware` switches off browser features the site never uses.
- :class:`ErrorPagesMiddleware` shows the site's own 404 and 500 pages with ``DEBUG`` on too.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed, ObjectDoesNotExist
from django.core.handlers.exception import response_for_exception
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.urls import get_resolver
from django.utils.translation import gettext as _

NUL = "\x00"

#: Browser features the site never asks for; an empty allow-list switches each off for every
#: origin, embedded frames included.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "screen-wake-lock",
        "usb",
        "xr-spatial-tracking",
    )
)

GetResponse = Callable[[HttpRequest], HttpResponse]


def _holds_nul(data: QueryDict) -> bool:
    return any(NUL in key or any(NUL in value for value in values) for key, values in data.lists())


def request_holds_nul(request: HttpRequest) -> bool:
    """Whether the path, the query string or a posted field (name or value) holds a NUL."""
    if NUL in request.path or _holds_nul(request.GET):
        return True
    # Only a form body has fields to read; reading it here also serves the view (it is cached).
    # A malformed body raises Django's own 400 errors from here, as it would in the view.
    return request.method == "POST" and _holds_nul(request.POST)


class RefuseNulMiddleware:
    """Refuse, with a 400 page that says why, any request carrying a NUL character."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request_holds_nul(request):
            message = _(
                "The request held a NUL character (code 0), which no address or form field "
                "may contain. Please check what you typed or pasted and try again."
            )
            return render(request, "refused.html", {"message": message}, status=400)
        return self.get_response(request)


class NotFoundMiddleware:
    """Answer an unknown id's ``DoesNotExist``, wherever it escapes from, with the 404 page."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, ObjectDoesNotExist):
            return response_for_exception(request, Http404(str(exception)))
        return None


class BusyMiddleware:
    """Answer a request the database could not fit in (SQLite's writers queue for up to its
    timeout, 20 s) with a 503 that says to try again: nothing was changed, and it is the
    server's load, not the request, at fault."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not (isinstance(exception, OperationalError) and "locked" in str(exception)):
            return None
        message = _("The site is very busy and could not do that just now. Please try again.")
        response = render(request, "refused.html", {"message": message}, status=503)
        response["Retry-After"] = "5"
        return response


class PermissionsPolicyMiddleware:
    """Send :data:`PERMISSIONS_POLICY` with every response that does not set its own."""

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class ErrorPagesMiddleware:
    """With ``DEBUG`` on, answer a 404 or a 500 with the site's own page (``404.html``,
    ``500.html``), as with it off, unless ``DEBUG_ERROR_PAGES`` asks for Django's technical pages.

    Django shows its technical pages whenever ``DEBUG`` is on, whatever the URLconf's
    ``handler404`` and ``handler500`` say, and has no setting to change that. So this replaces
    Django's answer once it is made (and the error logged, as usual) with what the handler would
    have answered. The site's views answer 404 and 500 only by raising, so every such answer is
    Django's. (A 403 needs nothing: Django uses ``handler403`` with ``DEBUG`` on too.)
    """

    def __init__(self, get_response: GetResponse) -> None:
        if not settings.DEBUG or settings.DEBUG_ERROR_PAGES:
            raise MiddlewareNotUsed  # Django's own answers are then the ones wanted
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 404:
            return get_resolver().resolve_error_handler(404)(request, Http404())
        if response.status_code == 500:
            return get_resolver().resolve_error_handler(500)(request)
        return response
