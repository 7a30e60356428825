"""A source-aware pronoun predictor: the English pronoun, its antecedent's projected gender and
number (from the coref package), the PLM scores and the rule signals as features of a logistic
regression, trained on the pronoun instances of an aligned parallel corpus."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from cad.cm.projection import gender_number
from cad.core.aligned_docs import aligned_documents
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output
from cad.core.threads import one_blas_thread
from cad.plm.task import source_pronouns, tag
from cad.plm.model import PLM
from cad.plm.predict import (class_members, english_tags, filled_target, on_rule, other_rule, plm_scores,
    predict_document)
from cad.plm.sequences import History
from cad.plm.tsv import CLASSES_2015, Item
from coref.backends import get_backend
from coref.records import PronounResolution, read_jsonl

log = logging.getLogger(__name__)
LABEL = {"il": "il", "elle": "elle", "ils": "ils", "elles": "elles", "ce": "ce", "c'": "ce", "cela": "cela",
         "ça": "ça", "ç'": "ça", "on": "on"}


def label_of(words: list[str]) -> str:
    for w in words:
        if w.lower() in LABEL:
            return LABEL[w.lower()]
    return "OTHER"


def antecedent_feature(rec: PronounResolution | None, source: list[list[str]], target: list[list[str]],
                       align: list[list[tuple[int, int]]], morph) -> str:
    if rec is None or not rec.referential or not rec.candidates:
        return "none"
    c = rec.candidates[0]
    gn = gender_number(c, source[c.sentence], target[c.sentence], align[c.sentence], morph[c.sentence])
    return "unprojected" if gn is None else f"{gn[0]}-{gn[1]}"


def features(pron: str, scores: dict[str, float], ante: str, on: bool, other: bool, next_pos: str,
             prev_pos: str) -> dict:
    f = {f"src={pron.lower()}": 1.0, f"ant={ante}": 1.0, f"src_ant={pron.lower()}_{ante}": 1.0,
         f"next={next_pos}": 1.0, f"prev={prev_pos}": 1.0, "on_rule": float(on), "other_rule": float(other)}
    best = max(scores, key=scores.get)
    f[f"plm_best={best}"] = 1.0
    for c, v in scores.items():
        f[f"plm_{c}"] = v
    return f


def train_source_aware(plm_dir: str, corpus: str, align: str, coref: str, out: str, docs: str | None = None) -> float:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    plm = PLM(plm_dir)
    members = class_members(CLASSES_2015)
    records: dict[tuple[str, int, int], PronounResolution] = {}
    for r in read_jsonl(coref):
        records[(r.doc, r.sentence, r.index)] = r
    docs = docs or (f"{corpus}.docs" if Path(f"{corpus}.docs").exists() else None)
    X, y = [], []
    for doc_id, src, tgt, al in progress(aligned_documents(f"{corpus}.en", f"{corpus}.fr", align, docs), desc="instances", unit="doc"):
        studied = source_pronouns()
        wanted = [k for k, s in enumerate(src) if any(w in studied for w in s)]
        if not wanted:
            continue
        morph = tag(tgt)
        stags = english_tags([src[k] for k in wanted])
        stag_of = dict(zip(wanted, stags))
        h = History(4)
        for k, (words, tags) in enumerate(zip(tgt, morph)):
            slots = {}
            for i, w in enumerate(src[k]):
                if w in studied:
                    tpos = sorted(j for a, j in al[k] if a == i)
                    if tpos:
                        slots.setdefault(tpos[0], (i, tpos))
            for j, (w, m) in enumerate(zip(words, tags)):
                if j in slots:
                    i, tpos = slots[j]
                    item = Item(0, [], "", src[k], words, al[k], [])
                    scores = plm_scores(plm, list(h.items), members)
                    end = tpos[-1]
                    nxt = tags[end + 1].pos if end + 1 < len(tags) else "END"
                    prv = tags[j - 1].pos if j > 0 else "START"
                    ante = antecedent_feature(records.get((doc_id, k, i)), src, tgt, al, morph)
                    X.append(features(src[k][i], scores, ante, on_rule(item, i, end, stag_of[k], tags),
                                      other_rule(item, end, tags), nxt, prv))
                    y.append(label_of([words[t] for t in tpos]))
                h.observe(m)
    if not X:
        raise CadError("no it/they instance with an alignment in the corpus")
    vec = DictVectorizer()
    clf = LogisticRegression(max_iter=3000, class_weight="balanced", C=0.5, random_state=1)
    Xv = vec.fit_transform(X)
    with one_blas_thread():
        clf.fit(Xv, y)
    acc = sum(int(a == b) for a, b in zip(clf.predict(Xv), y)) / len(y)
    Path(out).mkdir(parents=True, exist_ok=True)
    save_model(vec, clf, len(y), Path(out) / MODEL_FILE)
    log.info("source-aware predictor: %d training instances", len(y))
    return acc


MODEL_FILE = "source_aware.json"


def save_model(vec, clf, instances: int, path: Path) -> None:
    """The vectorizer's vocabulary and the regression's weights as JSON: a model file is data, so
    loading one that someone sent runs no code (a pickle would)."""
    names = list(vec.get_feature_names_out())
    with atomic_output(path) as fh:
        json.dump({"format": "cad-source-aware-1", "instances": instances, "features": names,
                   "classes": [str(c) for c in clf.classes_], "coef": clf.coef_.tolist(),
                   "intercept": clf.intercept_.tolist()}, fh, ensure_ascii=False)


def load_model(path: Path):
    import numpy as np
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    try:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        names, classes = d["features"], d["classes"]
        coef, intercept = np.array(d["coef"], dtype=float), np.array(d["intercept"], dtype=float)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CadError(f"not a source-aware model file: {exc}", str(path)) from None
    rows = 1 if len(classes) == 2 else len(classes)
    if d.get("format") != "cad-source-aware-1" or coef.shape != (rows, len(names)) or intercept.shape != (rows,):
        raise CadError("not a source-aware model file (format or weight shapes)", str(path))
    vec = DictVectorizer()
    vec.feature_names_ = list(names)
    vec.vocabulary_ = {f: i for i, f in enumerate(names)}
    clf = LogisticRegression()
    clf.classes_ = np.array(classes, dtype=object)
    clf.coef_, clf.intercept_ = coef, intercept
    clf.n_features_in_ = len(names)
    return vec, clf


class SourceAware:
    def __init__(self, vec, clf):
        self.vec, self.clf = vec, clf
        self.resolver = None

    @classmethod
    def load(cls, directory: str) -> "SourceAware":
        p = Path(directory) / MODEL_FILE
        if not p.exists():
            raise CadError("no source-aware model here (cad plm train-source-aware)", str(p))
        return cls(*load_model(p))

    def predict_document(self, plm: PLM, items: list[Item], classes: list[str]) -> list[list[str]]:
        if self.resolver is None:
            self.resolver = get_backend("sieve")
        _, infos = predict_document(plm, items, CLASSES_2015, rules=True)
        recs = {(r.sentence, r.index): r for r in self.resolver.resolve("d", [[w.lower() for w in it.source]
                                                                           for it in items])}
        filled = [filled_target(it) for it in items]
        morph = tag(filled)
        align = [it.alignment for it in items]
        sources = [it.source for it in items]
        out = []
        for k, (it, info_row) in enumerate(zip(items, infos)):
            row = []
            for (j, n), info in zip(it.slots, info_row):
                ante = antecedent_feature(recs.get((k, n)), sources, filled, align, morph)
                nxt = morph[k][j + 1].pos if j + 1 < len(it.target) else "END"
                prv = morph[k][j - 1].pos if j > 0 else "START"
                f = features(it.source[n], info["scores"], ante, info["on"], info["other"], nxt, prv)
                pred = self.clf.predict(self.vec.transform([f]))[0]
                if pred == "ça" and "ça" not in classes:
                    pred = "cela"
                row.append(pred)
            out.append(row)
        return out
