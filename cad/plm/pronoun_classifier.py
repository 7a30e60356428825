"""A pronoun-prediction classifier over both sides of an instance: the English pronoun and the words
around it (pleonastic *it is … that/to*), the French words around the slot, and the LM baseline's
score of every filler in the slot (cad/plm/lm_baseline.py). A logistic regression with balanced
class weights (the task's metric is macro-averaged recall), trained on the instances `cad plm
make-data` writes from the aligned training corpus; saved as JSON.

The LM features of a training instance come from an LM that never saw its sentence: the corpus is
split in two halves by document, each half's instances are scored by an LM of the other half
(an LM scoring its own training sentences is near-certain, and a classifier trained on that
trusts it far too much: 97% training accuracy, 44% macro-R on the dev talks). The regularisation
C is chosen by the same two halves (train on one, macro-R on the other), never on test data."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from cad.cm.class_classifier import antecedent_features
from cad.cm.class_model import pronoun_mixture
from cad.cm.projection import candidate_features
from cad.cm.referent import animacy_of
from cad.core.alignment import parse_alignment
from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, count_lines, read_parallel
from cad.core.threads import one_blas_thread
from cad.lm.arpa import write_arpa
from cad.lm.kneser_ney import estimate
from cad.plm.classifier import load_model, save_model
from cad.plm.lm_baseline import CLASS_FILLERS, NONE, OTHER_FILLERS, LMBaseline, filler_class, lm_case
from cad.plm.make_data import make_line
from cad.plm.model import PLM, train_plm
from cad.plm.predict import predict_document
from cad.plm.task import tag, task_pair
from cad.plm.tsv import CLASSES_2015, Item, PLACEHOLDER, read_tsv
from coref.english.roles import _parser, pleonastic_cues, pronoun_roles
from coref.english.tokens import moses_doc
from coref.records import read_jsonl

MODEL_FILE = "pronoun_classifier.json"


def _slot_scores(lm: LMBaseline, item: Item, j: int, best: tuple[str, ...] | None = None) -> dict[str, float]:
    """log10 score of the sentence with each filler in slot `j`, the other slots filled by the
    LM's own best choice `best` (as the baseline decodes them; computed when not given)."""
    if best is None:
        best, _ = lm.fill(item)
    order = [jj for jj, _ in item.slots]
    fixed = {jj: w for jj, w in zip(order, best)}
    out = {}
    cased = lm.case(item.target)
    for filler in CLASS_FILLERS + OTHER_FILLERS + (NONE,):
        words = []
        for k, w in enumerate(cased):
            if k == j:
                if filler:
                    words.append(filler)
            elif k in fixed:
                if fixed[k]:
                    words.append(fixed[k])
            else:
                words.append(w)
        out[filler] = lm.model.score(" ".join(words)) + (lm.none_penalty if filler == NONE else 0.0)
    return out


def features(item: Item, j: int, n: int, scores: dict[str, float]) -> dict[str, float]:
    src = [w.lower() for w in item.source]
    tgt = ["<slot>" if PLACEHOLDER.match(w) else w.lower() for w in item.target]
    pron = src[n]

    def at(seq, k):
        return seq[k] if 0 <= k < len(seq) else ("<s>" if k < 0 else "</s>")

    f = {f"pron={pron}": 1.0, f"cap={item.source[n][:1].isupper()}": 1.0,
         f"s-1={at(src, n - 1)}": 1.0, f"s+1={pron}_{at(src, n + 1)}": 1.0,
         f"s+12={pron}_{at(src, n + 1)}_{at(src, n + 2)}": 1.0, f"s+2={at(src, n + 2)}": 1.0,
         f"s+3={at(src, n + 3)}": 1.0,
         f"t-1={at(tgt, j - 1)}": 1.0, f"t+1={at(tgt, j + 1)}": 1.0, f"t+2={at(tgt, j + 2)}": 1.0,
         f"t+12={at(tgt, j + 1)}_{at(tgt, j + 2)}": 1.0, f"t-1+1={at(tgt, j - 1)}_{at(tgt, j + 1)}": 1.0}
    for cue in pleonastic_cues(src, n):
        f[f"pleo_{cue}"] = 1.0
    # the LM: each class's best filler against the best filler overall
    top = max(scores.values())
    by_class: dict[str, float] = {}
    for w, v in scores.items():
        c = filler_class(w)
        by_class[c] = max(by_class.get(c, -math.inf), v)
    for c, v in by_class.items():
        f[f"lm_{c}"] = v - top
    f[f"lm_best={filler_class(max(scores, key=scores.get))}"] = 1.0
    return f


