"""`cad translate` (coreference-aware document translation and the BL/PE baselines), `cad
postedit` (seed 004's PE baseline on a given translation) and `cad cm rerank` (the CM over any
decoder's n-best list)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import time

from cad.cli.coref_model import add_coref_model_argument, coref_model
from cad.cli.lexicons import add_spanish_lexicons
from cad.cm.class_model import OBJECTIVES, OBJECTIVES_HELP, READINGS, READINGS_HELP
from cad.cm.models import CM_MODELS
from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out
from cad.core.segments import LONG_LINES
from cad.translate.systems import CM, CM_MODE_CHOICES, SYSTEM_CHOICES
from cad.defaults import (CM_MODEL, CM_OBJECTIVE, CM_READING, CM_RERANK_NBEST, CM_RERANK_WEIGHT,
                          CM_TABLE_RERANK_WEIGHT, COREF_BACKEND)
from cad.defaults import SOURCE_LANGUAGE, TARGET_LANGUAGE
from cad.core.registry import Names
from cad.lang.pairs import LANGUAGES, Pair, pair as language_pair
from coref.backends import BACKENDS

# the languages a command's --src and --tgt may name (the pair itself is checked when it runs)
LANGUAGE_CHOICES = Names(lambda: LANGUAGES)


def pair_of(a: argparse.Namespace) -> Pair:
    """The language pair of a command's --src and --tgt."""
    return language_pair(a.src, a.tgt)


def add_pair_arguments(s, tgt_help: str = "target language") -> None:
    """--src and --tgt, the language pair (cad/lang/pairs.py)."""
    s.add_argument("--src", default=SOURCE_LANGUAGE, choices=LANGUAGE_CHOICES,
                   help="source language (default: %(default)s)")
    s.add_argument("--tgt", default=TARGET_LANGUAGE, choices=LANGUAGE_CHOICES,
                   help=f"{tgt_help} (default: %(default)s)")
# Each command imports its implementation when it runs: `cad` then starts without loading
# spaCy, scikit-learn or a model it will not use.


def _translate(a: argparse.Namespace) -> None:
    from cad.cm.config import CM_NAME
    from cad.core.errors import CadError
    from cad.moses.ini import parse_config

    if a.read_ahead < 0:
        raise CadError(f"--read-ahead {a.read_ahead}: give 0 or more documents")
    coref_model(a)          # refused at once where no resolver would read it (the baseline without --trace)
    if a.no_lowercase and a.truecase_model not in ("auto", "none"):
        raise CadError(f"--no-lowercase gives the decoder the input as it is: it cannot be truecased with "
                       f"--truecase-model {a.truecase_model} too")
    cfg = parse_config(a.config)
    source_features = pair_of(a).source_features
    mode = _cm_mode(a, any(f.type == "CoreferenceModel" for f in cfg.features),
                    any(f.name == CM_NAME for f in cfg.features), source_features)
    inputs, docs, truecase_model = _read_documents(a, cfg)
    t = time.time()
    with _writer(a, truecase_model) as writer:
        _translate_documents(a, mode, source_features, inputs, docs, writer)
    n = writer.sentences
    print(f"translated {n} sentence{'' if n == 1 else 's'} in {time.time() - t:.1f} s", file=sys.stderr)


def _cm_mode(a: argparse.Namespace, has_feature: bool, has_backoff: bool, source_features: bool) -> str:
    """--cm-mode as the configuration decides it for `auto`, checked against what it holds."""
    from cad.cm.config import CM_NAME
    from cad.core.errors import CadError

    mode = a.cm_mode
    if a.system == CM:
        if mode == "auto":
            mode = "feature" if has_feature else "rerank" if a.classes else "backoff"
        if mode == "feature" and not has_feature:
            raise CadError(f"--cm-mode feature: {a.config} has no CoreferenceModel feature "
                           "(cad cm config --mode feature)")
        if mode == "backoff" and not has_backoff:
            raise CadError(f"--cm-mode backoff: {a.config} has no back-off CM table {CM_NAME} (cad cm config)")
        if mode == "rerank" and not a.classes:
            raise CadError("--cm-mode rerank needs --classes (tables/<name>/classes.gz)")
    if has_feature and a.decoder == "moses":
        raise CadError(f"{a.config} has a CoreferenceModel feature, which only cad's decoder has: "
                       "use --decoder cad, or --cm-mode rerank with the baseline moses.ini")
    if source_features and a.system == "pe":
        raise CadError(f"--system pe post-edits the target's subject pronouns by the antecedent's translation; "
                       f"--src {a.src} states the antecedent's features itself and has no post-editing rules")
    return mode


