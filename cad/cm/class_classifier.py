"""The classifier CM: P(target pronoun class | source-side features, antecedent features), a
multinomial logistic regression over the same training instances as the class table (every
*it*/*they* of the aligned corpus against the class of its aligned French words).

The table conditions on one bundle chain (pronoun, role, the antecedent translation's gender and
number); it cannot see that *it makes sense to* is pleonastic or that *it* before *'s a* takes
*c'*. The classifier adds the source words around the pronoun and the pleonastic cues, and reads
the antecedent as a mixture: each bundle's parts (gender, number, nonref, event, humanness) enter
as features weighted by the bundle's weight, so every coreference candidate counts by its
probability (seed 003's expected value, on the feature side). It exposes the table's interface,
`class_distribution(mixture, tokens, index)`, so the decoder feature (`model=classifier` on the
CoreferenceModel line) and the reranker take either.

Regularisation C is chosen on two halves of the corpus by document (train on one, held-out
log-loss on the other, both ways): the decoder reads probabilities, so calibration is what counts.
The model is saved as JSON (feature names, classes, weights): loading it runs no code."""

from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from pathlib import Path

from cad.cm.class_model import ClassTable
from cad.cm.models import PronounModel
from cad.cm.referent import ANIMACY
from cad.core.errors import CadError
from cad.core.textio import atomic_output
from cad.core.threads import one_blas_thread
from cad.lang.facts import GENDERS
from cad.lang.pairs import Pair, chosen
from coref.english.roles import pleonastic_cues

FORMAT = "cad-cm-classifier-1"
MODEL_FILE = "classifier.json"
C_GRID = (0.03, 0.1, 0.3, 1.0)


def source_features(tokens: list[str], index: int, role: str) -> dict[str, float]:
    src = [w.lower() for w in tokens]
    pron = src[index]

    def at(k: int) -> str:
        return src[k] if 0 <= k < len(src) else ("<s>" if k < 0 else "</s>")

    f = {f"pron={pron}": 1.0, f"role={pron}_{role}": 1.0, f"s-1={at(index - 1)}": 1.0,
         f"s+1={pron}_{at(index + 1)}": 1.0, f"s+12={pron}_{at(index + 1)}_{at(index + 2)}": 1.0,
         f"s+2={at(index + 2)}": 1.0, f"s+3={at(index + 3)}": 1.0}
    for cue in pleonastic_cues(src, index):
        f[f"pleo_{cue}"] = 1.0
    return f


def antecedent_features(mixture: dict[str, float]) -> dict[str, float]:
    """Each bundle's parts, weighted by its weight in the mixture (they sum to 1). The head's
    animacy (the last part, where present) enters as features of its own, so that the others are
    named as in a model that never saw animacy."""
    f: dict[str, float] = defaultdict(float)
    for bundle, w in mixture.items():
        parts = bundle.split("-")
        animacy = parts.pop() if len(parts) > 4 and parts[-1] in ANIMACY else None
        pron, role, rest = parts[0], parts[1] if len(parts) > 1 else "", parts[2:]
        ant = "-".join(rest) if rest else "unknown"
        f[f"ant={pron}_{ant}"] += w
        f[f"ant={pron}_{role}_{ant}"] += w
        if len(rest) >= 2 and rest[0] in GENDERS:
            f[f"gen={pron}_{rest[0]}"] += w
            f[f"num={pron}_{rest[1]}"] += w
            f[f"gn={pron}_{role}_{rest[0]}_{rest[1]}"] += w
            if len(rest) > 2:
                f[f"hum={pron}_{rest[2]}"] += w
            if animacy is not None:
                # an animate antecedent takes il/elle where the role alone would say c'est
                f[f"anim={pron}_{animacy}"] += w
                f[f"anim={pron}_{role}_{animacy}"] += w
                f[f"ga={pron}_{role}_{rest[0]}_{rest[1]}_{animacy}"] += w
    return dict(f)


def role_of_mixture(mixture: dict[str, float]) -> str:
    """Every bundle of one pronoun starts pronoun-role, and the role is the pronoun's own but where an
    animate antecedent reads a subject of *be* as a subject (cad/cm/referent.py): the role of the
    most weight (ties: the first in order of name)."""
    weight: dict[str, float] = defaultdict(float)
    for b, w in mixture.items():
        parts = b.split("-")
        if len(parts) > 1:
            weight[parts[1]] += w
    return min(weight, key=lambda r: (-weight[r], r)) if weight else "other"


def features(tokens: list[str], index: int, mixture: dict[str, float]) -> dict[str, float]:
    if not 0 <= index < len(tokens):
        raise CadError(f"pronoun index {index} is outside a {len(tokens)}-token sentence")
    f = source_features(tokens, index, role_of_mixture(mixture))
    f.update(antecedent_features(mixture))
    return f


