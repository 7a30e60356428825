"""The Coreference Model as a stateless decoder feature (seed 003's "coreference as a feature
function in the decoder, while keeping the standard translation model").

moses.ini:
    CoreferenceModel name=CoreferenceModel0 num-features=1 path=tables/baseline/classes.gz [objective=credit] [reading=map]
    [weight]  CoreferenceModel0= 0.1
or, with the classifier CM (cad/cm/class_classifier.py) in place of the class table,
    CoreferenceModel name=CoreferenceModel0 num-features=1 path=tables/baseline/classifier.json model=classifier

Per sentence, the caller passes `context={"pronouns": {token index: {bundle: weight}}}` to
`Decoder.translate`. An option whose source span covers such a pronoun scores
Σ_pronouns ln P(class), P(class) = Σ_b w_b P(class | b) from the table or the classifier's
P(class | source words, mixture), the class read from the option's target words aligned to the
pronoun, with APT's alignment improvement inside the phrase (nothing: NONE); every other option
scores 0. The phrase table stays whole. With num-features=2 the feature's two values are
ln P(form) (class_model.split_scores: *il*/*elle*/*ils*/*elles* as one personal pronoun, *ce*,
*ça*, nothing, ...) and the log-odds of the personal pronoun or gendered clitic written against
the one the antecedent makes likeliest (0 for that one and for a class without a gender): the
construction's choice and the antecedent's get a weight each. `objective=credit` scores ln of the option's expected APT
credit instead of ln P(class) (ClassTable.expected_credit), where *il* earns the credit of a *ce*
reference only in the share of the mixture whose antecedent is not feminine (class_model.score_class).
`reading=map` scores the mixture's most probable bundle alone instead of the whole mixture
(class_model.read_mixture): a decision on the antecedent's features, as seed 004 takes the
resolver's one antecedent, where the mixture hedges between the antecedents' genders.
`other=tables/baseline/other-words.gz` scores an option whose pronoun became a non-pronoun word
(OTHER) as P(OTHER) × P(word | OTHER) (cad/cm/other_words.py) instead of P(OTHER) whole, which any
word aligned to the pronoun collected (*repair it* → *réparer*); with num-features=2 the word's
share goes into ln P(form); objective=likelihood only.
`pair=en-de` names the language pair whose target classes the model scores (cad/lang/pairs.py);
a line without it is the model's implicit pair (the source-feature table's: Spanish→English) or
the default pair, English→French, as every configuration written before.

Importing this module registers the feature under its moses.ini type (cad/decoder/registry.py);
installed distributions also find it through the `cad.decoder_features` entry point.
"""

from __future__ import annotations

from typing import Any

from cad.cm.class_model import (OBJECTIVES, READINGS, ClassTable, gender_shares, read_mixture, score_class,
                                 split_scores)
from cad.cm.classes import aligned_words, pronoun_class
from cad.cm.construction import check_parts
from cad.cm.models import CM_MODELS, load_pronoun_model
from cad.cm.other_words import OtherWords, other_word
from cad.core.errors import CadError
from cad.defaults import CM_IMPLICIT_MODEL, CM_IMPLICIT_OBJECTIVE, CM_IMPLICIT_READING
from cad.lang import OTHER
from cad.lang.pairs import Pair, default_pair, pair as language_pair, pair_named
from cad.decoder.features import Option, StatelessFeature
from cad.decoder.registry import FeatureSlot, Loading, register
from cad.moses.ini import Feature

_MODELS: dict[str, Any] = {}
CLASS_CACHE = 200_000       # option classes kept


def option_words(opt: Option, index: int, tokens: list[str], pair: Pair | None = None) -> list[str]:
    """The target words `opt` makes of source token `index` (inside its span), with APT's
    alignment improvement inside the phrase (*kill it* → *la tuer*, *it* unaligned)."""
    if opt.table < 0:
        return list(opt.words)                         # an unknown word passes through
    return aligned_words(tokens[opt.start:opt.end], opt.words, opt.alignment, index - opt.start, pair)


def option_class(opt: Option, index: int, tokens: list[str], pair: Pair | None = None) -> str:
    """The class of what `opt` makes of source token `index` (option_words)."""
    return pronoun_class(option_words(opt, index, tokens, pair), pair)