def _read_documents(a: argparse.Namespace, cfg):
    """(the input documents with their lines and segments; each document's segments as the decoder
    reads them, in its model's case; the truecasing model used, or None). Coreference reads the
    segments as written."""
    from cad.core.errors import CadError
    from cad.corpus.prepare import Tokenizer, clean_tokens
    from cad.corpus.truecase import Truecaser
    from cad.translate.decoders import model_truecaser
    from cad.translate.stream import read_input

    tokenize = None
    if a.raw:
        tok = Tokenizer(a.src)
        tokenize = lambda line: clean_tokens(tok(line))        # noqa: E731
    inputs = read_input(a.input, a.docs, tokenize, a.max_sentence_length, a.long_sentences)
    if a.backend == "corzu" and any(len(d.segments) != len(d.lines) for d in inputs):
        raise CadError("--backend corzu reads CorZu's records by line: give an input without blank lines or lines "
                       "over --max-sentence-length")
    truecase_model = None if a.no_lowercase else model_truecaser(a.truecase_model, cfg, a.src)
    truecase = Truecaser(truecase_model).truecase if truecase_model is not None else \
        None if a.no_lowercase else (lambda s: [t.lower() for t in s])
    docs = [(d.key, [truecase(s) for s in d.segments] if truecase else d.segments) for d in inputs]
    return inputs, docs, truecase_model


def _writer(a: argparse.Namespace, truecase_model: str | None):
    from cad.corpus.truecase import detruecase
    from cad.translate.stream import TranslationWriter

    finish = None
    if a.raw or a.detokenize:
        from sacremoses import MosesDetokenizer

        md = MosesDetokenizer(lang=a.tgt)
        finish = (lambda w: md.detokenize(detruecase(w))) if truecase_model is not None else md.detokenize
    return TranslationWriter(a.out, a.alignment_out, a.trace, finish, tokens_out=a.tokens_out)


def _stop(pool):
    """A worker pool's exit: on Ctrl-C its processes are stopped at once (they ignore the signal
    themselves and would finish their document first), otherwise it is shut down."""
    def exit_(exc_type, exc, tb) -> None:
        if exc_type is KeyboardInterrupt:
            _quiet_broken_pool()
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=exc_type is None, cancel_futures=True)

    return exit_


def _quiet_broken_pool() -> None:
    """Python 3.11's pool manager thread, seeing the stopped worker, sets an exception on futures
    that shutdown has just cancelled and prints InvalidStateError's traceback (a race inside
    concurrent.futures, seen under load): nothing is lost, the user asked to stop, so that one
    error is not printed."""
    import threading
    from concurrent.futures import InvalidStateError

    previous = threading.excepthook

    def hook(args) -> None:
        if not isinstance(args.exc_value, InvalidStateError):
            previous(args)

    threading.excepthook = hook


