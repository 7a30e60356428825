"""The `spanish` backend: a native Spanish pronoun resolver, for Spanish text that has no CorZu output.

Learned from CorZu (seed 003's resolver) on News Commentary: there is no gold Spanish coreference,
so CorZu's first candidate is what the ranker imitates (coref.spanish.train trains it).

A document is parsed by spaCy's Spanish model (`cad.lang.es.spanish_nlp`) from the given tokens,
read with their case restored (coref.spanish.tokens), and read in order: every pronoun site
(coref.spanish.mentions) gets a softmax over the mentions of its sentence and the `window`
previous ones, most recent first (features: coref.spanish.features); a clitic that the
anaphoricity model finds unlikely to refer gets none. A linked pronoun becomes a mention with its
antecedent's features for the pronouns after it (coref.spanish.entities). The model file holds
both models, the truecasing table and the human-noun lexicon.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from cad.core.errors import CadError
from cad.lang.es import PRONOUN_CLASS, spanish_nlp
from cad.lexicons.humanness import Entry, HumanLexicon
from cad.lexicons.name_gender import GenderLexicon
from coref.backends import Backend, BackendOptions
from coref.ranker import Chooser, Decision, RankerFile, Walk, reading_order
from coref.records import Candidate, PronounResolution, keep_likely
from coref.softmax import SoftmaxRanker
from coref.spanish.entities import Entities, inherit, relative_antecedent, zero_antecedent
from coref.spanish.features import agrees, anaphoricity_features, pair_features
from coref.spanish.mentions import CLITICS, EsMention, EsSite, mentions_of_sentence, site_mention, sites_of_sentence
from coref.spanish.tokens import Truecaser, parse

DEFAULT_MODEL = "ranker-es.json.gz"
ALL_PRONOUNS = tuple(PRONOUN_CLASS)


@dataclass
class SpanishModel(RankerFile):
    """The Spanish ranker's model file (coref.ranker.RankerFile's frame): the pair ranker, the
    clitics' anaphoricity model, how the walk reads a document, and the truecasing table and
    human-noun lexicon it was trained with."""

    LANGUAGE: ClassVar[str | None] = "es"
    FILE: ClassVar[str] = DEFAULT_MODEL
    KIND: ClassVar[str] = "Spanish ranker"

    ranker: SoftmaxRanker
    anaphoricity: SoftmaxRanker | None = None
    window: int = 2
    max_candidates: int = 40
    threshold: float = 0.5              # P(referential) from which a pronoun gets candidates
    truecaser: Truecaser | None = None  # None: parse the tokens as given
    lexicon: dict[str, float] = field(default_factory=dict)   # P(human) of nouns (HumanLexicon)
    info: dict | None = None

    def human_lexicon(self) -> HumanLexicon | None:
        if not self.lexicon:
            return None
        return HumanLexicon({w: Entry(0.0, 0.0, p) for w, p in self.lexicon.items()})

    def save(self, path: str | os.PathLike) -> None:
        self.write_dict({"window": self.window, "max_candidates": self.max_candidates, "threshold": self.threshold,
                         "info": self.info or {}, "ranker": self.ranker.to_dict(),
                         "anaphoricity": self.anaphoricity.to_dict() if self.anaphoricity else None,
                         "truecase": self.truecaser.forms if self.truecaser else None, "lexicon": self.lexicon}, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "SpanishModel":
        d = cls.read_dict(path)
        try:
            ana = d.get("anaphoricity")
            return cls(SoftmaxRanker.from_dict(d["ranker"], str(path)),
                       SoftmaxRanker.from_dict(ana, str(path)) if ana else None,
                       int(d["window"]), int(d["max_candidates"]), float(d["threshold"]),
                       None if d.get("truecase") is None else Truecaser(dict(d["truecase"])),
                       {str(w): float(p) for w, p in (d.get("lexicon") or {}).items()}, d.get("info"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CadError(f"not a cad Spanish ranker model ({exc})", str(path)) from None


def default_model_path() -> str:
    return SpanishModel.default_path()


def walk(parsed, choose: Chooser, window: int = 2, max_candidates: int = 40,
         lexicon=None, genders=None) -> list[tuple[Decision, int | None, np.ndarray | None, float | None]]:
    """Read a parsed document in order, asking `choose` for each pronoun site's antecedent among the
    mentions of its sentence and the `window` previous ones (most recent first, at most
    `max_candidates`). A linked pronoun becomes a mention with its antecedent's features."""
    return SpanishWalk(parsed, window, max_candidates, lexicon, genders).run(parsed, choose)