FEATURE_GROUPS = {"source": ("pron=", "cap=", "s-1=", "s+1=", "s+12=", "s+2=", "s+3="), "pleonastic": ("pleo_",),
                  "target": ("t-1=", "t+1=", "t+2=", "t+12=", "t-1+1="), "lm": ("lm_",),
                  "antecedent": ("role=", "ant=", "gen=", "num=", "gn=", "hum=", "anim=", "ga="),
                  "syntax": ("spos-1=", "spos+1=", "dep=", "head=", "tgn+1=", "tpos+1="),
                  "plm": ("plm_", "rule_")}


def plm_features_of(plm, items: list[Item], doc_starts: list[int]) -> list[dict[int, dict[str, float]]]:
    """Per item, {source index: features} from the Pronoun LM (seed 001) read document by
    document: each class's PLM score against the best, the PLM's own choice, and its two rules
    (*on*, OTHER)."""
    out: list[dict] = [{} for _ in items]
    bounds = list(doc_starts) + [len(items)]
    for d in range(len(doc_starts)):
        a, b = bounds[d], bounds[d + 1]
        preds, infos = predict_document(plm, items[a:b], CLASSES_2015)
        for k, (row, info_row) in enumerate(zip(preds, infos)):
            for (j, n), best, info in zip(items[a + k].slots, row, info_row):
                top = max(info["scores"].values())
                f = {f"plm_{c}": v - top for c, v in info["scores"].items()}
                f[f"plm_best={best}"] = 1.0
                f["rule_on"] = float(info["on"])
                f["rule_other"] = float(info["other"])
                out[a + k][n] = f
    return out


def syntax_features_of(items: list[Item]) -> list[dict[int, dict[str, float]]]:
    """Per item, {source index: features} from spaCy: the English pronoun's dependency and the
    word it depends on (the governing verb, as written: the parser runs without lemmatizer), the POS tags around it, and on the
    French side the POS, gender and number of the word after the slot (*REPLACE est morte* wants
    *elle*; *REPLACE sont* a plural)."""
    out: list[dict] = [{} for _ in items]
    todo = [k for k, it in enumerate(items) if it.slots]
    if not todo:
        return out
    nlp = _parser()
    docs = nlp.pipe(moses_doc(nlp.vocab, items[k].source) for k in todo)
    # the tagger reads a placeholder as a name and mistags what follows; *on* is a subject pronoun
    # of neither gender and singular, which leaves the next word's own gender and number to it
    morphs = tag([["on" if PLACEHOLDER.match(w) else w for w in items[k].target] for k in todo])
    for k, doc, morph in zip(todo, docs, morphs):
        it = items[k]
        for j, n in it.slots:
            tok = doc[n]
            f = {f"dep={tok.dep_}": 1.0, f"head={tok.head.lower_ if tok.head.i != n else '<root>'}": 1.0,
                 f"spos-1={doc[n - 1].tag_ if n > 0 else '<s>'}": 1.0,
                 f"spos+1={doc[n + 1].tag_ if n + 1 < len(doc) else '</s>'}": 1.0}
            if j + 1 < len(morph):
                m = morph[j + 1]
                f[f"tpos+1={m.pos}"] = 1.0
                f[f"tgn+1={m.gender or '-'}-{m.number or '-'}"] = 1.0
            else:
                f["tpos+1=</s>"] = 1.0
            out[k][n] = f
    return out


def antecedent_features_of(items: list[Item], records: list) -> dict[tuple[int, int], dict[str, float]]:
    """{(item number within the document, source index): features} for one document's items (one
    per sentence) and its coreference records: the pronoun's role and its antecedent mixture
    (cad/cm/class_classifier.py's features, every candidate by its probability), each candidate's
    gender and number read from the item's own French side through its alignment (the task gives
    the target text; only the pronouns are hidden)."""
    slots = {(k, n) for k, it in enumerate(items) for _, n in it.slots}
    recs = [r for r in records if (r.sentence, r.index) in slots]
    if not recs:
        return {}
    roles = pronoun_roles([it.source for it in items], {(r.sentence, r.index) for r in recs})
    needed = sorted({c.sentence for r in recs for c in r.candidates if c.sentence < len(items)})
    morph = dict(zip(needed, tag([items[k].target for k in needed]))) if needed else {}

    alignments = [it.alignment for it in items]
    sources, targets = [it.source for it in items], [it.target for it in items]

    def project(c):
        return {candidate_features(c, sources, targets, alignments, morph, task_pair()): 1.0}

    animacy = animacy_of(sources, task_pair())

    out = {}
    for r in recs:
        role = roles[(r.sentence, r.index)]
        # the pronoun classifier reads the parse's roles and the mixture as it learned them
        f = antecedent_features(pronoun_mixture(r, role, project, animacy=animacy, referent=False))
        f[f"role={r.token.lower()}_{role}"] = 1.0
        out[(r.sentence, r.index)] = f
    return out