@register("CoreferenceModel")
class CoreferenceModelFeature(StatelessFeature):
    reads_context = True

    def __init__(self, slot: FeatureSlot, feature: Feature, config_path: str | None = None,
                 table: ClassTable | None = None):
        super().__init__(slot)
        if slot.size not in (1, 2):
            raise CadError(f"{feature.name}: a CoreferenceModel has num-features=1 (ln P(class)) or 2 (ln P(form) "
                           "and the gender's log-odds)", config_path, feature.line)
        kind = feature.args.get("model", CM_IMPLICIT_MODEL)
        if kind not in CM_MODELS:
            raise CadError(f"{feature.name}: unknown model={kind} (choose from {', '.join(CM_MODELS)})",
                           config_path, feature.line)
        try:
            implicit = CM_MODELS.get(kind).implicit_pair
            self.pair = pair_named(feature.args["pair"]) if "pair" in feature.args else \
                language_pair(*implicit) if implicit else default_pair()
        except CadError as exc:
            raise CadError(f"{feature.name}: {exc}", config_path, feature.line) from None
        if table is None:
            path = feature.path
            if not path:
                raise CadError(f"{feature.name} has no path=", config_path, feature.line)
            key = f"{kind}:{self.pair.name}:{path}"
            table = _MODELS.get(key)
            if table is None:
                try:
                    table = load_pronoun_model(path, kind, self.pair)
                except FileNotFoundError:
                    raise CadError(f"{feature.name}: {kind} {path} not found", config_path, feature.line) from None
                check_parts(path, kind, table)
            _MODELS[key] = table
        self.table = table
        # what an option makes of the pronoun, in the model's own target classes (the pair's)
        own = getattr(table, "option_class", None)
        self.option_class = own if own is not None else \
            (lambda opt, index, tokens: option_class(opt, index, tokens, self.pair))
        self.objective = feature.args.get("objective", CM_IMPLICIT_OBJECTIVE)
        if not CM_MODELS.get(kind).credits and self.objective != "likelihood":
            raise CadError(f"{feature.name}: model={kind} scores ln P(class) only (objective=likelihood)",
                           config_path, feature.line)
        if self.objective not in OBJECTIVES:
            raise CadError(f"{feature.name}: unknown objective={self.objective} (choose from {', '.join(OBJECTIVES)})",
                           config_path, feature.line)
        # two values: the pronoun's form, and its member of a gender family against the likeliest one
        self.split = slot.size == 2
        if self.split and self.objective != "likelihood":
            raise CadError(f"{feature.name}: num-features=2 splits ln P(class), objective=likelihood only (not "
                           f"{self.objective})", config_path, feature.line)
        self.other: OtherWords | None = None
        if feature.args.get("other"):
            if self.objective != "likelihood":
                raise CadError(f"{feature.name}: other= shares P(OTHER) out by word, objective=likelihood only (not "
                               f"{self.objective})", config_path, feature.line)
            if own is not None:
                raise CadError(f"{feature.name}: other= reads the French-style classes of model=table or classifier, "
                               f"not model={kind}", config_path, feature.line)
            self.other = _other_words(feature.args["other"], feature, config_path)
        self.reading = feature.args.get("reading", CM_IMPLICIT_READING)
        if self.reading not in READINGS:
            raise CadError(f"{feature.name}: unknown reading={self.reading} (choose from {', '.join(READINGS)})",
                           config_path, feature.line)
        self.pronouns: dict[int, dict[str, float]] = {}
        self.tokens: list[str] = []
        # an option's class depends on its words, alignment and source span only: a phrase pair is
        # classified once, not in every sentence and pass that covers a pronoun with it
        self._classes: dict[tuple, str] = {}

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> CoreferenceModelFeature:
        return cls(slot, line, config_path)

    def begin_sentence(self, tokens: list[str], context: dict[str, Any] | None) -> None:
        self.tokens = tokens
        mixtures = dict((context or {}).get("pronouns") or {})
        for i in mixtures:
            if not 0 <= i < len(tokens):
                raise CadError(f"coreference context names token {i} of a {len(tokens)}-token sentence")
        mixtures = {i: self.read(mix) for i, mix in mixtures.items()}
        self.mixtures = mixtures
        # one distribution per pronoun and sentence; each option then reads its class's score
        self.pronouns = {i: self.table.class_distribution(mix, tokens, i) for i, mix in mixtures.items()}
        self.shares = {i: gender_shares(mix, self.pair) for i, mix in mixtures.items()}
        self._scores: dict[tuple[int, str], float] = {}

    def read(self, mixture: dict[str, float]) -> dict[str, float]:
        """The part of a pronoun's mixture this feature scores (its `reading=`)."""
        return read_mixture(mixture, self.reading)

    def reads_sentence(self) -> bool:
        return bool(self.pronouns)

    def reads_span(self, start: int, end: int) -> bool:
        return any(start <= i < end for i in self.pronouns)

    def evaluate(self, opt: Option) -> tuple[float, ...] | None:
        if not self.pronouns:
            return None
        total = None
        for i, dist in self.pronouns.items():
            if opt.start <= i < opt.end:
                key = (opt.table < 0, opt.words, opt.alignment, i - opt.start, *self.tokens[opt.start:opt.end])
                cls = self._classes.get(key)
                if cls is None:
                    if len(self._classes) >= CLASS_CACHE:
                        self._classes.clear()
                    cls = self._classes[key] = self._class_of(opt, i)
                v = self._scores.get((i, cls))
                if v is None:
                    v = self._scores[(i, cls)] = self._score(i, dist, cls)
                total = v if total is None else tuple(a + b for a, b in zip(total, v))
        return total

    def _class_of(self, opt: Option, index: int) -> str:
        """The option's class; with other=, an OTHER option's class is "OTHER word" (its word's
        share is scored apart)."""
        if self.other is None:
            return self.option_class(opt, index, self.tokens)
        words = option_words(opt, index, self.tokens, self.pair)
        cls = pronoun_class(words, self.pair)
        return f"{OTHER} {other_word(words)}" if cls == OTHER else cls

    def _score(self, index: int, dist: dict[str, float], cls: str) -> tuple[float, ...]:
        word = None
        if self.other is not None and cls.startswith(OTHER + " "):
            cls, word = OTHER, cls[len(OTHER) + 1:]
        v = split_scores(dist, cls, self.pair) if self.split else \
            (score_class(dist, cls, self.objective, self.shares.get(index), self.pair),)
        if word is not None:
            v = (v[0] + self.other.log_prob(self.mixtures[index], word), *v[1:])
        return v


def _other_words(path: str, feature: Feature, config_path: str | None) -> OtherWords:
    key = f"other:{path}"
    got = _MODELS.get(key)
    if got is None:
        try:
            got = _MODELS[key] = OtherWords.read(path)
        except FileNotFoundError:
            raise CadError(f"{feature.name}: other= {path} not found", config_path, feature.line) from None
        except CadError as exc:         # the table's own file and line, and the configuration's line
            raise CadError(f"{feature.name}: other= {exc}", config_path, feature.line) from None
    return got
