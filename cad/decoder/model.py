"""A moses.ini loaded into the features the search uses, their weights and the tables they read.

Each [feature] line is built by the feature class registered for its type (cad/decoder/registry.py);
the scores' scales are those of the tables (cad/decoder/tables.py) and features
(cad/decoder/features.py, cad/decoder/stateful.py).
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field

from cad.core.errors import CadError
from cad.decoder.features import StatelessFeature
from cad.decoder.registry import FeatureSlot, Loading, feature_class
from cad.decoder.stateful import StatefulFeature
from cad.decoder.tables import LanguageModel, PhraseTable, ReorderingTable
from cad.moses.ini import MosesConfig, parse_config


@dataclass
class SearchSettings:
    """Search parameters with Moses's defaults."""

    stack: int = 200
    beam_threshold: float = 0.00001      # as a probability ratio, like Moses's -b
    distortion_limit: int = 6             # -1: unlimited
    ttable_limit: int | None = None       # overrides every table's table-limit when given
    search_algorithm: int = 0             # 0 normal stack search, 1 cube pruning
    pop_limit: int = 1000
    max_phrase_length: int = 20
    max_trans_opt: int = 50               # -max-trans-opt-per-coverage (0: no limit)
    option_threshold: float = 0.0         # -translation-option-threshold, a probability ratio (0: off)

    @property
    def log_beam(self) -> float:
        return math.log(self.beam_threshold) if self.beam_threshold > 0 else -math.inf


@dataclass
class DecoderModel:
    config: MosesConfig
    slots: list[FeatureSlot]
    tables: list[PhraseTable]
    reordering: ReorderingTable | None
    lm: LanguageModel | None        # the first LM (LM0), None without any
    paths: list[list[int]]          # decoding path -> translation table indices
    backoff: list[int]
    settings: SearchSettings = field(default_factory=SearchSettings)
    stateless: list[StatelessFeature] = field(default_factory=list)    # in moses.ini order
    stateful: list[StatefulFeature] = field(default_factory=list)      # cheap ones first, else moses.ini order
    # table-limited phrase entries by weights (cad/decoder/options.py), shared by shallow copies
    limit_cache: dict = field(default_factory=dict, repr=False, compare=False)
    lms: list[LanguageModel] = field(default_factory=list)      # every LM, in moses.ini order

    def begin_sentence(self, tokens: list[str], context) -> None:
        for f in self.stateless:
            f.begin_sentence(tokens, context)

    @property
    def size(self) -> int:
        return sum(s.size for s in self.slots)

    @property
    def context_last(self) -> bool:
        """Whether every stateless feature that reads the sentence's context comes after all the
        others (cad/decoder/options.py then adds the context's terms to an option's sums)."""
        flags = [f.reads_context for f in self.stateless]
        return flags == sorted(flags)

    def slot(self, name: str) -> FeatureSlot:
        """The weights' slot of the feature named `name` in moses.ini (LM0, TranslationModel0, ...)."""
        for s in self.slots:
            if s.name == name:
                return s
        raise CadError(f"the model has no feature {name}")

    def slots_of(self, feature_type: str) -> list[FeatureSlot]:
        """The slots of the features of one moses.ini type (KENLM, PhraseDictionaryMemory, ...), in
        moses.ini order."""
        return [s for s in self.slots if s.type == feature_type]

    def weights(self) -> list[float]:
        out: list[float] = []
        for s in self.slots:
            out.extend(s.weights)
        return out

    def with_weights(self, name: str, weights: list[float]) -> "DecoderModel":
        """A shallow copy in which feature `name` has other weights, sharing the loaded tables and
        LM: a grid of weights decodes with one loaded model. Weights live on the slots, so the
        copy has its own slots, and its own feature objects bound to them."""
        if not any(s.name == name for s in self.slots):
            raise CadError(f"the model has no feature {name}")
        m = copy.copy(self)
        m.slots = [copy.copy(s) for s in self.slots]
        for s in m.slots:
            if s.name == name:
                if len(weights) != s.size:
                    raise CadError(f"{name} has {s.size} weights, not {len(weights)}")
                s.weights = list(weights)
        slot_of = {s.offset: s for s in m.slots}
        m.stateless = [copy.copy(f) for f in self.stateless]
        m.stateful = [copy.copy(f) for f in self.stateful]
        for f in m.stateless + m.stateful:
            if getattr(f, "slot", None) is not None:
                f.slot = slot_of[f.slot.offset]
        return m

    @classmethod
    def load(cls, config_path: str | os.PathLike, weight_overwrite: str | None = None,
             input_sentences: list[str] | None = None, settings: SearchSettings | None = None) -> "DecoderModel":
        cfg = parse_config(config_path)
        if weight_overwrite:
            apply_weight_overwrite(cfg, weight_overwrite)
        settings = settings or SearchSettings()
        return cls.from_config(cfg, input_sentences, settings)

    @classmethod
    def from_config(cls, cfg: MosesConfig, input_sentences: list[str] | None, settings: SearchSettings) -> DecoderModel:
        """The model of a parsed configuration: each [feature] line is built by the class registered
        for its type (cad/decoder/registry.py), in moses.ini order, then the tables are read,
        restricted to the phrases of `input_sentences` when given."""
        p = cfg.source
        loading = Loading(cfg, _wanted(input_sentences, settings.max_phrase_length))
        slots: list[FeatureSlot] = []
        stateless: list[StatelessFeature] = []
        stateful: list[StatefulFeature] = []
        offset = 0
        for line in cfg.features:
            feature_cls = feature_class(line.type, p, line.line)
            weights = cfg.weights.get(line.name)
            if weights is None:
                weights = [1.0] * line.num_features     # untuneable features default to weight 1
            slot = FeatureSlot(line.name, line.type, offset, line.num_features, list(weights))
            offset += line.num_features
            slots.append(slot)
            feature = feature_cls.from_line(line, slot, p, loading)
            (stateful if isinstance(feature, StatefulFeature) else stateless).append(feature)
        if not loading.tables:
            raise CadError("no phrase table (PhraseDictionaryMemory) in the configuration", p)
        paths = _decoding_paths(cfg, len(loading.tables))
        backoff = cfg.backoff or [0] * len(paths)
        if cfg.distortion_limit is not None:
            settings.distortion_limit = cfg.distortion_limit
        loading.load_tables()
        if settings.ttable_limit is not None:
            for t in loading.tables:
                t.table_limit = settings.ttable_limit
        return cls(cfg, slots, loading.tables, loading.reordering, loading.lms[0] if loading.lms else None, paths,
                   backoff, settings, stateless, sorted(stateful, key=lambda x: x.expensive), lms=loading.lms)


