"""A served translation as `cad view` shows it: the same page (its pronoun marks, arrows and
cards), built by cad/view from the files `cad translate --tokens-out --alignment-out --trace`
would write, so that what the page says of a pronoun is what `cad view` says of it."""

from __future__ import annotations

import tempfile
from pathlib import Path

from cad.moses.ini import parse_config
from cad.serve.engine import EngineSettings, Served
from cad.translate.trace import trace_json
from cad.view.build import ViewInputs, build_view
from cad.view.inputs import SystemSpec
from cad.defaults import CM_IMPLICIT_MODEL
from cad.view.page import render_page


def class_table(settings: EngineSettings) -> str | None:
    """The class CM the configuration's CoreferenceModel feature reads, for the cards' class
    distribution (the classifier CM has no table `cad view` reads)."""
    if settings.source_features:
        return None
    for f in parse_config(settings.config).features:
        if f.type == "CoreferenceModel" and f.args.get("model", CM_IMPLICIT_MODEL) == "table" and f.args.get("path"):
            path = Path(f.args["path"])
            if not path.is_absolute():
                path = Path(settings.config).parent / path
            return str(path) if path.is_file() else None
    return None


def system_name(settings: EngineSettings) -> str:
    return f"CM-{settings.mode}" if settings.system == "cm" else settings.system


def _write(path: Path, lines) -> str:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(x + "\n" for x in lines)
    return str(path)


def view_page(got: Served, settings: EngineSettings, classes: str | None,
              title: str = "The pronouns") -> str | None:
    """The `cad view` page of one served document (None for a document without a word)."""
    if not any(got.source_tokens):
        return None
    lang = "es-en" if settings.src == "es" else "en-fr"
    with tempfile.TemporaryDirectory(prefix="cad-serve-view-") as tmp:
        d = Path(tmp)
        spec = SystemSpec(system_name(settings), _write(d / "tok", got.lines.tokens),
                          _write(d / "align", got.lines.alignments),
                          _write(d / "trace", (trace_json(tr) for tr in got.lines.traces)))
        data = build_view(ViewInputs(_write(d / "src", (" ".join(t) for t in got.source_tokens)), [spec],
                                     lang=lang, classes=classes, title=title))
    return render_page(data)
