"""APT, the accuracy of pronoun translation (Miculicich Werlen & Popescu-Belis 2017, seed 000).

Each source pronoun yields a triple (source pronoun, reference words, candidate words) through the
word alignments; after the pronoun-specific alignment heuristics (§2.3) each triple falls in one of
six cases: 1 identical, 2 equivalent, 3 different, 4 candidate not found, 5 reference not found,
6 both not found. APT = Σ w_i n_i / Σ n_i over the cases used.

Semantics follow the original tool (github.com/idiap/APT) where the paper is silent: words are
lowercased; a source pronoun is any token in the source list; its words are all target tokens
aligned to it; with a target list, an occurrence's words are those in the list, or OTHER; identical
means the (equal-group normalized) word sets intersect, ignoring OTHER unless count_OTHER_as_equal;
equivalent means both sets meet one `similar` group.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from cad.core.alignment import parse_alignment
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines
from cad.lang import NONE, OTHER

CASE_NAMES = {1: "identical", 2: "equivalent", 3: "different", 4: "candidate not found",
              5: "reference not found", 6: "both not found"}


@dataclass
class AptSettings:
    source_pronouns: list[str]
    target_list: list[str] | None = None          # None: every word is its own class
    equal: list[list[str]] = field(default_factory=list)
    similar: list[list[str]] = field(default_factory=list)
    source_dict: list[str] = field(default_factory=list)   # for the alignment heuristics
    target_dict: list[str] = field(default_factory=list)
    cases: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6])
    weights: list[float] = field(default_factory=lambda: [1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    count_other: bool = False
    source_sep: str | None = None
    target_sep: str | None = None
    count_multiword: bool = False
    max_matrix: int = 10
    # §2.3: "one word before the first marker and one after the second one"
    range_margin: int = 1
    improve_alignment: bool = True

    def weight(self, case: int) -> float:
        return self.weights[self.cases.index(case)]

    def resolved(self) -> AptSettings:
        """These settings with one weight per case used: six weights given for fewer cases are each
        case's own (a copy; these settings are not changed)."""
        if len(self.weights) == 6 and len(self.cases) != 6:
            return dataclasses.replace(self, weights=[self.weights[c - 1] for c in self.cases])
        return self


@dataclass
class Side:
    """What one translation (reference or candidate) has for a source pronoun."""

    positions: list[int]
    tokens: list[str]
    words: list[str]      # classified: list members or OTHER (without a list: the tokens)


@dataclass
class Occurrence:
    sentence: int          # 0-based
    position: int
    token: str
    pronoun: str           # the source-list word found in the token
    ref: Side | None
    cand: Side | None
    case: int = 0
    ref_axis: list[str] = field(default_factory=list)
    cand_axis: list[str] = field(default_factory=list)
    improved_ref: bool = False
    improved_cand: bool = False


@dataclass
class AptResult:
    settings: AptSettings
    occurrences: list[Occurrence]
    counts: dict[int, int]
    labels: list[str]
    matrix: list[list[int]]

    @property
    def score(self) -> float:
        total = sum(self.counts[c] for c in self.settings.cases)
        if total == 0:
            return math.nan
        return sum(self.settings.weight(c) * self.counts[c] for c in self.settings.cases) / total

    def accuracy(self, cases=(1,)) -> float:
        total = sum(self.counts[c] for c in self.settings.cases)
        return sum(self.counts[c] for c in cases) / total if total else math.nan


def _split(token: str, sep: str | None) -> list[str]:
    return token.split(sep) if sep else [token]


def classify(tokens: list[str], s: AptSettings) -> list[str]:
    if s.target_list is None:
        return list(tokens)
    words = []
    for tok in tokens:
        for sub in _split(tok, s.target_sep):
            if sub in s.target_list:
                words.append(sub)
                break
    return words or [OTHER]


