"""`cad cm experiment` (make pronoun-eval) and `cad cm experiment-source` (make es-en-eval); `cad
score` lives with `cad contrastive` in cad/cli/contrastive.py."""

from __future__ import annotations

import argparse
import sys

from cad.cli.lexicons import add_spanish_lexicons
from cad.cm.class_model import OBJECTIVES, OBJECTIVES_HELP, READINGS, READINGS_HELP
from cad.core.cliargs import add_input_argument as add_in, agreement_weights
from cad.defaults import (CM_AGREEMENT_WEIGHTS, CM_OBJECTIVE, CM_READING, CM_RERANK_NBEST, CM_TUNE,
                          COREF_BACKEND_SPANISH)

# Each command imports its implementation when it runs: `cad` then starts without loading
# spaCy, scikit-learn or a model it will not use.


def _experiment_source(a: argparse.Namespace) -> None:
    from cad.experiments.es_en import run_source_experiment
    from cad.core.errors import CadError
    from cad.eval.apt_settings import settings_for
    from cad.lang.pairs import pair
    from cad.core.textio import count_lines
    from coref.backends import get_backend

    def parse_grid(text: str, option: str) -> tuple[float, ...]:
        try:
            return tuple(float(x) for x in text.split(","))
        except ValueError:
            raise CadError(f"{option} {text!r}: expected comma-separated numbers") from None
    grid, feature_grid = parse_grid(a.grid, "--grid"), parse_grid(a.feature_grid, "--feature-grid")
    rerank_grid = parse_grid(a.rerank_grid, "--rerank-grid") if a.rerank_grid else ()
    if a.nbest < 1:
        raise CadError(f"--nbest must be at least 1, not {a.nbest}")
    if a.folds < 2:
        raise CadError("--folds must be at least 2")
    for option, value, least in (("--mert-iterations", a.mert_iterations, 0), ("--mert-nbest", a.mert_nbest, 1),
                                 ("--workers", a.workers, 1)):
        if value < least:
            raise CadError(f"{option} must be at least {least}, not {value}")
    lexicons = {"human_lexicon": a.human_lexicon, "gender_lexicon": a.gender_lexicon}
    corzu = get_backend("corzu", corzu=a.corzu, docs=a.docs, n_lines=count_lines(a.source), **lexicons)
    resolver = corzu if a.backend == "corzu" else get_backend(a.backend, **lexicons)
    # the pronouns scored are CorZu's whichever resolver feeds the CM, so that runs compare
    es_en = pair("es", "en")       # the experiment of seed 003, on News Commentary
    report = run_source_experiment(a.config, a.cm, a.source, a.reference, a.align_ref, a.docs, resolver,
                                   settings_for(es_en), es_en.source.unambiguous, a.out, grid, a.folds, a.classes, feature_grid,
                                   scored=corzu, rerank_grid=rerank_grid, nbest=a.nbest,
                                   mert_iterations=a.mert_iterations, mert_nbest=a.mert_nbest, workers=a.workers)
    print(f"report: {a.out}.md, {a.out}.json ({report['seconds']['total (this run)']:.0f} s)", file=sys.stderr)


def _experiment(a: argparse.Namespace) -> None:
    from cad.cm.config import other_words_beside
    from cad.experiments.pronoun_eval import parse_systems, run_experiment
    from cad.core.errors import CadError
    from cad.eval.report import to_markdown

    from cad.experiments.stages import parse_weight

    try:
        grid = tuple(parse_weight(x) for x in a.grid.split(","))
    except ValueError:
        raise CadError(f"--grid: {a.grid!r} is not a comma-separated list of weights (W, or W:G)") from None
    if len({isinstance(w, tuple) and len(w) for w in grid}) > 1 or any(isinstance(w, tuple) and len(w) != 2 for w in grid):
        raise CadError(f"--grid: {a.grid!r} mixes weights and pairs (every entry W, or every entry W:G)")
    systems = None if a.systems is None else parse_systems(a.systems)
    other = other_words_beside(a.classes, a.other_words, a.objective)
    agreement = agreement_weights(a.agreement_weights)
    if agreement is None:
        raise CadError(f"--agreement-weights {a.agreement_weights!r}: the agreement systems need two weights, A,D")
    report = run_experiment(a.config, a.classes, a.cm, a.source, a.reference, a.align_ref, a.docs, a.gold, a.out,
                            grid, a.workers, a.nbest, a.folds, systems=systems, objective=a.objective,
                            reading=a.reading, coref_records=a.coref, mert_iterations=a.mert_iterations, mert_nbest=a.mert_nbest,
                            mert_cm_weight=a.mert_cm_weight, classifier=a.classifier,
                            fold_configs=a.fold_configs.split(",") if a.fold_configs else None, tune_metric=a.tune_on,
                            other_words=other, agreement_weights=agreement)
    sys.stdout.write(to_markdown(report))


