"""`cad cm build|show|config` (the Coreference Model), and the command tree of `cm`, whose other
commands live in cad/cli/translate.py (`rerank`) and experiments.py."""

from __future__ import annotations

import argparse
import os
import sys

from cad.cli.experiments import add_experiment_parsers
from cad.cli.lexicons import add_spanish_lexicons
from cad.cli.translate import add_pair_arguments, add_rerank_parser, pair_of
from cad.cm.governors import MIN_SUBJECTS as MIN_GOVERNOR_SUBJECTS, SHARE as GOVERNOR_SHARE
from cad.cm.class_model import OBJECTIVES, OBJECTIVES_HELP, READINGS, READINGS_HELP
from cad.cm.models import CM_MODELS
from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out, agreement_weights
from cad.core.errors import CadError
from cad.defaults import (CM_AGREEMENT_WEIGHTS, CM_BACKOFF_WEIGHT, CM_CLASS_TABLE, CM_FEATURE_WEIGHT, CM_MODEL,
                          CM_OBJECTIVE, CM_READING, COREF_BACKEND)
from coref.backends import BACKENDS

# Each command imports its implementation when it runs: `cad` then starts without loading
# spaCy, scikit-learn or a model it will not use.


def _source_resolver(a: argparse.Namespace):
    """Where the pair's source states the antecedents' features (Spanish→English, seed 003): the
    backend that reads them (CorZu's records, or the native Spanish resolver) over the corpus."""
    from pathlib import Path

    from cad.core.textio import count_lines
    from coref.backends import get_backend

    if a.backend not in ("corzu", "spanish") or (a.backend == "corzu" and not a.corzu):
        raise CadError(f"--src {a.src}: the CM reads the source antecedents' features: --backend corzu --corzu "
                       "RECORDS, or --backend spanish (the native resolver)")
    docs = a.docs or (f"{a.corpus}.docs" if Path(f"{a.corpus}.docs").exists() else None)
    if docs is None:
        raise CadError(f"--backend {a.backend} needs the corpus's documents (--docs or {a.corpus}.docs)")
    lines = f"{a.corpus}.lines" if Path(f"{a.corpus}.lines").exists() else None
    return get_backend(a.backend, corzu=a.corzu, docs=docs, n_lines=count_lines(f"{a.corpus}.{a.src}"),
                       lines=lines, human_lexicon=a.human_lexicon, gender_lexicon=a.gender_lexicon), docs


def _domain_weights(a: argparse.Namespace) -> dict[str, float]:
    weights = {}
    for spec in a.domain_weight:
        prefix, sep, w = spec.partition("=")
        try:
            weights[prefix] = float(w)
        except ValueError:
            raise CadError(f"--domain-weight {spec!r}: expected PREFIX=W with a number W") from None
        if not sep or not prefix or not weights[prefix] >= 0:
            raise CadError(f"--domain-weight {spec!r}: expected PREFIX=W with W >= 0")
    return weights


def _build(a: argparse.Namespace) -> None:
    """One build for every pair: the pair (--src, --tgt) decides where the antecedents' features
    come from (cad/cm/build.py)."""
    from cad.cm.build import build_cm
    from cad.core.shards import parallel_from_args

    if a.em_iterations < 0:
        raise CadError(f"--em-iterations must be >= 0, not {a.em_iterations}")
    if pair_of(a).source_features:
        resolver, docs = _source_resolver(a)
        st = build_cm(a.corpus, a.align, a.out, a.src, a.tgt, docs, em_iterations=a.em_iterations, resolver=resolver)
        print(f"{st.entries} entries from {st.triples} triples ({st.with_candidates} of {st.pronouns} pronouns "
              f"with antecedents, {st.unaligned} unaligned) -> {a.out}/cm.gz", file=sys.stderr)
        return
    st = build_cm(a.corpus, a.align, a.out, a.src, a.tgt, a.docs, a.coref, a.backend, a.humanness, a.single_best,
                  a.smoothing, a.em_iterations, _domain_weights(a), classifier=not a.no_classifier,
                  factor=a.class_table == "factored",
                  parallel=parallel_from_args(a))
    print(f"{st.entries} entries from {st.triples} triples ({st.with_candidates} of {st.pronouns} pronouns "
          f"with antecedents) -> {a.out}/cm.gz", file=sys.stderr)


