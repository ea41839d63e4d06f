"""The message catalogues: complete, up to date with the code, with each language's plural
rules, and compiled so that Django serves them."""

import gettext
from datetime import timedelta
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from django.conf import settings
from django.test import override_settings
from django.utils import timezone, translation

from moderation.templatetags.moderation import ago
from tests.catalogues import write_catalogue
from yourtrumps_site.catalogues import (
    IGNORED,
    LOCALE_DIR,
    extract_messages,
    is_translated,
    read_catalogue,
)

LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]  # English: the source
#: Each language's plural category (its form's index in the catalogue) for some counts, by CLDR:
#: Galician one/other; Hebrew one/two/many/other ("many": 20, 30, ... the tens above 10);
#: Armenian one for 0 and 1, other from 2.
PLURAL_FORMS = {
    "gl": {0: 1, 1: 0, 2: 1, 5: 1, 21: 1},
    "he": {0: 3, 1: 0, 2: 1, 3: 3, 10: 3, 11: 3, 19: 3, 20: 2, 30: 2, 100: 2, 101: 3},
    "hy": {0: 0, 1: 0, 2: 1, 5: 1, 21: 1},
}


def problems(catalog: Catalog) -> list[str]:
    """What keeps a catalogue from being complete: a fuzzy header or entry, a missing
    translation (or plural form), a translation whose placeholders differ from the English."""
    found = ["the header is marked fuzzy"] if catalog.fuzzy else []
    for message in list(catalog)[1:]:
        if message.fuzzy:
            found.append(f"fuzzy: {message.id!r}")
        elif not is_translated(message.string):
            found.append(f"untranslated: {message.id!r}")
    for message, errors in catalog.check():
        found.extend(f"{error}: {message.id!r}" for error in errors)
    return found


def msgids(catalog: Catalog) -> set[tuple[str | None, str]]:
    """The catalogue's messages, each as (context, English singular)."""
    return {
        (message.context, message.id if isinstance(message.id, str) else message.id[0])
        for message in list(catalog)[1:]
    }


