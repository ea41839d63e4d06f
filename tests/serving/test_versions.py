"""The frameworks whose code the serving package patches are the releases it was written
against: an upgrade fails here until each patch has been read against the new code."""

from importlib.metadata import version

import pytest

from yourtrumps_site.serving import WRITTEN_AGAINST


@pytest.mark.parametrize(("package", "written_against"), sorted(WRITTEN_AGAINST.items()))
def test_the_installed_release_is_the_one_the_serving_code_was_written_against(
    package: str, written_against: str
) -> None:
    installed = version(package)
    assert installed == written_against, (
        f"{package} {installed} is installed; yourtrumps_site/serving was written against "
        f"{written_against}. Read each patch of it (serving/README.md) against the new code, "
        "measure, then update WRITTEN_AGAINST."
    )


def test_every_patched_package_is_pinned_in_the_lock_file() -> None:
    from pathlib import Path

    lock = (Path(__file__).resolve().parents[2] / "requirements" / "run.txt").read_text()
    for package, written_against in WRITTEN_AGAINST.items():
        assert f"\n{package}=={written_against}\n" in lock, package
