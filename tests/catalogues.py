"""Message catalogues made up for tests, so that a test of the translation machinery does not
wait for (or depend on) the translators' work in locale/."""

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from yourtrumps_site.catalogues import compile_catalogue


def write_catalogue(
    locale_dir: Path,
    language: str,
    translations: dict[str | tuple[str, str], str],
    *,
    fuzzy: tuple[str, ...] = (),
) -> Path:
    """``locale_dir/<language>/LC_MESSAGES/django.po`` with ``translations`` (msgid or (context,
    msgid): msgstr; those in ``fuzzy`` marked so), compiled beside it; the .po's path."""
    catalog = Catalog(locale=language, fuzzy=False)
    for key, msgstr in translations.items():
        context, msgid = key if isinstance(key, tuple) else (None, key)
        catalog.add(msgid, msgstr, flags=("fuzzy",) if msgid in fuzzy else (), context=context)
    po = locale_dir / language / "LC_MESSAGES" / "django.po"
    po.parent.mkdir(parents=True, exist_ok=True)
    with po.open("wb") as target:
        write_po(target, catalog)
    compile_catalogue(po, po.with_suffix(".mo"))
    return po
