"""Parse and write new-style Moses configuration files (moses.ini).

The writer reproduces the layout and untuned default weights of Moses's train-model.perl
(create_ini): UnknownWordPenalty0= 1, WordPenalty0= -1, PhrasePenalty0= 0.2, 0.2 for every
phrase-table score, 0.3 for every reordering score, Distortion0= 0.3, LM0= 0.5, table-limit=20 on
the first phrase table and [distortion-limit] 6. More language models (train-model.perl's -lm given
again, `add_lm`) follow LM0 as LM1, LM2, ..., each a line of its own and a weight of 0.5.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines, is_uint

# features whose number of scores is fixed when num-features is not given
DEFAULT_NUM_FEATURES = {
    "UnknownWordPenalty": 1,
    "WordPenalty": 1,
    "PhrasePenalty": 1,
    "Distortion": 1,
    "KENLM": 1,
    "SRILM": 1,
    "IRSTLM": 1,
}
# the language model features (moses.ini types)
LM_TYPES = ("KENLM", "SRILM", "IRSTLM")
# features that need a num-features= or can derive it from their type
NEEDS_NUM_FEATURES = {"PhraseDictionaryMemory", "PhraseDictionaryCadBinary", "PhraseDictionaryBinary",
                      "PhraseDictionaryOnDisk", "PhraseDictionaryCompact", "LexicalReordering"}
# old-style sections that Moses converts itself; cad asks for a new-style file instead
OLD_STYLE = {"ttable-file", "lmodel-file", "weight-t", "weight-l", "weight-d", "weight-w",
             "distortion-file", "weight-u"}


def reordering_num_features(kind: str) -> int | None:
    """Scores in a lexicalized reordering table of the given type (e.g. wbe-msd-bidirectional-fe-allff)."""
    per_dir = {"msd": 3, "mslr": 4, "monotonicity": 2, "leftright": 2}
    parts = kind.split("-")
    for key, n in per_dir.items():
        if key in parts:
            return n * 2 if "bidirectional" in parts else n
    return None


@dataclass
class Feature:
    type: str
    name: str
    args: dict[str, str] = field(default_factory=dict)
    line: int | None = None
    # where "name=" stands among the arguments; None: not written (the name is Moses's default)
    name_pos: int | None = 0

    @property
    def num_features(self) -> int:
        if "num-features" in self.args:
            return int(self.args["num-features"])
        if self.type == "LexicalReordering" and "type" in self.args:
            n = reordering_num_features(self.args["type"])
            if n is not None:
                return n
        return DEFAULT_NUM_FEATURES.get(self.type, 1)

    @property
    def path(self) -> str | None:
        return self.args.get("path")

    def spec(self) -> str:
        parts = [f"{k}={v}" for k, v in self.args.items()]
        if self.name_pos is not None:
            parts.insert(self.name_pos, f"name={self.name}")
        return " ".join([self.type, *parts])


@dataclass
class MosesConfig:
    features: list[Feature] = field(default_factory=list)
    weights: dict[str, list[float]] = field(default_factory=dict)
    mapping: list[tuple[int, str, int]] = field(default_factory=lambda: [(0, "T", 0)])
    backoff: list[int] = field(default_factory=list)
    input_factors: list[str] = field(default_factory=lambda: ["0"])
    distortion_limit: int | None = 6
    other: dict[str, list[str]] = field(default_factory=dict)
    source: str | None = None

    def feature(self, name: str) -> Feature:
        for f in self.features:
            if f.name == name:
                return f
        raise KeyError(name)

    def translation_models(self) -> list[Feature]:
        return [f for f in self.features if f.type.startswith("PhraseDictionary")]


def baseline_config(phrase_table: str, reordering_table: str | None, lm: str, lm_order: int,
                    num_scores: int = 4, distortion_limit: int = 6, table_limit: int = 20) -> MosesConfig:
    cfg = MosesConfig(distortion_limit=distortion_limit)
    cfg.features = [Feature("UnknownWordPenalty", "UnknownWordPenalty0", name_pos=None),
                    Feature("WordPenalty", "WordPenalty0", name_pos=None),
                    Feature("PhrasePenalty", "PhrasePenalty0", name_pos=None),
                    Feature("PhraseDictionaryMemory", "TranslationModel0",
                            {"table-limit": str(table_limit), "num-features": str(num_scores), "path": phrase_table,
                             "input-factor": "0", "output-factor": "0"})]
    cfg.weights = {"UnknownWordPenalty0": [1.0], "WordPenalty0": [-1.0], "PhrasePenalty0": [0.2],
                   "TranslationModel0": [0.2] * num_scores}
    if reordering_table:
        cfg.features.append(Feature("LexicalReordering", "LexicalReordering0",
                                    {"num-features": "6", "type": "wbe-msd-bidirectional-fe-allff",
                                     "input-factor": "0", "output-factor": "0", "path": reordering_table}))
        cfg.weights["LexicalReordering0"] = [0.3] * 6
    cfg.features.append(Feature("Distortion", "Distortion0", name_pos=None))
    cfg.weights["Distortion0"] = [0.3]
    add_lm(cfg, lm, lm_order)
    return cfg


def add_lm(cfg: MosesConfig, lm: str, order: int, weight: float = 0.5) -> str:
    """Add a KenLM language model as train-model.perl writes the k-th -lm (k from 0): the line
    `KENLM lazyken=0 name=LMk factor=0 path=... order=...` after the last LM line (else at the
    end) and `LMk= 0.5` among the weights; returns its name. Each LM is a feature of its own, with
    its own weight that MERT tunes, as Moses users add an in-domain LM beside a large one."""
    names = {f.name for f in cfg.features}
    k = 0
    while f"LM{k}" in names:
        k += 1
    name = f"LM{k}"
    feature = Feature("KENLM", name, {"lazyken": "0", "factor": "0", "path": lm, "order": str(order)}, name_pos=1)
    last = max((i for i, f in enumerate(cfg.features) if f.type in LM_TYPES), default=len(cfg.features) - 1)
    cfg.features.insert(last + 1, feature)
    cfg.weights[name] = [weight]
    return name


def _fmt_weight(w: float) -> str:
    return f"{w:g}"


def format_config(cfg: MosesConfig) -> str:
    out = ["#########################", "### MOSES CONFIG FILE ###", "#########################", "", "",
           "# input factors", "[input-factors]", *cfg.input_factors, "",
           "# mapping steps", "[mapping]", *(f"{p} {t} {i}" for p, t, i in cfg.mapping), ""]
    if cfg.backoff:
        out += ["[decoding-graph-backoff]", *(str(b) for b in cfg.backoff), ""]
    if cfg.distortion_limit is not None:
        out += ["[distortion-limit]", str(cfg.distortion_limit), ""]
    for name, lines in cfg.other.items():
        out += [f"[{name}]", *lines, ""]
    out += ["# feature functions", "[feature]", *(f.spec() for f in cfg.features), ""]
    out += ["# dense weights for feature functions", "[weight]"]
    for f in cfg.features:
        if f.name in cfg.weights:
            out.append(f"{f.name}= " + " ".join(_fmt_weight(w) for w in cfg.weights[f.name]))
    return "\n".join(out) + "\n"


def write_config(cfg: MosesConfig, path: str | os.PathLike) -> None:
    validate(cfg)
    with atomic_output(path) as fh:
        fh.write(format_config(cfg))


_SECTION = re.compile(r"^\[([^\]]+)\]$")


def parse_config(path: str | os.PathLike) -> MosesConfig:
    p = str(path)
    sections = _sections(p)
    cfg = MosesConfig(source=p, distortion_limit=None, mapping=[], input_factors=[])
    cfg.features = _features(sections.pop("feature", []), p)
    weight_lines = _weights(cfg, sections.pop("weight", []), p)
    for lineno, line in sections.pop("mapping", []):
        toks = line.split()
        if len(toks) == 2:
            toks = ["0"] + toks
        if len(toks) != 3 or not is_uint(toks[0]) or toks[1] not in ("T", "G") or not is_uint(toks[2]):
            raise CadError(f"mapping step {line!r} is not 'path T|G index'", p, lineno)
        cfg.mapping.append((int(toks[0]), toks[1], int(toks[2])))
    if not cfg.mapping:
        cfg.mapping = [(0, "T", 0)]
    for lineno, line in sections.pop("decoding-graph-backoff", []):
        if not is_uint(line):
            raise CadError(f"back-off value {line!r} is not a non-negative integer", p, lineno)
        cfg.backoff.append(int(line))
    dl = sections.pop("distortion-limit", [])
    if dl:
        lineno, line = dl[0]
        try:
            cfg.distortion_limit = int(line)
        except ValueError:
            raise CadError(f"distortion limit {line!r} is not an integer", p, lineno) from None
    cfg.input_factors = [line for _, line in sections.pop("input-factors", [])] or ["0"]
    cfg.other = {k: [line for _, line in v] for k, v in sections.items()}
    validate(cfg, weight_lines)
    return cfg


def _sections(p: str) -> dict[str, list[tuple[int, str]]]:
    """The file's lines by [section], comments and blank lines left out: (line number, text)."""
    sections: dict[str, list[tuple[int, str]]] = {}
    current = None
    for lineno, raw in enumerate(read_lines(p), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        m = _SECTION.match(line)
        if m:
            current = m.group(1).strip()
            if current in OLD_STYLE:
                raise CadError(f"old-style section [{current}]: convert the file to the new "
                               "[feature]/[weight] format", p, lineno)
            if current in sections and current not in ("feature", "weight"):
                raise CadError(f"section [{current}] appears twice", p, lineno)
            sections.setdefault(current, [])
            continue
        if current is None:
            raise CadError(f"line outside any [section]: {line!r}", p, lineno)
        sections[current].append((lineno, line))
    return sections


def _features(lines: list[tuple[int, str]], p: str) -> list[Feature]:
    """[feature]: `Type [name=N] key=value ...`, unnamed features named as Moses names them."""
    features = []
    counters: dict[str, int] = {}
    names: set[str] = set()
    for lineno, line in lines:
        toks = line.split()
        ftype, args, name, name_pos = toks[0], {}, None, None
        for tok in toks[1:]:
            k, sep, v = tok.partition("=")
            if not sep or not k:
                raise CadError(f"feature argument {tok!r} is not key=value", p, lineno)
            if k == "name":
                name, name_pos = v, len(args)
            else:
                args[k] = v
        if name is None:
            # Moses names unnamed features by type and a per-type counter
            name = f"{ftype}{counters.get(ftype, 0)}"
        counters[ftype] = counters.get(ftype, 0) + 1
        if name in names:
            raise CadError(f"two features are named {name}", p, lineno)
        names.add(name)
        feat = Feature(ftype, name, args, lineno, name_pos)
        if ftype in NEEDS_NUM_FEATURES and "num-features" not in args and not (
                ftype == "LexicalReordering" and reordering_num_features(args.get("type", "")) is not None):
            raise CadError(f"{ftype} needs num-features=", p, lineno)
        if "num-features" in args and not is_uint(args["num-features"]):
            raise CadError(f"num-features={args['num-features']} is not a number", p, lineno)
        features.append(feat)
    return features


def _weights(cfg: MosesConfig, lines: list[tuple[int, str]], p: str) -> dict[str, int]:
    """[weight]: `Name= w1 w2 ...` into cfg.weights; the line of each name, for validate's errors."""
    weight_lines: dict[str, int] = {}
    for lineno, line in lines:
        name, sep, values = line.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CadError("weight line must be 'Name= w1 w2 ...'", p, lineno)
        try:
            ws = [float(v) for v in values.split()]
        except ValueError:
            raise CadError(f"non-numeric weight in {line!r}", p, lineno) from None
        if name in cfg.weights:
            raise CadError(f"weights for {name} given twice", p, lineno)
        cfg.weights[name] = ws
        weight_lines[name] = lineno
    return weight_lines


def validate(cfg: MosesConfig, weight_lines: dict[str, int] | None = None) -> None:
    p = cfg.source
    names = {f.name: f for f in cfg.features}
    for name, ws in cfg.weights.items():
        line = (weight_lines or {}).get(name)
        if name not in names:
            raise CadError(f"weights given for {name}, which is not a feature", p, line)
        if len(ws) != names[name].num_features:
            raise CadError(f"{name} has {names[name].num_features} scores but {len(ws)} weights", p, line)
    for f in cfg.features:
        if f.name not in cfg.weights and f.args.get("tuneable", "true") != "false":
            raise CadError(f"no weights for feature {f.name}", p, f.line)
    tms = cfg.translation_models()
    for path_id, kind, idx in cfg.mapping:
        if kind == "T" and idx >= len(tms):
            raise CadError(f"[mapping] uses translation table {idx} but only {len(tms)} are defined", p)
    n_paths = len({m[0] for m in cfg.mapping})
    if cfg.backoff and len(cfg.backoff) != n_paths:
        raise CadError(f"[decoding-graph-backoff] has {len(cfg.backoff)} values for {n_paths} decoding paths", p)



def read_weights(path: str | os.PathLike, cfg: MosesConfig) -> dict[str, list[float]]:
    """The [weight] section of `path` (a moses.ini, or a file holding only that section), checked
    against `cfg`'s features: every tuneable one weighted, each with as many weights as scores."""
    p = str(path)
    probe = MosesConfig(source=p, features=cfg.features)
    lines = _weights(probe, _sections(p).get("weight", []), p)
    for f in cfg.features:
        if f.name not in probe.weights and f.args.get("tuneable", "true") != "false":
            raise CadError(f"no weights for feature {f.name} of {cfg.source}", p)
    validate(probe, lines)
    return probe.weights


def reweighted(cfg: MosesConfig, weights: dict[str, list[float]], keep_scale: bool = True) -> MosesConfig:
    """`cfg` with `weights`. `keep_scale`: scaled so that their L1 norm (UnknownWordPenalty aside,
    which MERT does not tune) is `cfg`'s: MERT's weights sum to 1, and weights chosen against the
    untuned scale (the CoreferenceModel's) keep their meaning; the 1-best of the other features
    does not change with the scale."""
    fixed = {f.name for f in cfg.features if f.type == "UnknownWordPenalty"}
    new = MosesConfig(features=list(cfg.features), weights={k: list(v) for k, v in weights.items()},
                      mapping=list(cfg.mapping), backoff=list(cfg.backoff), input_factors=list(cfg.input_factors),
                      distortion_limit=cfg.distortion_limit, other={k: list(v) for k, v in cfg.other.items()},
                      source=cfg.source)
    if keep_scale:
        def l1(ws):
            return sum(abs(x) for k, v in ws.items() if k not in fixed for x in v)
        have = l1(new.weights)
        if have > 0:
            factor = l1(cfg.weights) / have
            new.weights = {k: (v if k in fixed else [x * factor for x in v]) for k, v in new.weights.items()}
    validate(new)
    return new