def document_antecedents(items: list[Item], doc_starts: list[int], records: list[list]) -> list[dict]:
    """Per item, {source index: antecedent features}; `records[d]` are document d's records
    (document d's items run from doc_starts[d] to the next start)."""
    out: list[dict] = [{} for _ in items]
    bounds = list(doc_starts) + [len(items)]
    for d in range(len(doc_starts)):
        a, b = bounds[d], bounds[d + 1]
        for (k, n), f in antecedent_features_of(items[a:b], records[d]).items():
            out[a + k][n] = f
    return out


def _read_records(path: str | os.PathLike) -> dict[str, list]:
    by_doc: dict[str, list] = {}
    for r in read_jsonl(path):
        by_doc.setdefault(r.doc, []).append(r)
    return by_doc


def drop_groups(f: dict[str, float], groups: tuple[str, ...]) -> dict[str, float]:
    prefixes = tuple(p for g in groups for p in FEATURE_GROUPS[g])
    return {k: v for k, v in f.items() if not k.startswith(prefixes)} if prefixes else f


def _macro_recall(gold: list[str], pred: list[str]) -> float:
    classes = sorted(set(gold))
    return sum(sum(p == c for g, p in zip(gold, pred) if g == c) / gold.count(c) for c in classes) / len(classes)


def _fit(xs: list[dict], ys: list[str], c: float):
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    clf = LogisticRegression(max_iter=5000, class_weight="balanced", C=c, random_state=1)
    x = vec.fit_transform(xs)
    with one_blas_thread():
        return vec, clf.fit(x, ys)


def halves_macro_r(X: list[list[dict]], y: list[list[str]], dropped: tuple[str, ...],
                   grid: tuple[float, ...]) -> tuple[float, float, dict]:
    """(best macro-R, its C, macro-R per C): trained on one half, measured on the other, both ways."""
    xs = [[drop_groups(x, dropped) for x in X[h]] for h in (0, 1)]
    tried = {}
    for c in grid:
        r = []
        for h in (0, 1):
            vec, clf = _fit(xs[h], y[h], c)
            r.append(_macro_recall(y[1 - h], list(clf.predict(vec.transform(xs[1 - h])))))
        tried[c] = sum(r) / 2
    best = max(grid, key=lambda c: (round(tried[c], 9), -c))
    return tried[best], best, tried


def eliminate_groups(X: list[list[dict]], y: list[list[str]], dropped: tuple[str, ...],
                     missing: tuple[str, ...], grid: tuple[float, ...]) -> tuple[tuple[str, ...], list[dict]]:
    """Backward elimination on the halves: from `dropped`, drop the group whose removal raises the
    halves' macro-R most, while one does. Returns the groups dropped and the path taken."""
    score, _, _ = halves_macro_r(X, y, dropped, grid)
    path = [{"without": list(dropped), "halves_macro_r": round(score, 4)}]
    while True:
        trials = [(halves_macro_r(X, y, dropped + (g,), grid)[0], g) for g in FEATURE_GROUPS
                  if g not in dropped and g not in missing]
        if not trials:
            break
        s2, g = max(trials, key=lambda x: (round(x[0], 9), x[1]))
        if round(s2, 9) <= round(score, 9):
            break
        dropped, score = dropped + (g,), s2
        path.append({"without": list(dropped), "halves_macro_r": round(score, 4)})
    return dropped, path


@dataclass
class HalfJob:
    """One half's instances to compute: its items in `tmp`/half{h}.tsv, scored by the other half's models."""
    h: int
    tmp: str
    tgt: str                            # the corpus's target side, whose case the LMs read (lm_case)
    doc_starts: list[int]               # the half's documents' first lines, within the half
    records: list[list] | None          # the half's documents' coreference records
    without: tuple[str, ...]
    use_plm: bool


