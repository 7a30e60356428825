"""`cad cm experiment` (make pronoun-eval): every pronoun system on the dev talks, tuned on one
half of the talks and reported on the other, then swapped and pooled.

Systems: BL (the baseline decoder), PE (rule post-editing), CM-backoff (seed 004's back-off
table), CM-feature (the CoreferenceModel decoder feature), CM-rerank (the class CM over BL's
distinct n-best list), and the ladder around CM-feature: below it the same feature told nothing
of coreference (every it/they scored by its pronoun-role bundle alone), above it two oracles:
gold coreference, and gold coreference plus the antecedents' gender and number read from the
reference translation.

Tuning: every CM system has one weight, chosen from the same grid on the tuning half by C1+C2
accuracy (ties: BLEU, then the smaller weight). The decoder weights are the base moses.ini's for
every system, except the two MERT systems (`mert_iterations` > 0): BL and CM-feature with every
weight, the CM's included, tuned by MERT on BLEU on the tuning half (the CM in document context),
with the same budget (iterations, n-best size). A sentence without an it/they record translates the same with and without the CM
feature (the feature scores nothing there), so such sentences are decoded once, by BL.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import multiprocessing
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.errors import CadError
from cad.moses.ini import parse_config
from cad.core.progress import progress
from cad.core.textio import atomic_output, read_lines
from cad.cm.projection import gender_number
from coref.backends import records_by_doc

log = logging.getLogger(__name__)

DEFAULT_GRID = (0.1, 0.3, 1.0, 3.0)
NO_COREF = "CM-feature, no coreference"
CLASSIFIER = "CM-feature, classifier"
MERT_BL, MERT_CM = "BL, MERT", "CM-feature, MERT"
SYSTEMS = ("BL", "PE", "CM-backoff", NO_COREF, "CM-feature", CLASSIFIER, "CM-rerank", "oracle: gold coref",
           "oracle: gold coref + ref. features", MERT_BL, MERT_CM)       # in the report's order


def parse_systems(text: str) -> tuple[str, ...]:
    """A comma-separated list of system names, some of which hold a comma themselves
    ("BL, MERT"): the longest known name at each point wins."""
    parts = [x.strip() for x in text.split(",")]
    out = []
    i = 0
    while i < len(parts):
        for j in range(len(parts), i, -1):
            name = ", ".join(parts[i:j])
            if name in SYSTEMS:
                out.append(name)
                i = j
                break
        else:
            if parts[i]:
                raise CadError(f"unknown system {parts[i]!r} (choose from: {'; '.join(SYSTEMS)})")
            i += 1
    return tuple(out)


@dataclass
class SystemRun:
    name: str
    outputs: dict[float, list[str]] = field(default_factory=dict)      # weight -> one line per sentence
    alignments: dict[float, list[str]] = field(default_factory=dict)
    seconds: float = 0.0
    chosen: dict[str, float] = field(default_factory=dict)             # fold -> tuned weight


# ------------------------------------------------------------------ decoding in worker processes
_STATE: dict = {}


def _decode_doc(job):
    """Worker: one document with the CM feature at `weight` (context per pronoun sentence)."""
    from cad.translate.document import translate_document_feature

    doc_index, weight, records_key, kind = job
    st = _STATE
    decoder = st["decoders"][(kind, weight)]
    doc_id, sents = st["docs"][doc_index]
    cached = st["bl"][doc_index]
    wrapped = _Cached(decoder, cached)
    projector = st["projectors"].get(records_key)
    trs, _ = translate_document_feature(wrapped, doc_id, sents, st["records"][records_key][doc_index],
                                        roles=st["roles"][doc_index],
                                        projector=None if projector is None else lambda c: projector(doc_index, c))
    return doc_index, [tr.text for tr in trs], [_align(tr) for tr in trs]


def _align(tr) -> str:
    return " ".join(f"{i}-{j}" for i, j in tr.best.word_alignment)


class _Cached:
    """BL's translation for a sentence decoded without context (the CM feature scores nothing)."""

    def __init__(self, decoder, bl_translations):
        self.decoder = decoder
        self.bl = {" ".join(tr.source): tr for tr in bl_translations}

    def translate(self, sentence: str, nbest: int = 0, distinct: bool = False, context=None):
        if not context or not context.get("pronouns"):
            tr = self.bl.get(sentence)
            if tr is not None:
                return tr
        return self.decoder.translate(sentence, nbest=nbest, distinct=distinct, context=context)