class ClassifierCM(PronounModel):
    """Multinomial logistic regression over sparse features; classes it never saw get 0. The CM
    model `classifier` (cad/cm/models.py)."""

    @classmethod
    def from_file(cls, path: str | os.PathLike, pair: Pair | None = None) -> ClassifierCM:
        """classifier.json, or the folder that holds it (`cad cm build --out`)."""
        return cls.load(Path(path) / MODEL_FILE if Path(path).is_dir() else path, pair)

    def __init__(self, names: list[str], classes: list[str], coef: list[list[float]], intercept: list[float],
                 meta: dict | None = None, pair: Pair | None = None):
        if len(classes) < 2 or len(coef) != len(classes) or len(intercept) != len(classes) \
                or any(len(row) != len(names) for row in coef):
            raise CadError("classifier CM: weight shapes do not match its features and classes")
        self.pair = chosen(pair)
        unknown = [c for c in classes if c not in self.pair.target.classes]
        if unknown:
            raise CadError(f"classifier CM: unknown classes {', '.join(unknown)}")
        self.classes = list(classes)
        self.intercept = list(intercept)
        # feature -> its weight per class, for a sparse dot product per pronoun
        self.weights = {n: [coef[k][i] for k in range(len(classes))] for i, n in enumerate(names)}
        self.meta = dict(meta or {})

    def proba(self, feats: dict[str, float]) -> dict[str, float]:
        z = list(self.intercept)
        for name, v in feats.items():
            row = self.weights.get(name)
            if row is not None:
                for k, wk in enumerate(row):
                    z[k] += wk * v
        top = max(z)
        e = [math.exp(x - top) for x in z]
        s = sum(e)
        return {c: x / s for c, x in zip(self.classes, e)}

    def class_distribution(self, mixture: dict[str, float], tokens: list[str] | None = None,
                           index: int | None = None) -> dict[str, float]:
        if tokens is None or index is None:
            raise CadError("the classifier CM needs the source sentence and the pronoun's position")
        return self.proba(features(tokens, index, mixture))

    @classmethod
    def fit(cls, X: list[dict[str, float]], y: list[str], weights: list[float], C: float,
            meta: dict | None = None, pair: Pair | None = None) -> "ClassifierCM":
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.linear_model import LogisticRegression

        if len(set(y)) < 2:
            raise CadError("the classifier CM needs instances of two classes or more")
        vec = DictVectorizer()
        Xv = vec.fit_transform(X)
        clf = LogisticRegression(C=C, max_iter=2000)
        with one_blas_thread():
            clf.fit(Xv, y, sample_weight=weights)
        coef = clf.coef_.tolist()
        intercept = clf.intercept_.tolist()
        classes = [str(c) for c in clf.classes_]
        if len(classes) == 2:       # sklearn keeps one row for two classes: P(second) = σ(w·x)
            coef = [[-x for x in coef[0]], coef[0]]
            intercept = [-intercept[0], intercept[0]]
            coef = [[x / 2 for x in row] for row in coef]
            intercept = [x / 2 for x in intercept]
        return cls(list(vec.get_feature_names_out()), classes, coef, intercept, meta, pair)

    def save(self, path: str | os.PathLike) -> None:
        names = sorted(self.weights)
        with atomic_output(path) as fh:
            json.dump({"format": FORMAT, "classes": self.classes, "features": names,
                       "coef": [[self.weights[n][k] for n in names] for k in range(len(self.classes))],
                       "intercept": self.intercept, "meta": self.meta}, fh, ensure_ascii=False, sort_keys=True)
            fh.write("\n")

    @classmethod
    def load(cls, path: str | os.PathLike, pair: Pair | None = None) -> "ClassifierCM":
        try:
            with open(path, encoding="utf-8") as fh:
                d = json.load(fh)
            if not isinstance(d, dict) or d.get("format") != FORMAT:
                raise CadError(f"not a classifier CM file (expected format {FORMAT})", str(path))
            return cls(list(d["features"]), list(d["classes"]), d["coef"], d["intercept"], d.get("meta"), pair)
        except FileNotFoundError:
            raise CadError("classifier CM file not found", str(path)) from None
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise CadError(f"not a classifier CM file: {exc}", str(path)) from None


def log_loss(model, instances: list[tuple[dict[str, float], str, float, list[str], int]]) -> float:
    """Weighted mean of -ln P(gold class) under `model` (anything with class_distribution),
    floored at 1e-7 as the decoder floors it."""
    total = wsum = 0.0
    for mix, c, w, tokens, index in instances:
        p = model.class_distribution(mix, tokens, index).get(c, 0.0)
        total += -w * math.log(max(p, 1e-7))
        wsum += w
    return total / wsum if wsum else math.nan


def train_classifier(instances: list[tuple[dict[str, float], str, float, list[str], int]], halves: list[int],
                     em_iterations: int = 5, grid=C_GRID, pair: Pair | None = None,
                     factor_table: bool = False) -> ClassifierCM:
    """Choose C on the two halves (held-out log-loss), then fit on everything. `halves[i]` is
    instance i's half (0/1, by document). The class table of the same halves is scored alike, so
    the model file says how the two compare (`factor_table`: the table factored as cm build estimates it)."""
    X = [features(tokens, index, mix) for mix, _, _, tokens, index in instances]
    y = [c for _, c, _, _, _ in instances]
    w = [wt for _, _, wt, _, _ in instances]
    parts = [[i for i, h in enumerate(halves) if h == k] for k in (0, 1)]
    report: dict = {"instances": len(y), "heldout_log_loss": {}}
    if all(len({y[i] for i in p}) >= 2 for p in parts):
        for C in grid:
            losses = []
            for k in (0, 1):
                tr, te = parts[k], parts[1 - k]
                m = ClassifierCM.fit([X[i] for i in tr], [y[i] for i in tr], [w[i] for i in tr], C, pair=pair)
                losses.append(log_loss(m, [instances[i] for i in te]))
            report["heldout_log_loss"][str(C)] = round(sum(losses) / 2, 4)
        table_losses = []
        for k in (0, 1):
            table = ClassTable.estimate_em([instances[i][:3] for i in parts[k]], em_iterations, pair, factor_table)
            table_losses.append(log_loss(table, [instances[i] for i in parts[1 - k]]))
        report["table_heldout_log_loss"] = round(sum(table_losses) / 2, 4)
        best = min(grid, key=lambda C: (report["heldout_log_loss"][str(C)], C))
    else:
        best = 0.1          # too little data to hold out: a middle value
    report["C"] = best
    return ClassifierCM.fit(X, y, w, best, report, pair)