class SpanishWalk(Walk):
    """The Spanish walk's state (coref.ranker.Walk): the mentions passed, their entities and the
    heads seen; a relative or a zero subject inherits its antecedent's features, and so does a
    linked pronoun."""

    def __init__(self, parsed, window: int = 2, max_candidates: int = 40, lexicon=None, genders=None):
        self.parsed, self.window, self.max_candidates = parsed, window, max_candidates
        self.lexicon, self.genders = lexicon, genders
        self.seen: list[EsMention] = []
        self.heads: Counter[str] = Counter()
        self.entities = Entities()
        self.noun_at: dict[int, EsMention] = {}

    def events(self, k: int, doc) -> list:
        static = mentions_of_sentence(doc, k, self.lexicon, self.genders)
        self.noun_at = {m.head: m for m in static if m.kind in ("noun", "propn")}
        return reading_order(static, sites_of_sentence(doc, k), lambda m: m.head, lambda s: s.index)

    def mention(self, k: int, doc, m: EsMention) -> None:
        ante = None
        if m.kind == "rel":
            ante = relative_antecedent(doc, m, self.noun_at)
            inherit(m, ante)
        elif m.kind == "zero":
            ante = zero_antecedent(m, self.seen, self.window)
            inherit(m, ante)
        self.entities.join(m, ante)
        self.seen.append(m)
        if m.kind in ("noun", "propn"):
            self.heads[m.word] += 1

    def decide(self, k: int, doc, site: EsSite) -> Decision:
        lo = k - self.window
        cands = [c for c in reversed(self.seen) if c.sentence >= lo][:self.max_candidates]
        feats = []
        n_agree = n_nominal = 0
        for r, c in enumerate(cands):
            feats.append(pair_features(site, c, self.parsed, r, self.heads[c.word] if not c.pronoun else 0,
                                       self.entities.sizes[c.entity], n_agree, n_nominal))
            n_agree += agrees(site, c)
            n_nominal += not c.pronoun
        return Decision(site, cands, feats, anaphoricity_features(site, doc) if site.word in CLITICS else [])

    def chosen(self, k: int, doc, dec: Decision, choice: int | None) -> None:
        pm = site_mention(dec.site, doc)
        ante = dec.candidates[choice] if choice is not None else None
        inherit(pm, ante)
        self.entities.join(pm, ante)
        self.seen.append(pm)


class SpanishResolver(Backend):
    """Backend for Spanish: `resolve(doc_id, sentences)` gives every third-person pronoun site
    (él ella ellos ellas, su sus suyo suya suyos suyas, and lo la los las le les where tagged as
    pronouns) with its candidate antecedents, seed 003's `keep_likely` over the ranker's
    probabilities. Works on lowercased tokens (see the module's doc)."""

    reads_case = False      # trained on lowercased text: callers give it lowercased tokens
    reads_model = True

    @classmethod
    def from_options(cls, options: BackendOptions) -> SpanishResolver:
        """`model`: the model file (default: coref/data/ranker-es.json.gz); `human_lexicon`: a
        human-noun lexicon (default: the one stored with the model); `gender_lexicon`: the gender of
        person names."""
        return cls(options.get("model"), lexicon=options.get("human_lexicon") or "model",
                   genders=options.get("gender_lexicon"))

    def __init__(self, model: str | os.PathLike | SpanishModel | None = None, nlp=None, lexicon="model",
                 pronouns: tuple[str, ...] = ALL_PRONOUNS, genders=None):
        """`lexicon`: "model" (the human-noun lexicon stored with the model), None (no lexicon:
        humanness from named entities only), or a cad.lexicons.humanness.HumanLexicon or its TSV.
        `genders`: a cad.lexicons.name_gender.GenderLexicon or its TSV, the gender of person names."""
        self.model = model if isinstance(model, SpanishModel) else SpanishModel.load(model or default_model_path())
        self.nlp = spanish_nlp() if nlp is None else nlp
        if isinstance(lexicon, str) and lexicon == "model":
            self.lexicon = self.model.human_lexicon()
        elif isinstance(lexicon, (str, os.PathLike)):
            self.lexicon = HumanLexicon.load(lexicon)
        else:
            self.lexicon = lexicon
        if isinstance(genders, (str, os.PathLike)):
            genders = GenderLexicon.load(genders)
        self.genders = genders
        self.pronouns = tuple(p.lower() for p in pronouns)

    def parse(self, sentences: list[list[str]]) -> list:
        return parse(self.nlp, sentences, self.model.truecaser)

    def choose(self, dec: Decision) -> tuple[int | None, np.ndarray | None, float | None]:
        p_ref = None
        if self.model.anaphoricity is not None and dec.site.word in CLITICS:
            p_ref = float(self.model.anaphoricity.probabilities([dec.ana_feats, []])[0])
        if not dec.candidates or (p_ref is not None and p_ref < self.model.threshold):
            return None, None, p_ref
        probs = self.model.ranker.probabilities(dec.pair_feats)
        return int(np.argmax(probs)), probs, p_ref

    def decisions(self, sentences: list[list[str]],
                  parsed=None) -> list[tuple[Decision, int | None, np.ndarray | None, float | None]]:
        parsed = parsed if parsed is not None else self.parse(sentences)
        return walk(parsed, self.choose, self.model.window, self.model.max_candidates, self.lexicon, self.genders)

    def resolve(self, doc_id: str, sentences: list[list[str]], parsed=None) -> list[PronounResolution]:
        out = []
        for dec, choice, probs, p_ref in self.decisions(sentences, parsed):
            site = dec.site
            if site.word not in self.pronouns:
                continue
            rec = PronounResolution(doc_id, site.sentence, site.index, sentences[site.sentence][site.index],
                                    referential=choice is not None,
                                    anaphoricity=None if p_ref is None else round(p_ref, 6))
            if choice is not None:
                scored = [(to_candidate(c, sentences), float(p)) for c, p in zip(dec.candidates, probs)]
                rec.candidates = keep_likely(scored)
            out.append(rec)
        return out


def to_candidate(m: EsMention, sentences: list[list[str]]) -> Candidate:
    """A mention as a record's candidate, its text the given tokens (not the truecased ones)."""
    return Candidate(m.sentence, m.start, m.end, m.head, " ".join(sentences[m.sentence][m.start:m.end]), 1.0,
                     m.number, m.human, m.gender, "np")