def _decode_bl(k_sent):
    k, sent = k_sent
    return k, _STATE["bl_decoder"].translate(sent, nbest=_STATE["nbest"], distinct=True)


def _backoff_doc(doc_index):
    from cad.translate.document import translate_document

    st = _STATE
    doc_id, sents = st["docs"][doc_index]
    trs, _ = translate_document(st["backoff_decoder"], doc_id, sents, st["records"]["ranker"][doc_index])
    return doc_index, [tr.text for tr in trs], [_align(tr) for tr in trs]


def _pool(workers: int):
    return multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None


def _map(pool, fn, items):
    return pool.imap(fn, items, chunksize=1) if pool is not None else map(fn, items)


# ------------------------------------------------------------------ scoring
def _write(path: Path, lines: list[str]) -> str:
    with atomic_output(path) as fh:
        fh.writelines(x + "\n" for x in lines)
    return str(path)


def fold_score(source, reference, align_ref, cand_lines, align_lines, sentences: set[int], work: Path) -> tuple[float, float]:
    """(C1+C2 accuracy, BLEU) of a candidate restricted to the given sentences."""
    from cad.eval.apt import evaluate
    from cad.eval.bleu import bleu_chrf
    from cad.eval.report import french_settings

    keep = sorted(sentences)
    sub = {}
    for name, lines in (("src", source), ("ref", reference), ("aref", align_ref), ("cand", cand_lines),
                        ("acand", align_lines)):
        sub[name] = _write(work / f"fold.{name}", [lines[k] for k in keep])
    res = evaluate(sub["src"], sub["ref"], sub["cand"], sub["aref"], sub["acand"], french_settings())
    total = sum(res.counts.values())
    acc = (res.counts[1] + res.counts[2]) / total if total else math.nan
    return acc, bleu_chrf(sub["cand"], sub["ref"])["bleu"]