def _translate_documents(a: argparse.Namespace, mode: str, source_features: bool, inputs, docs, writer) -> None:
    """Translate every document and write each as soon as it is done, with spaCy's work in worker
    processes forked before the decoder's model is loaded (see cad/translate/analysis.py):
    coreference and roles run ahead, the translations are tagged there."""
    from cad.translate.analysis import analyse_with, onto_tokens, read_ahead, resolver_of, worker_pool
    from cad.translate.decoders import load_decoder
    from cad.translate.morphology import TranslationMorphology
    from cad.translate.systems import SYSTEMS, system_name
    from cad.translate.translator import DocumentTranslator
    from coref.backends import get_backend

    sentences = [" ".join(s) for _, sents in docs for s in sents]
    pair = pair_of(a)
    system = SYSTEMS.get(system_name(a.system, mode))
    make_resolver = functools.partial(get_backend, a.backend, model=coref_model(a), corzu=a.corzu, docs=a.docs,
                                      n_lines=sum(len(d.lines) for d in inputs), human_lexicon=a.human_lexicon,
                                      gender_lexicon=a.gender_lexicon) \
        if system.reads_coreference or a.trace else None      # the baseline's trace reads coreference too
    # the pronouns' roles and the translations' tagging in the target, beside the decoder
    feature_mode = system.reads_roles and not source_features
    cased = [(d.key, d.segments) for d in inputs if d.segments]
    with contextlib.ExitStack() as workers:
        analysis_pool = tag_pool = None
        if make_resolver is not None and a.read_ahead > 0:
            analysis_pool = worker_pool()
            workers.push(_stop(analysis_pool))
            if feature_mode:
                from cad.translate.morphology import load_tagger

                tag_pool = worker_pool()
                workers.push(_stop(tag_pool))
                tag_pool.submit(load_tagger, pair.name)        # loaded while the decoder's model loads
        elif make_resolver is not None:
            resolver_of(make_resolver)      # its errors (a missing file) before the model's long load
        analysed = read_ahead(cased, functools.partial(analyse_with, make_resolver, with_roles=feature_mode,
                                                       pair_name=pair.name),
                              a.read_ahead, analysis_pool)
        decoder = load_decoder(a.config, sentences, a.decoder, a.moses_bin, a.search_algorithm, a.engine, pair)
        if hasattr(decoder, "close"):
            workers.callback(decoder.close)
        translator = DocumentTranslator(decoder, a.system, mode,
                                        with_human=a.humanness, reranker=_reranker(a, mode),
                                        nbest=a.nbest, trace=bool(a.trace),
                                        morphology=TranslationMorphology(tag_pool, pair), pair=pair)
        non_empty = [(key, sents) for key, sents in docs if sents]
        analyses = ((onto_tokens(an.records, sents, doc_id), an.roles)
                    for (doc_id, _, an), (_, sents) in zip(analysed, non_empty))
        results = translator.translate_corpus(non_empty, analyses)
        for doc in inputs:
            result = next(results) if doc.segments else None
            writer.write(doc, result.outputs if result else [], result.alignments if result else [],
                         result.traces if result else [])


def _reranker(a: argparse.Namespace, mode: str):
    """--cm-mode rerank's reranker: the class CM's, or the source-feature table's where the pair's
    source states the antecedents' features."""
    if a.system != "cm" or mode != "rerank":
        return None
    from cad.cm.config import other_words_beside
    from cad.cm.models import load_pronoun_model
    from cad.cm.other_words import OtherWords
    from cad.translate.rerank import ClassReranker, SourceReranker

    pair = pair_of(a)
    # the source-feature table has no target words to share P(OTHER) out by: a table named for it is an error
    other = other_words_beside(a.classes, a.other_words, a.objective, reads_words=not pair.source_features)
    if pair.source_features:
        return SourceReranker(load_pronoun_model(a.classes, "source-table", pair), a.cm_weight)
    return ClassReranker(load_pronoun_model(a.classes, a.cm_model, pair), a.cm_weight, a.humanness, objective=a.objective,
                         reading=a.reading, pair=pair, other=OtherWords.read(other) if other else None)


