"""Restrict a model's phrase and reordering tables to the phrases of an input text, as Moses's
filter-model-given-input.pl does, and write a self-contained moses.ini beside them."""

from __future__ import annotations

import copy
import logging
import os
from pathlib import Path

from cad.moses.binarized import PHRASE_MAGIC, REORDERING_MAGIC, magic_of
from cad.moses.ini import MosesConfig, parse_config, write_config
from cad.core.textio import atomic_output, read_lines

log = logging.getLogger(__name__)

FILTERED_TYPES = ("PhraseDictionaryMemory", "LexicalReordering")


def input_phrases(path: str | os.PathLike, max_len: int) -> set[str]:
    phrases: set[str] = set()
    for line in read_lines(path):
        toks = line.split()
        for i in range(len(toks)):
            for j in range(i + 1, min(len(toks), i + max_len) + 1):
                phrases.add(" ".join(toks[i:j]))
    return phrases


def filter_table(table: str, out: Path, phrases: set[str]) -> tuple[int, int]:
    kept = total = 0
    with atomic_output(out) as fh:
        for line in read_lines(table):
            total += 1
            if line.split(" ||| ", 1)[0] in phrases:
                fh.write(line + "\n")
                kept += 1
    return kept, total


def filter_model(config: str | os.PathLike, input_text: str | os.PathLike, out_dir: str | os.PathLike,
                 max_len: int = 7) -> MosesConfig:
    cfg = parse_config(config)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    phrases = input_phrases(input_text, max_len)
    new = copy.deepcopy(cfg)
    new.source = str(out_dir / "moses.ini")
    for k, f in enumerate(new.features):
        path = f.path
        if path is None:
            continue
        if f.type in FILTERED_TYPES and magic_of(path) not in (PHRASE_MAGIC, REORDERING_MAGIC):
            name = Path(path).name
            if not name.endswith(".gz"):
                name += ".gz"
            target = out_dir / f"{k}.{name}"
            kept, total = filter_table(path, target, phrases)
            log.info("%s: kept %d of %d lines", f.name, kept, total)
            f.args["path"] = str(target.resolve())
        else:
            f.args["path"] = str(Path(path).resolve())
    write_config(new, out_dir / "moses.ini")
    return new
