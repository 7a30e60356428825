"""moses.ini with the CM: as a second, back-off translation table (seed 004, Figure 3), or as the
CoreferenceModel feature beside the whole phrase table (cad/cm/feature.py)."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Sequence

from cad.defaults import (CM_BACKOFF_WEIGHT, CM_FEATURE_WEIGHT, CM_IMPLICIT_MODEL, CM_IMPLICIT_OBJECTIVE,
                          CM_IMPLICIT_READING, CM_OBJECTIVE)
from cad.cm.other_words import OTHER_WORDS_FILE
from cad.core.errors import CadError
from cad.lang.pairs import Pair, default_pair
from cad.moses.ini import Feature, MosesConfig, parse_config, write_config

CM_NAME = "TranslationModel1"
FEATURE_NAME = "CoreferenceModel0"
AGREEMENT_NAME = "PronounAgreement0"


def cm_config(base: str | os.PathLike, cm_table: str | os.PathLike, weight: float = CM_BACKOFF_WEIGHT) -> MosesConfig:
    cfg = copy.deepcopy(parse_config(base))
    if any(f.name == CM_NAME for f in cfg.features):
        cfg.features = [f for f in cfg.features if f.name != CM_NAME]
        cfg.weights.pop(CM_NAME, None)
    idx = max(i for i, f in enumerate(cfg.features) if f.type.startswith("PhraseDictionary")) + 1
    cfg.features.insert(idx, Feature("PhraseDictionaryMemory", CM_NAME,
                                     {"num-features": "1", "path": str(Path(cm_table).resolve()),
                                      "input-factor": "0", "output-factor": "0", "table-limit": "20"}))
    cfg.weights[CM_NAME] = [weight]
    # paths: table 0 always; table 1 only for single words table 0 cannot translate
    cfg.mapping = [(0, "T", 0), (1, "T", 1)]
    cfg.backoff = [0, 1]
    cfg.source = None
    return cfg


def write_cm_config(base, cm_table, out, weight: float = CM_BACKOFF_WEIGHT) -> MosesConfig:
    cfg = cm_config(base, cm_table, weight)
    write_config(cfg, out)
    return cfg


def feature_config(base: str | os.PathLike, classes: str | os.PathLike,
                   weight: float | Sequence[float] = CM_FEATURE_WEIGHT,
                   objective: str = CM_OBJECTIVE, model: str = CM_IMPLICIT_MODEL,
                   reading: str = CM_IMPLICIT_READING, pair: Pair | None = None,
                   agreement: tuple[float, float] | None = None,
                   other: str | os.PathLike | None = None) -> MosesConfig:
    """The base configuration plus `CoreferenceModel` reading the class table (classes.gz) or,
    `model="classifier"`, the classifier CM (classifier.json); `objective`, `model` and `reading` are
    written on the feature's line unless they are the line's implicit values (cad.defaults.CM_IMPLICIT_*:
    likelihood, table, mixture). A `reading` not given is the implicit one, as in every configuration
    written before the reading could be chosen (`cad cm config` gives the pipeline's, cad.defaults.CM_READING).
    `pair`: the language pair of the model, written as `pair=` where it is not the default pair.
    `agreement`: the weights of a PronounAgreement feature after it (cad/decoder/agreement.py: the
    agreeing predicates, minus the disagreeing ones); None: none (a base that has one loses it).
    `weight`: one weight (ln P(class)) or two (ln P(form) and the gender's log-odds, num-features=2:
    cad/cm/feature.py). `other`: the OTHER-word table (other-words.gz) the feature shares P(OTHER) out
    by (`other=`; None: P(OTHER) whole, as before)."""
    weights = feature_weights(weight)
    pair_arg = {} if pair is None or pair.name == default_pair().name else {"pair": pair.name}
    cfg = copy.deepcopy(parse_config(base))
    cfg.features = [f for f in cfg.features if f.type not in ("CoreferenceModel", "PronounAgreement")]
    for name in (FEATURE_NAME, AGREEMENT_NAME):
        cfg.weights.pop(name, None)
    idx = max(i for i, f in enumerate(cfg.features) if f.type.startswith("PhraseDictionary")) + 1
    cfg.features.insert(idx, Feature("CoreferenceModel", FEATURE_NAME,
                                     {"num-features": str(len(weights)), "path": str(Path(classes).resolve()),
                                      **({} if objective == CM_IMPLICIT_OBJECTIVE else {"objective": objective}),
                                      **({} if model == CM_IMPLICIT_MODEL else {"model": model}),
                                      **({} if reading == CM_IMPLICIT_READING else {"reading": reading}),
                                      **({} if other is None else {"other": str(Path(other).resolve())}),
                                      **pair_arg}))
    cfg.weights[FEATURE_NAME] = weights
    if agreement is not None:
        cfg.features.insert(idx + 1, Feature("PronounAgreement", AGREEMENT_NAME, {"num-features": "2", **pair_arg}))
        cfg.weights[AGREEMENT_NAME] = list(agreement)
    cfg.source = None
    return cfg


def feature_weights(weight: float | Sequence[float]) -> list[float]:
    """The CoreferenceModel's weights as a list: one, or the form's and the gender's."""
    weights = [float(weight)] if isinstance(weight, (int, float)) else [float(w) for w in weight]
    if len(weights) not in (1, 2):
        raise CadError(f"a CoreferenceModel has one weight or two (the form's, the gender's), not {len(weights)}")
    return weights


def write_feature_config(base, classes, out, weight: float | Sequence[float] = CM_FEATURE_WEIGHT, objective: str = CM_OBJECTIVE,
                         model: str = CM_IMPLICIT_MODEL, reading: str = CM_IMPLICIT_READING,
                         pair: Pair | None = None, agreement: tuple[float, float] | None = None,
                         other: str | os.PathLike | None = None) -> MosesConfig:
    cfg = feature_config(base, classes, weight, objective, model, reading, pair, agreement, other)
    write_config(cfg, out)
    return cfg


def model_pair(model: str | os.PathLike) -> Pair | None:
    """The language pair `cad cm build` recorded beside a CM model (its folder's provenance.json,
    "pair"); None where it recorded none (the tables built before it did: the default pair's)."""
    import json

    from cad.lang.pairs import pair_named

    path = Path(model)
    prov = (path if path.is_dir() else path.parent) / "provenance.json"
    if not prov.is_file():
        return None
    try:
        name = json.loads(prov.read_text(encoding="utf-8")).get("pair")
    except (OSError, ValueError, AttributeError):
        return None
    return pair_named(name) if isinstance(name, str) else None


def config_pair(config: str | os.PathLike) -> Pair:
    """The language pair of a configuration's CoreferenceModel line (`pair=`; the default pair
    without it, or without the feature)."""
    from cad.lang.pairs import pair_named

    for f in parse_config(config).features:
        if f.type == "CoreferenceModel" and "pair" in f.args:
            return pair_named(f.args["pair"])
    return default_pair()


def other_words_beside(model: str | os.PathLike, choice: str | None = None, objective: str = CM_OBJECTIVE,
                       reads_words: bool = True) -> str | None:
    """The OTHER-word table a feature configuration reads: `choice` ("none": no table; a path: that
    one, which must exist), or, where not given, the other-words.gz that cad cm build writes beside
    `model` when it is there. Only the likelihood objective of a model with the target's word classes
    (`reads_words`: the table and the classifier CM, not the source-feature table) reads one: None
    for the others, a CadError where `choice` names a table for them."""
    if objective != "likelihood" or not reads_words:
        if choice not in (None, "none"):
            raise CadError(f"--other-words: the OTHER-word table is read with objective likelihood and the table or "
                           f"classifier CM, not objective {objective}" + ("" if reads_words else " and this CM model"))
        return None
    if choice is not None:
        if choice != "none" and not Path(choice).is_file():
            raise CadError(f"--other-words {choice}: no such file")
        return None if choice == "none" else choice
    beside = Path(model).parent / OTHER_WORDS_FILE
    return str(beside) if beside.is_file() else None
