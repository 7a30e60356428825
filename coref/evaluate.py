"""Evaluation of pronoun resolution against gold chains (issue: `cad coref-eval`).

For every *it*/*they* of the evaluated text: anaphoricity precision and recall (a pronoun is
predicted referential when the backend marks it so and gives an antecedent), and antecedent
accuracy: a referential pronoun is correct when the head of its best candidate lies in the
pronoun's gold chain; a pleonastic (or chain-less) pronoun is correct when no antecedent is
predicted. `evaluate_documents` runs a backend over the documents paired with the gold ones and
gives the report that `cad coref-eval` prints.
"""

from __future__ import annotations

import difflib
import os
import time
from dataclasses import dataclass, field

from cad.core.docs import read_docs
from cad.core.textio import is_uint, read_lines
from coref.gold.mmax import list_mmax, read_mmax
from coref.gold.model import GoldDocument, token_map
from coref.records import PronounResolution
from coref.calibration import Calibration
from coref.referent import TypeScores, coarse, gold_referent, predicted_label


@dataclass
class GoldPronoun:
    doc: str
    sentence: int
    index: int
    token: str
    referential: bool
    chain_tokens: set[tuple[int, int]] = field(default_factory=set)   # (sentence, index) of chain mentions
    referent: str = "pleonastic"    # coref.referent's label (GUM's clause antecedents need a parse: see there)
    gold_token: int | None = None   # the gold document's token for the pronoun


