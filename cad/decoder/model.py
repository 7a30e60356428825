"""Loading a moses.ini and its tables (cad/decoder/tables.py) into the feature functions the search uses.

Scores are on Moses's scale: the tables' natural logs, WordPenalty is -|e| per phrase, PhrasePenalty
1 per phrase, Distortion minus the jump width, and an unknown word costs UnknownWordPenalty = log(0)
floored = -100.
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field

from cad.core.errors import CadError
from cad.decoder.tables import LanguageModel, PhraseTable, ReorderingTable
from cad.moses.ini import MosesConfig, parse_config

STATEFUL = ("KENLM", "Distortion", "LexicalReordering")
KNOWN = ("UnknownWordPenalty", "WordPenalty", "PhrasePenalty", "PhraseDictionaryMemory", "CoreferenceModel",
         *STATEFUL)


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
class FeatureSlot:
    name: str
    type: str
    offset: int
    size: int
    weights: list[float]


@dataclass
class DecoderModel:
    config: MosesConfig
    slots: list[FeatureSlot]
    tables: list[PhraseTable]
    reordering: ReorderingTable | None
    lm: LanguageModel | None
    lm_slot: FeatureSlot | None
    distortion_slot: FeatureSlot | None
    lr_slot: FeatureSlot | None
    wp_slot: FeatureSlot | None
    pp_slot: FeatureSlot | None
    uwp_slot: FeatureSlot | None
    table_slots: list[FeatureSlot]
    paths: list[list[int]]          # decoding path -> translation table indices
    backoff: list[int]
    settings: SearchSettings = field(default_factory=SearchSettings)
    stateless: list = field(default_factory=list)     # StatelessFeature, in moses.ini order
    stateful: list = field(default_factory=list)      # StatefulFeature, cheap ones first, else moses.ini order
    # table-limited phrase entries by weights (cad/decoder/options.py), shared by shallow copies
    limit_cache: dict = field(default_factory=dict, repr=False, compare=False)

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
    def from_config(cls, cfg: MosesConfig, input_sentences: list[str] | None, settings: SearchSettings) -> "DecoderModel":
        from cad.decoder.features import PLUGINS, STATELESS, PhraseScores, plugin_class
        from cad.decoder.stateful import Distortion, KenLMFeature, LexicalReordering

        p = cfg.source
        slots: list[FeatureSlot] = []
        tables: list[PhraseTable] = []
        table_slots: list[FeatureSlot] = []
        reordering = lm = None
        stateless: list = []
        stateful: list = []
        named: dict[str, FeatureSlot | None] = {"lm": None, "dist": None, "lr": None, "wp": None, "pp": None, "uwp": None}
        offset = 0
        for f in cfg.features:
            if f.type not in KNOWN:
                raise CadError(f"feature {f.type} is not supported by cad's decoder (supported: {', '.join(KNOWN)})",
                               p, f.line)
            weights = cfg.weights.get(f.name)
            if weights is None:
                weights = [1.0] * f.num_features     # untuneable features default to weight 1
            slot = FeatureSlot(f.name, f.type, offset, f.num_features, list(weights))
            offset += f.num_features
            slots.append(slot)
            if f.type == "PhraseDictionaryMemory":
                tables.append(PhraseTable(f, p))
                table_slots.append(slot)
            elif f.type == "LexicalReordering":
                if reordering is not None:
                    raise CadError("only one LexicalReordering feature is supported", p, f.line)
                reordering = ReorderingTable(f, p)
                named["lr"] = slot
                stateful.append(LexicalReordering(slot, reordering))
            elif f.type == "KENLM":
                if lm is not None:
                    raise CadError("only one language model is supported", p, f.line)
                lm = LanguageModel(f, p)
                named["lm"] = slot
                stateful.append(KenLMFeature(slot, lm))
            elif f.type == "Distortion":
                named["dist"] = slot
                stateful.append(Distortion(slot))
            elif f.type == "WordPenalty":
                named["wp"] = slot
            elif f.type == "PhrasePenalty":
                named["pp"] = slot
            elif f.type == "UnknownWordPenalty":
                named["uwp"] = slot
            if f.type in STATELESS:
                stateless.append(STATELESS[f.type](slot))
            elif f.type == "PhraseDictionaryMemory":
                stateless.append(PhraseScores(slot, len(tables) - 1))
            elif f.type in PLUGINS:
                stateless.append(plugin_class(f.type)(slot, f, p))
        if not tables:
            raise CadError("no phrase table (PhraseDictionaryMemory) in the configuration", p)
        paths: dict[int, list[int]] = {}
        for path_id, kind, idx in cfg.mapping:
            if kind != "T":
                raise CadError("generation steps are not supported", p)
            if idx >= len(tables):
                raise CadError(f"[mapping] refers to translation table {idx}, but only {len(tables)} exist", p)
            paths.setdefault(path_id, []).append(idx)
        for ids in paths.values():
            if len(ids) > 1:
                raise CadError("factored decoding paths with several steps are not supported", p)
        backoff = cfg.backoff or [0] * len(paths)
        if cfg.distortion_limit is not None:
            settings.distortion_limit = cfg.distortion_limit
        wanted = None
        if input_sentences is not None:
            max_len = settings.max_phrase_length
            wanted = set()
            for sent in input_sentences:
                toks = sent.split()
                for i in range(len(toks)):
                    for j in range(i + 1, min(len(toks), i + max_len) + 1):
                        wanted.add(" ".join(toks[i:j]))
        for t in tables:
            t.load(wanted)
            if settings.ttable_limit is not None:
                t.table_limit = settings.ttable_limit
        if reordering is not None:
            reordering.load(wanted)
        return cls(cfg, slots, tables, reordering, lm, named["lm"], named["dist"], named["lr"], named["wp"],
                   named["pp"], named["uwp"], table_slots, [paths[k] for k in sorted(paths)], backoff, settings,
                   stateless, sorted(stateful, key=lambda x: x.expensive))


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