# ------------------------------------------------------------------ the experiment
def run_experiment(config: str, classes: str, cm_table: str, source: str, reference: str, align_ref: str,
                   docs: str, gold: str | None, out: str, grid=DEFAULT_GRID, workers: int = 2, nbest: int = 30,
                   folds: int = 2, backoff_weight: float = 0.8, systems: tuple[str, ...] | None = None,
                   objective: str = "credit", coref_records: str | None = None, mert_iterations: int = 0,
                   mert_nbest: int = 100, mert_cm_weight: float = 3.0, classifier: str | None = None) -> dict:
    """`systems`: the names of SYSTEMS to run (default: all; BL always). `objective`: the class
    CM's score in CM-feature, CM-rerank and the oracles (ClassTable.score). `coref_records`:
    the ranker's records for the source documents (e.g. `cad coref-eval --cv-folds K --out`,
    where no talk is resolved by a model that saw it); documents without records there are
    resolved by the shipped ranker. `mert_iterations` > 0 adds the two MERT systems (MERT_BL,
    MERT_CM), the CM's MERT starting from `mert_cm_weight`. `classifier`: the classifier CM
    (classifier.json) for the CLASSIFIER system, the same feature reading it instead of the class
    table; default, classifier.json beside `classes`."""
    from cad.cm.config import FEATURE_NAME, cm_config, feature_config
    from cad.lang.fr_morph import tag
    from cad.translate.postedit import postedit_document
    from cad.translate.rerank import ClassReranker, Hypothesis
    from cad.cm.class_model import CM_PRONOUNS, ClassTable
    from coref.english.roles import pronoun_roles
    from cad.core.alignment import parse_alignment
    from cad.decoder import Decoder, DecoderModel, SearchSettings
    from cad.eval.report import System, build_report, write_report
    from cad.moses.ini import write_config
    from coref.backends import documents, get_backend

    t_all = time.time()
    systems = tuple((SYSTEMS if mert_iterations > 0 else SYSTEMS[:-2]) if systems is None else systems)
    unknown = [x for x in systems if x not in SYSTEMS]
    if unknown:
        raise CadError(f"unknown system(s) {', '.join(unknown)} (choose from: {', '.join(SYSTEMS)})")
    from cad.corpus.truecase import ModelCase

    # the decoder reads the source, and BLEU compares the reference, in the model's case
    case = ModelCase.of(config, "en", "fr")
    docs_list = documents(source, docs)
    docs_list = [(d, [case.source(s) for s in sents]) for d, sents in docs_list]
    if len(docs_list) < folds:
        raise CadError(f"{len(docs_list)} documents cannot make {folds} folds", docs)
    sentences = [" ".join(s) for _, sents in docs_list for s in sents]
    src_lines = sentences
    ref_lines = [case.target_line(line) for line in read_lines(reference)]
    aref_lines = list(read_lines(align_ref))
    for path, lines in ((reference, ref_lines), (align_ref, aref_lines)):
        if len(lines) != len(sentences):
            raise CadError(f"has {len(lines)} lines but the source {source} has {len(sentences)}", path)
    first_line = []
    k = 0
    for _, sents in docs_list:
        first_line.append(k)
        k += len(sents)
    doc_lines = [list(range(first_line[d], first_line[d] + len(s))) for d, (_, s) in enumerate(docs_list)]
    # folds by talk: consecutive halves of the document list
    per = math.ceil(len(docs_list) / folds)
    fold_docs = [list(range(i, min(i + per, len(docs_list)))) for i in range(0, len(docs_list), per)]
    fold_sents = [{k for d in f for k in doc_lines[d]} for f in fold_docs]

    work = Path(f"{out}.work")
    work.mkdir(parents=True, exist_ok=True)
    settings = SearchSettings(search_algorithm=1)
    runs: dict[str, SystemRun] = {}

    # ---------------- coreference
    t = time.time()
    log.info("coreference: ranker%s", " and gold" if gold else "")
    if coref_records:
        records = {"ranker": records_by_doc(coref_records, docs_list)}
    else:
        records = {"ranker": [get_backend("ranker").resolve(d, s) for d, s in docs_list]}
    if gold:
        g = get_backend("gold", gold=gold)
        records["gold"] = [g.resolve(d, s) for d, s in docs_list]
    roles = [pronoun_roles(s, {(r.sentence, r.index) for key in records for r in records[key][di]
                               if r.token.lower() in CM_PRONOUNS})
             for di, (_, s) in enumerate(docs_list)]
    coref_seconds = time.time() - t

    # ---------------- BL, with its n-best list for reranking
    t = time.time()
    _STATE.clear()
    bl_tr, bl_seconds = _cached_bl(work, config, sentences, nbest)
    if bl_tr is None:
        model = DecoderModel.load(config, input_sentences=sentences, settings=settings)
        _STATE.update(bl_decoder=Decoder(model), nbest=nbest)
        bl_tr = [None] * len(sentences)
        with _pool(workers) or _nullctx() as pool:
            for k2, tr in progress(_map(pool, _decode_bl, list(enumerate(sentences))), total=len(sentences),
                                   desc="BL", unit="sent"):
                bl_tr[k2] = tr
        bl_seconds = time.time() - t
        _save_bl(work, config, sentences, nbest, bl_tr, bl_seconds)
    else:
        log.info("BL: the decoded n-best lists of an earlier run (%s)", work / "bl.json.gz")
    bl = SystemRun("BL", {0.0: [tr.text for tr in bl_tr]}, {0.0: [_align(tr) for tr in bl_tr]}, bl_seconds)
    runs["BL"] = bl
    bl_docs = [[bl_tr[k2] for k2 in doc_lines[d]] for d in range(len(docs_list))]

    # ---------------- PE
    t = time.time()
    pe_out = []
    for d in range(len(docs_list)):
        words, _ = postedit_document(bl_docs[d], records["ranker"][d])
        pe_out.extend(" ".join(w) for w in words)
    if "PE" in systems:
        runs["PE"] = SystemRun("PE", {0.0: pe_out}, {0.0: bl.alignments[0.0]}, time.time() - t + bl.seconds)

    # ---------------- CM-rerank over BL's n-best lists
    t = time.time()
    table = ClassTable.read(classes)
    rr = SystemRun("CM-rerank")
    hyps = [[Hypothesis(list(dv.words), dv.total, dv.word_alignment) for dv in tr.nbest] for tr in bl_tr]
    morph_cache: dict = {}
    for w in grid:
        rer = ClassReranker(table, w, morph_cache=morph_cache, objective=objective)
        outs, als = [], []
        for d in range(len(docs_list)):
            chosen, _ = rer.rerank_document([hyps[k2] for k2 in doc_lines[d]], records["ranker"][d],
                                            docs_list[d][1], roles=roles[d])
            outs.extend(" ".join(h.words) for h in chosen)
            als.extend(" ".join(f"{i}-{j}" for i, j in h.alignment) for h in chosen)
        rr.outputs[w], rr.alignments[w] = outs, als
    rr.seconds = time.time() - t + bl.seconds
    if "CM-rerank" in systems:
        runs["CM-rerank"] = rr
    # later stages are kept in the work directory under this key (model, tables, input, coreference)
    stage_key = (_bl_key(config, sentences, nbest) + _file_key(classes) + _file_key(cm_table) + str(gold)
                 + f"objective={objective}" + (_file_key(coref_records) if coref_records else ""))

    # ---------------- CM-feature and its oracles
    kinds = {"table": classes}
    if CLASSIFIER in systems:
        from cad.cm.class_classifier import MODEL_FILE

        classifier = classifier or str(Path(classes).parent / MODEL_FILE)
        if not Path(classifier).is_file():
            raise CadError(f"system {CLASSIFIER!r} needs the classifier CM: {classifier} not found "
                           "(cad cm build writes it beside classes.gz)")
        kinds["classifier"] = classifier
        stage_key_clf = stage_key + _file_key(classifier)
    decoders = {}
    for kind, path in kinds.items():
        fcfg = feature_config(config, path, 0.0, objective, kind)
        fmodel = DecoderModel.from_config(fcfg, sentences, SearchSettings(search_algorithm=1))
        for w in grid:
            decoders[(kind, w)] = Decoder(fmodel.with_weights(FEATURE_NAME, [w]))
    projectors = {}
    if gold:
        ref_tok = [line.lower().split() for line in ref_lines]
        ref_al = [parse_alignment(line, len(sentences[k2].split()), len(ref_tok[k2]), align_ref, k2 + 1)
                  for k2, line in enumerate(aref_lines)]
        records["oracle"] = records["gold"]
        projectors["oracle"] = _ReferenceProjector(ref_tok, ref_al, first_line, tag)
    _STATE.update(decoders=decoders, bl=bl_docs, roles=roles, projectors=projectors, records=records, docs=docs_list)
    # the control: every pronoun referential with no antecedent, so its bundle is pronoun-role only
    records["none"] = [[dataclasses.replace(r, referential=True, candidates=[], anaphoricity=None) for r in recs]
                       for recs in records["ranker"]]
    variants = [(NO_COREF, "none"), ("CM-feature", "ranker")]
    if gold:
        variants += [("oracle: gold coref", "gold"), ("oracle: gold coref + ref. features", "oracle")]
    def feature_run(name: str, key: str, kind: str = "table") -> SystemRun:
        t = time.time()
        run = SystemRun(name)
        jobs = [(d, w, key, kind) for w in grid for d in range(len(docs_list))]
        res: dict[float, list] = {w: [None] * len(docs_list) for w in grid}
        with _pool(workers) or _nullctx() as pool:
            for (d, w, _, _), (d2, texts, als) in progress(zip(jobs, _map(pool, _decode_doc, jobs)), total=len(jobs),
                                                          desc=name, unit="doc"):
                res[w][d2] = (texts, als)
        for w in grid:
            run.outputs[w] = [x for o in res[w] for x in o[0]]
            run.alignments[w] = [x for o in res[w] for x in o[1]]
        run.seconds = (time.time() - t) / len(grid) + bl.seconds
        return run

    # stages in order of interest, each kept as soon as it is done; the reference-feature oracle last
    for name, key in variants[:3]:
        if name in systems:
            runs[name] = _stage(work, name, stage_key + f"grid={grid}", lambda: feature_run(name, key))
    if CLASSIFIER in systems:
        runs[CLASSIFIER] = _stage(work, CLASSIFIER, stage_key_clf + f"grid={grid}",
                                  lambda: feature_run(CLASSIFIER, "ranker", "classifier"))

    # ---------------- CM-backoff (seed 004), at its paper weight
    def backoff_run() -> SystemRun:
        t = time.time()
        bo_cfg = work / "backoff.ini"
        write_config(cm_config(config, cm_table, backoff_weight), bo_cfg)
        from cad.cli.cm import load_decoder

        _STATE.update(backoff_decoder=load_decoder(str(bo_cfg), sentences, "cad", None, 1), docs=docs_list,
                      records=records)
        bo_out = [None] * len(docs_list)
        with _pool(workers) or _nullctx() as pool:
            for d, texts, als in progress(_map(pool, _backoff_doc, range(len(docs_list))), total=len(docs_list),
                                          desc="CM-backoff", unit="doc"):
                bo_out[d] = (texts, als)
        return SystemRun("CM-backoff", {backoff_weight: [x for o in bo_out for x in o[0]]},
                         {backoff_weight: [x for o in bo_out for x in o[1]]}, time.time() - t)

    if "CM-backoff" in systems:
        runs["CM-backoff"] = _stage(work, "CM-backoff", stage_key + f"backoff={backoff_weight}", backoff_run)

    for name, key in variants[3:]:
        if name in systems:
            runs[name] = _stage(work, name, stage_key + f"grid={grid}", lambda: feature_run(name, key))

    # ---------------- MERT: every weight tuned on the other folds, each fold decoded with its own
    def mert_run(name: str, cfg, in_context: bool) -> SystemRun:
        from cad.tune.run import TuningSet, mert

        t = time.time()
        out_tr: list = [None] * len(sentences)
        tdir = work / _slug(name)
        tdir.mkdir(exist_ok=True)
        base = tdir / "start.ini"
        write_config(cfg, base)
        chosen = {}
        names = [f"{sl.name}[{i}]" if sl.size > 1 else sl.name
                 for sl in DecoderModel.from_config(cfg, [], settings).slots for i in range(sl.size)]
        for f, test_docs in enumerate(fold_docs):
            tune_docs = [d for d in range(len(docs_list)) if d not in test_docs]
            files = {}
            for part, ds in (("tune", tune_docs), ("test", test_docs)):
                lines = [k2 for d in ds for k2 in doc_lines[d]]
                starts, k3 = [], 0
                for d in ds:
                    starts.append(f"{k3}\t{docs_list[d][0]}")
                    k3 += len(doc_lines[d])
                files[part] = (_write(tdir / f"fold{f + 1}.{part}.src", [sentences[k2] for k2 in lines]),
                               _write(tdir / f"fold{f + 1}.{part}.ref", [ref_lines[k2] for k2 in lines]),
                               _write(tdir / f"fold{f + 1}.{part}.docs", starts), lines,
                               [records["ranker"][d] for d in ds])
            src_f, ref_f, docs_f, _, recs = files["tune"]
            tuned = tdir / f"fold{f + 1}.tuned.ini"
            log.info("%s, fold %d: MERT on the other folds (%d sentences)", name, f + 1, len(files["tune"][3]))
            res = mert(str(base), src_f, ref_f, str(tuned), nbest=mert_nbest, iterations=mert_iterations,
                       docs=docs_f if in_context else None, records=recs if in_context else None, workers=workers)
            chosen[f"fold{f + 1}"] = {"tuning_bleu": round(100 * res.bleu, 2), "iterations": len(res.history),
                                      "weights": dict(zip(names, [round(x, 6) for x in res.weights]))}
            src_f, _, docs_f, lines, recs = files["test"]
            model = DecoderModel.load(tuned, input_sentences=[sentences[k2] for k2 in lines], settings=settings)
            ts = TuningSet(model, [sentences[k2] for k2 in lines], docs_f if in_context else None, src_f,
                           workers=workers, records=recs if in_context else None, case=case.source)
            for k2, tr in zip(lines, ts.decode(Decoder(model), 0, f"{name} fold {f + 1}")):
                out_tr[k2] = tr
        with atomic_output(tdir / "tuning.json") as fh:
            json.dump(chosen, fh, indent=1)
        return SystemRun(name, {0.0: [tr.text for tr in out_tr]}, {0.0: [_align(tr) for tr in out_tr]},
                         time.time() - t)

    tuning: dict = {}
    mert_key = stage_key + f"mert={mert_iterations},{mert_nbest},{mert_cm_weight}"
    for name, in_context in ((MERT_BL, False), (MERT_CM, True)):
        if name not in systems:
            continue
        cfg = feature_config(config, classes, mert_cm_weight, objective) if in_context else parse_config(config)
        runs[name] = _stage(work, name, mert_key, lambda: mert_run(name, cfg, in_context))
        with open(work / _slug(name) / "tuning.json", encoding="utf-8") as fh:
            tuning[name] = json.load(fh)
        if in_context:
            runs[name].chosen = {f: v["weights"][FEATURE_NAME] for f, v in tuning[name].items()}

    # ---------------- tune on one fold, report on the other, pool
    pooled_files = []
    runs = {name: runs[name] for name in SYSTEMS if name in runs}
    for name, run in runs.items():
        final_out = list(run.outputs[next(iter(run.outputs))])
        final_al = list(run.alignments[next(iter(run.alignments))])
        for f, test in enumerate(fold_sents):
            tune = set().union(*(fold_sents[g] for g in range(len(fold_sents)) if g != f))
            if name in (MERT_BL, MERT_CM):
                continue            # tuned per fold already: its outputs are the pooled ones
            if len(run.outputs) > 1:
                scored = []
                for w in run.outputs:
                    acc, b = fold_score(src_lines, ref_lines, aref_lines, run.outputs[w], run.alignments[w], tune, work)
                    scored.append((acc, b, -w, w))
                    tuning.setdefault(name, {}).setdefault(f"fold{f + 1}", {})[str(w)] = {"acc_c1_c2": acc, "bleu": b}
                best_w = max(scored)[3]
            else:
                best_w = next(iter(run.outputs))
            run.chosen[f"fold{f + 1}"] = best_w
            for k2 in test:
                final_out[k2] = run.outputs[best_w][k2]
                final_al[k2] = run.alignments[best_w][k2]
        cand = _write(work / f"{_slug(name)}.out", final_out)
        al = _write(work / f"{_slug(name)}.align", final_al)
        pooled_files.append(System(name, cand, al))
    # the systems write tokens in the model's case: BLEU and chrF against the reference in that case
    src_file = _write(work / f"source.{case.name}", src_lines)
    ref_file = _write(work / f"reference.{case.name}", ref_lines)
    report = build_report(src_file, ref_file, align_ref, pooled_files, docs=docs)
    for row in report["systems"]:
        run = runs[row["system"]]
        row["seconds"] = round(run.seconds, 1)
        row["tuned_weight"] = run.chosen
    report["protocol"] = {
        "folds": [[docs_list[d][0] for d in f] for f in fold_docs],
        "grid": list(grid), "tuning_metric": "C1+C2 accuracy on the other fold (ties: BLEU, smaller weight)",
        "decoder_weights": str(config), "coreference_seconds": round(coref_seconds, 1),
        "total_seconds": round(time.time() - t_all, 1), "tuning": tuning,
        "note": "decoder weights are the base configuration's for every system but the MERT ones; the others "
                "tune only the CM weight",
        "objective": objective, "coreference": coref_records or "the shipped ranker",
    }
    write_report(report, out)
    return report