def _postedit(a: argparse.Namespace) -> None:
    from cad.core.alignment import parse_alignment
    from cad.translate.postedit import postedit_document
    from cad.decoder.search import Derivation, Translation
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output, read_lines
    from coref.backends import documents, get_backend

    model = coref_model(a)
    docs = documents(a.source, a.docs)
    hyp = [l.split() for l in read_lines(a.translation)]
    al = list(read_lines(a.alignment))
    n = sum(len(s) for _, s in docs)
    for path, count in ((a.translation, len(hyp)), (a.alignment, len(al))):
        if count != n:
            raise CadError(f"has {count} lines but the source {a.source} has {n} sentences", path, min(count, n) + 1)
    resolver = get_backend(a.backend, model=model)
    out, k, n_edits = [], 0, 0
    for doc_id, sents in docs:
        low = [[t.lower() for t in s] for s in sents]
        trs = []
        for s in low:
            pts = parse_alignment(al[k], len(s), len(hyp[k]), a.alignment, k + 1)
            trs.append(Translation(s, Derivation(hyp[k], 0.0, [], [], given_alignment=pts)))
            k += 1
        words, edits = postedit_document(trs, resolver.resolve(doc_id, low), pair_of(a))
        n_edits += len(edits)
        out.extend(" ".join(w) for w in words)
    with atomic_output(a.out) as fh:
        fh.writelines(o + "\n" for o in out)
    print(f"{n_edits} pronouns post-edited", file=sys.stderr)


def _rerank(a: argparse.Namespace) -> None:
    import json

    from cad.translate.rerank import Reranker, read_cm_table, read_nbest
    from cad.core.errors import CadError
    from cad.core.textio import atomic_output
    from coref.backends import documents, get_backend
    from coref.records import read_jsonl

    model = coref_model(a)
    docs = documents(a.input, a.docs)
    nbests = read_nbest(a.nbest)
    n_sent = sum(len(s) for _, s in docs)
    if len(nbests) != n_sent:
        raise CadError(f"the n-best list covers {len(nbests)} sentences, the input has {n_sent}", a.nbest)
    if a.coref:
        by_doc: dict = {}
        for r in read_jsonl(a.coref):
            by_doc.setdefault(r.doc, []).append(r)
        records = lambda doc_id, sents: by_doc.get(doc_id, [])          # noqa: E731
    else:
        resolver = get_backend(a.backend, model=model)
        records = resolver.resolve
    reranker = Reranker(read_cm_table(a.cm), a.weight, a.humanness)
    outputs, traces, alignments = [], [], []
    first = 0
    for doc_id, sents in docs:
        chosen, tr = reranker.rerank_document(nbests[first:first + len(sents)], records(doc_id, sents))
        outputs.extend(" ".join(h.words) for h in chosen)
        alignments.extend(" ".join(f"{i}-{j}" for i, j in h.alignment) for h in chosen)
        traces.extend({"doc": doc_id, "sentence": t.sentence, "chosen": t.chosen,
                       "cm": [round(x, 4) for x in t.cm_scores]} for t in tr)
        first += len(sents)
    with atomic_output(a.out) as fh:
        fh.writelines(o + "\n" for o in outputs)
    if a.trace:
        with atomic_output(a.trace) as fh:
            fh.writelines(json.dumps(t, sort_keys=True) + "\n" for t in traces)
    if a.alignment_out:
        with atomic_output(a.alignment_out) as fh:
            fh.writelines(x + "\n" for x in alignments)
    moved = sum(1 for t in traces if t["chosen"] != 0)
    print(f"{moved} of {len(traces)} sentences changed their 1-best", file=sys.stderr)


def add_postedit_parser(sub, command: str | None = None) -> None:
    s = sub.add_parser("postedit", help="the PE baseline: make il/elle, ils/elles (the target's subject pronouns) "
                                        "agree with the antecedent")
    add_pair_arguments(s)
    add_in(s, "--source", required=True, help="tokenized source")
    add_in(s, "--docs", help="document boundaries of --source (first_line<TAB>doc_id; default: one document)")
    add_in(s, "--translation", required=True, help="baseline translation (tokenized)")
    add_in(s, "--alignment", required=True, help="source-translation alignment (cad translate --alignment-out)")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {COREF_BACKEND})")
    add_coref_model_argument(s)
    add_out(s, "--out", default="-", help="the post-edited translation")
    s.set_defaults(func=_postedit)


