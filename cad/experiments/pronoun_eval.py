"""`cad cm experiment` (make pronoun-eval): every pronoun system on the dev talks, tuned on one
half of the talks and reported on the other, then swapped and pooled.

Systems: BL (the baseline decoder), PE (rule post-editing), CM-backoff (seed 004's back-off
table), CM-feature (the CoreferenceModel decoder feature), CM-rerank (the class CM over BL's
distinct n-best list), CM-feature with the PronounAgreement feature beside it (predicates after
*être* agree with the pronoun written, cad/decoder/agreement.py: every sentence decoded, not only
those with an it/they), and the ladder around CM-feature: below it the same feature told nothing
of coreference (every it/they scored by its pronoun-role bundle alone), above it two oracles:
gold coreference, and gold coreference plus the antecedents' gender and number read from the
reference translation.

Tuning: every CM system has one weight, chosen from the same grid on the tuning half by strict
class agreement, the candidate's pronoun class equal to the reference's (`tune_metric="c1c2"`: by
APT's C1+C2 accuracy; ties: BLEU, then the smaller weight); a grid of one weight tunes nothing
(`make pronoun-eval`'s default: the configurations' weight). The decoder weights are
the base moses.ini's for every system, except the two MERT systems (`mert_iterations` > 0): BL and CM-feature with every
weight, the CM's included, tuned by MERT on BLEU on the tuning half (the CM in document context),
with the same budget (iterations, n-best size). A sentence without an it/they record translates the same with and without the CM
feature (the feature scores nothing there), so such sentences are decoded once, by BL.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from pathlib import Path

# registers the CoreferenceModel feature that the configurations loaded here may name
from cad.cm.construction import SITUATION, cm_parts, cm_roles, situation_translation
import cad.cm.feature  # noqa: F401
from cad.cm.class_classifier import MODEL_FILE
from cad.cm.class_model import ClassTable
from cad.cm.config import FEATURE_NAME, cm_config, feature_config
from cad.cm.other_words import OtherWords
from cad.cm.projection import gender_number
from cad.core.alignment import parse_alignment
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import read_lines
from cad.corpus.truecase import ModelCase
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.eval.report import build_report, write_report
from cad.experiments import decoding
from cad.experiments.decoding import STATE, NoPool, map_jobs, worker_pool
from cad.experiments.folds import TUNING_METRICS, Folds, pool_run
from cad.experiments.mert_systems import mert_run
from cad.experiments.stages import SystemRun, bl_key, cached_bl, file_key, save_bl, slug, stage, write_lines
from cad.lang.pairs import Pair, chosen
from cad.moses.ini import parse_config, write_config
from cad.translate.decoders import load_decoder
from cad.translate.rerank import ClassReranker
from cad.translate.translator import DocumentTranslator
from cad.defaults import (CM_AGREEMENT_WEIGHTS, CM_BACKOFF_WEIGHT, CM_MODEL, CM_OBJECTIVE, CM_READING,
                          CM_RERANK_NBEST, CM_TUNE)
from coref.backends import documents, get_backend, records_by_doc

log = logging.getLogger(__name__)

DEFAULT_GRID = (0.1, 0.3, 1.0, 3.0)
NO_COREF = "CM-feature, no coreference"
CLASSIFIER = "CM-feature, classifier"
AGREEMENT = "CM-feature, agreement"
CLASSIFIER_AGREEMENT = "CM-feature, classifier, agreement"
MERT_BL, MERT_CM = "BL, MERT", "CM-feature, MERT"
SYSTEMS = ("BL", "PE", "CM-backoff", NO_COREF, "CM-feature", CLASSIFIER, AGREEMENT, CLASSIFIER_AGREEMENT, "CM-rerank",
           "oracle: gold coref", "oracle: gold coref + ref. features", MERT_BL, MERT_CM)       # in the report's order


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


def _alignment(tr) -> str:
    return " ".join(f"{i}-{j}" for i, j in tr.best.word_alignment)


class ReferenceProjector:
    """The oracle's projection: gender and number of the reference words aligned to the candidate."""

    def __init__(self, src_tok, ref_tok, ref_al, first_line, pair: Pair, roles):
        self.src_tok, self.ref_tok, self.ref_al, self.first_line = src_tok, ref_tok, ref_al, first_line
        self.pair = pair
        self.tag = pair.target.morphology().tag
        self.roles = roles          # per document, the bundle roles of its it/they
        self.cache: dict[int, list] = {}

    def __call__(self, doc_index: int, c) -> tuple[str, str] | str | None:
        k = self.first_line[doc_index] + c.sentence
        if situation_translation(c, self.ref_tok[k], self.ref_al[k], self.roles[doc_index].get((c.sentence, c.start)),
                                 self.pair):
            return SITUATION
        if k not in self.cache:
            self.cache[k] = self.tag([self.ref_tok[k]])[0]
        return gender_number(c, self.src_tok[k], self.ref_tok[k], self.ref_al[k], self.cache[k], self.pair)


