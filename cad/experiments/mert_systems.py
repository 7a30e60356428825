"""The MERT systems of the pronoun experiment: every decoder weight (the CM's too, tuned in
document context) tuned by MERT on the other folds, each fold decoded with its own weights, the
same budget (iterations, n-best size) for BL and CM-feature."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from cad.decoder import Decoder, DecoderModel
from cad.experiments.folds import Folds
from cad.experiments.stages import SystemRun, slug, write_lines
from cad.moses.ini import write_config
from cad.core.textio import atomic_output
from cad.tune.run import TuningSet, mert

log = logging.getLogger(__name__)


def _alignment(tr) -> str:
    return " ".join(f"{i}-{j}" for i, j in tr.best.word_alignment)


def _fold_files(tdir: Path, f: int, part: str, ds: list[int], exp) -> tuple:
    """(source file, reference file, documents file, sentence numbers, records) of fold f's part."""
    lines = [k for d in ds for k in exp.folds.doc_lines[d]]
    starts, k3 = [], 0
    for d in ds:
        starts.append(f"{k3}\t{exp.docs_list[d][0]}")
        k3 += len(exp.folds.doc_lines[d])
    return (write_lines(tdir / f"fold{f + 1}.{part}.src", [exp.sentences[k] for k in lines]),
            write_lines(tdir / f"fold{f + 1}.{part}.ref", [exp.ref_lines[k] for k in lines]),
            write_lines(tdir / f"fold{f + 1}.{part}.docs", starts), lines,
            [exp.records["ranker"][d] for d in ds])


def mert_run(exp, name: str, cfg, in_context: bool) -> SystemRun:
    """`exp`: the experiment (its documents, folds, records, settings and budgets)."""
    t = time.time()
    out_tr: list = [None] * len(exp.sentences)
    tdir = exp.work / slug(name)
    tdir.mkdir(exist_ok=True)
    base = tdir / "start.ini"
    write_config(cfg, base)
    chosen = {}
    names = [f"{sl.name}[{i}]" if sl.size > 1 else sl.name
             for sl in DecoderModel.from_config(cfg, [], exp.settings).slots for i in range(sl.size)]
    folds: Folds = exp.folds
    for f, test_docs in enumerate(folds.fold_docs):
        tune_docs = [d for d in range(len(exp.docs_list)) if d not in test_docs]
        files = {part: _fold_files(tdir, f, part, ds, exp) for part, ds in (("tune", tune_docs), ("test", test_docs))}
        src_f, ref_f, docs_f, _, recs = files["tune"]
        tuned = tdir / f"fold{f + 1}.tuned.ini"
        log.info("%s, fold %d: MERT on the other folds (%d sentences)", name, f + 1, len(files["tune"][3]))
        res = mert(str(base), src_f, ref_f, str(tuned), nbest=exp.mert_nbest, iterations=exp.mert_iterations,
                   docs=docs_f if in_context else None, records=recs if in_context else None, workers=exp.workers)
        chosen[f"fold{f + 1}"] = {"tuning_bleu": round(100 * res.bleu, 2), "iterations": len(res.history),
                                  "weights": dict(zip(names, [round(x, 6) for x in res.weights]))}
        src_f, _, docs_f, lines, recs = files["test"]
        model = DecoderModel.load(tuned, input_sentences=[exp.sentences[k] for k in lines], settings=exp.settings)
        ts = TuningSet(model, [exp.sentences[k] for k in lines], docs_f if in_context else None, src_f,
                       workers=exp.workers, records=recs if in_context else None, case=exp.case.source)
        for k, tr in zip(lines, ts.decode(Decoder(model), 0, f"{name} fold {f + 1}")):
            out_tr[k] = tr
    with atomic_output(tdir / "tuning.json") as fh:
        json.dump(chosen, fh, indent=1)
    return SystemRun(name, {0.0: [tr.text for tr in out_tr]}, {0.0: [_alignment(tr) for tr in out_tr]},
                     time.time() - t)
