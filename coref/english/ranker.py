"""The learned backend: an anaphoricity classifier and a mention ranker over the sieve's mentions.

A document is read in order. At every third-person pronoun (it, they, he, she and their forms)
the anaphoricity model gives P(referential); the ranker gives a distribution over the candidate
antecedents of the current and `window` previous sentences: noun phrases and pronouns, and for
*it* also clauses (an *it* that refers to an event or a whole statement). The best antecedent of a
referential pronoun joins its entity, so that later pronouns see the whole chain (an *it* cannot
join a chain that holds *he*). Only the requested pronouns are written out; the others are
resolved to build the chains.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from cad.core.errors import CadError
from cad.downloads.spacy_models import load_spacy
from coref.backends import Backend, BackendOptions
from coref.english.entities import SPEAKER_PRONOUNS, THIRD_PERSON, EntityTracker, pronoun_class
from coref.english.features import anaphoricity_features, event_candidates, pair_features, site_of
from coref.english.lexicon import head_class
from coref.english.mentions import Mention, mentions_of_sentence
from coref.english import attention, neuralcoref
from coref.english.referent import (TypeModel, event_features, referent_distribution, type_distribution,
                                    type_features)
from coref.english.referent_label import best_label
from coref.english.tokens import moses_doc
from coref.ranker import Chooser, Decision, RankerFile, Walk, reading_order
from coref.records import Candidate, PronounResolution, keep_likely
from coref.softmax import SoftmaxRanker, softmax

DEFAULT_MODEL = "ranker-en.json.gz"


@dataclass
class RankerModel(RankerFile):
    """The English ranker's model file (coref.ranker.RankerFile's frame)."""

    FILE: ClassVar[str] = DEFAULT_MODEL

    ranker: SoftmaxRanker
    anaphoricity: SoftmaxRanker
    window: int = 3
    threshold: float = 0.5          # P(referential) from which a pronoun gets an antecedent
    info: dict | None = None        # how it was trained
    types: TypeModel | None = None   # the entity type of a mention (coref.english.referent)
    temperature: float = 1.0        # the ranker's scores are divided by it (coref.calibration.fit_temperature)
    events: SoftmaxRanker | None = None  # P(a clause | the pronoun refers), coref.english.referent
    neuralcoref: bool = False       # its pair features include neuralcoref's scores (coref.english.neuralcoref)
    attention: bool = False         # ... and MiniLM's attention between the pair (coref.english.attention)

    @property
    def sources(self) -> tuple[str, ...]:
        """The pretrained models whose pair scores its features read (PAIR_SOURCES' keys)."""
        return tuple(n for n, on in (("neuralcoref", self.neuralcoref), ("attention", self.attention)) if on)

    def antecedent_probabilities(self, pair_feats: list[list[str]]) -> np.ndarray:
        return softmax(self.ranker.scores(pair_feats) / self.temperature)

    def p_referential(self, feats: list[str]) -> float:
        return float(self.anaphoricity.probabilities([feats, []])[0])

    def save(self, path: str | os.PathLike) -> None:
        d = {"window": self.window, "threshold": self.threshold,
             "info": self.info or {}, "ranker": self.ranker.to_dict(), "anaphoricity": self.anaphoricity.to_dict()}
        if self.types is not None:
            d["types"] = self.types.to_dict()
        if self.events is not None:
            d["events"] = self.events.to_dict()
        if self.temperature != 1.0:
            d["temperature"] = round(self.temperature, 4)
        if self.neuralcoref:
            d["neuralcoref"] = True
        if self.attention:
            d["attention"] = True
        self.write_dict(d, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "RankerModel":
        d = cls.read_dict(path)
        try:
            return cls(SoftmaxRanker.from_dict(d["ranker"], str(path)),
                       SoftmaxRanker.from_dict(d["anaphoricity"], str(path)),
                       int(d["window"]), float(d["threshold"]), d.get("info"),
                       TypeModel.from_dict(d["types"], str(path)) if "types" in d else None,
                       float(d.get("temperature", 1.0)),
                       SoftmaxRanker.from_dict(d["events"], str(path)) if "events" in d else None,
                       bool(d.get("neuralcoref", False)), bool(d.get("attention", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise CadError(f"not a cad ranker model ({exc})", str(path)) from None


@dataclass(frozen=True)
class PairSource:
    """A pretrained scorer a ranker may read."""
    load: Callable[[int], object]           # the scorer, given the ranker's window
    # its features of one (pronoun, noun-phrase candidate) pair from one document's scores:
    # (scores, pronoun class, candidate sentence, candidate head, pronoun sentence, pronoun token)
    pair_features: Callable[..., list]
    # its anaphoricity features of one pronoun: (scores, pronoun class, sentence, token); None: none
    pronoun_features: Callable[..., list] | None = None


PAIR_SOURCES: dict[str, PairSource] = {
    "neuralcoref": PairSource(lambda window: neuralcoref.NeuralCorefModel.default(), neuralcoref.ranker_features),
    "attention": PairSource(lambda window: attention.AttentionScorer.default(window), attention.ranker_features,
                            attention.pronoun_features),
}


def default_model_path() -> str:
    return RankerModel.default_path()


def walk(parsed, window: int, choose: Chooser, external: dict[str, dict] | None = None
         ) -> list[tuple[Decision, int | None, np.ndarray | None, float | None]]:
    """Read a parsed document in order, asking `choose` for each third-person pronoun's antecedent
    (an index into the candidates, or None) and recording the chains. Returns every decision.
    `external`: pretrained scorers' scores of this document by source (PAIR_SOURCES), whose
    features join the pairs' (and, for a source that reads the pronoun alone, its anaphoricity features)."""
    return EnglishWalk(parsed, window, external).run(parsed, choose)


class EnglishWalk(Walk):
    """The English walk's state (coref.ranker.Walk): the entity tracker (an *it* cannot join a
    chain that holds *he*), the heads seen and the mentions passed; candidates are the noun phrases
    and pronouns of the pronoun's sentence and the `window` before it, and for *it* also clauses."""

    def __init__(self, parsed, window: int, external: dict[str, dict] | None = None):
        self.parsed, self.window, self.external = parsed, window, external
        self.mentions = [mentions_of_sentence(d, k) for k, d in enumerate(parsed)]
        self.clauses = [event_candidates(d, k) for k, d in enumerate(parsed)]
        self.tracker = EntityTracker()
        self.heads: Counter[str] = Counter()
        self.seen: list[Mention] = []           # mentions passed so far, in order

    def events(self, k: int, doc) -> list:
        items = sorted(self.mentions[k], key=lambda m: (m.head, m.start))
        return reading_order(items, [t.i for t in doc if t.lower_ in THIRD_PERSON], lambda m: m.head, lambda i: i)

    def mention(self, k: int, doc, m: Mention) -> None:
        if (k, m.head) not in self.tracker.of:      # a resolved pronoun already sits in its entity
            self.tracker.add_mention(m, doc[m.head].text, doc[m.head].pos_, head_class(doc[m.head]))
        if not m.pronoun:
            self.heads[doc[m.head].lemma_.lower()] += 1
        self.seen.append(m)

    def decide(self, k: int, doc, pos: int) -> Decision:
        parsed, tracker, external = self.parsed, self.tracker, self.external
        site = site_of(doc, k, pos)
        lo = max(0, k - self.window)
        cands = [c for c in self.seen if c.sentence >= lo and not (c.sentence == k and c.end > pos)
                 and _possible(site.pclass, c, tracker)]
        cands.reverse()        # most recent first
        if site.pclass == "it":
            evs = [e for s in range(max(0, k - 2), k) for e in self.clauses[s]]
            evs += event_candidates(doc, k, before=pos)
            cands += sorted(evs, key=lambda e: (-e.sentence, -e.head))
        rank: Counter[str] = Counter()
        feats, ents = [], []
        for c in cands:
            ent = tracker.of.get((c.sentence, c.head)) if c.kind == "np" else None
            hc = self.heads[parsed[c.sentence][c.head].lemma_.lower()] if c.kind == "np" else 0
            pf = pair_features(site, c, parsed, rank[c.kind], ent, hc)
            if external and c.kind == "np":
                for name, scores in external.items():
                    pf += PAIR_SOURCES[name].pair_features(scores, site.pclass, c.sentence, c.head, k, pos)
            feats.append(pf)
            ents.append(ent)
            rank[c.kind] += 1
        ana = anaphoricity_features(doc, site)
        for name, scores in (external or {}).items():
            if PAIR_SOURCES[name].pronoun_features is not None:
                ana += PAIR_SOURCES[name].pronoun_features(scores, site.pclass, k, pos)
        return Decision(site, cands, feats, ana, ents)

    def chosen(self, k: int, doc, dec: Decision, choice: int | None) -> None:
        if choice is None:
            return
        site, c = dec.site, dec.candidates[choice]
        if c.kind == "np":
            target = self.tracker.of.get((c.sentence, c.head))
            if target is not None:
                self.tracker.link((k, site.index), site.pclass, _PRON_NUMBER.get(site.pclass), target)
        else:
            self.tracker.link_event((k, site.index), site.pclass)


_PRON_NUMBER = {"it": "sing", "he": "sing", "she": "sing", "they": "plur"}


def _possible(pclass: str, c: Mention, tracker: EntityTracker) -> bool:
    """Hard constraints; everything softer is a feature."""
    if c.pronoun:
        word = c.text.lower()
        if word in SPEAKER_PRONOUNS:
            return False
        other = pronoun_class(word)
        if other and other != pclass and {other, pclass} & {"he", "she"}:
            return False
    ent = tracker.of.get((c.sentence, c.head))
    return ent is None or not ent.excludes(pclass)


class RankerResolver(Backend):
    """Backend `ranker`: learned anaphoricity and antecedent ranking (see the module's doc)."""

    reads_case = True       # trained on the cased gold corpora: give it the text as written
    reads_model = True

    @classmethod
    def from_options(cls, options: BackendOptions) -> RankerResolver:
        """`model`: the model file (default: the one shipped with cad)."""
        return cls(options.get("model"), pronouns=options.pronouns)

    def __init__(self, model: str | os.PathLike | RankerModel | None = None, nlp=None,
                 pronouns: tuple[str, ...] = ("it", "they")):
        if isinstance(model, RankerModel):
            self.model = model
        else:
            self.model = RankerModel.load(model or default_model_path())
        # with the default English pipeline, the parse is the one coref.english.roles reads: callers
        # parse once and pass the Docs to both (resolve(parsed=), pronoun_roles(parsed=))
        self.shares_english_parse = nlp is None
        self.nlp = load_spacy() if nlp is None else nlp
        self.pronouns = tuple(p.lower() for p in pronouns)
        self.scorers = {name: PAIR_SOURCES[name].load(self.model.window) for name in self.model.sources}

    def parse(self, sentences: list[list[str]]) -> list:
        return list(self.nlp.pipe(moses_doc(self.nlp.vocab, s) for s in sentences))

    def choose(self, dec: Decision) -> tuple[int | None, np.ndarray | None, float | None]:
        p_ref = self.model.p_referential(dec.ana_feats)
        if not dec.candidates or p_ref < self.model.threshold:
            return None, None, p_ref
        probs = self.model.antecedent_probabilities(dec.pair_feats)
        return int(np.argmax(probs)), probs, p_ref

    def resolve(self, doc_id: str, sentences: list[list[str]], parsed=None,
                external: dict[str, dict] | None = None) -> list[PronounResolution]:
        """`external`: the pretrained scorers' scores of `parsed` by source, where the caller has them
        already (those the model does not read are ignored, those it reads and lacks computed)."""
        parsed = parsed if parsed is not None else self.parse(sentences)
        given = external or {}
        external = {name: given[name] if name in given else s.pair_scores(parsed) for name, s in self.scorers.items()}
        out = []
        for dec, choice, probs, p_ref in walk(parsed, self.model.window, self.choose, external):
            site = dec.site
            tok = parsed[site.sentence][site.index]
            if tok.lower_ not in self.pronouns:
                continue
            rec = PronounResolution(doc_id, site.sentence, site.index, tok.text, referential=choice is not None,
                                    anaphoricity=round(p_ref, 6))
            types = self._types(dec, parsed) if self.model.types is not None else None
            if choice is not None:
                scored = [(self._candidate(c, parsed, t), float(p))
                          for c, p, t in zip(dec.candidates, probs, types or [None] * len(probs))]
                rec.candidates = keep_likely(scored)
            if types is not None:
                self._referent(rec, dec, p_ref, probs, types, parsed)
            out.append(rec)
        return out

    def _types(self, dec: Decision, parsed) -> list[dict | None]:
        """Each candidate's entity-type distribution (None: it stands for a clause)."""
        out = []
        for c, ent in zip(dec.candidates, dec.entities or [None] * len(dec.candidates)):
            if c.kind == "event" or (c.pronoun and ent is not None and ent.event):
                out.append(None)
            elif c.pronoun and ent is not None and ent.nominal is not None:
                n = ent.nominal
                out.append(type_distribution(self.model.types, type_features(n, parsed[n.sentence])))
            else:
                out.append(type_distribution(self.model.types, type_features(c, parsed[c.sentence], c.text)))
        return out

    def _referent(self, rec: PronounResolution, dec: Decision, p_ref: float, probs, types, parsed) -> None:
        if probs is None and dec.candidates:
            probs = self.model.antecedent_probabilities(dec.pair_feats)
        own = type_distribution(self.model.types, type_features(None, None, dec.site.word))
        p_event = None
        if self.model.events is not None:
            p_event = float(self.model.events.probabilities([event_features(dec.site, dec.ana_feats), []])[0])
        dist = referent_distribution(p_ref, dec.candidates, probs, types, own, p_event)
        rec.referent, rec.referent_type, _ = best_label(dist)
        rec.referent_probs = {k: round(v, 4) for k, v in sorted(dist.items()) if v >= 0.0005}

    @staticmethod
    def _candidate(m: Mention, parsed, types: dict | None = None) -> Candidate:
        return Candidate(m.sentence, m.start, m.end, m.head, parsed[m.sentence][m.start:m.end].text, 1.0,
                         m.number, m.human, kind=m.kind,
                         entity_type=max(types, key=types.get) if types else None)
