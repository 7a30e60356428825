"""Held-out evaluation by document on the gold corpora themselves (GUM, ParCorFull news, LitBank):
the protocol on which the ranker's features, weights and corpus mix are chosen, so that the dev
talks (ParCorFull TED) serve only to report.

Documents of every corpus are dealt round-robin, by sorted name within their corpus, into K folds;
each fold's documents are resolved by a ranker trained on the other folds (ParCorFull TED, the dev
talks, is never among the training corpora here unless asked for) and scored against their gold
chains as `cad coref-eval` scores the talks. `cad coref-heldout` prints the report.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from cad.core.errors import CadError
from cad.defaults import COREF_BACKEND, COREF_IN_DOMAIN_WEIGHT, COREF_L2, COREF_PRONOUNS, COREF_WINDOW
from cad.downloads.spacy_models import load_spacy
from coref.english.entities import THIRD_PERSON
from coref.english.ranker import RankerResolver
from coref.english.train import (DocInstances, external_scores, fit, instances, load_scorers, parse_gold,
                                 read_gold_corpora)
from coref.calibration import Calibration, fit_temperature, with_temperature
from coref.evaluate import CorefScores, gold_pronouns, own_mention, score
from coref.gold.model import GoldDocument
from coref.records import PronounResolution
from coref.referent import TypeScores, coarse, gold_referent, parsed_words, predicted_label

log = logging.getLogger("cad.coref")


@dataclass
class HeldOut:
    """Scores per evaluated corpus (and per GUM genre), referent types, calibration, and the records."""
    scores: dict[str, CorefScores] = field(default_factory=dict)
    types: dict[str, TypeScores] = field(default_factory=dict)
    antecedents: Calibration = field(default_factory=Calibration)     # every kept candidate
    best: Calibration = field(default_factory=Calibration)            # the best candidate
    anaphoricity: Calibration = field(default_factory=Calibration)
    lists: list[tuple[list[float], list[bool]]] = field(default_factory=list)    # for fit_temperature
    records: list[tuple[str, str, list[PronounResolution]]] = field(default_factory=list)

    def add(self, corpus: str, gold: GoldDocument, parsed, recs: list[PronounResolution],
            pronouns: tuple[str, ...]) -> None:
        gps = gold_pronouns(gold, gold.sentences(), gold.doc_id, pronouns)
        sc = score(recs, gps)
        for key in (corpus, f"{corpus}:{genre(gold.doc_id)}" if corpus == "gum" else None):
            if key:
                self.scores.setdefault(key, CorefScores()).add(sc)
        self.records.append((corpus, gold.doc_id, recs))
        by_pos = {(r.sentence, r.index): r for r in recs}
        word = parsed_words(gold, parsed)
        for g in gps:
            r = by_pos.get((g.sentence, g.index))
            if r is None:
                continue
            self.calibrate(r, g)
            label = predicted_label(r)
            if label is not None:
                own = own_mention(gold, g.gold_token) if g.gold_token is not None else None
                ref = gold_referent(gold, own, word) if own is not None else g.referent
                self.types.setdefault(corpus, TypeScores()).add(ref, label)

    def calibrate(self, r: PronounResolution, g) -> None:
        if r.anaphoricity is not None:
            self.anaphoricity.add(r.anaphoricity, g.referential)
        if g.referential and r.referential and r.candidates:
            self.lists.append(([c.probability for c in r.candidates],
                               [(c.sentence, c.head) in g.chain_tokens for c in r.candidates]))
            for c in r.candidates:
                self.antecedents.add(c.probability, (c.sentence, c.head) in g.chain_tokens)
            self.best.add(r.best.probability, (r.best.sentence, r.best.head) in g.chain_tokens)


SPOKEN = ("conversation", "interview", "podcast", "speech", "vlog")


def genre(name: str) -> str:
    """GUM_<genre>_<name> or GENTLE_<genre>_<name>: the genre."""
    parts = name.split("_")
    return parts[1] if len(parts) > 2 else "other"


def document_folds(docs: list[tuple[str, GoldDocument]], k: int) -> list[int]:
    """The fold of each document: round-robin by sorted name within each corpus."""
    if k < 2:
        raise CadError("--folds must be at least 2")
    fold = [0] * len(docs)
    by_corpus: dict[str, list[int]] = {}
    for i, (corpus, gold) in enumerate(docs):
        by_corpus.setdefault(corpus, []).append(i)
    for idx in by_corpus.values():
        for j, i in enumerate(sorted(idx, key=lambda i: docs[i][1].doc_id)):
            fold[i] = j % k
    return fold


def heldout(root: str | os.PathLike, corpora: tuple[str, ...], evaluate: tuple[str, ...], k: int = 5,
            l2: float = COREF_L2, window: int = COREF_WINDOW, in_domain_weight: int = COREF_IN_DOMAIN_WEIGHT,
            cache: str | None = None, pronouns: tuple[str, ...] = COREF_PRONOUNS, backend: str = COREF_BACKEND,
            only_folds: tuple[int, ...] | None = None, sources: tuple[str, ...] = ()) -> HeldOut:
    """Resolve the documents of the `evaluate` corpora fold by fold with rankers trained on the
    other folds of `corpora` (or with the sieve, which learns nothing) and score them."""
    docs = read_gold_corpora(root, tuple(dict.fromkeys(corpora + evaluate)))
    nlp = load_spacy()
    scorers = load_scorers(sources, window) if backend != "sieve" else {}
    parsed = parse_gold(nlp, docs, cache)
    folds = document_folds(docs, k)
    out = HeldOut()
    if backend == "sieve":
        from coref.english.sieve import SieveResolver

        sieve = SieveResolver(nlp=nlp, pronouns=pronouns, window=window)
        for (corpus, gold), p, f in zip(docs, parsed, folds):
            if corpus in evaluate and (only_folds is None or f in only_folds):
                out.add(corpus, gold, p, sieve.resolve(gold.doc_id, gold.sentences(), parsed=p), pronouns)
        return out
    ext = external_scores(parsed, scorers)
    data: list[DocInstances] = [instances(c, g, p, window, e) for (c, g), p, e in zip(docs, parsed, ext)]
    for f in range(k):
        if only_folds is not None and f not in only_folds:
            continue
        train = [d for d, (c, _), g in zip(data, docs, folds) if g != f and c in corpora]
        model = fit(train, l2, window, None, in_domain_weight, sources)
        resolver = RankerResolver(model, nlp=nlp, pronouns=pronouns)
        for (corpus, gold), p, e, g in zip(docs, parsed, ext, folds):
            if g == f and corpus in evaluate:
                out.add(corpus, gold, p, resolver.resolve(gold.doc_id, gold.sentences(), parsed=p, external=e),
                        pronouns)
        log.info("fold %d: trained on %d documents", f + 1, len(train))
    return out


def report(h: HeldOut) -> str:
    lines = []
    keys = sorted(h.scores, key=lambda x: (":" in x, x))
    spoken = CorefScores()
    for key in keys:
        if key.startswith("gum:") and key[4:] in SPOKEN:
            spoken.add(h.scores[key])
    if spoken.total:
        h.scores["gum:spoken"] = spoken
        keys.insert(keys.index(next(k for k in keys if k.startswith("gum:"))), "gum:spoken")
    for key in keys:
        sc = h.scores[key]
        per = " ".join(f"{p} {ok / n:.3f} ({ok}/{n})" for p, (ok, n) in sorted(sc.per_pronoun.items()))
        lines.append(f"{key}\taccuracy {sc.accuracy:.3f} ({sc.correct}/{sc.total})\t{per}\t"
                     f"anaphoricity P/R {sc.precision:.3f}/{sc.recall:.3f}")
    for corpus, ts in sorted(h.types.items()):
        lines.append(ts.report(f"referent {corpus}"))
        lines.append(ts.merged(coarse).report(f"referent {corpus} coarse"))
    for name, cal in (("antecedent", h.antecedents), ("best antecedent", h.best), ("anaphoricity", h.anaphoricity)):
        if cal.points:
            lines.append(cal.report(f"calibration {name}"))
    if h.lists:
        lines.append(temperature_report(h.lists))
    return "\n".join(lines)


def temperature_report(lists: list[tuple[list[float], list[bool]]]) -> str:
    """The temperature that calibrates these held-out lists best, and the best candidate's
    calibration after it (to be fitted on one set of folds and applied to another)."""
    t = fit_temperature(lists)
    after = Calibration()
    for p, ok in lists:
        q = with_temperature(p, t)
        j = max(range(len(q)), key=q.__getitem__)
        after.add(q[j], ok[j])
    return f"temperature\t{t:.3f}\n" + after.report(f"calibration best antecedent at T={t:.2f}")