def run_experiment(config: str, classes: str, cm_table: str, source: str, reference: str, align_ref: str,
                   docs: str, gold: str | None, out: str, grid=DEFAULT_GRID, workers: int = 2,
                   nbest: int = CM_RERANK_NBEST, folds: int = 2, backoff_weight: float = CM_BACKOFF_WEIGHT,
                   systems: tuple[str, ...] | None = None, objective: str = CM_OBJECTIVE,
                   coref_records: str | None = None, mert_iterations: int = 0,
                   mert_nbest: int = 100, mert_cm_weight: float = 3.0, classifier: str | None = None,
                   reading: str = CM_READING, pair: Pair | None = None,
                   fold_configs: list[str] | None = None, tune_metric: str = CM_TUNE,
                   other_words: str | None = None,
                   agreement_weights: tuple[float, float] = CM_AGREEMENT_WEIGHTS) -> dict:
    """`systems`: the names of SYSTEMS to run (default: all; BL always). `objective`: the class
    CM's score in CM-feature, CM-rerank and the oracles (ClassTable.score); `reading`: how the
    CM-feature systems, CM-rerank and the oracles read each pronoun's mixture (class_model.read_mixture). `coref_records`:
    the ranker's records for the source documents (e.g. `cad coref-eval --cv-folds K --out`,
    where no talk is resolved by a model that saw it); documents without records there are
    resolved by the shipped ranker. `mert_iterations` > 0 adds the two MERT systems (MERT_BL,
    MERT_CM), the CM's MERT starting from `mert_cm_weight`. `classifier`: the classifier CM
    (classifier.json) for the CLASSIFIER system, the same feature reading it instead of the class
    table; default, classifier.json beside `classes`. `pair`: the language pair (default: the
    default pair, English→French, whose DiscoMT talks the experiment was made for). `fold_configs`:
    per fold, the configuration every system translates that fold with (decoder weights tuned
    without it, e.g. the fold<k>.ini of `cad tune folds` with the same folds), instead of `config`;
    each one's experiment runs over every talk (its CM weights are chosen on the other folds,
    with the same decoder weights) under OUT.fold<k>, and the report pools them. `tune_metric`:
    what the CM weight is chosen by on the tuning folds (folds.TUNING_METRICS). `other_words`: the
    OTHER-word table the CM-feature systems share P(OTHER) out by (cad/cm/other_words.py; None: P(OTHER) whole).
    `agreement_weights`: the PronounAgreement feature's two weights in the agreement systems."""
    args = (classes, cm_table, source, reference, align_ref, docs, gold)
    rest = (grid, workers, nbest, folds, backoff_weight, systems, objective, coref_records, mert_iterations,
            mert_nbest, mert_cm_weight, classifier, reading, pair, tune_metric)
    if not fold_configs:
        return PronounEvaluation(config, *args, out, *rest, other_words=other_words,
                                 agreement_weights=agreement_weights).run()
    if len(fold_configs) != folds:
        raise CadError(f"{len(fold_configs)} fold configurations for {folds} folds")
    if mert_iterations > 0:
        raise CadError("the MERT systems tune their own decoder weights: give --fold-configs or --mert-iterations, "
                       "not both")
    exps = []
    for k, cfg in enumerate(fold_configs):
        log.info("fold %d of %d: every system with the decoder weights of %s", k + 1, folds, cfg)
        exp = PronounEvaluation(cfg, *args, f"{out}.fold{k + 1}", *rest, other_words=other_words,
                                agreement_weights=agreement_weights)
        exp.compute()
        exps.append(exp)
    return pooled_report(exps, out, config)