def find_source_pronouns(sent: list[str], s: AptSettings) -> list[tuple[int, str, str]]:
    found = []
    for pos, tok in enumerate(sent):
        for sub in _split(tok, s.source_sep):
            if sub in s.source_pronouns:
                found.append((pos, tok, sub))
                break
    return found


def improve(side: Side | None, pos: int, src: list[str], tgt: list[str], align: list[tuple[int, int]],
            s: AptSettings) -> Side | None:
    """The four steps of §2.3 / Table 1. Returns the side unchanged when nothing applies."""
    if not s.target_dict:
        return side
    tokens = side.tokens if side else []
    if any(t.split("-")[-1] in s.target_dict or t in s.target_dict for t in tokens):
        return side            # step 1: a pronoun is among the aligned words
    if side and side.positions:
        markers = side.positions
    else:
        # step 1: markers are the alignments of the neighbouring source words
        markers = sorted({j for i, j in align if i in (pos - 1, pos + 1)})
    if not markers:
        return side
    lo = max(min(markers) - s.range_margin, 0)                    # step 2
    hi = min(max(markers) + s.range_margin, len(tgt) - 1)
    source_of = {}
    for i, j in align:
        source_of.setdefault(j, []).append(i)
    center = (lo + hi) / 2
    best = None
    for p in range(lo, hi + 1):                                   # step 3
        word = tgt[p].split("-")[-1]
        if word not in s.target_dict or tgt[p] in tokens:
            continue
        if any(src[i] in s.source_dict for i in source_of.get(p, []) if i != pos):
            continue   # that pronoun is the translation of another source pronoun
        if best is None or abs(p - center) < abs(best - center):   # step 4: closest to the centre
            best = p
    if best is None:
        return side
    positions = sorted((side.positions if side else []) + [best])
    toks = [tgt[p] for p in positions]
    return Side(positions, toks, classify(toks, s))


def _canonical(word: str, equal: list[list[str]]) -> str:
    for group in equal:
        if word in group:
            return group[0]
    return word


def decide_case(occ: Occurrence, s: AptSettings, equal: list[list[str]], similar: list[set[str]]) -> None:
    if occ.ref is None:
        occ.case = 5 if occ.cand is not None else 6
    elif occ.cand is None:
        occ.case = 4
    else:
        r = {_canonical(w, equal) for w in occ.ref.words}
        c = {_canonical(w, equal) for w in occ.cand.words}
        inter = r & c
        if not s.count_other:
            inter.discard(OTHER)
        if inter:
            occ.case, occ.ref_axis, occ.cand_axis = 1, sorted(inter), sorted(inter)
            return
        for group in similar:
            if r & group and c & group:
                occ.case, occ.ref_axis, occ.cand_axis = 2, sorted(r & group), sorted(c & group)
                return
        occ.case, occ.ref_axis, occ.cand_axis = 3, sorted(r), sorted(c)
        return
    occ.ref_axis = sorted({_canonical(w, equal) for w in occ.ref.words}) if occ.ref else [NONE]
    occ.cand_axis = sorted({_canonical(w, equal) for w in occ.cand.words}) if occ.cand else [NONE]


def _aligned_side(pos: int, tgt: list[str], align: list[tuple[int, int]], s: AptSettings) -> Side | None:
    positions = sorted(j for i, j in align if i == pos)
    if not positions:
        return None
    toks = [tgt[j] for j in positions]
    return Side(positions, toks, classify(toks, s))


def _resolved(s: AptSettings) -> AptSettings:
    s = s.resolved()
    if len(s.weights) != len(s.cases):
        raise CadError(f"{len(s.cases)} cases to use but {len(s.weights)} weights")
    return s


