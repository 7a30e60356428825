import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CAD_SHARED_DATA", REPO.parent / "shared" / "data"))
# The real Moses, a test tool and not a dependency of cad: cad finds it through $MOSES (or PATH), so
# the tests point $MOSES at the shared build (../shared/tools/moses, its README) unless it is set;
# the tests that need it skip where neither is there
MOSES_BUILD = REPO.parent / "shared" / "tools" / "moses" / "bin" / "moses"
if not os.environ.get("MOSES") and MOSES_BUILD.is_file():
    os.environ["MOSES"] = str(MOSES_BUILD)
NO_MOSES = f"no Moses binary: neither $MOSES, moses on PATH nor the shared build {MOSES_BUILD}"


@pytest.fixture
def shared_data() -> Path:
    if not (SHARED / "en-fr" / "train.en").exists():
        pytest.skip(f"shared data not found at {SHARED} (set CAD_SHARED_DATA)")
    return SHARED


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def lexicons(monkeypatch):
    """Debian's French noun lexicon and English-French dictionary (`make resources`), with the
    default gender sources; skips with a message where they are absent."""
    from cad.core.errors import CadError
    from cad.downloads import debian

    for package in (debian.HUNSPELL_FR, debian.FREEDICT_ENG_FRA):
        try:
            debian.package_files(package)
        except CadError:
            pytest.skip(f"the Debian package {package} is not installed or extracted (`make resources`)")
    monkeypatch.delenv("CAD_GENDER_SOURCES", raising=False)


def _chromium() -> str | None:
    for name in (os.environ.get("CAD_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        path = name and shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through Playwright, for the pages of cad view and cad serve; skips with a
    message where either is missing."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (pip install playwright==1.65.2, in the test extras): "
                    "the browser tests are skipped")
    path = _chromium()
    if path is None:
        pytest.skip("no Chromium found (apt-get install chromium, which `make install` does as root; or set "
                    "CAD_CHROMIUM): the browser tests are skipped")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def parser():
    """spaCy's English parse as the constructions and roles read it (coref/english/roles.py); skips
    with a message where the model is not installed."""
    pytest.importorskip("spacy")
    from cad.core.errors import CadError
    from coref.english.roles import _parser

    try:
        return _parser()
    except (CadError, OSError):
        pytest.skip("spaCy's English model is not installed (make install)")
