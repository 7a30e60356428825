"""Pronoun precision and recall of Hardmeier & Federico (2010) (AutoP/AutoR/AutoF, seed 000 §3.2),
counted as their scorer counts (`discomt.eval.PronounEvaluation`, run by the DiscoMT `eval.sh`).

For every occurrence of a source pronoun (the exact forms `it`/`It`, `they`/`They`: the scorer
matches those and no other spelling), C is the list of candidate words aligned to it and R the
list of reference words; the occurrence's matches are the size of the multiset intersection of
C and R (each candidate word clipped by its count among *that occurrence's* reference words, the
words compared exactly, case included). P = Σ matches / Σ |C|, R = Σ matches / Σ |R|, per
pronoun; the total line sums the pronoun lines (a pronoun with no aligned candidate word in the
whole text is left out of it, as the scorer does). Documents only group the per-document report.

`clip="document"` is cad's earlier variant, kept as an explicit option: counts are clipped per
pronoun and document (a candidate word matches any reference word of the same pronoun in the same
document), and words are lowercased.
"""

from __future__ import annotations

import logging
import os
from collections import Counter, defaultdict
from dataclasses import dataclass

from cad.core.alignment import parse_alignment
from cad.core.docs import doc_index_of_lines, read_docs
from cad.core.errors import CadError
from cad.lang.pairs import default_pair
from cad.core.textio import read_lines

log = logging.getLogger(__name__)
CLIPS = ("occurrence", "document")


@dataclass
class PRF:
    clipped: int
    candidate: int
    reference: int

    @property
    def precision(self) -> float:
        return self.clipped / self.candidate if self.candidate else 0.0

    @property
    def recall(self) -> float:
        return self.clipped / self.reference if self.reference else 0.0

    @property
    def f(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, other: "PRF") -> None:
        self.clipped += other.clipped
        self.candidate += other.candidate
        self.reference += other.reference

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f": self.f,
                "clipped": self.clipped, "candidate_words": self.candidate, "reference_words": self.reference}


def _lines(path, n: int | None = None, alignment: bool = False) -> list[str]:
    """The lines of `path`; an alignment file may end in empty lines beyond the source's (the
    scorer ignores extra alignment lines), which are dropped."""
    lines = [line.rstrip("\n") for line in read_lines(path)]
    if alignment and n is not None:
        while len(lines) > n and not lines[-1].strip():
            lines.pop()
    return lines


def _points(line: str, n_src: int, n_tgt: int, path, lineno: int, dropped: list[int]) -> list[tuple[int, int]]:
    """The alignment points of a line; points beyond either sentence are dropped and counted
    (the scorer ignores them; a malformed point is still an error)."""
    points = parse_alignment(line, None, None, str(path), lineno)
    kept = [(i, j) for i, j in points if i < n_src and j < n_tgt]
    dropped[0] += len(points) - len(kept)
    return kept


def pronoun_prf(source, reference, candidate, align_ref, align_cand, pronouns=None,
                docs: str | os.PathLike | None = None, clip: str = "occurrence",
                per_document: dict | None = None) -> dict[str, PRF]:
    """{'all': PRF, 'it': PRF, 'they': PRF, ...}. `per_document`, if given, is filled with
    {document index: {pronoun: PRF}} (the scorer's per-document recall table). `pronouns`: the
    source pronouns scored (default: those the default pair's source studies, *it* and *they*)."""
    if pronouns is None:
        pronouns = default_pair().source.cm_pronouns
    if clip not in CLIPS:
        raise CadError(f"unknown clipping {clip!r} (choose from {', '.join(CLIPS)})")
    src_lines = _lines(source)
    n = len(src_lines)
    paths = [reference, candidate, align_ref, align_cand]
    texts = [_lines(p, n, alignment=k >= 2) for k, p in enumerate(paths)]
    for p, t in zip(paths, texts):
        if len(t) != n:
            raise CadError(f"has {len(t)} lines but the source {source} has {n}", str(p), min(len(t), n) + 1)
    unit = doc_index_of_lines(read_docs(docs, n), n) if docs else [0] * n
    lower = clip == "document"
    forms = {p.lower(): p.lower() for p in pronouns}
    if not lower:
        forms = {}
        for p in pronouns:
            forms[p] = p.lower()
            forms[p[:1].upper() + p[1:]] = p.lower()
    counts: dict[tuple[str, int], PRF] = defaultdict(lambda: PRF(0, 0, 0))
    doc_cand: dict[tuple[str, int], Counter] = defaultdict(Counter)
    doc_ref: dict[tuple[str, int], Counter] = defaultdict(Counter)
    dropped = [0]
    for k in range(n):
        src = src_lines[k].split()
        ref, cand = texts[0][k].split(), texts[1][k].split()
        if lower:
            src, ref, cand = [w.lower() for w in src], [w.lower() for w in ref], [w.lower() for w in cand]
        a_ref = _points(texts[2][k], len(src), len(ref), align_ref, k + 1, dropped)
        a_cand = _points(texts[3][k], len(src), len(cand), align_cand, k + 1, dropped)
        for pos, w in enumerate(src):
            name = forms.get(w)
            if name is None:
                continue
            r = [ref[j] for i, j in a_ref if i == pos]
            c = [cand[j] for i, j in a_cand if i == pos]
            key = (name, unit[k])
            if lower:
                doc_ref[key].update(r)
                doc_cand[key].update(c)
                continue
            bag = Counter(r)
            matched = sum(min(v, bag[x]) for x, v in Counter(c).items())
            counts[key].add(PRF(matched, len(c), len(r)))
    for key, c in doc_cand.items():
        r = doc_ref[key]
        counts[key].add(PRF(sum(min(v, r[x]) for x, v in c.items()), sum(c.values()), 0))
    for key, r in doc_ref.items():
        counts[key].add(PRF(0, 0, sum(r.values())))
    if dropped[0]:
        log.warning("%d alignment point(s) beyond their sentence ignored", dropped[0])
    names = [p.lower() for p in pronouns]
    out = {name: PRF(0, 0, 0) for name in ("all", *names)}
    for (name, d), prf in counts.items():
        out[name].add(prf)
        if per_document is not None:
            per_document.setdefault(d, {}).setdefault(name, PRF(0, 0, 0)).add(prf)
    for name in names:
        if out[name].candidate:         # as the scorer: a pronoun nothing was aligned to stays out of the total
            out["all"].add(out[name])
    return out