def _wanted(input_sentences: list[str] | None, max_len: int) -> set[str] | None:
    """The source phrases of at most `max_len` words of the input (None: the whole tables)."""
    if input_sentences is None:
        return None
    wanted = set()
    for sent in input_sentences:
        toks = sent.split()
        for i in range(len(toks)):
            for j in range(i + 1, min(len(toks), i + max_len) + 1):
                wanted.add(" ".join(toks[i:j]))
    return wanted


def _decoding_paths(cfg: MosesConfig, n_tables: int) -> list[list[int]]:
    """[mapping]: the translation tables of each decoding path, by path number."""
    p = cfg.source
    paths: dict[int, list[int]] = {}
    for path_id, kind, idx in cfg.mapping:
        if kind != "T":
            raise CadError("generation steps are not supported", p)
        if idx >= n_tables:
            raise CadError(f"[mapping] refers to translation table {idx}, but only {n_tables} exist", p)
        paths.setdefault(path_id, []).append(idx)
    for ids in paths.values():
        if len(ids) > 1:
            raise CadError("factored decoding paths with several steps are not supported", p)
    return [paths[k] for k in sorted(paths)]


def apply_weight_overwrite(cfg: MosesConfig, spec: str) -> None:
    """Moses's -weight-overwrite 'Name= w1 w2 Name2= w3'."""
    name = None
    values: dict[str, list[float]] = {}
    for tok in spec.split():
        if tok.endswith("="):
            name = tok[:-1]
            values[name] = []
        elif name is None:
            raise CadError(f"-weight-overwrite: value {tok!r} before any 'Name='")
        else:
            try:
                values[name].append(float(tok))
            except ValueError:
                raise CadError(f"-weight-overwrite: {tok!r} is not a number") from None
    names = {f.name: f for f in cfg.features}
    for n, ws in values.items():
        if n not in names:
            raise CadError(f"-weight-overwrite: no feature named {n}")
        if len(ws) != names[n].num_features:
            raise CadError(f"-weight-overwrite: {n} has {names[n].num_features} scores, {len(ws)} weights given")
        cfg.weights[n] = ws
