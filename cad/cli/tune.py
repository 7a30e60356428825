"""`cad tune mert`, `cad tune folds` and `cad tune cm-weight`."""

from __future__ import annotations

import argparse

from cad.defaults import COREF_BACKEND
from coref.backends import BACKENDS


def _mert(a: argparse.Namespace) -> None:
    from cad.core.cliargs import refuse_stdout
    from cad.tune.run import mert

    refuse_stdout(a.out, "--out")
    res = mert(a.config, a.source, a.reference, a.out, docs=a.docs, coref=a.coref, workers=a.workers,
               src_lang=a.src, tgt_lang=a.tgt, **_mert_options(a))
    for i, (_, b) in enumerate(res.history, 1):
        print(f"iteration {i}: BLEU {100 * b:.2f}")
    print(f"tuned weights (BLEU {100 * res.bleu:.2f} on the tuning set) in {a.out}")


def _folds(a: argparse.Namespace) -> None:
    from cad.core.cliargs import refuse_stdout
    from cad.tune.folds import format_report, mert_folds

    if a.final:
        refuse_stdout(a.final, "--final")
    rep = mert_folds(a.config, a.source, a.reference, a.docs, a.folds, a.out, final=a.final, workers=a.workers,
                     src_lang=a.src, tgt_lang=a.tgt, **_mert_options(a))
    print(format_report(rep), end="")


def _mert_options(a: argparse.Namespace) -> dict:
    return {"nbest": a.nbest, "iterations": a.iterations, "search_algorithm": a.search_algorithm,
            "random_dirs": a.random_directions, "restarts": a.random_restarts, "seed": a.seed,
            "historic_bests": not a.no_historic_bests}


def _cm_weight(a: argparse.Namespace) -> None:
    from cad.tune.cm_weight import cm_weight_grid

    res = cm_weight_grid(a.config, a.source, a.docs, a.reference, a.align_ref,
                         [float(x) for x in a.grid.split(",")], a.backend)
    print("weight\tAPT\tBLEU")
    for w, apt, b in res:
        print(f"{w:g}\t{apt:.4f}\t{b:.2f}")
    best = max(res, key=lambda r: (round(r[1], 6), r[2]))
    print(f"best CM weight: {best[0]:g}")


def _mert_arguments(s, add_in) -> None:
    s.add_argument("--config", required=True, help="the moses.ini to tune; its weights are the starting point")
    s.add_argument("--source", required=True, help="tokenized tuning source text (put in the model's case here: "
                                                    "truecased by its truecase-model.SRC, else lowercased)")
    add_in(s, "--reference", required=True, help="tokenized reference translation of --source (put in the "
                                                  "model's case: truecase-model.TGT, else lowercased)")
    s.add_argument("--src", default="en", help="source language, naming truecase-model.SRC (default: %(default)s)")
    s.add_argument("--tgt", default="fr", help="target language, naming truecase-model.TGT (default: %(default)s)")
    s.add_argument("--nbest", type=int, default=100,
                   help="n-best list size per sentence and decoder run (default: %(default)s)")
    s.add_argument("--iterations", type=int, default=25,
                   help="maximum decoder runs (default: %(default)s, as mert-moses.pl)")
    s.add_argument("--search-algorithm", type=int, choices=(0, 1), default=1,
                   help="0 normal stack search, 1 cube pruning (default: %(default)s)")
    s.add_argument("--random-restarts", type=int, default=20,
                   help="random starting points per optimization (default: %(default)s)")
    s.add_argument("--random-directions", type=int, default=0,
                   help="random directions besides the axes (default: %(default)s)")
    s.add_argument("--no-historic-bests", action="store_true",
                   help="do not also start from earlier iterations' weights")
    s.add_argument("--seed", type=int, default=1,
                   help="random seed of the restarts and directions (default: %(default)s)")
    s.add_argument("--workers", type=int, default=1,
                   help="decoding processes (documents or sentences in parallel; same result whatever the number) "
                        "(default: %(default)s)")


def add_tune_parsers(sub, command: str | None = None) -> None:
    from cad.core.cliargs import add_input_argument as add_in

    p = sub.add_parser("tune", help="tune weights: MERT, or the CM weight by grid search")
    ts = p.add_subparsers(dest="tune_command", metavar="METHOD", required=True)
    s = ts.add_parser("mert", help="Och's MERT on BLEU with cad's decoder")
    _mert_arguments(s, add_in)
    s.add_argument("--out", required=True, help="the tuned moses.ini (a file: the report goes to stdout)")
    s.add_argument("--docs", help="document boundaries of the source (needed when the configuration has the "
                                  "CoreferenceModel feature, which is then tuned in document context)")
    s.add_argument("--coref", help="coreference records of the source documents (JSON lines, documents by index, "
                                   "as cad coref-eval --out writes); default: the shipped ranker")
    s.set_defaults(func=_mert)
    s = ts.add_parser("folds", help="MERT judged on held-out documents: each fold translated with the weights "
                                    "tuned on the others, against the starting weights (BLEU, paired bootstrap)")
    _mert_arguments(s, add_in)
    add_in(s, "--docs", required=True, help="document boundaries of the source: folds are whole documents")
    s.add_argument("--folds", type=int, default=2,
                   help="consecutive runs of documents, each held out once (default: %(default)s)")
    s.add_argument("--out", required=True, help="folder of the fold configurations, the pooled outputs and "
                                                "report.{json,md} (the report also goes to stdout); a fold an earlier run tuned "
                                                "with the same model, tuning set and options is kept")
    s.add_argument("--final", help="then MERT on every document into this moses.ini (the weights a model ships), "
                                   "starting from the last fold's weights")
    s.set_defaults(func=_folds)
    s = ts.add_parser("cm-weight", help="grid search of the CM weight: APT first, then BLEU")
    s.add_argument("--config", required=True, help="moses.ini with the CM (cad cm config)")
    add_in(s, "--source", required=True, help="tokenized tuning source text (put in the model's case here)")
    add_in(s, "--docs", help="document boundaries of --source (first_line<TAB>doc_id; default: one document)")
    add_in(s, "--reference", required=True, help="tokenized reference translation of --source")
    s.add_argument("--align-ref", required=True, help="source-reference word alignment (Moses i-j), for APT")
    s.add_argument("--grid", default="0.2,0.4,0.8,1.2,1.6",
                   help="comma-separated CM weights to try (default: %(default)s)")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {COREF_BACKEND})")
    s.set_defaults(func=_cm_weight)
