"""Pronoun precision and recall of Hardmeier & Federico (2010) (AutoP/AutoR/AutoF, seed 000 §3.2).

For every source pronoun, C collects the candidate words aligned to it and R the reference words;
within each unit (a document of the boundary file, else a sentence) a candidate word's count is
clipped by its count in the reference: P = Σ c_clip / |C|, R = Σ c_clip / |R|.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import dataclass

from cad.align.alignment import parse_alignment
from cad.docs import doc_index_of_lines, read_docs
from cad.errors import CadError
from cad.textio import read_lines


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

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f": self.f,
                "clipped": self.clipped, "candidate_words": self.candidate, "reference_words": self.reference}


def pronoun_prf(source, reference, candidate, align_ref, align_cand, pronouns=("it", "they"),
                docs: str | os.PathLike | None = None) -> dict[str, PRF]:
    """{'all': PRF, 'it': PRF, 'they': PRF, ...}."""
    paths = [source, reference, candidate, align_ref, align_cand]
    texts = [[line.strip() for line in read_lines(p)] for p in paths]
    n = len(texts[0])
    for p, t in zip(paths, texts):
        if len(t) != n:
            raise CadError(f"has {len(t)} lines but the source has {n}", str(p), min(len(t), n) + 1)
    unit = doc_index_of_lines(read_docs(docs, n), n) if docs else list(range(n))
    cand_words: dict[tuple[str, int], Counter] = defaultdict(Counter)
    ref_words: dict[tuple[str, int], Counter] = defaultdict(Counter)
    for k in range(n):
        src = texts[0][k].lower().split()
        ref, cand = texts[1][k].lower().split(), texts[2][k].lower().split()
        a_ref = parse_alignment(texts[3][k], len(src), len(ref), str(align_ref), k + 1)
        a_cand = parse_alignment(texts[4][k], len(src), len(cand), str(align_cand), k + 1)
        for pos, w in enumerate(src):
            if w not in pronouns:
                continue
            for key in ((w, unit[k]), ("all", unit[k])):
                ref_words[key].update(ref[j] for i, j in a_ref if i == pos)
                cand_words[key].update(cand[j] for i, j in a_cand if i == pos)
    out = {name: PRF(0, 0, 0) for name in ("all", *pronouns)}
    for (name, _), c in cand_words.items():
        r = ref_words[(name, _)]
        out[name].clipped += sum(min(v, r[w]) for w, v in c.items())
        out[name].candidate += sum(c.values())
    for (name, _), r in ref_words.items():
        out[name].reference += sum(r.values())
    return out
