"""Pronoun-prediction instances from a word-aligned parallel corpus, in the DiscoMT 2015 format
(`classes TAB tokens TAB source TAB target-with-REPLACE_n TAB alignment`) or the WMT 2016 variant
(target words as `lemma|POS`, ça merged into cela).

The organisers' extraction script is not public; these rules were read off the shared dev file
and regenerate all 747 of its instances with their classes and words (see docs/usage.md, `cad plm make-data`):
- every source token it/they, whatever its case, is an instance;
- of the target words aligned to it, one is replaced by REPLACE_n (n: the source index): the
  leftmost that is a class form (c'/ce, ça/ca, cela, il, ils, elle, elles, on; for *they*
  il/elle count only when no plural form is aligned, for *it* ils/elles only when no singular
  one is, and the full form *ce* last), else the leftmost aligned word (class OTHER); the
  other aligned words stay in the text;
- nothing aligned: a REPLACE_n is inserted (after the words aligned to the previous source
  word, else before those of the next, else beside the nearest aligned neighbour), its class
  OTHER, its word NONE, with an alignment point n-j;
- a line where a pronoun is aligned to an inverted clitic (*pensent-ils*) is passed through
  with no instance;
- `tokens` keeps the replaced words as written; classes follow the placeholders' target order.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass

from cad.core.alignment import parse_alignment
from cad.core.textio import atomic_output, read_parallel
from cad.plm.task import source_pronouns, target_pipeline

CLASS_OF = {"c'": "ce", "ce": "ce", "ça": "ça", "ca": "ça", "cela": "cela", "il": "il", "ils": "ils",
            "elle": "elle", "elles": "elles", "on": "on"}
WRONG_NUMBER = {"it": {"ils", "elles"}, "they": {"il", "elle"}}
INVERTED_CLITIC = re.compile(r"-(t-)?(il|ils|elle|elles|on|nous|vous|je|tu)$", re.IGNORECASE)
NONE_TOKEN = "NONE"


@dataclass
class Line:
    classes: list[str]
    tokens: list[str]
    source: list[str]
    target: list[str]
    alignment: list[tuple[int, int]]

    def tsv(self) -> str:
        return "\t".join([" ".join(self.classes), " ".join(self.tokens), " ".join(self.source),
                          " ".join(self.target), " ".join(f"{i}-{j}" for i, j in self.alignment)])


def word_class(word: str, classes_2016: bool = False) -> str:
    c = CLASS_OF.get(word.lower(), "OTHER")
    return "cela" if classes_2016 and c == "ça" else c


def _replaced(pronoun: str, aligned: list[int], target: list[str]) -> int:
    forms = [j for j in aligned if target[j].lower() in CLASS_OF]
    forms = [j for j in forms if target[j].lower() not in WRONG_NUMBER[pronoun]] or forms
    forms = [j for j in forms if target[j].lower() != "ce"] or forms
    return (forms or aligned)[0]


def _insertion_point(i: int, s2t: dict[int, list[int]], n_src: int, n_tgt: int) -> int:
    if s2t.get(i - 1):
        return max(s2t[i - 1]) + 1
    if s2t.get(i + 1):
        return min(s2t[i + 1])
    left = next((p for p in range(i - 1, -1, -1) if s2t.get(p)), None)
    if left is not None:
        return max(s2t[left]) + 1
    right = next((q for q in range(i + 1, n_src) if s2t.get(q)), None)
    return min(s2t[right]) if right is not None else n_tgt


def make_line(source: list[str], target: list[str], alignment: list[tuple[int, int]],
              classes_2016: bool = False) -> Line:
    s2t: dict[int, list[int]] = defaultdict(list)
    for i, j in alignment:
        s2t[i].append(j)
    for js in s2t.values():
        js.sort()
    replace: dict[int, int] = {}          # target position -> source index
    inserts: list[tuple[int, int]] = []   # (position in the original target, source index)
    for i, w in enumerate(source):
        pronoun = w.lower()
        if pronoun not in source_pronouns():
            continue
        aligned = s2t.get(i, [])
        if not aligned:
            inserts.append((_insertion_point(i, s2t, len(source), len(target)), i))
            continue
        if any(INVERTED_CLITIC.search(target[j]) for j in aligned):
            return Line([], [], source, target, list(alignment))
        free = [j for j in aligned if j not in replace]
        if free:
            replace[_replaced(pronoun, free, target)] = i
    at: dict[int, list[int]] = defaultdict(list)
    for pos, i in sorted(inserts):
        at[pos].append(i)
    out: list[str] = []
    classes: list[str] = []
    tokens: list[str] = []
    moved: dict[int, int] = {}
    added: list[tuple[int, int]] = []
    for j in range(len(target) + 1):
        for i in at.get(j, []):
            added.append((i, len(out)))
            classes.append("OTHER")
            tokens.append(NONE_TOKEN)
            out.append(f"REPLACE_{i}")
        if j == len(target):
            break
        moved[j] = len(out)
        if j in replace:
            classes.append(word_class(target[j], classes_2016))
            tokens.append(target[j])
            out.append(f"REPLACE_{replace[j]}")
        else:
            out.append(target[j])
    return Line(classes, tokens, source, out, sorted([(i, moved[j]) for i, j in alignment] + added))


def lemma_pos_target(lines: list[Line]) -> None:
    """WMT 2016: every target word but the placeholders as `lemma|POS` (spaCy's French model)."""
    from spacy.tokens import Doc

    nlp = target_pipeline(lemmas=True)
    words = [[w if not w.startswith("REPLACE_") else "ce" for w in ln.target] for ln in lines]
    for ln, doc in zip(lines, nlp.pipe(Doc(nlp.vocab, words=ws) for ws in words)):
        ln.target = [w if w.startswith("REPLACE_") else f"{t.lemma_ or w}|{t.pos_}" for w, t in zip(ln.target, doc)]


def make_data(src: str | os.PathLike, tgt: str | os.PathLike, align: str | os.PathLike, out: str | os.PathLike,
              wmt2016: bool = False) -> dict[str, int]:
    """Write one TSV line per sentence pair (the format has no document column: a .docs file of
    the corpus applies to the output as it is); returns counts (lines, instances, per class)."""
    lines: list[Line] = []
    for lineno, (s, t, a) in read_parallel([src, tgt, align]):
        ss, tt = s.split(), t.split()
        lines.append(make_line(ss, tt, parse_alignment(a, len(ss), len(tt), str(align), lineno), wmt2016))
    if wmt2016:
        lemma_pos_target(lines)
    counts: dict[str, int] = {"lines": len(lines), "instances": 0}
    with atomic_output(out) as fh:
        for ln in lines:
            fh.write(ln.tsv() + "\n")
            counts["instances"] += len(ln.classes)
            for c in ln.classes:
                counts[c] = counts.get(c, 0) + 1
    return counts
