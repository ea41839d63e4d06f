"""The message catalogues compiled for Django by Babel, a Python package: no GNU gettext needed.

``python -m yourtrumps_site.catalogues`` (run by ``make run``, ``make serve`` and ``make test``,
and by the test suite itself) writes ``locale/<lang>/LC_MESSAGES/<domain>.mo`` for every ``.po``
newer than its ``.mo``. The ``.mo`` files are built, not committed: a binary copy of each ``.po``
in git could drift from it, and would conflict whenever two people change a catalogue.

``python -m yourtrumps_site.catalogues extract`` (``make messages``) first extracts the marked
strings again into each language's ``.po`` (Django's ``makemessages``, which needs GNU gettext).
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: What ``makemessages`` leaves out, besides hidden folders (``.venv``): the tests' own strings,
#: collected static files (Django's admin) and screenshots.
IGNORED = ["tests", "staticfiles", "test-artifacts", "test-results"]


def extract_messages(languages: list[str], *, follow_links: bool = False) -> None:
    """Extract the marked strings of the templates and the Python code under the working
    folder into the catalogues of ``languages`` in ``settings.LOCALE_PATHS[0]``; with
    ``follow_links``, through folders that are symbolic links. static/js writes no words of its
    own: what a script shows comes in the templates' HTML, so there is no ``djangojs`` domain to
    extract or serve."""
    from django.core.management import call_command

    call_command(
        "makemessages",
        locale=languages,
        ignore_patterns=IGNORED,
        symlinks=follow_links,
        verbosity=0,
    )


def read_catalogue(po: Path) -> Catalog:
    """The catalogue in ``po`` (``locale/<lang>/LC_MESSAGES/<domain>.po``)."""
    with po.open("rb") as source:
        return read_po(source, locale=po.parent.parent.name)


def is_translated(string: str | tuple[str, ...]) -> bool:
    """Whether a message's translation is complete: every plural form written."""
    return all(string) if isinstance(string, tuple) else bool(string)


def compile_catalogue(po: Path, mo: Path) -> None:
    """Write ``po`` compiled to ``mo``, as GNU msgfmt would: fuzzy and incomplete entries left
    out (Django then shows the English), the header kept even when marked fuzzy."""
    catalog = read_catalogue(po)
    for message in list(catalog)[1:]:
        if message.fuzzy or not is_translated(message.string):
            # Babel would keep a plural entry with an empty form: ngettext would answer "".
            catalog.delete(message.id, message.context)
    partial = mo.with_name(mo.name + ".part")  # a running server never reads half a file
    with partial.open("wb") as target:
        write_mo(target, catalog)
    partial.replace(mo)


def compile_catalogues(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Compile each ``.po`` under ``locale_dir`` whose ``.mo`` is missing or older; the ``.mo``
    files written."""
    written = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            compile_catalogue(po, mo)
            written.append(mo)
    return written


if __name__ == "__main__":
    if sys.argv[1:] == ["extract"]:
        import os

        import django
        from django.conf import settings

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yourtrumps_site.settings")
        django.setup()
        extract_messages([code for code, _name in settings.LANGUAGES if code != "en"])
    for path in compile_catalogues():
        print(f"compiled {path.relative_to(LOCALE_DIR.parent)}")
