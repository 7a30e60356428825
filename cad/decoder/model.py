"""Loading a moses.ini and its tables into the feature functions the search uses.

Scores are on Moses's scale: phrase and reordering table values enter as natural logs floored at
-100 (Moses's LOWEST_SCORE), language model log10 probabilities are converted to natural logs,
WordPenalty is -|e| per phrase, PhrasePenalty 1 per phrase, Distortion minus the jump width, and an
unknown word costs UnknownWordPenalty = log(0) floored = -100.
"""

from __future__ import annotations

import copy

import contextlib
import logging
import math
import os
from dataclasses import dataclass, field

from cad.core.errors import CadError
from cad.moses.ini import Feature, MosesConfig, parse_config
from cad.core.textio import read_lines, is_uint

log = logging.getLogger(__name__)

LOWEST_SCORE = -100.0
LN10 = math.log(10.0)
STATEFUL = ("KENLM", "Distortion", "LexicalReordering")
KNOWN = ("UnknownWordPenalty", "WordPenalty", "PhrasePenalty", "PhraseDictionaryMemory", "CoreferenceModel",
         *STATEFUL)


def floor_log(x: float) -> float:
    return max(math.log(x), LOWEST_SCORE) if x > 0 else LOWEST_SCORE


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


def scored_lines(path: str, wanted: set[str] | None, n_scores: int, what: str):
    """Lines `src ||| tgt ||| scores ...` whose source is wanted: (line number, source, fields, log scores)."""
    for lineno, line in enumerate(read_lines(path), 1):
        fields = line.split(" ||| ")
        if len(fields) < 3:
            raise CadError("expected 'source ||| target ||| scores'", path, lineno)
        src = fields[0].strip()
        if wanted is not None and src not in wanted:
            continue
        parts = fields[2].split()
        if len(parts) != n_scores:
            raise CadError(f"{len(parts)} scores, but {what}", path, lineno)
        try:
            scores = tuple(floor_log(float(x)) for x in parts)
        except ValueError:
            raise CadError(f"non-numeric score in {fields[2]!r}", path, lineno) from None
        yield lineno, src, fields, scores


@dataclass
class TargetEntry:
    words: tuple[str, ...]
    scores: tuple[float, ...]            # natural-log table scores
    alignment: tuple[tuple[int, int], ...]


class PhraseTable:
    """PhraseDictionaryMemory: `src ||| tgt ||| scores [||| alignment [||| counts ...]]`."""

    def __init__(self, feature: Feature, config_path: str | None):
        self.feature = feature
        self.name = feature.name
        self.num_scores = feature.num_features
        self.table_limit = int(feature.args.get("table-limit", "20"))
        self.path = feature.path
        if not self.path:
            raise CadError(f"{feature.name} has no path=", config_path, feature.line)
        if not os.path.exists(self.path):
            raise CadError(f"{feature.name}: phrase table {self.path} not found", config_path, feature.line)
        self.entries: dict[str, list[TargetEntry]] = {}
        self.max_source_length = 0

    def load(self, wanted: set[str] | None) -> None:
        what = f"{self.name} declares num-features={self.num_scores}"
        for lineno, src, fields, scores in scored_lines(self.path, wanted, self.num_scores, what):
            tgt = tuple(fields[1].split())
            if not src or not tgt:
                raise CadError("empty source or target phrase", self.path, lineno)
            align: tuple[tuple[int, int], ...] = ()
            if len(fields) > 3 and fields[3].strip():
                pts = []
                for tok in fields[3].split():
                    a, sep, b = tok.partition("-")
                    if not sep or not is_uint(a) or not is_uint(b):
                        raise CadError(f"malformed alignment point {tok!r}", self.path, lineno)
                    pts.append((int(a), int(b)))
                align = tuple(pts)
            self.entries.setdefault(src, []).append(TargetEntry(tgt, scores, align))
            self.max_source_length = max(self.max_source_length, src.count(" ") + 1)


class ReorderingTable:
    """LexicalReordering wbe-msd-bidirectional-fe: `src ||| tgt ||| 6 probabilities`."""

    def __init__(self, feature: Feature, config_path: str | None):
        kind = feature.args.get("type", "")
        parts = kind.split("-")
        if "msd" not in parts or "bidirectional" not in parts or "fe" not in parts:
            raise CadError(f"{feature.name}: only msd-bidirectional-fe reordering models are supported, not {kind!r}",
                           config_path, feature.line)
        if feature.num_features != 6:
            raise CadError(f"{feature.name}: msd-bidirectional needs 6 scores", config_path, feature.line)
        self.feature = feature
        self.path = feature.path
        if not self.path or not os.path.exists(self.path):
            raise CadError(f"{feature.name}: reordering table {self.path} not found", config_path, feature.line)
        self.scores: dict[tuple[str, str], tuple[float, ...]] = {}

    def load(self, wanted: set[str] | None) -> None:
        for _, src, fields, scores in scored_lines(self.path, wanted, 6, "the reordering model needs 6"):
            self.scores[(src, fields[1].strip())] = scores


@contextlib.contextmanager
def _quiet_stderr():
    """kenlm prints loading chatter on the C stderr; keep it off the user's terminal."""
    try:
        fd = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(fd, 2)
        os.close(fd)


class LanguageModel:
    def __init__(self, feature: Feature, config_path: str | None):
        import kenlm

        self.feature = feature
        path = feature.path
        if not path or not os.path.exists(path):
            raise CadError(f"{feature.name}: language model {path} not found", config_path, feature.line)
        try:
            with _quiet_stderr():
                self.model = kenlm.Model(path)
        except Exception as exc:
            raise CadError(f"{feature.name}: kenlm cannot load {path}: {exc}", config_path, feature.line) from None
        self.order = self.model.order
        self.kenlm = kenlm
        self._estimates: dict[tuple[str, ...], float] = {}

    def begin(self):
        s = self.kenlm.State()
        self.model.BeginSentenceWrite(s)
        return s

    def score_words(self, state, words) -> tuple[float, object]:
        """Natural-log score of `words` after `state`, and the state after them."""
        total = 0.0
        base = self.model.BaseScore
        State = self.kenlm.State
        for w in words:
            out = State()
            total += base(state, w, out)
            state = out
        return total * LN10, state

    def estimate(self, words: tuple[str, ...]) -> float:
        """Context-free estimate of a phrase, as Moses's future cost uses (cached: phrases recur)."""
        v = self._estimates.get(words)
        if v is None:
            s = self.kenlm.State()
            self.model.NullContextWrite(s)
            v = self._estimates[words] = self.score_words(s, words)[0]
        return v


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
