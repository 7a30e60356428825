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
from importlib import resources
from typing import Callable

import numpy as np

from cad.core.errors import CadError
from cad.lang.es import PRONOUN_CLASS, spanish_nlp
from cad.lang.humanness import Entry, HumanLexicon
from cad.lang.name_gender import GenderLexicon
from coref.backends import Backend, BackendOptions
from coref.records import Candidate, PronounResolution, keep_likely
from coref.softmax import SoftmaxRanker, load_json, save_json
from coref.spanish.entities import Entities, inherit, relative_antecedent, zero_antecedent
from coref.spanish.features import agrees, anaphoricity_features, pair_features
from coref.spanish.mentions import CLITICS, EsMention, EsSite, mentions_of_sentence, site_mention, sites_of_sentence
from coref.spanish.tokens import Truecaser, parse

MODEL_VERSION = 1
DEFAULT_MODEL = "ranker-es.json.gz"
ALL_PRONOUNS = tuple(PRONOUN_CLASS)


@dataclass
class SpanishModel:
    """The Spanish ranker's model file: the pair ranker, the clitics' anaphoricity model, how the
    walk reads a document, and the truecasing table and human-noun lexicon it was trained with."""

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
        save_json({"version": MODEL_VERSION, "language": "es", "window": self.window,
                   "max_candidates": self.max_candidates, "threshold": self.threshold, "info": self.info or {},
                   "ranker": self.ranker.to_dict(),
                   "anaphoricity": self.anaphoricity.to_dict() if self.anaphoricity else None,
                   "truecase": self.truecaser.forms if self.truecaser else None, "lexicon": self.lexicon}, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "SpanishModel":
        d = load_json(path)
        if not isinstance(d, dict) or d.get("version") != MODEL_VERSION or d.get("language") != "es":
            raise CadError(f"not a cad Spanish ranker model of version {MODEL_VERSION}", str(path))
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
    return str(resources.files("coref") / "data" / DEFAULT_MODEL)


@dataclass
class Decision:
    """What the walk asks at each pronoun site, and what it was told."""
    site: EsSite
    candidates: list[EsMention]
    pair_feats: list[list[str]]
    ana_feats: list[str]


# (index of the chosen candidate or None, probabilities or None, P(referential) or None)
Chooser = Callable[[Decision], "tuple[int | None, np.ndarray | None, float | None]"]


def walk(parsed, choose: Chooser, window: int = 2, max_candidates: int = 40,
         lexicon=None, genders=None) -> list[tuple[Decision, int | None, np.ndarray | None, float | None]]:
    """Read a parsed document in order, asking `choose` for each pronoun site's antecedent among the
    mentions of its sentence and the `window` previous ones (most recent first, at most
    `max_candidates`). A linked pronoun becomes a mention with its antecedent's features."""
    seen: list[EsMention] = []
    heads: Counter[str] = Counter()
    entities = Entities()
    out = []
    for k, doc in enumerate(parsed):
        static = mentions_of_sentence(doc, k, lexicon, genders)
        noun_at = {m.head: m for m in static if m.kind in ("noun", "propn")}
        events = [(m.head, 1, m, None) for m in static] + [(s.index, 0, None, s) for s in sites_of_sentence(doc, k)]
        for _, _, m, site in sorted(events, key=lambda e: (e[0], e[1])):
            if site is None:
                ante = None
                if m.kind == "rel":
                    ante = relative_antecedent(doc, m, noun_at)
                    inherit(m, ante)
                elif m.kind == "zero":
                    ante = zero_antecedent(m, seen, window)
                    inherit(m, ante)
                entities.join(m, ante)
                seen.append(m)
                if m.kind in ("noun", "propn"):
                    heads[m.word] += 1
                continue
            lo = k - window
            cands = [c for c in reversed(seen) if c.sentence >= lo][:max_candidates]
            feats = []
            n_agree = n_nominal = 0
            for r, c in enumerate(cands):
                feats.append(pair_features(site, c, parsed, r, heads[c.word] if not c.pronoun else 0,
                                           entities.sizes[c.entity], n_agree, n_nominal))
                n_agree += agrees(site, c)
                n_nominal += not c.pronoun
            dec = Decision(site, cands, feats, anaphoricity_features(site, doc) if site.word in CLITICS else [])
            choice, probs, p_ref = choose(dec)
            out.append((dec, choice, probs, p_ref))
            pm = site_mention(site, doc)
            ante = cands[choice] if choice is not None else None
            inherit(pm, ante)
            entities.join(pm, ante)
            seen.append(pm)
    return out


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
        humanness from named entities only), or a cad.lang.humanness.HumanLexicon or its TSV.
        `genders`: a cad.lang.name_gender.GenderLexicon or its TSV, the gender of person names."""
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