class PronounEvaluation:
    """One run of the experiment: its inputs, folds, coreference and the systems' runs."""

    def __init__(self, config, classes, cm_table, source, reference, align_ref, docs, gold, out, grid, workers,
                 nbest, folds, backoff_weight, systems, objective, coref_records, mert_iterations, mert_nbest,
                 mert_cm_weight, classifier, reading=CM_READING, pair: Pair | None = None, tune_metric=CM_TUNE,
                 other_words: str | None = None, agreement_weights: tuple[float, float] = CM_AGREEMENT_WEIGHTS):
        self.t_all = time.time()
        self.agreement_weights = tuple(agreement_weights)
        self.pair = chosen(pair)
        self.config, self.classes, self.cm_table, self.align_ref, self.docs = config, classes, cm_table, align_ref, docs
        self.gold, self.out, self.grid, self.workers, self.nbest = gold, out, grid, workers, nbest
        self.backoff_weight, self.objective, self.coref_records = backoff_weight, objective, coref_records
        self.mert_iterations, self.mert_nbest, self.mert_cm_weight = mert_iterations, mert_nbest, mert_cm_weight
        self.classifier, self.reading, self.other_words = classifier, reading, other_words
        if other_words is not None and objective != "likelihood":
            raise CadError(f"the OTHER-word table {other_words} is read with objective likelihood, not {objective}")
        if tune_metric not in TUNING_METRICS:
            raise CadError(f"unknown tuning metric {tune_metric!r} (choose from {', '.join(TUNING_METRICS)})")
        self.tune_metric = tune_metric
        systems = tuple((SYSTEMS if mert_iterations > 0 else SYSTEMS[:-2]) if systems is None else systems)
        unknown = [x for x in systems if x not in SYSTEMS]
        if unknown:
            raise CadError(f"unknown system(s) {', '.join(unknown)} (choose from: {', '.join(SYSTEMS)})")
        self.systems = systems
        # the decoder reads the source, and BLEU compares the reference, in the model's case
        self.case = ModelCase.of(config, self.pair.src, self.pair.tgt)
        self.docs_list = [(d, [self.case.source(s) for s in sents]) for d, sents in documents(source, docs)]
        if len(self.docs_list) < folds:
            raise CadError(f"{len(self.docs_list)} documents cannot make {folds} folds", docs)
        self.sentences = [" ".join(s) for _, sents in self.docs_list for s in sents]
        self.ref_lines = [self.case.target_line(line) for line in read_lines(reference)]
        self.aref_lines = list(read_lines(align_ref))
        for path, lines in ((reference, self.ref_lines), (align_ref, self.aref_lines)):
            if len(lines) != len(self.sentences):
                raise CadError(f"has {len(lines)} lines but the source {source} has {len(self.sentences)}", path)
        self.folds = Folds.by_document(self.docs_list, folds)
        self.work = Path(f"{out}.work")
        self.work.mkdir(parents=True, exist_ok=True)
        self.settings = SearchSettings(search_algorithm=1)
        self.runs: dict[str, SystemRun] = {}
        self.tuning: dict = {}

    def run(self) -> dict:
        self.compute()
        return pooled_report([self] * len(self.folds.fold_sents), self.out, self.config)

    def compute(self) -> None:
        """Every system decoded at every weight of the grid (kept in the work directory)."""
        self.resolve()
        self.baseline()
        self.postedit()
        self.rerank()
        # later stages are kept in the work directory under this key (model, tables, input, coreference)
        self.stage_key = (bl_key(self.config, self.sentences, self.nbest) + file_key(self.classes)
                          + file_key(self.cm_table) + str(self.gold) + f"objective={self.objective}"
                          + ("" if self.reading == "mixture" else f"reading={self.reading}")
                          + (file_key(self.coref_records) if self.coref_records else "")
                          + (file_key(self.other_words) if self.other_words else "")
                          + f"parts={','.join(sorted(cm_parts()))}")
        self.feature_systems()
        self.mert_systems()

    def resolve(self) -> None:
        t = time.time()
        log.info("coreference: ranker%s", " and gold" if self.gold else "")
        if self.coref_records:
            self.records = {"ranker": records_by_doc(self.coref_records, self.docs_list)}
        else:
            self.records = {"ranker": [get_backend("ranker").resolve(d, s) for d, s in self.docs_list]}
        if self.gold:
            g = get_backend("gold", gold=self.gold)
            self.records["gold"] = [g.resolve(d, s) for d, s in self.docs_list]
        self.roles = [cm_roles(s, {(r.sentence, r.index) for key in self.records for r in self.records[key][di]
                                   if r.token.lower() in self.pair.source.cm_pronouns})
                      for di, (_, s) in enumerate(self.docs_list)]
        self.coref_seconds = time.time() - t

    def baseline(self) -> None:
        """BL, with its n-best list for reranking."""
        t = time.time()
        STATE.clear()
        bl_tr, bl_seconds = cached_bl(self.work, self.config, self.sentences, self.nbest)
        if bl_tr is None:
            model = DecoderModel.load(self.config, input_sentences=self.sentences, settings=self.settings)
            STATE.update(bl_decoder=Decoder(model), nbest=self.nbest)
            bl_tr = [None] * len(self.sentences)
            with worker_pool(self.workers) or NoPool() as pool:
                for k, tr in progress(map_jobs(pool, decoding.decode_bl_sentence, list(enumerate(self.sentences))),
                                      total=len(self.sentences), desc="BL", unit="sent"):
                    bl_tr[k] = tr
            bl_seconds = time.time() - t
            save_bl(self.work, self.config, self.sentences, self.nbest, bl_tr, bl_seconds)
        else:
            log.info("BL: the decoded n-best lists of an earlier run (%s)", self.work / "bl.json.gz")
        self.bl = SystemRun("BL", {0.0: [tr.text for tr in bl_tr]}, {0.0: [_alignment(tr) for tr in bl_tr]},
                            bl_seconds)
        self.runs["BL"] = self.bl
        self.bl_docs = [[bl_tr[k] for k in self.folds.doc_lines[d]] for d in range(len(self.docs_list))]

    def postedit(self) -> None:
        t = time.time()
        pe = DocumentTranslator(None, "pe", pair=self.pair)
        pe_out = []
        for d, (doc_id, sents) in enumerate(self.docs_list):
            pe_out.extend(pe.translate_document(doc_id, sents, self.records["ranker"][d], given=self.bl_docs[d]).outputs)
        if "PE" in self.systems:
            self.runs["PE"] = SystemRun("PE", {0.0: pe_out}, {0.0: self.bl.alignments[0.0]},
                                        time.time() - t + self.bl.seconds)

    def rerank(self) -> None:
        """CM-rerank over BL's n-best lists, at every weight of the grid."""
        t = time.time()
        table = ClassTable.read(self.classes, self.pair)
        other = OtherWords.read(self.other_words) if self.other_words else None
        rr = SystemRun("CM-rerank")
        morph_cache: dict = {}
        for w in self.grid:
            translator = DocumentTranslator(None, "cm", "rerank", pair=self.pair, reranker=ClassReranker(
                table, w, morph_cache=morph_cache, objective=self.objective, reading=self.reading, pair=self.pair,
                other=other))
            outs, als = [], []
            for d, (doc_id, sents) in enumerate(self.docs_list):
                result = translator.translate_document(doc_id, sents, self.records["ranker"][d], roles=self.roles[d],
                                                       given=self.bl_docs[d])
                outs.extend(result.outputs)
                als.extend(result.alignments)
            rr.outputs[w], rr.alignments[w] = outs, als
        rr.seconds = time.time() - t + self.bl.seconds
        if "CM-rerank" in self.systems:
            self.runs["CM-rerank"] = rr

    def feature_decoders(self) -> dict:
        """(model kind, weight) -> decoder: the class table's feature, the classifier CM's, and each
        with the agreement feature (kinds "agreement", "classifier-agreement")."""
        kinds = {"table": self.classes}
        if AGREEMENT in self.systems:
            kinds["agreement"] = self.classes
        if CLASSIFIER in self.systems or CLASSIFIER_AGREEMENT in self.systems:
            self.classifier = self.classifier or str(Path(self.classes).parent / MODEL_FILE)
            if not Path(self.classifier).is_file():
                raise CadError(f"system {CLASSIFIER!r} needs the classifier CM: {self.classifier} not found "
                               "(cad cm build writes it beside classes.gz)")
            kinds["classifier"] = self.classifier
            if CLASSIFIER_AGREEMENT in self.systems:
                kinds["classifier-agreement"] = self.classifier
        decoders = {}
        # a grid of weight pairs decodes with the two-valued feature (the form's weight, the gender's)
        unset = tuple(0.0 for _ in self.grid[0]) if isinstance(self.grid[0], tuple) else 0.0
        for kind, path in kinds.items():
            agreement = kind.endswith("agreement")
            model = {"agreement": CM_MODEL, "classifier-agreement": "classifier"}.get(kind, kind)
            fcfg = feature_config(self.config, path, unset, self.objective, model, self.reading, self.pair,
                                  self.agreement_weights if agreement else None, self.other_words)
            fmodel = DecoderModel.from_config(fcfg, self.sentences, SearchSettings(search_algorithm=1))
            for w in self.grid:
                decoders[(kind, w)] = Decoder(fmodel.with_weights(FEATURE_NAME, list(w) if isinstance(w, tuple) else [w]))
        return decoders

    def projectors(self) -> dict:
        if not self.gold:
            return {}
        ref_tok = [line.lower().split() for line in self.ref_lines]
        ref_al = [parse_alignment(line, len(self.sentences[k].split()), len(ref_tok[k]), self.align_ref, k + 1)
                  for k, line in enumerate(self.aref_lines)]
        self.records["oracle"] = self.records["gold"]
        src_tok = [s.split() for s in self.sentences]
        return {"oracle": ReferenceProjector(src_tok, ref_tok, ref_al, self.folds.first_line, self.pair, self.roles)}

    def feature_systems(self) -> None:
        """CM-feature, its control without coreference, the classifier CM, the oracles and CM-backoff,
        in order of interest, each kept as soon as it is done; the reference-feature oracle last."""
        decoders = self.feature_decoders()
        STATE.update(pair=self.pair, decoders=decoders, bl=self.bl_docs, roles=self.roles, projectors=self.projectors(),
                     records=self.records, docs=self.docs_list)
        # the control: every pronoun referential with no antecedent and no referent type, so its
        # bundle is pronoun-role only (the role, the construction, is read from the sentence)
        self.records["none"] = [[dataclasses.replace(r, referential=True, candidates=[], anaphoricity=None,
                                                     referent=None, referent_type=None, referent_probs=None)
                                 for r in recs] for recs in self.records["ranker"]]
        variants = [(NO_COREF, "none"), ("CM-feature", "ranker")]
        if self.gold:
            variants += [("oracle: gold coref", "gold"), ("oracle: gold coref + ref. features", "oracle")]
        grid_key = self.stage_key + f"grid={self.grid}"
        for name, key in variants[:3]:
            if name in self.systems:
                self.runs[name] = stage(self.work, name, grid_key, lambda: self.feature_run(name, key))
        if CLASSIFIER in self.systems:
            self.runs[CLASSIFIER] = stage(self.work, CLASSIFIER,
                                          self.stage_key + file_key(self.classifier) + f"grid={self.grid}",
                                          lambda: self.feature_run(CLASSIFIER, "ranker", "classifier"))
        if AGREEMENT in self.systems:
            self.runs[AGREEMENT] = stage(self.work, AGREEMENT,
                                         self.stage_key + f"agreement={self.agreement_weights}grid={self.grid}",
                                         lambda: self.feature_run(AGREEMENT, "ranker", "agreement"))
        if CLASSIFIER_AGREEMENT in self.systems:
            self.runs[CLASSIFIER_AGREEMENT] = stage(
                self.work, CLASSIFIER_AGREEMENT,
                self.stage_key + file_key(self.classifier) + f"agreement={self.agreement_weights}grid={self.grid}",
                lambda: self.feature_run(CLASSIFIER_AGREEMENT, "ranker", "classifier-agreement"))
        if "CM-backoff" in self.systems:
            self.runs["CM-backoff"] = stage(self.work, "CM-backoff", self.stage_key + f"backoff={self.backoff_weight}",
                                            self.backoff_run)
        for name, key in variants[3:]:
            if name in self.systems:
                self.runs[name] = stage(self.work, name, grid_key, lambda: self.feature_run(name, key))

    def feature_run(self, name: str, key: str, kind: str = CM_MODEL) -> SystemRun:
        t = time.time()
        run = SystemRun(name)
        n_docs = len(self.docs_list)
        jobs = [(d, w, key, kind) for w in self.grid for d in range(n_docs)]
        res: dict[float, list] = {w: [None] * n_docs for w in self.grid}
        with worker_pool(self.workers) or NoPool() as pool:
            for (d, w, _, _), (d2, texts, als) in progress(zip(jobs, map_jobs(pool, decoding.decode_feature_doc, jobs)),
                                                          total=len(jobs), desc=name, unit="doc"):
                res[w][d2] = (texts, als)
        for w in self.grid:
            run.outputs[w] = [x for o in res[w] for x in o[0]]
            run.alignments[w] = [x for o in res[w] for x in o[1]]
        run.seconds = (time.time() - t) / len(self.grid) + self.bl.seconds
        return run

    def backoff_run(self) -> SystemRun:
        """CM-backoff (seed 004), at its paper weight."""
        t = time.time()
        bo_cfg = self.work / "backoff.ini"
        write_config(cm_config(self.config, self.cm_table, self.backoff_weight), bo_cfg)
        STATE.update(backoff_decoder=load_decoder(str(bo_cfg), self.sentences, "cad", None, 1, pair=self.pair),
                     docs=self.docs_list, records=self.records, pair=self.pair)
        n_docs = len(self.docs_list)
        bo_out: list = [None] * n_docs
        with worker_pool(self.workers) or NoPool() as pool:
            for d, texts, als in progress(map_jobs(pool, decoding.decode_backoff_doc, range(n_docs)), total=n_docs,
                                          desc="CM-backoff", unit="doc"):
                bo_out[d] = (texts, als)
        w = self.backoff_weight
        return SystemRun("CM-backoff", {w: [x for o in bo_out for x in o[0]]}, {w: [x for o in bo_out for x in o[1]]},
                         time.time() - t)

    def mert_systems(self) -> None:
        """Every weight tuned on the other folds, each fold decoded with its own."""
        mert_key = self.stage_key + f"mert={self.mert_iterations},{self.mert_nbest},{self.mert_cm_weight}"
        for name, in_context in ((MERT_BL, False), (MERT_CM, True)):
            if name not in self.systems:
                continue
            cfg = feature_config(self.config, self.classes, self.mert_cm_weight, self.objective,
                                 reading=self.reading, other=self.other_words) if in_context \
                else parse_config(self.config)
            self.runs[name] = stage(self.work, name, mert_key, lambda: mert_run(self, name, cfg, in_context))
            with open(self.work / slug(name) / "tuning.json", encoding="utf-8") as fh:
                self.tuning[name] = json.load(fh)
            if in_context:
                self.runs[name].chosen = {f: v["weights"][FEATURE_NAME] for f, v in self.tuning[name].items()}


