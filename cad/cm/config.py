"""moses.ini with the CM: as a second, back-off translation table (seed 004, Figure 3), or as the
CoreferenceModel feature beside the whole phrase table (cad/cm/feature.py)."""

from __future__ import annotations

import copy
import os
from pathlib import Path

from cad.moses.ini import Feature, MosesConfig, parse_config, write_config

CM_NAME = "TranslationModel1"
FEATURE_NAME = "CoreferenceModel0"
# the weight both dev folds of make pronoun-eval chose, from the grid 1, 3, 6, 10, for every CM-feature
# system (class table, classifier, and the oracles) once the antecedents' gender came from the lexicons:
# C1+C2 rises with it and BLEU stays within 0.05 of the baseline's; the hand-written contrastive suite
# (cad score) gets 94% at 3 and 100% at 10, and seed 004's second *it* becomes *elle* from 6 on
FEATURE_WEIGHT = 10.0


def cm_config(base: str | os.PathLike, cm_table: str | os.PathLike, weight: float = 0.8) -> MosesConfig:
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


def write_cm_config(base, cm_table, out, weight: float = 0.8) -> MosesConfig:
    cfg = cm_config(base, cm_table, weight)
    write_config(cfg, out)
    return cfg


def feature_config(base: str | os.PathLike, classes: str | os.PathLike, weight: float = FEATURE_WEIGHT,
                   objective: str = "credit", model: str = "table", reading: str = "mixture") -> MosesConfig:
    """The base configuration plus `CoreferenceModel` reading the class table (classes.gz) or,
    `model="classifier"`, the classifier CM (classifier.json); `objective`, `model` and `reading` are
    written on the feature's line unless they are the decoder's defaults (likelihood, table, mixture)."""
    cfg = copy.deepcopy(parse_config(base))
    cfg.features = [f for f in cfg.features if f.type != "CoreferenceModel"]
    cfg.weights.pop(FEATURE_NAME, None)
    idx = max(i for i, f in enumerate(cfg.features) if f.type.startswith("PhraseDictionary")) + 1
    cfg.features.insert(idx, Feature("CoreferenceModel", FEATURE_NAME,
                                     {"num-features": "1", "path": str(Path(classes).resolve()),
                                      **({} if objective == "likelihood" else {"objective": objective}),
                                      **({} if model == "table" else {"model": model}),
                                      **({} if reading == "mixture" else {"reading": reading})}))
    cfg.weights[FEATURE_NAME] = [weight]
    cfg.source = None
    return cfg


def write_feature_config(base, classes, out, weight: float = FEATURE_WEIGHT, objective: str = "credit",
                         model: str = "table", reading: str = "mixture") -> MosesConfig:
    cfg = feature_config(base, classes, weight, objective, model, reading)
    write_config(cfg, out)
    return cfg