def half_instances(job: HalfJob) -> tuple[list[dict], list[str]]:
    """The features and classes of one half's instances."""
    h, tmp, without = job.h, job.tmp, job.without
    lm = LMBaseline(Path(tmp) / f"lm{1 - h}.arpa", case=lm_case(job.tgt))       # the other half's LM
    items = read_tsv(Path(tmp) / f"half{h}.tsv", gold=True)
    ants: list[dict] = [{} for _ in items]
    if job.records is not None:
        ants = document_antecedents(items, job.doc_starts, job.records)
    syn = syntax_features_of(items) if "syntax" not in without else [{} for _ in items]
    if job.use_plm:
        pl = plm_features_of(PLM(Path(tmp) / f"plm{1 - h}"), items, job.doc_starts)   # the other half's PLM
    else:
        pl = [{} for _ in items]
    X: list[dict] = []
    y: list[str] = []
    for it, ant, sy, pf in progress(zip(items, ants, syn, pl), total=len(items), desc=f"half {h + 1}",
                                    unit="line"):
        best = lm.fill(it)[0] if it.slots else ()
        for (j, pos), cls in zip(it.slots, it.classes):
            f = features(it, j, pos, _slot_scores(lm, it, j, best))
            f.update(ant.get(pos, {}))
            f.update(sy.get(pos, {}))
            f.update(pf.get(pos, {}))
            X.append(drop_groups(f, without))
            y.append(cls)
    return X, y


def training_instances(src: str | os.PathLike, tgt: str | os.PathLike, align: str | os.PathLike,
                       docs: str | os.PathLike, order: int = 5, without: tuple[str, ...] = (),
                       coref: str | os.PathLike | None = None,
                       plm: bool = True, workers: int = 2) -> tuple[list[list[dict]], list[list[str]], tuple[str, ...]]:
    """The features and classes of each half of the corpus (alternate documents), every
    model-based feature of a half from models of the other half; and the groups that cannot
    be had (antecedent without `coref`, plm when off). `workers` > 1: the halves in two processes."""
    import tempfile

    n = count_lines(src)
    starts = [d.first_line for d in read_docs(docs, n)] + [n]
    half_of = [0] * n
    for k in range(len(starts) - 1):
        for i in range(starts[k], starts[k + 1]):
            half_of[i] = k % 2
    if len(starts) < 3:
        raise CadError("the corpus needs at least two documents (the LM features are scored across halves)", docs)
    by_doc = _read_records(coref) if coref else None
    with tempfile.TemporaryDirectory(prefix="cad-pclf-") as tmp:
        halves = [[], []]
        sents: list[list[list[str]]] = [[], []]
        half_docs: list[list[int]] = [[], []]      # each half's documents, by index
        for lineno, (s, t, a) in read_parallel([src, tgt, align]):
            ss, tt = s.split(), t.split()
            h = half_of[lineno - 1]
            halves[h].append(make_line(ss, tt, parse_alignment(a, len(ss), len(tt), str(align), lineno)).tsv())
            sents[h].append(tt)
        for k in range(len(starts) - 1):
            half_docs[k % 2].append(k)
        lengths = [[starts[k + 1] - starts[k] for k in half_docs[h]] for h in (0, 1)]
        local = [[sum(lengths[h][:i]) for i in range(len(lengths[h]))] for h in (0, 1)]
        use_plm = plm and "plm" not in without
        for h in (0, 1):
            write_arpa(estimate(sents[h], order), Path(tmp) / f"lm{h}.arpa")
            if use_plm:
                train_plm([sents[h][a:a + n] for a, n in zip(local[h], lengths[h])], Path(tmp) / f"plm{h}")
            with atomic_output(Path(tmp) / f"half{h}.tsv") as fh:
                fh.writelines(x + "\n" for x in halves[h])
        jobs = [HalfJob(h, tmp, str(tgt), local[h],
                        [by_doc.get(str(k), []) for k in half_docs[h]] if by_doc is not None else None,
                        tuple(without), use_plm) for h in (0, 1)]
        # the halves are independent (each reads the other's models): two processes give the same
        # instances in the same order as one, in about half the time (spaCy's tagging is most of it)
        if workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as ex:
                done = list(ex.map(half_instances, jobs))
        else:
            done = [half_instances(j) for j in jobs]
        X = [done[h][0] for h in (0, 1)]
        y = [done[h][1] for h in (0, 1)]
    if any(len(set(y[h])) < 2 for h in (0, 1)):
        raise CadError("each half of the corpus (alternate documents) needs instances of two classes or more", src)
    missing = tuple(g for g, ok in (("antecedent", by_doc is not None), ("plm", use_plm)) if not ok)
    return X, y, missing


