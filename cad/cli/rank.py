"""`cad eval rank cv|train|score`: seed 002's tree-kernel ranking metric."""

from __future__ import annotations

import argparse
import sys

from cad.core.errors import CadError
from cad.core.textio import atomic_output

# The handlers import cad.eval.rank when they run, so that `cad` starts without numpy and spaCy.

DATA_HELP = "a wmt-ranking folder: judgments.<lp>.tsv.gz, outputs.<lp>.tsv.gz, ref.<lp>.txt (e.g. ../shared/data/wmt-ranking/wmt13)"


def _spec(a: argparse.Namespace):
    from cad.eval.rank.metric import KernelSpec

    for name, v in (("--lambda", a.lam), ("--mu", a.mu)):
        if not 0 < v <= 1:
            raise CadError(f"{name} {v}: a decay in (0, 1] expected")
    return KernelSpec(a.kernel, a.lam, a.mu)


def _pairs(a: argparse.Namespace) -> list[str] | None:
    return [p for p in a.pairs.split(",") if p] if a.pairs else None


def _check(a: argparse.Namespace) -> None:
    if a.landmarks < 2:
        raise CadError(f"--landmarks must be at least 2, not {a.landmarks}")
    if a.C <= 0:
        raise CadError(f"--C must be positive, not {a.C}")


def _cv(a: argparse.Namespace) -> None:
    from cad.eval.rank.experiment import run_cv

    _check(a)
    if a.folds < 2:
        raise CadError(f"--folds must be at least 2, not {a.folds}")
    report = run_cv(a.data, a.out, _pairs(a), a.folds, a.landmarks, _spec(a), a.C, a.seed, a.cache)
    print(f"report: {a.out}.md, {a.out}.json ({report['seconds']['total']:.0f} s)", file=sys.stderr)


def _train(a: argparse.Namespace) -> None:
    from cad.eval.rank.experiment import train_metric

    _check(a)
    model = train_metric(a.data, a.out, _pairs(a), a.landmarks, _spec(a), a.C, a.seed, a.cache, a.features,
                         a.structure)
    print(f"{model.signature()} -> {a.out}", file=sys.stderr)


def _score(a: argparse.Namespace) -> None:
    from cad.eval.rank.experiment import score_lines

    scores, signature = score_lines(a.model, a.hypothesis, a.reference)
    with atomic_output(a.out) as fh:
        fh.writelines(f"{s:.6f}\n" for s in scores)
    print(signature, file=sys.stderr)


def _add_common(s, add_in) -> None:
    s.add_argument("--data", required=True, help=DATA_HELP)
    s.add_argument("--pairs", help="comma-separated language pairs (default: every pair in --data)")
    s.add_argument("--landmarks", type=int, default=300,
                   help="Nyström landmark translations: the rank of the kernel approximation (default: %(default)s)")
    s.add_argument("--kernel", choices=("ptk", "stk"), default="ptk",
                   help="partial tree kernel or subset tree kernel (Moschitti 2006) (default: %(default)s)")
    s.add_argument("--lambda", dest="lam", type=float, default=0.4, help="the kernels' decay λ (default: %(default)s)")
    s.add_argument("--mu", type=float, default=0.4, help="the PTK's vertical decay μ (default: %(default)s)")
    s.add_argument("--C", type=float, default=1.0,
                   help="inverse regularization of the pairwise logistic regression (default: %(default)s)")
    s.add_argument("--seed", type=int, default=1, help="landmark sampling and fold seed (default: %(default)s)")
    s.add_argument("--cache", help="parsed trees of the texts, kept between runs (gzipped TSV; created if missing)")


def add_rank_parser(es, add_in, add_out) -> None:
    p = es.add_parser("rank", help="seed 002: learn a tree-kernel metric from pairwise human rankings, "
                                   "cross-validate it, score translations with it")
    rs = p.add_subparsers(dest="rank_command", metavar="ACTION", required=True)
    s = rs.add_parser("cv", help="Kendall's tau of sentence-BLEU, chrF and the tree-kernel metrics by "
                                 "cross-validation with folds by segment")
    _add_common(s, add_in)
    s.add_argument("--folds", type=int, default=5, help="folds by segment (default: %(default)s)")
    s.add_argument("--out", required=True, help="report prefix: OUT.md, OUT.json")
    s.set_defaults(func=_cv)
    s = rs.add_parser("train", help="train the metric on every judgment of --data and save it")
    _add_common(s, add_in)
    s.add_argument("--features", choices=("syn", "syn+metrics"), default="syn+metrics",
                   help="tree-kernel features alone, or with sentence-BLEU and chrF (default: %(default)s)")
    s.add_argument("--structure", choices=("SYN", "SYN+CLS"), default="SYN",
                   help="the trees: chunks, POS and words (seed 002's SYN), or with the clause layer above "
                        "(default: %(default)s)")
    s.add_argument("--out", required=True, help="the model (JSON)")
    s.set_defaults(func=_train)
    s = rs.add_parser("score", help="score translations against references with a trained model: one score "
                                    "per line, higher is better")
    s.add_argument("--model", required=True, help="a model of cad eval rank train")
    add_in(s, "--hypothesis", default="-", help="one translation per line (default: stdin)")
    add_in(s, "--reference", required=True, help="the reference of each line")
    add_out(s, "--out", default="-", help="the scores, one per line (default: stdout)")
    s.set_defaults(func=_score)