def add_experiment_parsers(cs) -> None:
    s = cs.add_parser("experiment", help="every pronoun system on dev talks, tuned and reported on folds by talk")
    s.add_argument("--config", required=True, help="the baseline moses.ini (filtered to --source saves memory)")
    s.add_argument("--classes", required=True, help="the class CM (tables/<name>/classes.gz)")
    s.add_argument("--cm", required=True, help="the back-off CM table (tables/<name>/cm.gz)")
    s.add_argument("--classifier", help="the classifier CM for 'CM-feature, classifier' (default: classifier.json "
                                        "beside --classes)")
    s.add_argument("--other-words", metavar="PATH|none",
                   help="with --objective likelihood, the OTHER-word table the CM-feature systems score a pronoun "
                        "translated by a non-pronoun word with, P(OTHER) x P(word | OTHER); none: P(OTHER) whole "
                        "(default: other-words.gz beside --classes, where it is there)")
    s.add_argument("--agreement-weights", metavar="A,D", default=",".join(f"{w:g}" for w in CM_AGREEMENT_WEIGHTS),
                   help="the PronounAgreement feature's weights in the agreement systems, for each agreeing predicate "
                        "and against each disagreeing one (default %(default)s, `cad cm config`'s)")
    s.add_argument("--source", required=True, help="tokenized source (lowercased here)")
    s.add_argument("--reference", required=True, help="tokenized reference translation")
    s.add_argument("--align-ref", required=True, help="source-reference word alignment")
    s.add_argument("--docs", required=True, help="document boundaries of --source")
    s.add_argument("--gold", help="gold coreference of the source (ParCorFull MMAX2 directory): adds the oracles")
    s.add_argument("--grid", default="0.1,0.3,1,3",
                   help="comma-separated CM weights tried on each tuning fold, or pairs W:G (the form's weight and "
                        "the gender's: a two-valued CoreferenceModel, ln P(form) and the gender's log-odds; CM-rerank "
                        "weighs the two alike) (default: %(default)s)")
    s.add_argument("--folds", type=int, default=2, help="folds by document (default 2)")
    s.add_argument("--nbest", type=int, default=CM_RERANK_NBEST,
                   help=f"distinct n-best size for CM-rerank (default {CM_RERANK_NBEST})")
    s.add_argument("--systems", help="comma-separated subset of: BL, PE, CM-backoff, 'CM-feature, no coreference', "
                                     "CM-feature, 'CM-feature, classifier', 'CM-feature, agreement', "
                                     "'CM-feature, classifier, agreement', CM-rerank, 'oracle: gold coref', "
                                     "'oracle: gold coref + ref. features', 'BL, MERT', 'CM-feature, MERT' "
                                     "(default: all; the MERT ones only with --mert-iterations)")
    s.add_argument("--mert-iterations", type=int, default=0,
                   help="add BL and CM-feature with all weights tuned by MERT (BLEU) on the tuning folds, the CM in "
                        "document context, each with at most this many decoder runs per fold (default 0: not run)")
    s.add_argument("--fold-configs", metavar="INI,INI",
                   help="comma-separated, one per fold: the moses.ini every system translates that fold with, its "
                        "decoder weights tuned without the fold (the fold<k>.ini of cad tune folds, same --folds); "
                        "default: --config for every fold")
    s.add_argument("--mert-nbest", type=int, default=100, help="n-best size of those MERT runs (default 100)")
    s.add_argument("--mert-cm-weight", type=float, default=3.0, help="the CM weight MERT starts from (default 3)")
    s.add_argument("--workers", type=int, default=2, help="decoding processes (default: %(default)s)")
    s.add_argument("--objective", choices=OBJECTIVES, default=CM_OBJECTIVE,
                   help="the class CM's score: " + OBJECTIVES_HELP)
    s.add_argument("--reading", choices=READINGS, default=CM_READING,
                   help="how the CM-feature systems, CM-rerank and the oracles read a pronoun's bundles: " + READINGS_HELP
                        + f" (default: {CM_READING})")
    s.add_argument("--tune-on", choices=("c1c2", "strict"), default=CM_TUNE,
                   help="what each CM weight is chosen by on the tuning folds: APT's C1+C2 accuracy (ce right for il "
                        "and ça) or strict class agreement (the candidate's pronoun class equal to the reference's); "
                        f"ties: BLEU, then the smaller weight (default: {CM_TUNE})")
    s.add_argument("--coref", help="the ranker's coreference records for --source (JSON Lines, e.g. cad coref-eval "
                                   "--cv-folds K --out): default, the shipped ranker, which trained on ParCorFull TED")
    s.add_argument("--out", required=True, help="report prefix: PREFIX.md, PREFIX.json, PREFIX.png, PREFIX.work/")
    s.set_defaults(func=_experiment)

    s = cs.add_parser("experiment-source", help="Spanish→English: BL against seed 003's back-off CM on a dev "
                                                "split with CorZu antecedents, tuned and reported on folds by document")
    s.add_argument("--config", required=True, help="the baseline es-en moses.ini")
    s.add_argument("--cm", required=True, help="the source-feature CM table (cad cm build --src es: tables/<name>/cm.gz)")
    add_in(s, "--source", required=True, help="tokenized, lowercased Spanish source")
    add_in(s, "--reference", required=True, help="tokenized, lowercased English reference")
    add_in(s, "--align-ref", required=True, help="source-reference word alignment (Moses i-j)")
    add_in(s, "--docs", required=True, help="document boundaries of the source (first_line<TAB>doc_id)")
    add_in(s, "--corzu", required=True, help="CorZu's pronoun records for the source (corzu.dev.jsonl)")
    add_spanish_lexicons(s, add_in)
    s.add_argument("--grid", default="0.3,0.8,2",
                   help="back-off CM table weights tried, comma-separated (default: %(default)s)")
    s.add_argument("--classes", help="the class table of cad cm build --src es (tables/<name>/classes.gz): adds "
                                     "CM-feature, the CoreferenceModel decoder feature over the whole phrase table")
    s.add_argument("--feature-grid", default="0.3,1,3",
                   help="CM-feature weights tried, comma-separated (default: %(default)s)")
    s.add_argument("--rerank-grid", default="0.3,1,3,10",
                   help="CM-rerank weights tried, comma-separated; empty: no CM-rerank (default: %(default)s)")
    s.add_argument("--nbest", type=int, default=CM_RERANK_NBEST,
                   help="CM-rerank: distinct translations per sentence in BL's n-best lists (default: %(default)s)")
    s.add_argument("--folds", type=int, default=2, help="folds by document (default: %(default)s)")
    s.add_argument("--mert-iterations", type=int, default=0,
                   help="MERT the base weights on each fold's tuning documents, at most N decoder runs, and "
                        "translate the fold with them, every system alike; 0: the base moses.ini's weights "
                        "(default: %(default)s)")
    s.add_argument("--mert-nbest", type=int, default=100,
                   help="n-best list size of the MERT runs (default: %(default)s)")
    s.add_argument("--workers", type=int, default=1,
                   help="decoding processes of the MERT runs (same result whatever the number) (default: %(default)s)")
    s.add_argument("--backend", choices=("corzu", "spanish"), default=COREF_BACKEND_SPANISH,
                   help="the antecedents the CM reads: CorZu's records, or the native resolver's (use the same "
                        "as cad cm build); the pronouns scored are CorZu's either way (default: %(default)s)")
    s.add_argument("--out", required=True, help="report prefix: OUT.json, OUT.md, OUT.<system>.txt, OUT.work/")
    s.set_defaults(func=_experiment_source)
