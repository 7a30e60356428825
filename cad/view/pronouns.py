"""Every source pronoun of a document as the page shows it: where it is, what each system made of
it (the antecedent chosen and where it lies, its translation, the candidates, the CM's bundles
and classes, the pass, the target words and APT's category) and what the reference says.

A trace names its antecedent and candidates by their text (and the antecedent's sentence): they
are placed on the source tokens through the coreference records where these are given (exact
spans), else by finding the words (in the antecedent's sentence, the occurrence nearest before
the pronoun)."""

from __future__ import annotations

from dataclasses import dataclass

from cad.eval.apt import AptSettings, Occurrence, Side, classify, improve
from cad.view.inputs import KNOWN_TRACE_FIELDS, Document, SystemSpec, TraceEntry
from coref.records import PronounResolution

MIN_CLASS_PROB = 0.001


@dataclass
class ShownSystem:
    """One system, read: its tokens, alignment, trace (or None) and APT occurrences (or None)."""

    spec: SystemSpec
    tgt: list[list[str]]
    align: list[list[tuple[int, int]]]
    trace: dict[tuple[int, int], TraceEntry] | None
    apt: dict[tuple[int, int], Occurrence] | None = None


def _r(x: float) -> float:
    return round(float(x), 4)


def occurrences(text: str, tokens: list[str]) -> list[tuple[int, int]]:
    """Every (start, end) of `text`'s words in `tokens` (case-insensitive), in order."""
    words = [w.lower() for w in text.split()]
    low = [t.lower() for t in tokens]
    n = len(words)
    return [(i, i + n) for i in range(len(low) - n + 1) if n and low[i:i + n] == words]


class Placer:
    """Places the texts of one pronoun's candidates and antecedent on its document's source tokens:
    through the coreference record's spans where it has the text, else at the nearest occurrence
    of the words before the pronoun that no earlier candidate took (two candidates *it* are two
    different *it*), and only failing that after it in its sentence."""

    def __init__(self, doc: Document, src: list[list[str]], sentence: int, index: int,
                 coref: PronounResolution | None):
        self.doc, self.src, self.sentence, self.index, self.coref = doc, src, sentence, index, coref
        self.taken: set[tuple[int, int, int]] = set()

    def tokens(self, s: int) -> list[str]:
        return self.src[self.doc.first + s]

    def _spans(self, text: str, sentence: int | None) -> list[tuple[int, int, int]]:
        """Where `text` occurs, nearest before the pronoun first, then after it in its sentence."""
        before, after = [], []
        for s in [sentence] if sentence is not None else range(self.sentence, -1, -1):
            hits = occurrences(text, self.tokens(s))
            if s == self.sentence:
                after += [(s, a, b) for a, b in hits if b > self.index and a != self.index]
                hits = [h for h in hits if h[1] <= self.index]
            before += [(s, a, b) for a, b in reversed(hits)]
        return before + after

    def place(self, text: str, sentence: int | None) -> tuple[int, int, int] | None:
        """(sentence, start, end) of a candidate or antecedent text, or None where it is not found."""
        spans = []
        if self.coref is not None:
            spans = [(c.sentence, c.start, c.end) for c in self.coref.candidates
                     if c.text == text and (sentence is None or c.sentence == sentence)]
        spans = spans or self._spans(text, sentence)
        found = next((x for x in spans if x not in self.taken), spans[0] if spans else None)
        if found is not None:
            self.taken.add(found)
        return found


def _span(placed: tuple[int, int, int] | None) -> dict:
    return {"s": placed[0], "start": placed[1], "end": placed[2]} if placed else {"s": None, "start": None, "end": None}


def _aligned(align: list[tuple[int, int]], positions: range | list[int]) -> list[int]:
    want = set(positions)
    return sorted({j for i, j in align if i in want})


def _from_trace(rec: dict, placer: Placer, classes) -> dict:
    cands = [{"text": c[0], "p": _r(c[1]), **_span(placer.place(c[0], None))} for c in rec.get("candidates") or []]
    ante = None
    if rec.get("antecedent"):
        s = rec.get("antecedent_sentence")
        same = next((c for c in cands if c["text"] == rec["antecedent"] and (s is None or c["s"] == s)), None)
        ante = {"text": rec["antecedent"], **({k: same[k] for k in ("s", "start", "end")} if same else
                                             _span(placer.place(rec["antecedent"], s)))}
        if ante["s"] is None and rec.get("antecedent_sentence") is not None:
            ante["s"] = rec["antecedent_sentence"]
        ante["tr"] = rec.get("antecedent_translation")
    bundles = sorted(((b, _r(w)) for b, w in (rec.get("bundles") or {}).items()), key=lambda bw: -bw[1])
    dist = None
    if classes is not None and bundles:
        mix = dict(rec["bundles"])
        credit = getattr(classes, "expected_credit", None)       # the English-French table's
        dist = [[c, _r(p)] + ([_r(credit(mix, c))] if credit else [])
                for c, p in sorted(classes.class_distribution(mix).items(), key=lambda cp: -cp[1])
                if p >= MIN_CLASS_PROB]
    extra = {k: v for k, v in rec.items() if k not in KNOWN_TRACE_FIELDS and v is not None}
    return {"from": "trace", "ante": ante, "cands": cands, "bundles": bundles, "classes": dist,
            "features": rec.get("features"), "pass": rec.get("pass"), "genderSource": rec.get("gender_source"),
            "traceTarget": rec.get("target"), "tclass": rec.get("target_class"), "extra": extra}