def evaluate(source: str | os.PathLike, reference: str | os.PathLike, candidate: str | os.PathLike,
             align_ref: str | os.PathLike, align_cand: str | os.PathLike, s: AptSettings,
             positions: list[tuple[int, int]] | None = None) -> AptResult:
    """Score a candidate against a reference, each text and alignment a file (`score` on their
    lines, errors naming the files). `positions` (0-based sentence, token) replaces the
    source-list search (the tool's input_type=possition)."""
    _resolved(s)            # the settings' error before the files are read
    files = {"source": source, "reference": reference, "candidate": candidate,
             "alignment_source_reference": align_ref, "alignment_source_target": align_cand}
    lines = {k: list(read_lines(v)) for k, v in files.items()}
    return score(*lines.values(), s, positions, names={k: str(v) for k, v in files.items()})


def score(source: Sequence[str], reference: Sequence[str], candidate: Sequence[str], align_ref: Sequence[str],
          align_cand: Sequence[str], s: AptSettings, positions: list[tuple[int, int]] | None = None,
          names: dict[str, str] | None = None) -> AptResult:
    """Score a candidate against a reference, line-parallel sequences of tokenized sentences and of
    source-reference and source-candidate alignments (Moses i-j). `names`: what errors call each of
    them (`source`, `reference`, `candidate`, `alignment_source_reference`, `alignment_source_target`;
    default those words). `s` is not changed: the result's settings have one weight per case used."""
    s = _resolved(s)
    keys = ("source", "reference", "candidate", "alignment_source_reference", "alignment_source_target")
    names = {k: k for k in keys} | (names or {})
    text = {k: [line.strip().lower() for line in lines]
            for k, lines in zip(keys, (source, reference, candidate, align_ref, align_cand))}
    n = len(text["source"])
    for k, lines in text.items():
        if len(lines) != n:
            raise CadError(f"has {len(lines)} lines but the source {names['source']} has {n}", names[k],
                           min(len(lines), n) + 1)
    src = [line.split(" ") if line else [] for line in text["source"]]
    ref = [line.split(" ") if line else [] for line in text["reference"]]
    cand = [line.split(" ") if line else [] for line in text["candidate"]]
    a_ref = [parse_alignment(line, len(src[k]), len(ref[k]), names["alignment_source_reference"], k + 1)
             for k, line in enumerate(text["alignment_source_reference"])]
    a_cand = [parse_alignment(line, len(src[k]), len(cand[k]), names["alignment_source_target"], k + 1)
              for k, line in enumerate(text["alignment_source_target"])]
    if positions is None:
        targets = [(k, pos, tok, sub) for k in range(n) for pos, tok, sub in find_source_pronouns(src[k], s)]
    else:
        targets = []
        for k, pos in positions:
            if k >= n or pos >= len(src[k]):
                raise CadError(f"position {k} {pos} is outside the source text")
            targets.append((k, pos, src[k][pos], src[k][pos]))
    return _decide(s, targets, src, ref, cand, a_ref, a_cand)


def _decide(s: AptSettings, targets, src, ref, cand, a_ref, a_cand) -> AptResult:
    equal = [g for g in s.equal if len([w for w in g if s.target_list is None or w in s.target_list]) > 1]
    if s.target_list is not None:
        equal = [[w for w in g if w in s.target_list] for g in equal]
    similar = []
    for g in s.similar:
        members = {_canonical(w, equal) for w in g if s.target_list is None or w in s.target_list}
        if len(members) > 1:
            similar.append(members)

    occurrences = []
    for k, pos, tok, sub in targets:
        occ = Occurrence(k, pos, tok, sub, _aligned_side(pos, ref[k], a_ref[k], s),
                         _aligned_side(pos, cand[k], a_cand[k], s))
        if s.improve_alignment:
            new_ref = improve(occ.ref, pos, src[k], ref[k], a_ref[k], s)
            new_cand = improve(occ.cand, pos, src[k], cand[k], a_cand[k], s)
            occ.improved_ref, occ.improved_cand = new_ref is not occ.ref, new_cand is not occ.cand
            occ.ref, occ.cand = new_ref, new_cand
        decide_case(occ, s, equal, similar)
        occurrences.append(occ)

    counts = {c: 0 for c in range(1, 7)}
    for occ in occurrences:
        counts[occ.case] += 1
    labels, matrix = confusion_matrix(occurrences, s, equal)
    return AptResult(s, occurrences, counts, labels, matrix)