@dataclass
class CorefScores:
    total: int = 0
    correct: int = 0
    tp: int = 0          # predicted referential and gold referential
    fp: int = 0
    fn: int = 0
    per_pronoun: dict = field(default_factory=dict)

    def add(self, other: "CorefScores") -> None:
        for f in ("total", "correct", "tp", "fp", "fn"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        for p, (ok, n) in other.per_pronoun.items():
            cur = self.per_pronoun.setdefault(p, [0, 0])
            cur[0] += ok
            cur[1] += n

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0


def gold_pronouns(gold: GoldDocument, sentences: list[list[str]], doc_id: str,
                  pronouns: tuple[str, ...] = ("it", "they")) -> list[GoldPronoun]:
    ours = [t for s in sentences for t in s]
    where = []
    for si, s in enumerate(sentences):
        where.extend((si, i) for i in range(len(s)))
    g2o = token_map(gold.tokens, ours)
    o2g: dict[int, list[int]] = {}
    for g, os_ in enumerate(g2o):
        for o in os_:
            o2g.setdefault(o, []).append(g)
    chains = gold.chains()
    out = []
    for i, tok in enumerate(ours):
        if tok.lower() not in pronouns:
            continue
        gp = GoldPronoun(doc_id, *where[i], tok, False, gold_token=(o2g.get(i) or [None])[0])
        cover = [m for m in gold.mentions if any(g in m.tokens for g in o2g.get(i, []))
                 and _is_own_mention(m, gold.tokens)]
        cover.sort(key=lambda m: len(m.tokens))
        gp.referent = gold_referent(gold, cover[0] if cover else None)
        if cover and cover[0].chain is not None and cover[0].attrs.get("type") != "pleonastic":
            gp.referential = True
            for m in chains[cover[0].chain]:
                if m is cover[0]:
                    continue
                for g in m.tokens:
                    gp.chain_tokens.update(where[o] for o in g2o[g])
        out.append(gp)
    return out


# words that may share a pronoun's mention (*it all*, *all of it*, *they both*, *it self*)
_WITH_PRONOUN = {"all", "both", "each", "of", "self", "alone", "themselves", "itself"}


def own_mention(gold: GoldDocument, token: int):
    """The gold mention that is the pronoun at `token` (see _is_own_mention), or None."""
    cover = [m for m in gold.mentions if token in m.tokens and _is_own_mention(m, gold.tokens)]
    return min(cover, key=lambda m: len(m.tokens)) if cover else None


def _is_own_mention(m, tokens: list[str]) -> bool:
    """A mention that is the pronoun's own: the pronoun alone or with a quantifier. A pronoun
    inside a longer mention and without one of its own (GUM's weather *it* in its event *[it
    rained]*) is not referential."""
    return len(m.tokens) == 1 or sum(tokens[t].lower() not in _WITH_PRONOUN for t in m.tokens) == 1


def score(pred: list[PronounResolution], gold: list[GoldPronoun]) -> CorefScores:
    by_pos = {(p.doc, p.sentence, p.index): p for p in pred}
    sc = CorefScores()
    for g in gold:
        p = by_pos.get((g.doc, g.sentence, g.index))
        predicted_ref = bool(p and p.referential and p.candidates)
        sc.total += 1
        if predicted_ref and g.referential:
            sc.tp += 1
        elif predicted_ref:
            sc.fp += 1
        elif g.referential:
            sc.fn += 1
        if g.referential:
            ok = predicted_ref and (p.best.sentence, p.best.head) in g.chain_tokens
        else:
            ok = not predicted_ref
        sc.correct += ok
        stat = sc.per_pronoun.setdefault(g.token.lower(), [0, 0])
        stat[0] += ok
        stat[1] += 1
    return sc


def pair_documents(gold_dir: str | os.PathLike, text: str | os.PathLike,
                   docs: str | os.PathLike) -> list[tuple[str, GoldDocument, int, list[list[str]]]]:
    """Pair the gold MMAX2 documents with the documents of a tokenized text by their first words."""
    lines = [line.split() for line in read_lines(text)]
    starts = read_docs(docs, len(lines))
    bounds = [d.first_line for d in starts] + [len(lines)]
    ours = [(k, lines[bounds[k]:bounds[k + 1]]) for k in range(len(starts))]
    pairs = []
    for name in list_mmax(gold_dir):
        gdoc = read_mmax(gold_dir, name)
        head = "".join(gdoc.tokens[:30]).lower()
        best = max(ours, key=lambda kv: _overlap(head, "".join(t for s in kv[1] for t in s)[:len(head) + 20].lower()))
        pairs.append((name, gdoc, best[0], best[1]))
    return pairs


def _overlap(a: str, b: str) -> int:
    return sum(x.size for x in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


@dataclass
class Evaluation:
    """A backend's scores over the paired documents, its records, and the time it took resolving."""
    scores: CorefScores
    records: list[PronounResolution]
    documents: int
    sentences: int
    seconds: float
    types: TypeScores = field(default_factory=TypeScores)
    calibration: Calibration = field(default_factory=Calibration)    # every kept candidate

    def sorted_records(self) -> list[PronounResolution]:
        """The records in document, sentence and token order (documents by number where numbered)."""
        return sorted(self.records, key=lambda r: (int(r.doc) if is_uint(r.doc) else r.doc, r.sentence, r.index))

    def add_details(self, recs: list[PronounResolution], gold: list[GoldPronoun]) -> None:
        """Referent types against the gold labels, and the candidates' probabilities against the chains."""
        by_pos = {(r.doc, r.sentence, r.index): r for r in recs}
        for g in gold:
            r = by_pos.get((g.doc, g.sentence, g.index))
            if r is None:
                continue
            label = predicted_label(r)
            if label is not None:
                self.types.add(g.referent, label)
            if g.referential and r.referential:
                for c in r.candidates:
                    self.calibration.add(c.probability, (c.sentence, c.head) in g.chain_tokens)

    def report(self, backend: str) -> str:
        """The figures, one `name<TAB>value` line each, without a final newline."""
        total = self.scores
        f = 2 * total.precision * total.recall / (total.precision + total.recall) if total.tp else 0.0
        lines = [f"backend\t{backend}", f"documents\t{self.documents}", f"sentences\t{self.sentences}",
                 f"pronouns\t{total.total}", f"anaphoricity precision\t{total.precision:.3f}",
                 f"anaphoricity recall\t{total.recall:.3f}", f"anaphoricity F\t{f:.3f}",
                 f"antecedent accuracy\t{total.accuracy:.3f} ({total.correct}/{total.total})"]
        lines += [f"accuracy {p}\t{ok / n:.3f} ({ok}/{n})" for p, (ok, n) in sorted(total.per_pronoun.items())]
        lines.append(f"seconds per 1,000 sentences\t{1000 * self.seconds / max(self.sentences, 1):.1f}")
        if self.types.pairs:
            lines.append(self.types.merged(coarse).report("referent"))
        return "\n".join(lines)

    def calibration_report(self) -> str:
        return self.calibration.report("calibration")


def evaluate_documents(pairs, resolvers: dict, pronouns: tuple[str, ...] = ("it", "they"),
                       lowercase: bool = False) -> Evaluation:
    """Resolve every document of `pairs` (pair_documents) with `resolvers[name]` (one resolver for
    each gold document's name) and score it against the gold chains; `lowercase`: resolve the
    lowercased text (the gold pronouns are found in the text as written)."""
    ev = Evaluation(CorefScores(), [], len(pairs), sum(len(sents) for _, _, _, sents in pairs), 0.0)
    for name, gdoc, k, sents in pairs:
        t = time.time()
        recs = resolvers[name].resolve(str(k), [[w.lower() for w in s] for s in sents] if lowercase else sents)
        ev.seconds += time.time() - t
        ev.records.extend(recs)
        gold = gold_pronouns(gdoc, sents, str(k), pronouns)
        ev.scores.add(score(recs, gold))
        ev.add_details(recs, gold)
    return ev
