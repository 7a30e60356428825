"""The training commands of `cad` (prepare, align, symmetrize, lex, extract, lm, truecase,
moses-ini, filter, decode, binarize, train): the pipeline's stages one by one and whole. They build
their parsers without importing the other command groups' modules (`cad lm` starts in a tenth of a
second less), so they are the first group of cad/cli/groups.py, and built alone for one of them.
Every handler imports what it runs when it runs."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from cad.core.errors import CadError
from cad.train.stages import STAGES

log = logging.getLogger("cad")

TRAINING_COMMANDS = ("prepare", "align", "symmetrize", "lex", "extract", "lm", "truecase", "moses-ini", "filter",
                     "decode", "binarize", "train")


def _cmd_prepare(a: argparse.Namespace) -> None:
    from cad.corpus.prepare import CleanConfig, prepare_corpus

    from cad.core.shards import parallel_from_args

    st = prepare_corpus(a.src, a.tgt, a.out, a.src_lang, a.tgt_lang, a.docs, pretokenized=a.tokenized,
                        lowercase=not a.no_lowercase, clean=CleanConfig(a.min_len, a.max_len, a.ratio),
                        allow_empty=a.allow_empty, parallel=parallel_from_args(a))
    log.info("kept %d of %d sentence pairs", st.kept, st.read)


def _cmd_align(a: argparse.Namespace) -> None:
    from cad.corpus.align import align_corpus

    extra = None
    if a.test_src or a.test_tgt or a.test_out:
        if not (a.test_src and a.test_tgt and a.test_out):
            raise CadError("--test-src, --test-tgt and --test-out go together")
        extra = (Path(a.test_src), Path(a.test_tgt), Path(a.test_out))
    align_corpus(Path(a.src), Path(a.tgt), Path(a.out), extra=extra, method=a.method, seed=a.seed)


def _cmd_symmetrize(a: argparse.Namespace) -> None:
    from cad.core.alignment import format_alignment, parse_alignment
    from cad.corpus.symmetrize import symmetrize
    from cad.core.textio import atomic_output, read_parallel

    with atomic_output(a.out) as fh:
        for lineno, (s, t, f, r) in read_parallel([a.src, a.tgt, a.fwd, a.rev]):
            ns, nt = len(s.split()), len(t.split())
            points = symmetrize(parse_alignment(f, ns, nt, a.fwd, lineno),
                                parse_alignment(r, ns, nt, a.rev, lineno), ns, nt, a.method)
            fh.write(format_alignment(points) + "\n")


def _cmd_lex(a: argparse.Namespace) -> None:
    from cad.train.lexical import write_lexical_tables

    write_lexical_tables(a.src, a.tgt, a.align, a.out, engine=a.engine)


def _cmd_extract(a: argparse.Namespace) -> None:
    from cad.core.shards import parallel_from_args
    from cad.core.textio import is_stdio
    from cad.train.phrase_scoring import build_phrase_tables

    parallel = parallel_from_args(a)
    if any(is_stdio(f) for f in (a.src, a.tgt, a.align, a.phrase_table)):
        parallel = None         # a stream: one process, no shards (they are kept beside the phrase table)
    st = build_phrase_tables(a.src, a.tgt, a.align, a.lex, a.phrase_table, a.reordering_table,
                             max_len=a.max_phrase_length, max_items=a.sort_buffer, engine=a.engine,
                             parallel=parallel)
    log.info("%d phrase pairs from %d sentences", st.phrase_pairs, st.sentences)


def _cmd_lm(a: argparse.Namespace) -> None:
    from cad.lm.train import train_lm

    train_lm(Path(a.text), Path(a.out), a.order, engine=a.engine, memory=a.memory, temp_dir=a.temp_dir,
             threads=a.threads)


def _cmd_truecase_train(a: argparse.Namespace) -> None:
    from cad.corpus.truecase import text_documents, train_truecaser

    used, skipped = train_truecaser(text_documents(a.text, a.docs), a.model)
    log.info("truecasing model from %d documents (%d without case skipped)", used, skipped)
    if not used:
        log.warning("%s has no document written with case: the truecasing model is empty and lowercases", a.text)


def _cmd_truecase_apply(a: argparse.Namespace) -> None:
    from cad.corpus.truecase import Truecaser, detruecase, recase_file

    recase_file(Truecaser(a.model).truecase if getattr(a, "model", None) else detruecase, a.input, a.out)


def _memory_size(text: str) -> int:
    from cad.lm.native import parse_memory

    try:
        return parse_memory(text)
    except CadError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least 1")
    return n


def _cmd_ini_write(a: argparse.Namespace) -> None:
    from cad.moses.ini import baseline_config, write_config

    cfg = baseline_config(str(Path(a.phrase_table).resolve()),
                          str(Path(a.reordering_table).resolve()) if a.reordering_table else None,
                          str(Path(a.lm).resolve()), a.order, distortion_limit=a.distortion_limit)
    write_config(cfg, a.out)


def _cmd_ini_reweight(a: argparse.Namespace) -> None:
    from cad.moses.ini import parse_config, read_weights, reweighted, write_config

    cfg = parse_config(a.config)
    write_config(reweighted(cfg, read_weights(a.weights, cfg), keep_scale=not a.absolute), a.out)


def _cmd_ini_add_lm(a: argparse.Namespace) -> None:
    from cad.moses.check import language_model_order
    from cad.moses.ini import add_lm, parse_config, write_config

    cfg = parse_config(a.config)
    order = language_model_order(a.lm)
    if a.order is not None and a.order != order:
        raise CadError(f"--order {a.order}, but the language model is of order {order}", a.lm)
    name = add_lm(cfg, str(Path(a.lm).resolve()), order, a.weight)
    write_config(cfg, a.out)
    log.info("%s: %s (order %d) as %s, weight %g", a.out, a.lm, order, name, a.weight)


def _cmd_ini_check(a: argparse.Namespace) -> None:
    from cad.moses.check import check_config

    for line in check_config(a.file):
        print(line)
    print(f"{a.file}: OK")


def _cmd_filter(a: argparse.Namespace) -> None:
    from cad.moses.filter import filter_model

    filter_model(a.config, a.input, a.out_dir, a.max_phrase_length)


def _cmd_binarize(a: argparse.Namespace) -> None:
    from cad.moses.binarize import binarize_model

    done = binarize_model(a.config, a.out_dir, force=a.force, prune=a.prune, engine=a.engine)
    for name, path in done.written:
        log.info("%s: %s", name, path)
    for name, path in done.current:
        log.info("%s: %s is up to date", name, path)
    if done.config is not None:
        print(done.config.source)


def _cmd_train(a: argparse.Namespace) -> None:
    from cad.train.pipeline import TrainConfig, train

    cfg = TrainConfig(corpus=a.corpus, src=a.src, tgt=a.tgt, out=a.out, pretokenized=a.tokenized,
                      lowercase=not a.no_lowercase, truecase=not (a.lowercase or a.no_lowercase),
                      max_phrase_length=a.max_phrase_length,
                      lm_order=a.lm_order, lm_text=a.lm_text, extra_lm_texts=a.extra_lm or [], seed=a.seed,
                      allow_empty=a.allow_empty, test_corpus=a.test)
    from cad.core.shards import parallel_from_args

    ini = train(cfg, force=a.force, until=a.until, parallel=parallel_from_args(a))
    print(ini)


def _parallel_arguments(s, note: str, shard_lines: int | None = None) -> None:
    from cad.core.shards import add_parallel_arguments
    from cad.train.extract_shards import DEFAULT_SHARD_LINES

    add_parallel_arguments(s, shard_lines or DEFAULT_SHARD_LINES, note, by_documents=False)


SYM_METHODS = ("grow-diag-final-and", "grow-diag-final", "grow-diag", "grow", "intersect", "union", "srctotgt",
               "tgttosrc")


def add_training_parsers(sub, command: str | None = None) -> None:
    """The training commands' parsers; the sharding options only on `command`'s own where it is one
    of them (none is left out: `command`'s parser is the same either way)."""
    from cad.core.cliargs import add_input_argument as add_in, add_output_argument as add_out

    def sharded(name: str) -> bool:
        return command not in TRAINING_COMMANDS or command == name

    s = sub.add_parser("prepare", help="tokenize, lowercase and clean a parallel corpus")
    s.add_argument("--src", required=True, help="source-language text")
    s.add_argument("--tgt", required=True, help="target-language text")
    s.add_argument("--src-lang", default="en",
                   help="source language: tokenizer rules and output suffix (default: %(default)s)")
    s.add_argument("--tgt-lang", default="fr",
                   help="target language: tokenizer rules and output suffix (default: %(default)s)")
    add_in(s, "--docs", help="document boundaries (first line<TAB>doc id)")
    s.add_argument("--out", required=True, help="output prefix: PREFIX.<lang>, PREFIX.docs, PREFIX.lines")
    s.add_argument("--tokenized", action="store_true", help="input is already tokenized")
    s.add_argument("--no-lowercase", action="store_true", help="keep the case of the text")
    s.add_argument("--allow-empty", action="store_true", help="drop empty lines instead of failing")
    s.add_argument("--min-len", type=int, default=1,
                   help="drop pairs with a side shorter than this many tokens (default: %(default)s)")
    s.add_argument("--max-len", type=int, default=80,
                   help="drop pairs with a side longer than this many tokens (default: %(default)s)")
    s.add_argument("--ratio", type=float, default=9.0,
                   help="drop pairs whose token counts differ by more than this factor (default: %(default)s)")
    if sharded("prepare"):
        from cad.corpus.prepare import TOKENIZE_SHARD_LINES

        _parallel_arguments(s, " (raw text is tokenized in shards of lines; cleaning is one pass)",
                            TOKENIZE_SHARD_LINES)
    s.set_defaults(func=_cmd_prepare)

    s = sub.add_parser("align", help="word-align with eflomal (both directions) and symmetrize")
    s.add_argument("--src", required=True, help="tokenized source text, one sentence per line")
    s.add_argument("--tgt", required=True, help="tokenized target text, line-parallel to --src")
    add_out(s, "--out", required=True, help="Moses i-j alignment file")
    s.add_argument("--method", default="grow-diag-final-and", choices=SYM_METHODS,
                   help="symmetrization heuristic (default: %(default)s)")
    s.add_argument("--seed", type=int, default=1, help="eflomal's random seed (default: %(default)s)")
    s.add_argument("--test-src", help="a test set aligned together with the corpus")
    s.add_argument("--test-tgt", help="target side of --test-src")
    add_out(s, "--test-out", help="alignment of the test set")
    s.set_defaults(func=_cmd_align)

    s = sub.add_parser("symmetrize", help="symmetrize two directional alignments")
    add_in(s, "--src", required=True, help="tokenized source text")
    add_in(s, "--tgt", required=True, help="tokenized target text")
    add_in(s, "--fwd", required=True, help="source-to-target alignment (Moses i-j)")
    add_in(s, "--rev", required=True, help="target-to-source alignment, also as source-target i-j points")
    add_out(s, "--out", default="-", help="the symmetrized alignment (Moses i-j)")
    s.add_argument("--method", default="grow-diag-final-and", choices=SYM_METHODS,
                   help="symmetrization heuristic (default: %(default)s)")
    s.set_defaults(func=_cmd_symmetrize)

    s = sub.add_parser("lex", help="word translation tables lex.f2e / lex.e2f")
    add_in(s, "--src", required=True, help="tokenized source text")
    add_in(s, "--tgt", required=True, help="tokenized target text")
    add_in(s, "--align", required=True, help="source-target word alignment (Moses i-j)")
    s.add_argument("--out", required=True, help="prefix: writes PREFIX.f2e and PREFIX.e2f")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="compiled counter or the Python reference; both write the same bytes (default: %(default)s)")
    s.set_defaults(func=_cmd_lex)

    s = sub.add_parser("extract", help="extract and score phrase pairs; phrase and reordering tables")
    add_in(s, "--src", required=True, help="tokenized source text")
    add_in(s, "--tgt", required=True, help="tokenized target text")
    add_in(s, "--align", required=True, help="source-target word alignment (Moses i-j)")
    s.add_argument("--lex", required=True, help="prefix of lex.f2e / lex.e2f")
    add_out(s, "--phrase-table", required=True, help="phrase table to write (gzip if it ends in .gz)")
    add_out(s, "--reordering-table", help="wbe-msd-bidirectional-fe table to write")
    s.add_argument("--max-phrase-length", type=int, default=7,
                   help="longest phrase extracted, in tokens (default: %(default)s)")
    s.add_argument("--sort-buffer", type=int, default=1_000_000,
                   help="distinct records held in memory before spilling a sorted run to disk "
                        "(default: %(default)s)")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="compiled extraction and scoring or the Python reference; both write the same "
                        "bytes (default: %(default)s)")
    if sharded("extract"):
        _parallel_arguments(s, "; an input read from '-', or a phrase table written to '-', is extracted in "
                               "this process")
    s.set_defaults(func=_cmd_extract)

    s = sub.add_parser("lm", help="estimate a modified Kneser-Ney language model (ARPA)")
    add_in(s, "--text", required=True, help="tokenized text, one sentence per line")
    s.add_argument("--order", type=int, default=5, help="n-gram order (default: %(default)s)")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="compiled estimator or the Python reference; both write the same bytes "
                        "(default: %(default)s)")
    s.add_argument("--memory", type=_memory_size, default="1G", metavar="SIZE",
                   help="memory for the n-grams (native engine): bytes, or a number with K, M, G or T "
                        "(powers of 1024), at least 1M; beyond it sorted runs go to --temp-dir "
                        "(default: %(default)s)")
    s.add_argument("--temp-dir", metavar="DIR",
                   help="directory for the sorted runs of the native engine, in a subdirectory removed when "
                        "done (default: the system's temporary directory, $TMPDIR or /tmp)")
    s.add_argument("--threads", type=_positive_int, default=None, metavar="N",
                   help="threads of the native engine, 1 or 2 (more count as 2): counting while the text is "
                        "read, the sorts and the ARPA formatting shared; the output is the same whatever their "
                        "number (default: 2, or 1 on a machine of one core)")
    add_out(s, "--out", required=True, help="ARPA file")
    s.set_defaults(func=_cmd_lm)

    s = sub.add_parser("truecase", help="Moses's truecasing: train a model, truecase or detruecase text")
    ssub = s.add_subparsers(dest="truecase_command", metavar="ACTION", required=True)
    t = ssub.add_parser("train", help="learn a truecasing model (train-truecaser.perl) from the documents that "
                                      "have case")
    add_in(t, "--text", required=True, help="tokenized text, one sentence per line")
    add_in(t, "--docs", help="document boundaries of --text; a document not written with case (at most half its "
                             "sentences start with a capital) is skipped (default: every line is a document)")
    add_out(t, "--model", required=True, help="the truecasing model, in Moses's format")
    t.set_defaults(func=_cmd_truecase_train)
    t = ssub.add_parser("apply", help="truecase tokenized text (truecase.perl)")
    t.add_argument("--model", required=True, help="truecasing model (cad truecase train or train-truecaser.perl)")
    add_in(t, "--input", default="-", help="tokenized text (default '-')")
    add_out(t, "--out", default="-", help="truecased text")
    t.set_defaults(func=_cmd_truecase_apply)
    t = ssub.add_parser("detruecase", help="capitalize the first word of each sentence (detruecase.perl)")
    add_in(t, "--input", default="-", help="truecased tokenized text (default '-')")
    add_out(t, "--out", default="-", help="detruecased text")
    t.set_defaults(func=_cmd_truecase_apply)

    s = sub.add_parser("moses-ini", help="write, reweight or check a moses.ini")
    ssub = s.add_subparsers(dest="ini_command", metavar="ACTION", required=True)
    w = ssub.add_parser("write", help="write a baseline moses.ini with Moses's untuned weights")
    w.add_argument("--phrase-table", required=True, help="phrase table (cad extract)")
    w.add_argument("--reordering-table", help="wbe-msd-bidirectional-fe reordering table (cad extract)")
    w.add_argument("--lm", required=True, help="ARPA language model (cad lm)")
    w.add_argument("--order", type=int, default=5, help="order of the language model (default: %(default)s)")
    w.add_argument("--distortion-limit", type=int, default=6,
                   help="maximum reordering distance (default: %(default)s)")
    add_out(w, "--out", required=True, help="the moses.ini")
    w.set_defaults(func=_cmd_ini_write)
    r = ssub.add_parser("reweight", help="a moses.ini with the weights of another (MERT's output, or a file "
                                         "holding only a [weight] section)")
    r.add_argument("--config", required=True, help="the moses.ini whose features, tables and settings are kept")
    r.add_argument("--weights", required=True, help="the file whose [weight] section is taken")
    r.add_argument("--absolute", action="store_true",
                   help="take the weights as they are; default: scaled to the L1 norm of --config's weights "
                        "(UnknownWordPenalty aside), the scale other weights, such as the CM's, were chosen at")
    add_out(r, "--out", required=True, help="the new moses.ini")
    r.set_defaults(func=_cmd_ini_reweight)
    r = ssub.add_parser("add-lm", help="a moses.ini with one more language model, a feature of its own (LM1, "
                                       "LM2, ...) whose weight MERT tunes beside the others")
    r.add_argument("--config", required=True, help="the moses.ini to extend")
    r.add_argument("--lm", required=True, help="the language model: ARPA (cad lm) or KenLM binary")
    r.add_argument("--order", type=int, help="its order, checked against the file (default: read from it)")
    r.add_argument("--weight", type=float, default=0.5, help="its untuned weight (default: %(default)s, as "
                                                             "train-model.perl)")
    add_out(r, "--out", required=True, help="the new moses.ini")
    r.set_defaults(func=_cmd_ini_add_lm)
    c = ssub.add_parser("check", help="parse a moses.ini and every file it refers to")
    c.add_argument("file", help="the moses.ini")
    c.set_defaults(func=_cmd_ini_check)

    s = sub.add_parser("filter", help="filter a model's tables to the phrases of an input text")
    s.add_argument("--config", required=True, help="moses.ini of the model")
    add_in(s, "--input", required=True, help="tokenized input text")
    s.add_argument("--out-dir", required=True, help="directory for the filtered tables and their moses.ini")
    s.add_argument("--max-phrase-length", type=int, default=7,
                   help="longest input phrase looked up, in tokens (default: %(default)s)")
    s.set_defaults(func=_cmd_filter)

    # only its line in `cad --help`: Moses's single-dash options are read by cad/cli/decode.py itself
    s = sub.add_parser("decode", help="translate with a moses.ini (Moses's options; see 'cad decode -h')",
                       add_help=False)
    s.set_defaults(own_argv="cad.cli.decode:decode_main")

    s = sub.add_parser("binarize", help="write a model's tables and LM in binary form, memory-mapped and read on "
                                        "demand by cad decode and cad translate")
    s.add_argument("-f", "--config", required=True, help="moses.ini of the model")
    s.add_argument("--out-dir", help="write the binary files and a moses.ini naming them here (default: beside "
                                     "the text tables, where every moses.ini naming those is decoded from them)")
    s.add_argument("--force", action="store_true", help="write them again even when they are up to date")
    s.add_argument("--prune", type=int, default=0, metavar="N",
                   help="keep the N entries of each source phrase with the highest p(e|f), in the reordering "
                        "table too (Moses's filter-pt -n N; 0: all, the default). The decoder's table limit "
                        "picks among them: fewer entries to score for a frequent source phrase")
    s.add_argument("--engine", choices=("native", "python"), default="native",
                   help="the phrase and reordering tables written by the compiled writer or the Python reference; "
                        "both write the same bytes (default: %(default)s)")
    s.set_defaults(func=_cmd_binarize)

    s = sub.add_parser("train", help="the whole baseline pipeline: prepare, align, lex, phrases, lm, moses.ini")
    s.add_argument("--corpus", required=True, help="corpus prefix: PREFIX.<src>, PREFIX.<tgt> (or PREFIX.<lang>.gz), PREFIX.docs")
    s.add_argument("--src", default="en", help="source language, the corpus suffix (default: %(default)s)")
    s.add_argument("--tgt", default="fr", help="target language, the corpus suffix (default: %(default)s)")
    s.add_argument("--out", default="models/baseline",
                   help="model directory, moses.ini included (default: %(default)s)")
    s.add_argument("--tokenized", action="store_true", help="corpus is already tokenized")
    case = s.add_mutually_exclusive_group()
    case.add_argument("--truecase", action="store_true",
                      help="the default: truecase the corpus as Moses's pipeline does, with OUT/truecase-model.<lang> "
                           "learned from the documents written with case (a corpus without case gives empty models, "
                           "which lowercase); cad translate, decode --raw, tune and cm experiment find them there")
    case.add_argument("--lowercase", action="store_true",
                      help="lowercase the corpus instead (cad before truecasing; the tools then lowercase their input)")
    case.add_argument("--no-lowercase", action="store_true", help="keep the case of the corpus as it is")
    s.add_argument("--allow-empty", action="store_true", help="drop empty lines instead of failing")
    s.add_argument("--max-phrase-length", type=int, default=7,
                   help="longest phrase extracted, in tokens (default: %(default)s)")
    s.add_argument("--lm-order", type=int, default=5, help="n-gram order of the language model (default: %(default)s)")
    s.add_argument("--lm-text", help="target text for the LM (default: target side of the corpus)")
    s.add_argument("--extra-lm", action="append", metavar="TEXT",
                   help="one more LM (OUT/lm1.arpa, lm2.arpa, ...: LM1, LM2 in moses.ini, each its own weight) "
                        "from this target text, given as the corpus is (raw, or tokenized with --tokenized) and "
                        "made as its target side is (tokenized, truecased with its model or lowercased: "
                        "OUT/lm1.<tgt>), e.g. in-domain text beside a large out-of-domain corpus; may be repeated")
    s.add_argument("--test", help="prefix of a test set to align with the corpus")
    s.add_argument("--seed", type=int, default=1, help="eflomal's random seed (default: %(default)s)")
    s.add_argument("--force", action="store_true", help="rerun every stage")
    s.add_argument("--until", choices=STAGES,
                   help="stop after this stage")
    if sharded("train"):
        _parallel_arguments(s, " (phrase extraction runs in shards; alignment is one eflomal run over the "
                               "whole corpus, and the LM one pass over the target side)")
    s.set_defaults(func=_cmd_train)