def confusion_matrix(occurrences: list[Occurrence], s: AptSettings, equal) -> tuple[list[str], list[list[int]]]:
    """Rows: reference words, columns: candidate words, for the occurrences of the cases used."""
    if s.target_list is not None:
        labels = [_canonical(w, equal) for w in s.target_list]
        labels = list(dict.fromkeys(labels)) + [OTHER]
    else:
        vocab = set()
        for o in occurrences:
            vocab.update(o.ref_axis)
            vocab.update(o.cand_axis)
        vocab.discard(NONE)
        labels = sorted(vocab)
    labels.append(NONE)
    index = {w: i for i, w in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for o in occurrences:
        if o.case not in s.cases:
            continue
        rows = [index[w] for w in o.ref_axis if w in index]
        cols = [index[w] for w in o.cand_axis if w in index]
        if not s.count_multiword:
            rows, cols = rows[:1], cols[:1]
        for i in rows:
            for j in cols:
                m[i][j] += 1
    return labels, m


def _with_margins(labels: list[str], m: list[list[int]], limit: int) -> tuple[list[str], list[list[int]]]:
    # the tool orders classes by their diagonal count (numpy argsort, reversed)
    order = sorted(range(len(labels)), key=lambda i: m[i][i], reverse=False)
    order.reverse()
    labels = [labels[i] for i in order]
    m = [[m[i][j] for j in order] for i in order]
    if len(labels) > limit:
        head = [row[:limit] + [sum(row[limit:])] for row in m[:limit]]
        tail_row = [sum(m[i][j] for i in range(limit, len(m))) for j in range(limit)]
        corner = sum(m[i][j] for i in range(limit, len(m)) for j in range(limit, len(m)))
        m = head + [tail_row + [corner]]
        labels = labels[:limit] + ["..."]
    col_sums = [sum(row[j] for row in m) for j in range(len(labels))]
    m = [row + [sum(row)] for row in m] + [col_sums + [sum(col_sums)]]
    return labels + ["-sum-"], m


def format_score(result: AptResult) -> str:
    s = result.settings
    score = result.score
    out = [f"Score: {score:0.4f}" if not math.isnan(score) else "Score: nan",
           "Cases: " + ",".join(str(c) for c in s.cases),
           "Weights: " + ",".join(str(float(w)) for w in s.weights),
           "Findings per case: " + ",".join(str(result.counts[c]) for c in s.cases),
           f"Total findings: {sum(result.counts[c] for c in s.cases)}"]
    labels, m = _with_margins(result.labels, result.matrix, s.max_matrix)
    out.append("\t" + "\t".join(labels))
    for label, row in zip(labels, m):
        out.append(label + "\t" + "\t".join(str(v) for v in row))
    return "\n".join(out) + "\n"


def format_detail(result: AptResult) -> str:
    out = ["\t".join(["SENT.", "POS. SOURCE", "SOURCE", "POS. REF.", "REF.", "POS. TARGET", "TARGET", "CASE"])]
    for o in result.occurrences:
        def side(x: Side | None) -> tuple[str, str]:
            return (" ".join(map(str, x.positions)), " ".join(x.words)) if x else ("-", "-")
        rp, rw = side(o.ref)
        cp, cw = side(o.cand)
        out.append("\t".join([str(o.sentence), str(o.position), o.pronoun, rp, rw, cp, cw, str(o.case)]))
    return "\n".join(out) + "\n"


def write_outputs(result: AptResult, prefix: str | os.PathLike) -> None:
    with atomic_output(f"{prefix}.score") as fh:
        fh.write(format_score(result))
    with atomic_output(f"{prefix}.detail") as fh:
        fh.write(format_detail(result))