def add_rerank_parser(cs) -> None:
    s = cs.add_parser("rerank", help="rerank a Moses n-best list (any decoder) with the Coreference Model")
    add_in(s, "--nbest", required=True,
           help="distinct n-best list with word alignments (-print-alignment-info-in-n-best), ids 0..N-1")
    add_in(s, "--input", required=True, help="the tokenized source the list translates")
    add_in(s, "--docs", help="document boundaries of --input")
    add_in(s, "--coref", help="pronoun records (cad coref output); default: run --backend")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help=f"coreference backend when no --coref is given (default: {COREF_BACKEND})")
    add_coref_model_argument(s)
    s.add_argument("--cm", required=True, help="the CM table (tables/<name>/cm.gz)")
    s.add_argument("--weight", type=float, default=CM_TABLE_RERANK_WEIGHT,
                   help=f"lambda_CM, added to the decoder's total times the CM log-probability (default "
                        f"{CM_TABLE_RERANK_WEIGHT:g})")
    s.add_argument("--humanness", action="store_true", help="the CM's bundles carry humanness")
    add_out(s, "--out", default="-", help="the reranked 1-best translations")
    add_out(s, "--trace", help="JSON line per sentence: chosen rank and each hypothesis's CM score")
    add_out(s, "--alignment-out", help="source-translation word alignment of the chosen hypotheses")
    s.set_defaults(func=_rerank)