def _from_coref(r: PronounResolution) -> dict:
    cands = [{"text": c.text, "p": _r(c.probability), "s": c.sentence, "start": c.start, "end": c.end}
             for c in r.candidates]
    ante = None
    if r.referential and r.candidates:
        b = r.best
        ante = {"text": b.text, "s": b.sentence, "start": b.start, "end": b.end, "tr": None}
    extra = {"referential": r.referential}
    if r.anaphoricity is not None:
        extra["anaphoricity"] = r.anaphoricity
    return {"from": "coref", "ante": ante, "cands": cands, "bundles": [], "classes": None, "features": None,
            "pass": None, "genderSource": None, "traceTarget": None, "tclass": None, "extra": extra}


def _empty() -> dict:
    return {"from": "apt", "ante": None, "cands": [], "bundles": [], "classes": None, "features": None,
            "pass": None, "genderSource": None, "traceTarget": None, "tclass": None, "extra": {}}


def _feminine(entry: dict) -> bool:
    feats = (entry.get("features") or "").split("-")
    return "fem" in feats or entry["extra"].get("gender") == "fem"


def target_positions(src: list[str], tgt: list[str], align: list[tuple[int, int]], pos: int,
                     settings: AptSettings) -> tuple[list[int], bool]:
    """The target words source token `pos` became, as APT and the trace read them: the aligned
    words, or where none is a pronoun, APT's repair (a pronoun beside the translations of the
    neighbouring words: *kill it* -> *la tuer*); and whether the repair gave them."""
    low_src, low_tgt = [t.lower() for t in src], [t.lower() for t in tgt]
    positions = sorted(j for i, j in align if i == pos)
    side = Side(positions, [low_tgt[j] for j in positions], classify([low_tgt[j] for j in positions], settings)) \
        if positions else None
    new = improve(side, pos, low_src, low_tgt, align, settings)
    return (list(new.positions) if new else []), new is not side


def pronoun_entry(system: ShownSystem, doc: Document, src: list[list[str]], k: int, i: int,
                  coref: PronounResolution | None, classes, class_of,
                  settings: AptSettings) -> dict:
    """What one system made of the pronoun at token `i` of global sentence `k`."""
    placer = Placer(doc, src, k - doc.first, i, coref)
    rec = system.trace.get((k, i)) if system.trace is not None else None
    entry = _from_trace(rec.record, placer, classes) if rec else _from_coref(coref) if coref else _empty()
    ante = entry["ante"]
    if ante is not None and ante["start"] is not None:
        g = doc.first + ante["s"]
        pos = _aligned(system.align[g], range(ante["start"], ante["end"]))
        ante["trpos"] = pos
        if not ante["tr"]:
            ante["tr"] = " ".join(system.tgt[g][j] for j in pos)
            ante["trFrom"] = "alignment"
        else:
            ante["trFrom"] = "trace"
    if coref is not None and coref.candidates and ante is not None:
        entry["coref"] = {"human": coref.best.human, "number": coref.best.number, "gender": coref.best.gender,
                          "kind": coref.best.kind}
    tpos, entry["repaired"] = target_positions(src[k], system.tgt[k], system.align[k], i, settings)
    entry["tpos"] = tpos
    entry["target"] = " ".join(system.tgt[k][j] for j in tpos)
    if entry["tclass"] is None and class_of is not None and rec is None:
        entry["tclass"] = class_of(system.tgt[k][j] for j in tpos)
    occ = system.apt.get((k, i)) if system.apt is not None else None
    entry["case"] = occ.case if occ else None
    entry["fem"] = _feminine(entry) or bool(coref and coref.best and coref.best.gender == "fem")
    return entry


def reference_side(occ: Occurrence | None) -> dict | None:
    if occ is None or occ.ref is None:
        return None if occ is None else {"pos": [], "words": "", "improved": occ.improved_ref}
    return {"pos": occ.ref.positions, "words": " ".join(occ.ref.tokens), "improved": occ.improved_ref}


def assign_chains(prons: list[dict], n_systems: int) -> None:
    """Per system, number the document's coreference chains (pronouns joined to their antecedents,
    a pronoun antecedent joining its own chain), in order of first mention."""
    for x in range(n_systems):
        parent: dict = {}

        def find(m):
            parent.setdefault(m, m)
            while parent[m] != m:
                parent[m] = parent[parent[m]]
                m = parent[m]
            return m

        for p in prons:
            a = p["sys"][x]["ante"]
            if a is not None and a["start"] is not None:
                parent[find((p["s"], p["i"], p["i"] + 1))] = find((a["s"], a["start"], a["end"]))
        first: dict = {}
        for m in sorted(parent):
            first.setdefault(find(m), len(first))
        for p in prons:
            m = (p["s"], p["i"], p["i"] + 1)
            p["sys"][x]["chain"] = first[find(m)] if m in parent else None
