"""An experiment's work directory (`PREFIX.work/`): each system's decoded outputs kept as soon as
they are done, under a key of everything they depend on (model, tables, input, coreference,
grid), so that an interrupted experiment resumes after its last finished system; BL's n-best
lists, the longest stage, kept as gzipped JSON (not a pickle: loading runs no code)."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cad.core.textio import atomic_output
from cad.decoder.serialize import translation_from_dict, translation_to_dict
from cad.moses.ini import parse_config

log = logging.getLogger(__name__)


@dataclass
class SystemRun:
    name: str
    # weight (a number, or a two-valued CoreferenceModel's pair) -> one line per sentence
    outputs: dict[float | tuple[float, ...], list[str]] = field(default_factory=dict)
    alignments: dict[float | tuple[float, ...], list[str]] = field(default_factory=dict)
    seconds: float = 0.0
    chosen: dict[str, float | tuple[float, ...]] = field(default_factory=dict)     # fold -> tuned weight


def weight_text(w: float | tuple[float, ...]) -> str:
    """A grid weight as the work files keep it: a number, or a two-valued CoreferenceModel's
    form and gender weights joined by ':'."""
    return ":".join(str(x) for x in w) if isinstance(w, tuple) else str(w)


def parse_weight(text: str) -> float | tuple[float, ...]:
    return tuple(float(x) for x in text.split(":")) if ":" in text else float(text)


def weight_size(w: float | tuple[float, ...]) -> float:
    """What ties between weights are broken by (the smaller wins): the weight, or the pair's sum."""
    return sum(w) if isinstance(w, tuple) else w


def write_lines(path: Path, lines: list[str]) -> str:
    with atomic_output(path) as fh:
        fh.writelines(x + "\n" for x in lines)
    return str(path)


def slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")


def bl_key(config: str, sentences: list[str], nbest: int) -> str:
    h = hashlib.sha256()
    for path in [config] + [f.path for f in parse_config(config).features if f.path]:
        st = os.stat(path)
        h.update(f"{os.path.abspath(path)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    h.update(f"nbest={nbest}\n".encode())
    h.update("\n".join(sentences).encode())
    return h.hexdigest()


def file_key(path: str) -> str:
    st = os.stat(path)
    return f"{os.path.abspath(path)}:{st.st_size}:{st.st_mtime_ns}"


def stage(work: Path, name: str, key: str, compute: Callable[[], SystemRun]) -> SystemRun:
    """A decoded system from an earlier run with the same key, or computed and kept."""
    path = work / f"{slug(name)}.json"
    if path.exists():
        with open(path, encoding="utf-8") as fh:
            saved = json.load(fh)
        if saved.get("key") == key:
            log.info("%s: the outputs of an earlier run (%s)", name, path)
            return SystemRun(name, {parse_weight(w): v for w, v in saved["outputs"].items()},
                             {parse_weight(w): v for w, v in saved["alignments"].items()}, saved["seconds"])
    run = compute()
    with atomic_output(path) as fh:
        json.dump({"key": key, "outputs": {weight_text(w): v for w, v in run.outputs.items()},
                   "alignments": {weight_text(w): v for w, v in run.alignments.items()}, "seconds": run.seconds}, fh)
    return run


def cached_bl(work: Path, config: str, sentences: list[str], nbest: int):
    """BL's translations from an earlier run on the same model, input and n-best size, or (None, 0)."""
    path = work / "bl.json.gz"
    if not path.exists():
        return None, 0.0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            saved = json.load(fh)
        if saved.get("key") != bl_key(config, sentences, nbest):
            return None, 0.0
        return [translation_from_dict(d) for d in saved["translations"]], float(saved["seconds"])
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        log.warning("%s: unreadable (%s); BL is decoded again", path, exc)
        return None, 0.0


def save_bl(work: Path, config: str, sentences: list[str], nbest: int, trs, seconds: float) -> None:
    with atomic_output(work / "bl.json.gz", compress=True) as fh:
        json.dump({"key": bl_key(config, sentences, nbest), "seconds": seconds,
                   "translations": [translation_to_dict(tr) for tr in trs]}, fh)