def _show(a: argparse.Namespace) -> None:
    from cad.cm.backoff_table import show

    sys.stdout.write(show(a.table, a.top))


_DEFAULT_AGREEMENT = ",".join(f"{w:g}" for w in CM_AGREEMENT_WEIGHTS)


def _governors(a: argparse.Namespace) -> None:
    import logging

    from cad.cm.governors import SituationGovernors, count_governors

    if not a.min_subjects >= 1:
        raise CadError("--min-subjects must be at least 1")
    if not 0 < a.share <= 1:
        raise CadError("--share must be in (0, 1]")
    pair = pair_of(a)
    src, tgt = pair.src, pair.tgt
    if src != "en":
        raise CadError(f"--src {src}: the governors are read from the English parse (coref/english); give --src en")
    docs = a.docs or (f"{a.corpus}.docs" if os.path.exists(f"{a.corpus}.docs") else None)
    counts = count_governors(f"{a.corpus}.{src}", f"{a.corpus}.{tgt}", a.align, pair, docs, _domain_weights(a))
    table = SituationGovernors(counts, a.min_subjects, a.share)
    table.write(a.out, a.source or a.corpus)
    logging.getLogger("cad").info("%d verbs counted, %d situation governors: %s", len(table.counts),
                                  len(table.verbs), " ".join(sorted(table.verbs)))


def cm_weights(text: str) -> float | tuple[float, float]:
    """--weight "W" or "W,G" (the form's weight and the gender's: a two-valued CoreferenceModel)."""
    try:
        got = tuple(float(x) for x in text.split(","))
    except ValueError:
        got = ()
    if len(got) not in (1, 2):
        raise argparse.ArgumentTypeError(f"{text!r}: a weight W, or two W,G")
    return got[0] if len(got) == 1 else got


def shown_weights(weight: float | tuple[float, ...]) -> str:
    return f"{weight:g}" if isinstance(weight, (int, float)) else ",".join(f"{w:g}" for w in weight)


def _config(a: argparse.Namespace) -> None:
    from cad.cm.config import model_pair, other_words_beside, write_cm_config, write_feature_config
    from cad.core.errors import CadError
    from cad.core.textio import is_stdio
    from cad.lang.pairs import default_pair, pair as language_pair

    if a.mode == "feature":
        # a model without APT's credit matrix (Spanish→English's source-feature table) scores ln P(class)
        objective = a.objective if CM_MODELS.get(a.cm_model).credits else "likelihood"
        # the pair cad cm build recorded beside the model (none: the default pair's tables)
        pair = model_pair(a.cm)
        implicit = CM_MODELS.get(a.cm_model).implicit_pair
        target = (pair or (language_pair(*implicit) if implicit else default_pair())).target
        agreement = agreement_weights(a.agreement_weights)
        if agreement is not None and not target.predicate_agreement:
            # the default asks for the agreement where the target has one; weights given otherwise are an error
            if a.agreement_weights != _DEFAULT_AGREEMENT:
                raise CadError(f"--agreement-weights: {target.name}, the target of {a.cm}, has no predicate "
                               "agreement (0: no agreement feature)")
            agreement = None
        weight = CM_FEATURE_WEIGHT if a.weight is None else a.weight
        if not isinstance(weight, (int, float)) and objective != "likelihood":
            raise CadError(f"--weight W,G splits ln P(class): --objective likelihood, not {objective}")
        other = other_words_beside(a.cm, a.other_words, objective, a.cm_model != "source-table")
        write_feature_config(a.base, a.cm, a.out, weight, objective,
                             a.cm_model, a.reading, pair, agreement, other)
    elif a.other_words not in (None, "none"):
        raise CadError("--other-words is the CoreferenceModel feature's (--mode feature)")
    elif a.cm_model != CM_MODEL:
        raise CadError(f"--cm-model {a.cm_model} needs --mode feature (the back-off table is a phrase table)")
    elif isinstance(a.weight, tuple):
        raise CadError("--weight W,G: two weights are the CoreferenceModel feature's (--mode feature)")
    else:
        write_cm_config(a.base, a.cm, a.out, CM_BACKOFF_WEIGHT if a.weight is None else a.weight)
    if not is_stdio(a.out):
        print(a.out)