def add_translate_parser(sub, command: str | None = None) -> None:
    s = sub.add_parser("translate", help="coreference-aware document translation (and the BL/PE baselines)")
    s.add_argument("--config", required=True,
                   help="moses.ini; for --system cm with the CM as back-off table or CoreferenceModel feature "
                        "(cad cm config --mode), which decides the mode")
    add_in(s, "--input", required=True, help="source text, one sentence per line")
    add_in(s, "--docs", help="document boundaries (first_line<TAB>doc_id; default: one document)")
    s.add_argument("--raw", action="store_true",
                   help="raw text in, text to read out: the input is tokenized, the output detruecased (with "
                        "--truecase-model) and detokenized")
    s.add_argument("--no-lowercase", action="store_true",
                   help="give the decoder the input's case as it is (default: truecased with the model's "
                        "truecase-model.<src> where it has one, as cad train makes by default; lowercased where "
                        "it has none)")
    s.add_argument("--truecase-model", default="auto",
                   help="the source side's truecasing model of a model trained on truecased text (cad train "
                        "--truecase, cad truecase train): the input is truecased instead of lowercased, and the "
                        "output detruecased with --raw or --detokenize; auto: truecase-model.<src> beside the "
                        "config's first phrase table when there is one; none: lowercase (default: %(default)s)")
    s.add_argument("--src", default=SOURCE_LANGUAGE, choices=LANGUAGE_CHOICES,
                   help="source language (default: %(default)s); es: the CM's bundles carry the Spanish "
                        "antecedent's own gender, number and humanness (seed 003; --cm-mode backoff)")
    s.add_argument("--tgt", default=TARGET_LANGUAGE, choices=LANGUAGE_CHOICES,
                   help="target language, the pair's with --src, and for --detokenize (default: %(default)s)")
    s.add_argument("--system", choices=SYSTEM_CHOICES, default=CM,
                   help="cm: the Coreference Model (see --cm-mode); baseline: the decoder alone; pe: the baseline "
                        "post-edited to agree with the antecedents (default: %(default)s)")
    s.add_argument("--cm-mode", choices=CM_MODE_CHOICES, default="auto",
                   help="backoff: seed 004's back-off table in --config; feature: the CoreferenceModel feature "
                        "in --config; rerank: decode --config's n-best lists and rerank them with --classes "
                        "(works with --decoder moses); auto (default): feature if --config has it, rerank if "
                        "--classes is given, else backoff")
    s.add_argument("--classes", help="the class CM (tables/<name>/classes.gz) for --cm-mode rerank, or with "
                                     "--cm-model classifier the classifier CM (classifier.json)")
    s.add_argument("--cm-model", choices=CM_MODELS, default=CM_MODEL,
                   help=f"--cm-mode rerank: the pronoun model --classes holds (default: {CM_MODEL})")
    s.add_argument("--cm-weight", type=float, default=CM_RERANK_WEIGHT,
                   help=f"lambda_CM for --cm-mode rerank (default {CM_RERANK_WEIGHT:g})")
    s.add_argument("--other-words", metavar="PATH|none",
                   help="--cm-mode rerank, objective likelihood: the OTHER-word table a pronoun translated by a "
                        "non-pronoun word is scored with, P(OTHER) x P(word | OTHER), as the feature's other=; none: "
                        "P(OTHER) whole (default: other-words.gz beside --classes, where it is there)")
    s.add_argument("--objective", choices=OBJECTIVES, default=CM_OBJECTIVE,
                   help="--cm-mode rerank: " + OBJECTIVES_HELP)
    s.add_argument("--reading", choices=READINGS, default=CM_READING,
                   help="--cm-mode rerank: how the CM reads a pronoun's bundles, as the feature's reading=: "
                        + READINGS_HELP + f" (default: {CM_READING})")
    s.add_argument("--nbest", type=int, default=CM_RERANK_NBEST,
                   help=f"distinct n-best size for --cm-mode rerank (default {CM_RERANK_NBEST})")
    s.add_argument("--backend", default=COREF_BACKEND, choices=BACKENDS,
                   help=f"coreference backend (default: {COREF_BACKEND})")
    add_coref_model_argument(s)
    add_in(s, "--corzu", help="--backend corzu: CorZu's pronoun records for --input (corzu.*.jsonl), "
                              "with --docs")
    add_spanish_lexicons(s, add_in)
    s.add_argument("--humanness", action="store_true", help="the CM's bundles carry source-side humanness")
    add_out(s, "--trace", help="one JSON line per pronoun (antecedent, features or bundles, target); for "
                               "--system baseline and pe too (antecedent and target, to compare systems "
                               "pronoun by pronoun)")
    s.add_argument("--detokenize", action="store_true",
                   help="detokenize the output (sacremoses, --tgt's rules; implied by --raw)")
    add_out(s, "--alignment-out", help="write the source-translation word alignment (Moses i-j)")
    add_out(s, "--tokens-out", help="also write the translation as the decoder wrote it, before detruecasing and "
                                    "detokenizing: the tokens that --alignment-out and --trace index (for cad view)")
    s.add_argument("--decoder", choices=["cad", "moses"], default="cad",
                   help="cad's decoder, or a real Moses binary (not with a CoreferenceModel feature) "
                        "(default: %(default)s)")
    s.add_argument("--moses-bin", help="the Moses binary (default: $MOSES or moses on PATH)")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="cad's search: the compiled core (native, default; needs the built extension) or the "
                        "Python reference (the same output, several times slower)")
    s.add_argument("--search-algorithm", type=int, choices=[0, 1], default=1,
                   help="0 normal stack search, 1 cube pruning (default: 1, as documents are long)")
    s.add_argument("--max-sentence-length", type=int, default=0, metavar="N",
                   help="a line of more than N words is cut into pieces of at most N (after punctuation where one is "
                        "near), each translated as a sentence and the translations joined on the line, or passed "
                        "through (--long-sentences pass); a warning names the line (default 0: no limit)")
    s.add_argument("--long-sentences", choices=LONG_LINES, default="split",
                   help="what --max-sentence-length does to a longer line (default: %(default)s)")
    s.add_argument("--read-ahead", type=int, default=2, metavar="N",
                   help="resolve coreference in a background thread up to N documents ahead of the decoder "
                        "(the same output; 0: each document when it is reached) (default: %(default)s)")
    add_out(s, "--out", default="-", help="the translation")
    s.set_defaults(func=_translate)