def catalogue(language: str) -> Catalog:
    return read_catalogue(LOCALE_DIR / language / "LC_MESSAGES" / "django.po")


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> set[tuple[str | None, str]]:
    """Every string marked for translation in the code today, extracted afresh into a folder of
    its own. makemessages files what it extracts under any ``locale`` folder it finds beside the
    code, so it reads the project through links that leave locale/ out: the translators'
    catalogues are never touched."""
    top = LOCALE_DIR.parent
    tree = tmp_path_factory.mktemp("code")
    for entry in top.iterdir():
        if entry.name != "locale" and not entry.name.startswith(".") and entry.name not in IGNORED:
            (tree / entry.name).symlink_to(entry)
    out = tmp_path_factory.mktemp("extracted")
    with pytest.MonkeyPatch.context() as patch, override_settings(LOCALE_PATHS=[out]):
        patch.chdir(tree)
        extract_messages(["en"], follow_links=True)
    return msgids(read_catalogue(out / "en" / "LC_MESSAGES" / "django.po"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_catalogue_has_an_untranslated_or_fuzzy_entry(language: str) -> None:
    found = problems(catalogue(language))

    assert not found, f"{len(found)} in {language}, the first: " + "; ".join(found[:10])


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_marked_string_is_in_the_catalogues(language: str, extracted) -> None:
    known = msgids(catalogue(language))

    missing, stale = sorted(extracted - known, key=str), sorted(known - extracted, key=str)
    assert not missing, f"{len(missing)} not yet in {language} (make messages): {missing[:10]}"
    assert not stale, f"{len(stale)} in {language} no longer in the code: {stale[:10]}"


def test_the_extraction_reads_the_templates_and_the_code(extracted) -> None:
    assert {
        (None, "Skip to content"),  # templates/base.html
        (None, "Take %(n)s card"),  # a plural, in game/table_markup.py
        (None, "Beat with the %(name)s"),  # game/templatetags/cards.py
        (None, "This account has been banned by the moderators."),  # a form's error
    } <= extracted
    assert len(extracted) > 500


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_catalogue_cites_a_source_file_that_is_gone(language: str) -> None:
    """A translator follows an entry's references to see the words in place."""
    cited = {path for message in catalogue(language) for path, _line in message.locations}

    gone = sorted(path for path in cited if not (LOCALE_DIR.parent / path).is_file())
    assert not gone, f"{language} cites files that are gone (make messages): {gone}"


#: Translations a reviewer corrected (issue 44), each served as corrected.
CORRECTED = [
    (
        "gl",
        "A moderator has muted you in chat until %(until)s.",
        "Un moderador silenciounte no chat ata o %(until)s.",
    ),
    ("gl", "Claim the game", "Reclamar a vitoria"),
    ("gl", "Default", "Predeterminado"),
    ("gl", "Best:", "Mellores xogadas:"),
    ("he", "to move", "תורו לשחק"),
    ("he", "%(name)s is muted in chat.", "%(name)s הושתק בצ\N{HEBREW PUNCTUATION GERESH}אט."),
    ("he", "A turn: lead, beat or take", "מהלך: פתיחה, הכאה או לקיחה"),
    ("he", "Moderate this game", "מודרציה במשחק הזה"),
    ("hy", "Started", "Սկիզբ"),
    ("hy", "Finished", "Ավարտ"),
    ("hy", "%(name)s's record", "%(name)s-ի գործը"),
    ("hy", "Best:", "Լավագույն քայլերը."),
    (
        "hy",
        "Beat with the %(name)s, then play a second card:",
        "Խփեք\N{ARMENIAN COMMA} %(name)s, ապա դրեք երկրորդ խաղաթուղթ.",
    ),
]


@pytest.mark.parametrize(("language", "english", "corrected"), CORRECTED)
def test_the_corrected_translations_are_served(language: str, english: str, corrected: str) -> None:
    with translation.override(language):
        assert translation.gettext(english) == corrected


def test_hebrew_says_two_days_hours_and_weeks_in_the_dual() -> None:
    with translation.override("he"):
        assert translation.ngettext("%(n)d day", "%(n)d days", 2) % {"n": 2} == "יומיים"
        assert translation.ngettext("%(n)d hour", "%(n)d hours", 2) % {"n": 2} == "שעתיים"
        assert translation.ngettext("%(n)d hour", "%(n)d hours", 3) % {"n": 3} == "3 שעות"
        assert ago(timezone.now() - timedelta(weeks=2)) == "לפני שבועיים"


def test_no_hebrew_chat_is_spelled_with_an_apostrophe() -> None:
    """Hebrew marks a borrowed sound with a geresh (U+05F3), not the apostrophe."""
    chats = [m.string for m in catalogue("he") if "chat" in str(m.id).lower()]

    assert chats
    assert all("צ\N{HEBREW PUNCTUATION GERESH}אט" in string for string in chats)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_catalogue_has_its_languages_plural_rules(language: str) -> None:
    catalog = catalogue(language)
    forms = PLURAL_FORMS[language]

    assert catalog.num_plurals == max(forms.values()) + 1
    plural = gettext.c2py(catalog.plural_expr)
    assert {n: plural(n) for n in forms} == forms


def test_the_problems_found_are_fuzzy_untranslated_and_broken_placeholders(tmp_path: Path) -> None:
    po = write_catalogue(
        tmp_path,
        "gl",
        {
            "Rules": "Regras",
            "Games": "",
            "Play": "Xogar",
            "%(name)s's hand": "A man de %(nome)s",
        },
        fuzzy=("Play",),
    )

    assert problems(read_catalogue(po)) == [
        "untranslated: 'Games'",
        "fuzzy: 'Play'",
        "unknown named placeholder 'nome': \"%(name)s's hand\"",
    ]


def test_django_serves_a_compiled_catalogue_and_english_for_what_it_lacks(tmp_path: Path) -> None:
    write_catalogue(
        tmp_path, "gl", {"Rules": "Regras", "Games": "Partidas [dubidosa]"}, fuzzy=("Games",)
    )

    with override_settings(LOCALE_PATHS=[tmp_path]), translation.override("gl"):
        assert translation.gettext("Rules") == "Regras"
        assert translation.gettext("Games") == "Games"  # fuzzy: English, as msgfmt would
