"""The DiscoMT 2015 / WMT 2016 cross-lingual pronoun prediction format:
`classes TAB tokens TAB source TAB target-with-REPLACE_n TAB alignment`, where REPLACE_n stands
for the translation of source token n, and the alignment links n to the placeholder."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from cad.core.alignment import parse_alignment
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines

PLACEHOLDER = re.compile(r"^REPLACE_(\d+)$")
CLASSES_2016 = ["ce", "cela", "elle", "elles", "il", "ils", "on", "OTHER"]
CLASSES_2015 = ["ce", "cela", "elle", "elles", "il", "ils", "on", "ça", "OTHER"]


@dataclass
class Item:
    line: int
    classes: list[str]
    tokens: str
    source: list[str]
    target: list[str]
    alignment: list[tuple[int, int]]
    slots: list[tuple[int, int]]         # (target position, source index) of each placeholder


def read_tsv(path: str | os.PathLike, gold: bool = False) -> list[Item]:
    p = str(path)
    items = []
    for lineno, line in enumerate(read_lines(p), 1):
        cols = line.split("\t")
        if len(cols) != 5:
            raise CadError(f"expected 5 tab-separated columns, found {len(cols)}", p, lineno)
        src, tgt = cols[2].split(), cols[3].split()
        align = parse_alignment(cols[4], len(src), len(tgt), p, lineno)
        slots = []
        for j, w in enumerate(tgt):
            m = PLACEHOLDER.match(w)
            if m:
                n = int(m.group(1))
                if n >= len(src):
                    raise CadError(f"{w} refers to source token {n}, but the source has {len(src)}", p, lineno)
                if (n, j) not in align:
                    raise CadError(f"{w} at target position {j} has no alignment point {n}-{j}", p, lineno)
                slots.append((j, n))
        classes = cols[0].split()
        if gold and len(classes) != len(slots):
            raise CadError(f"{len(classes)} classes for {len(slots)} placeholders", p, lineno)
        items.append(Item(lineno, classes, cols[1], src, tgt, align, slots))
    return items


def write_predictions(items: list[Item], predictions: list[list[str]], path: str | os.PathLike) -> None:
    with atomic_output(path) as fh:
        for it, pred in zip(items, predictions):
            align = " ".join(f"{i}-{j}" for i, j in it.alignment)
            fh.write("\t".join([" ".join(pred), "", " ".join(it.source), " ".join(it.target), align]) + "\n")