def train(src: str | os.PathLike, tgt: str | os.PathLike, align: str | os.PathLike, docs: str | os.PathLike,
          out: str | os.PathLike, order: int = 5, grid: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0),
          without: tuple[str, ...] = (), coref: str | os.PathLike | None = None, select_groups: bool = False,
          plm: bool = True, workers: int = 2) -> dict:
    """Train on an aligned corpus (`docs`: its document boundaries, for the halves); `without`:
    feature groups left out (the ablation); `coref`: the corpus's coreference records (cad coref,
    documents by index), which add the antecedent features; `select_groups`: backward elimination
    of feature groups on the same two halves that choose C (never on test data); `plm`: the PLM
    feature group, each half scored by a PLM trained on the other half (as the LM). Returns what
    was chosen and measured."""
    X, y, missing = training_instances(src, tgt, align, docs, order, without, coref, plm, workers)
    dropped, path = tuple(without), None
    if select_groups:
        dropped, path = eliminate_groups(X, y, dropped, missing, grid)
    _, best, tried = halves_macro_r(X, y, dropped, grid)
    vec, clf = _fit([drop_groups(x, dropped) for x in X[0] + X[1]], y[0] + y[1], best)
    Path(out).mkdir(parents=True, exist_ok=True)
    save_model(vec, clf, len(y[0]) + len(y[1]), Path(out) / MODEL_FILE)
    return {"instances": len(y[0]) + len(y[1]), "C": best, "halves_macro_r": tried, "without": list(dropped),
            "selection": path, "antecedents": str(coref) if coref else None}


class PronounClassifier:
    """Predicts with the trained weights; the LM features come from `lm_path`, the LM of the
    whole training corpus (models/<name>/lm.arpa)."""

    def __init__(self, directory: str | os.PathLike, lm_path: str | os.PathLike, none_penalty: float = 0.0,
                 without: tuple[str, ...] = (), plm_dir: str | os.PathLike | None = None):
        p = Path(directory) / MODEL_FILE
        if not p.exists():
            raise CadError("no pronoun classifier here (cad plm train-classifier)", str(p))
        self.vec, self.clf = load_model(p)
        self.lm = LMBaseline(lm_path, none_penalty)
        self.without = without
        self.plm_dir = plm_dir

    @property
    def reads_antecedents(self) -> bool:
        return any(f.startswith(FEATURE_GROUPS["antecedent"]) for f in self.vec.feature_names_)

    def predict(self, items: list[Item], antecedents: list[dict] | None = None,
                doc_starts: list[int] | None = None) -> list[list[str]]:
        """`antecedents`: per item, {source index: antecedent features} (document_antecedents);
        required by a model trained with them. `doc_starts`: the items' document boundaries (the
        PLM's history restarts at each; default: one document)."""
        if antecedents is None and self.reads_antecedents and "antecedent" not in self.without:
            raise CadError("this classifier was trained with antecedent features: give the coreference records "
                           "(--coref) and the documents (--docs)")
        def reads(g: str) -> bool:
            return g not in self.without and any(f.startswith(FEATURE_GROUPS[g]) for f in self.vec.feature_names_)

        if reads("plm") and self.plm_dir is None:
            raise CadError("this classifier was trained with PLM features: give the PLM (--model, cad plm train)")
        out = []
        for feats in instance_features(self.lm, items, antecedents, doc_starts, reads("syntax"),
                                       self.plm_dir if reads("plm") else None):
            feats = [drop_groups(f, self.without) for f in feats]
            out.append([str(c) for c in self.clf.predict(self.vec.transform(feats))] if feats else [])
        return out


def instance_features(lm: LMBaseline, items: list[Item], antecedents: list[dict] | None = None,
                      doc_starts: list[int] | None = None, syntax: bool = True,
                      plm_dir: str | os.PathLike | None = None) -> list[list[dict[str, float]]]:
    """Per item, the feature dicts of its slots: the LM's from `lm` (the whole corpus's at test
    time), the antecedents' when given, the syntax group's when `syntax`, the PLM's from
    `plm_dir` when given (read document by document, `doc_starts`)."""
    syn = syntax_features_of(items) if syntax else None
    pl = None
    if plm_dir is not None:
        pl = plm_features_of(PLM(plm_dir), items, doc_starts or [0])
    out = []
    for k, it in enumerate(items):
        best = lm.fill(it)[0] if it.slots else ()
        feats = []
        for j, n in it.slots:
            f = features(it, j, n, _slot_scores(lm, it, j, best))
            if antecedents is not None:
                f.update(antecedents[k].get(n, {}))
            if syn is not None:
                f.update(syn[k].get(n, {}))
            if pl is not None:
                f.update(pl[k].get(n, {}))
            feats.append(f)
        out.append(feats)
    return out
