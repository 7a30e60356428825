"""`cad tune mert` and `cad tune cm-weight`."""

from __future__ import annotations

import argparse


def _mert(a: argparse.Namespace) -> None:
    from cad.tune.run import mert

    w, b = mert(a.config, a.source, a.reference, a.out, a.nbest, a.iterations)
    print(f"BLEU on the n-best pool {100 * b:.2f}; tuned weights in {a.out}")


def _cm_weight(a: argparse.Namespace) -> None:
    from cad.tune.run import cm_weight_grid

    res = cm_weight_grid(a.config, a.source, a.docs, a.reference, a.align_ref,
                         [float(x) for x in a.grid.split(",")], a.backend)
    print("weight\tAPT\tBLEU")
    for w, apt, b in res:
        print(f"{w:g}\t{apt:.4f}\t{b:.2f}")
    best = max(res, key=lambda r: (round(r[1], 6), r[2]))
    print(f"best CM weight: {best[0]:g}")


def add_tune_parsers(sub) -> None:
    p = sub.add_parser("tune", help="tune weights: MERT, or the CM weight by grid search")
    ts = p.add_subparsers(dest="tune_command", metavar="METHOD", required=True)
    s = ts.add_parser("mert", help="Och's MERT on BLEU with cad's decoder")
    s.add_argument("--config", required=True)
    s.add_argument("--source", required=True)
    s.add_argument("--reference", required=True)
    s.add_argument("--out", required=True, help="the tuned moses.ini")
    s.add_argument("--nbest", type=int, default=100)
    s.add_argument("--iterations", type=int, default=5)
    s.set_defaults(func=_mert)
    s = ts.add_parser("cm-weight", help="grid search of the CM weight: APT first, then BLEU")
    s.add_argument("--config", required=True, help="moses.ini with the CM (cad cm config)")
    s.add_argument("--source", required=True)
    s.add_argument("--docs")
    s.add_argument("--reference", required=True)
    s.add_argument("--align-ref", required=True)
    s.add_argument("--grid", default="0.2,0.4,0.8,1.2,1.6")
    s.add_argument("--backend", default="sieve")
    s.set_defaults(func=_cm_weight)