def pooled_report(exps: list[PronounEvaluation], out: str, config: str) -> dict:
    """Tune on one fold, report on the other, pool: fold k's sentences from exps[k] (the same
    experiment for every fold, or each fold's with its own decoder weights); the report with the
    protocol, written to OUT.{md,json,png}, the pooled outputs to OUT.work/."""
    first = exps[0]
    work = Path(f"{out}.work")
    work.mkdir(parents=True, exist_ok=True)
    tuning = dict(first.tuning)
    names = [name for name in SYSTEMS if name in first.runs]
    lines = (first.sentences, first.ref_lines, first.aref_lines)
    pooled = [pool_run(name, [e.runs[name] for e in exps], first.folds, lines, work, tuning,
                       name in (MERT_BL, MERT_CM), first.tune_metric) for name in names]
    # the systems write tokens in the model's case: BLEU and chrF against the reference in that case
    src_file = write_lines(work / f"source.{first.case.name}", first.sentences)
    ref_file = write_lines(work / f"reference.{first.case.name}", first.ref_lines)
    report = build_report(src_file, ref_file, first.align_ref, pooled, docs=first.docs, pair=first.pair)
    distinct = list({id(e): e for e in exps}.values())
    for row in report["systems"]:
        runs = [e.runs[row["system"]] for e in distinct]
        # each experiment decodes every talk: a system's time is one decoding of them
        row["seconds"] = round(sum(r.seconds for r in runs) / len(runs), 1)
        row["tuned_weight"] = {f: w for r in runs for f, w in r.chosen.items()}
    per_fold = len(distinct) > 1
    report["protocol"] = {
        "folds": [[first.docs_list[d][0] for d in f] for f in first.folds.fold_docs],
        "grid": list(first.grid),
        "tuning_metric": {"strict": "strict class agreement", "c1c2": "C1+C2 accuracy"}[first.tune_metric]
        + " on the other fold (ties: BLEU, smaller weight)",
        "decoder_weights": [str(e.config) for e in exps] if per_fold else str(config),
        "coreference_seconds": round(sum(e.coref_seconds for e in distinct), 1),
        "total_seconds": round(time.time() - first.t_all, 1), "tuning": tuning,
        "note": ("each fold translated by every system with decoder weights tuned without it (decoder_weights, "
                 "per fold); the CM weight chosen on the other folds with the same weights") if per_fold else
                "decoder weights are the base configuration's for every system but the MERT ones; the others "
                "tune only the CM weight",
        "objective": first.objective, "reading": first.reading,
        "coreference": first.coref_records or "the shipped ranker", "cm_parts": sorted(cm_parts()),
    }
    write_report(report, out, first.pair)
    return report