def _bl_key(config: str, sentences: list[str], nbest: int) -> str:
    import hashlib

    h = hashlib.sha256()
    for path in [config] + [f.path for f in parse_config(config).features if f.path]:
        st = os.stat(path)
        h.update(f"{os.path.abspath(path)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    h.update(f"nbest={nbest}\n".encode())
    h.update("\n".join(sentences).encode())
    return h.hexdigest()


def _file_key(path: str) -> str:
    st = os.stat(path)
    return f"{os.path.abspath(path)}:{st.st_size}:{st.st_mtime_ns}"


def _stage(work: Path, name: str, key: str, compute) -> SystemRun:
    """A decoded system from an earlier run with the same key, or computed and kept: an
    interrupted experiment resumes after its last finished system."""
    path = work / f"{_slug(name)}.json"
    if path.exists():
        with open(path, encoding="utf-8") as fh:
            saved = json.load(fh)
        if saved.get("key") == key:
            log.info("%s: the outputs of an earlier run (%s)", name, path)
            return SystemRun(name, {float(w): v for w, v in saved["outputs"].items()},
                             {float(w): v for w, v in saved["alignments"].items()}, saved["seconds"])
    run = compute()
    with atomic_output(path) as fh:
        json.dump({"key": key, "outputs": {str(w): v for w, v in run.outputs.items()},
                   "alignments": {str(w): v for w, v in run.alignments.items()}, "seconds": run.seconds}, fh)
    return run


def _cached_bl(work: Path, config: str, sentences: list[str], nbest: int):
    """BL's translations from an earlier run on the same model, input and n-best size (the
    experiment's longest stage), or (None, 0). Kept as gzipped JSON, not a pickle."""
    import gzip

    from cad.decoder.serialize import translation_from_dict

    path = work / "bl.json.gz"
    if not path.exists():
        return None, 0.0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            saved = json.load(fh)
        if saved.get("key") != _bl_key(config, sentences, nbest):
            return None, 0.0
        return [translation_from_dict(d) for d in saved["translations"]], float(saved["seconds"])
    except (OSError, EOFError, ValueError, KeyError, TypeError) as exc:
        log.warning("%s: unreadable (%s); BL is decoded again", path, exc)
        return None, 0.0


def _save_bl(work: Path, config: str, sentences: list[str], nbest: int, trs, seconds: float) -> None:
    from cad.decoder.serialize import translation_to_dict

    with atomic_output(work / "bl.json.gz", compress=True) as fh:
        json.dump({"key": _bl_key(config, sentences, nbest), "seconds": seconds,
                   "translations": [translation_to_dict(tr) for tr in trs]}, fh)


class _ReferenceProjector:
    """The oracle's projection: gender and number of the reference words aligned to the candidate."""

    def __init__(self, ref_tok, ref_al, first_line, tagger):
        self.ref_tok, self.ref_al, self.first_line, self.tag = ref_tok, ref_al, first_line, tagger
        self.cache: dict[int, list] = {}

    def __call__(self, doc_index: int, c) -> tuple[str, str] | None:
        k = self.first_line[doc_index] + c.sentence
        if k not in self.cache:
            self.cache[k] = self.tag([self.ref_tok[k]])[0]
        return gender_number(c.start, c.end, self.ref_al[k], self.cache[k])


class _nullctx:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