def add_cm_parsers(sub, command: str | None = None) -> None:
    p = sub.add_parser("cm", help="the Coreference Model: build, show, configure")
    cs = p.add_subparsers(dest="cm_command", metavar="ACTION", required=True)
    s = cs.add_parser("build", help="build tables/<name>/cm.gz from a word-aligned corpus with documents")
    s.add_argument("--corpus", required=True, help="prefix: PREFIX.<src>, PREFIX.<tgt>, PREFIX.docs")
    add_in(s, "--align", required=True, help="source-target alignment (Moses i-j)")
    s.add_argument("--docs", help="document boundaries of the corpus (default: PREFIX.docs if it exists)")
    add_pair_arguments(s, "target language, the corpus suffix; with --src the language pair (cad/lang/pairs.py)")
    add_in(s, "--coref", help="pronoun records (cad coref output); default: run --backend")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {COREF_BACKEND})")
    add_in(s, "--corzu", help="--src es --backend corzu: CorZu's pronoun records of the corpus (corzu.*.jsonl[.gz]); "
                              "PREFIX.lines, where cad prepare wrote it, maps them onto the kept lines")
    add_spanish_lexicons(s, add_in)
    s.add_argument("--humanness", action="store_true", help="add source-side humanness to the bundles (seed 003)")
    s.add_argument("--single-best", action="store_true", help="only the best antecedent, score 1 (seed 004)")
    s.add_argument("--smoothing", choices=("none", "witten-bell"), default="none",
                   help="none: relative frequencies (seed 004); witten-bell: interpolate with coarser bundles "
                        "(it-fem-sing -> it-sing -> it) and write every gender/number combination "
                        "(default: none)")
    s.add_argument("--domain-weight", action="append", default=[], metavar="PREFIX=W",
                   help="class table: pronouns of documents whose id starts with PREFIX: count W times "
                        "(repeatable; e.g. sated=3 for the TED part of the shared corpus; default: all 1)")
    s.add_argument("--em-iterations", type=int, default=5,
                   help="classes.gz: EM iterations over each pronoun's latent antecedent bundle (default 5; "
                        "0: seed 003's expected counts under the coreference's weights)")
    s.add_argument("--class-table", choices=("joint", "factored"), default=CM_CLASS_TABLE,
                   help="classes.gz: joint (each class on the whole bundle, backing off along one chain) or factored "
                        "(for a bundle that names the antecedent's gender: P(form | bundle), personal pronoun, ce, ça, "
                        "clitic..., times P(the class within the target's gender family, French il/elle/ils/elles or "
                        "le/la | the bundle without its role), learned from every construction together; a target "
                        f"without such families gets the joint table; default: {CM_CLASS_TABLE})")
    s.add_argument("--no-classifier", action="store_true",
                   help="skip the classifier CM (classifier.json: P(class | source words, antecedent features), "
                        "a logistic regression over the same instances; default: trained, about a minute)")
    s.add_argument("--out", required=True, help="output directory, e.g. tables/baseline")
    from cad.cm.collect import DEFAULT_SHARD_LINES
    from cad.core.shards import add_parallel_arguments

    add_parallel_arguments(s, DEFAULT_SHARD_LINES, " (they collect the triples and class instances; the tables "
                           "are estimated in this process; --src es builds in this process)")
    s.set_defaults(func=_build)
    s = cs.add_parser("governors", help="count the verbs whose subject it the corpus translates as a situation "
                                        "(French ça): the CM's role subs (cad/cm/governors.py)")
    s.add_argument("--corpus", required=True, help="prefix: PREFIX.<src>, PREFIX.<tgt>")
    add_in(s, "--align", required=True, help="source-target alignment (Moses i-j)")
    add_pair_arguments(s, "target language, the corpus suffix; with --src the language pair (cad/lang/pairs.py)")
    s.add_argument("--docs", help="document boundaries of the corpus, for --domain-weight (default: PREFIX.docs if it "
                                  "exists)")
    s.add_argument("--domain-weight", action="append", default=[], metavar="PREFIX=W",
                   help="count the subjects of documents whose id starts with PREFIX: W times, as cad cm build "
                        "weighs the class table's instances (repeatable; default: all 1)")
    s.add_argument("--min-subjects", type=float, default=MIN_GOVERNOR_SUBJECTS,
                   help="a verb needs at least this many subject it to be a situation governor (default: %(default)s)")
    s.add_argument("--share", type=float, default=GOVERNOR_SHARE,
                   help="... and this smoothed share of them, (situations + 1) / (subjects + 2), translated as a "
                        "situation (default: %(default)s)")
    s.add_argument("--source", help="what the header names as the counts' source (default: --corpus)")
    add_out(s, "--out", required=True, help="the table (cad/data/situation-governors-en-fr.tsv is the shipped one)")
    s.set_defaults(func=_governors)
    s = cs.add_parser("show", help="most likely translations per feature bundle")
    add_in(s, "table", help="a CM table: back-off (cm.gz) or class table (classes.gz)")
    s.add_argument("--top", type=int, default=5, help="translations shown per bundle (default: %(default)s)")
    s.set_defaults(func=_show)
    s = cs.add_parser("config", help="moses.ini with the CM: back-off table or decoder feature")
    s.add_argument("--base", required=True, help="the baseline moses.ini")
    s.add_argument("--cm", required=True,
                   help="backoff: the CM table (tables/<name>/cm.gz); feature: the class table (classes.gz), or "
                        "with --cm-model classifier the classifier CM (classifier.json)")
    s.add_argument("--cm-model", choices=CM_MODELS, default=CM_MODEL,
                   help="feature: the pronoun model the CoreferenceModel reads: table, the class table; classifier, "
                        "the classifier CM (source words and antecedent features); or source-table, the "
                        "Spanish→English class table of cad cm build --src es (bundles of the source antecedent's features) "
                        f"(default: {CM_MODEL})")
    s.add_argument("--mode", choices=("backoff", "feature"), default="backoff",
                   help="backoff: seed 004's second table for feature tokens; feature: a CoreferenceModel "
                        "feature scoring every option that translates it/they (default: backoff)")
    s.add_argument("--weight", type=cm_weights, metavar="W[,G]",
                   help=f"the CM's weight (default {CM_BACKOFF_WEIGHT:g} backoff, {shown_weights(CM_FEATURE_WEIGHT)} "
                        "feature); feature: two weights W,G score ln P(form) and the gender apart, the "
                        "pronoun's form (a personal pronoun, ce, ça, nothing, ...) and which personal pronoun or "
                        "gendered clitic (num-features=2)")
    s.add_argument("--objective", choices=OBJECTIVES, default=CM_OBJECTIVE,
                   help="feature: " + OBJECTIVES_HELP)
    s.add_argument("--reading", choices=READINGS, default=CM_READING,
                   help="feature: how the CM reads a pronoun's bundles: " + READINGS_HELP + f" (default: {CM_READING})")
    s.add_argument("--agreement-weights", default=_DEFAULT_AGREEMENT, metavar="A,D",
                   help="feature: the weights of a PronounAgreement feature beside the CM (adjectives and participles "
                        "after être agree with the subject pronoun the decoder writes, through inflected copies of "
                        "their phrases from the French lexicon; cad/decoder/agreement.py): A for each predicate that "
                        "agrees, D against each that does not; 0: none (default: %(default)s where the target "
                        "language has a predicate agreement, as French has; else none)")
    s.add_argument("--other-words", metavar="PATH|none",
                   help="feature, --objective likelihood: the OTHER-word table (other-words.gz) by which the feature "
                        "scores a pronoun translated by a non-pronoun word as P(OTHER) x P(word | OTHER) instead of "
                        "P(OTHER) whole; none: P(OTHER) whole (default: the other-words.gz that cad cm build wrote "
                        "beside --cm, where it is there)")
    add_out(s, "--out", required=True, help="the new moses.ini")
    s.set_defaults(func=_config)

    add_rerank_parser(cs)
    add_experiment_parsers(cs)
