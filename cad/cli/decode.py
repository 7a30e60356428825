"""`cad decode`: Moses's command line, with cad's decoder or a real Moses binary.

Options keep Moses's spelling: -f, -input-file, -n-best-list FILE N [distinct],
-alignment-output-file, -s/-stack, -b/-beam-threshold, -dl/-distortion-limit, -ttable-limit,
-search-algorithm, -cube-pruning-pop-limit, -max-trans-opt-per-coverage, -translation-option-threshold
(-tot), -weight-overwrite, -threads,
-print-alignment-info-in-n-best (or -include-alignment-in-n-best), -report-segmentation (-t),
-print-alignment-info; cad's own: --decoder cad|moses, --moses-bin PATH, --engine native|python,
--raw [--src L --tgt L].

Read from standard input, sentences are translated as they arrive and each translation is written
and flushed before the next line is read, as Moses does: a program can keep one decoder process
and feed it sentence by sentence (cad translate --decoder moses). The text tables are then read
whole, since the input is not known in advance; binary ones (cad binarize) are read on demand.
From a file as well, every translation is written and flushed as soon as it is done, in order
(with -threads N, as the workers finish them). A blank line gives an empty line; a line over
--max-sentence-length words is split or passed through (cad/core/segments.py). Ctrl-C: the -threads
workers ignore it and the main process stops them; what was written stays (cad/cli: exit 130).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# registers the CoreferenceModel feature, which a configuration may name (cad cm config --mode feature)
import cad.cm.feature  # noqa: F401
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.segments import LONG_LINES, long_line
from cad.core.textio import check_output_path, is_uint, read_lines
from cad.corpus.truecase import ModelCase, RawText
from cad.decoder.native import engine_is_native
from cad.decoder.model import DecoderModel, SearchSettings
from cad.decoder.moses_runner import find_moses, run_moses
from cad.decoder.nbest import format_alignment, nbest_lines
from cad.decoder.search import Decoder, Translation
from cad.decoder.segments import copied, joined
from cad.moses.binarize import refuse_cad_binaries
from cad.moses.ini import parse_config

log = logging.getLogger(__name__)

USAGE = """usage: cad decode -f moses.ini [-input-file FILE] [-n-best-list FILE N [distinct]]
       [-alignment-output-file FILE] [-s N] [-b X] [-dl N] [-ttable-limit N] [-search-algorithm 0|1]
       [-cube-pruning-pop-limit N] [-max-trans-opt-per-coverage N] [-translation-option-threshold X]
       [-weight-overwrite 'Name= w ...'] [-threads N]
       [-print-alignment-info-in-n-best] [-report-segmentation|-t] [-print-alignment-info]
       [-v N] [-q] [--decoder cad|moses] [--moses-bin PATH] [--engine native|python] [--raw [--src L] [--tgt L]]
       [--max-sentence-length N [--long-sentences split|pass]]
Reads one tokenized sentence per line (stdin or -input-file), writes translations to stdout in order,
each written and flushed (with its n-best and alignment lines) as soon as it is done; a blank line
gives an empty line. Ctrl-C stops: the finished lines stay, the exit status is 130.
-print-alignment-info-in-n-best (also spelt -include-alignment-in-n-best): each n-best entry's word alignment.
-report-segmentation/-t: each phrase's words followed by |first-last| (source positions, Moses's format),
in the 1-best and the n-best translations, as Moses writes them.
-print-alignment-info: the word alignment after the translation, as "translation ||| 0-0 1-2 ...".
--engine: cad's search, compiled (native, the default when built; the same output) or in Python.
--raw: the input is raw text: tokenized, then truecased by the truecase-model.SRC beside the model's
phrase table (cad train writes it; lowercased without one); each 1-best line is detruecased and
detokenized. The n-best and alignment files keep the model's tokens, whose positions they name.
--src/--tgt: the languages of --raw's tokenizer, truecasing models and detokenizer (default en, fr).
--max-sentence-length N: a line of more than N words is cut into pieces of at most N (ending after
punctuation where one is near), translated one by one and joined (--long-sentences split, the
default), or copied to the output untranslated (pass); a warning names the line (default 0: no limit).
-v/-verbose N: 1 logs the model's load time on stderr (default 0: nothing). -q: warnings only."""

ARITY = {"-f": 1, "-config": 1, "-input-file": 1, "-i": 1, "-alignment-output-file": 1, "-s": 1, "-stack": 1,
         "-b": 1, "-beam-threshold": 1, "-dl": 1, "-distortion-limit": 1, "-ttable-limit": 1,
         "-search-algorithm": 1, "-cube-pruning-pop-limit": 1, "-cbp": 1, "-weight-overwrite": 1,
         "-threads": 1, "-th": 1, "--raw": 0, "--src": 1, "--tgt": 1, "--decoder": 1, "--moses-bin": 1, "--engine": 1, "-v": 1, "-verbose": 1, "-include-alignment-in-n-best": 0,
         "-print-alignment-info-in-n-best": 0,
         "-report-segmentation": 0, "-t": 0, "-print-alignment-info": 0,
         "-max-trans-opt-per-coverage": 1, "-translation-option-threshold": 1, "-tot": 1, "-q": 0, "--quiet": 0,
         "--max-sentence-length": 1, "--long-sentences": 1}
CANONICAL = {"-verbose": "-v", "-config": "-f", "-i": "-input-file", "-stack": "-s", "-beam-threshold": "-b",
             "-distortion-limit": "-dl", "-cbp": "-cube-pruning-pop-limit", "-th": "-threads",
             "-tot": "-translation-option-threshold", "-t": "-report-segmentation",
             "-print-alignment-info-in-n-best": "-include-alignment-in-n-best"}


@dataclass
class DecodeArgs:
    config: str = ""
    input_file: str | None = None
    nbest_file: str | None = None
    nbest_size: int = 0
    distinct: bool = False
    alignment_file: str | None = None
    include_alignment: bool = False
    report_segmentation: bool = False
    print_alignment: bool = False
    overrides: dict[str, str] = field(default_factory=dict)
    weight_overwrite: str | None = None
    threads: int = 1
    decoder: str = "cad"
    moses_bin: str | None = None
    engine: str = "native"
    verbose: int = 0
    raw: bool = False
    src: str = "en"
    tgt: str = "fr"
    quiet: bool = False
    max_sentence_length: int = 0
    long_sentences: str = "split"


def parse_args(argv: list[str]) -> DecodeArgs:
    a = DecodeArgs()
    i = 0
    while i < len(argv):
        opt = argv[i]
        if opt in ("-h", "--help", "-help"):
            print(USAGE)
            raise SystemExit(0)
        if opt == "-n-best-list":
            vals = argv[i + 1:i + 4]
            if len(vals) < 2 or not is_uint(vals[1]):
                raise CadError("-n-best-list needs FILE N [distinct]")
            a.nbest_file, a.nbest_size = vals[0], int(vals[1])
            i += 3
            if i < len(argv) and argv[i] == "distinct":
                a.distinct = True
                i += 1
            continue
        if opt not in ARITY:
            raise CadError(f"unknown option {opt}\n{USAGE}")
        n = ARITY[opt]
        if i + n >= len(argv) + (0 if n else 1) and n:
            raise CadError(f"option {opt} needs a value")
        value = argv[i + 1] if n else ""
        opt = CANONICAL.get(opt, opt)
        if opt == "-f":
            a.config = value
        elif opt == "-input-file":
            a.input_file = value
        elif opt == "-alignment-output-file":
            a.alignment_file = value
        elif opt == "-include-alignment-in-n-best":
            a.include_alignment = True
        elif opt == "-report-segmentation":
            a.report_segmentation = True
        elif opt == "-print-alignment-info":
            a.print_alignment = True
        elif opt == "-weight-overwrite":
            a.weight_overwrite = value
        elif opt == "-threads":
            a.threads = _int(opt, value, 1)
        elif opt == "--decoder":
            if value not in ("cad", "moses"):
                raise CadError("--decoder must be cad or moses")
            a.decoder = value
        elif opt == "--moses-bin":
            a.moses_bin = value
        elif opt == "--raw":
            a.raw = True
        elif opt == "--src":
            a.src = value
        elif opt == "--tgt":
            a.tgt = value
        elif opt == "-v":
            a.verbose = _int(opt, value, 0)
        elif opt in ("-q", "--quiet"):
            a.quiet = True
        elif opt == "--max-sentence-length":
            a.max_sentence_length = _int(opt, value, 0)
        elif opt == "--long-sentences":
            if value not in LONG_LINES:
                raise CadError(f"--long-sentences must be one of {', '.join(LONG_LINES)}")
            a.long_sentences = value
        elif opt == "--engine":
            if value not in ENGINES:
                raise CadError(f"--engine must be one of {', '.join(ENGINES)}")
            a.engine = value
        else:
            a.overrides[opt] = value
        i += 1 + n
    if not a.config:
        raise CadError(f"-f moses.ini is required\n{USAGE}")
    if a.raw and (a.report_segmentation or a.print_alignment):
        raise CadError("--raw writes detokenized text: -report-segmentation and -print-alignment-info name "
                       "token positions (use the alignment or n-best files)")
    return a


def _int(opt: str, value: str, minimum: int) -> int:
    try:
        v = int(value)
    except ValueError:
        raise CadError(f"{opt} needs an integer, not {value!r}") from None
    if v < minimum:
        raise CadError(f"{opt} must be at least {minimum}")
    return v


def _ratio(opt: str, value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        raise CadError(f"{opt} needs a number, not {value!r}") from None
    if not 0 <= v <= 1:
        raise CadError(f"{opt} is a probability ratio between 0 and 1, not {value}")
    return v


def search_settings(a: DecodeArgs, other: dict[str, list[str]]) -> SearchSettings:
    s = SearchSettings()
    # moses.ini sections first, then the command line, as Moses does
    ini = {"stack": "-s", "beam-threshold": "-b", "search-algorithm": "-search-algorithm",
           "cube-pruning-pop-limit": "-cube-pruning-pop-limit", "ttable-limit": "-ttable-limit",
           "max-trans-opt-per-coverage": "-max-trans-opt-per-coverage",
           "translation-option-threshold": "-translation-option-threshold"}
    values = {flag: other[sec][0] for sec, flag in ini.items() if other.get(sec)}
    values.update(a.overrides)
    for flag, v in values.items():
        if flag == "-s":
            s.stack = _int(flag, v, 0)
        elif flag == "-b":
            s.beam_threshold = _ratio(flag, v)
        elif flag == "-translation-option-threshold":
            s.option_threshold = _ratio(flag, v)
        elif flag == "-max-trans-opt-per-coverage":
            s.max_trans_opt = _int(flag, v, 0)
        elif flag == "-dl":
            s.distortion_limit = _int(flag, v, -1)
        elif flag == "-ttable-limit":
            s.ttable_limit = _int(flag, v, 0)
        elif flag == "-search-algorithm":
            s.search_algorithm = _int(flag, v, 0)
            if s.search_algorithm not in (0, 1):
                raise CadError("-search-algorithm: cad supports 0 (normal) and 1 (cube pruning)")
        elif flag == "-cube-pruning-pop-limit":
            s.pop_limit = _int(flag, v, 1)
    return s


ENGINES = ("native", "python")


class LineTranslator:
    """What one input line becomes (picklable into -threads workers, which inherit the decoder by
    fork): a blank line an empty translation, a line over --max-sentence-length words its pieces'
    translations joined or itself passed through (cad/core/segments.py), any other line the
    decoder's translation."""

    def __init__(self, decoder: Decoder, a: DecodeArgs):
        self.decoder, self.a = decoder, a

    def __call__(self, item: tuple[int, str]) -> tuple[int, Translation]:
        k, text = item
        a, dec = self.a, self.decoder
        tokens = text.split()
        pieces = long_line(tokens, a.max_sentence_length, a.long_sentences, f"line {k + 1}")
        if pieces is None:
            return k, dec.translate(text, nbest=a.nbest_size, distinct=a.distinct)
        if not pieces:
            return k, copied(tokens, dec.translate("", nbest=a.nbest_size), bool(a.nbest_size))
        parts = [dec.translate(" ".join(tokens[s:e]), nbest=a.nbest_size, distinct=a.distinct) for s, e in pieces]
        return k, joined(tokens, parts, pieces)


_WORKER: LineTranslator | None = None


def _in_worker(item: tuple[int, str]) -> tuple[int, Translation]:
    return _WORKER(item)


def _quiet_worker() -> None:
    """A -threads worker leaves Ctrl-C to the main process, which stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Outputs:
    """The 1-best lines on standard output, the n-best and alignment files: each sentence's lines
    written and flushed as soon as it is translated, in input order (Moses's behaviour), so that
    what is done is kept when the run stops."""

    def __init__(self, a: DecodeArgs, raw: RawText | None):
        self.a, self.raw = a, raw
        self.count = 0
        self._nb = open(a.nbest_file, "w", encoding="utf-8") if a.nbest_file else None
        self._al = open(a.alignment_file, "w", encoding="utf-8") if a.alignment_file else None

    def write(self, k: int, tr: Translation) -> None:
        a = self.a
        sys.stdout.write((self.raw.target(tr.best.words) if self.raw is not None
                          else best_line(tr, a.report_segmentation, a.print_alignment)) + "\n")
        sys.stdout.flush()
        if self._nb is not None:
            self._nb.writelines(x + "\n" for x in nbest_lines(k, tr, a.include_alignment, a.report_segmentation))
            self._nb.flush()
        if self._al is not None:
            self._al.write(format_alignment(tr.best) + "\n")
            self._al.flush()
        self.count += 1

    def __enter__(self) -> "Outputs":
        return self

    def __exit__(self, *exc) -> None:
        for fh in (self._nb, self._al):
            if fh is not None:
                fh.close()


def _stdin_lines() -> Iterator[str]:
    for k, data in enumerate(sys.stdin.buffer):
        try:
            yield data.decode("utf-8").rstrip("\n").rstrip("\r")
        except UnicodeDecodeError as exc:
            raise CadError(f"invalid UTF-8 at byte {exc.start} of the line", "<stdin>", k + 1) from None


def decode_main(argv: list[str]) -> int:
    global _WORKER
    a = parse_args(argv)
    for path in (a.nbest_file, a.alignment_file):
        check_output_path(path)
    cfg = parse_config(a.config)
    raw = RawText(ModelCase.of(cfg, a.src, a.tgt), a.src, a.tgt) if a.raw else None
    settings = search_settings(a, cfg.other)
    if "-dl" not in a.overrides:
        settings.distortion_limit = cfg.distortion_limit if cfg.distortion_limit is not None else -1
    if a.threads == 1 and cfg.other.get("threads"):
        a.threads = _int("[threads]", cfg.other["threads"][0], 1)
    # a file is read first (the tables are then read for its phrases only, unless they are binary);
    # standard input is translated line by line as it comes, the model read whole or on demand
    lines: Iterable[str]
    if a.input_file is not None:
        lines = list(read_lines(a.input_file))
        lines = [raw.source(x) for x in lines] if raw is not None else lines
    else:
        lines = (raw.source(x) for x in _stdin_lines()) if raw is not None else _stdin_lines()
    if a.decoder == "moses":
        return _decode_with_moses(a, cfg, list(lines), raw)
    t0 = time.time()
    limit = settings.distortion_limit          # the load sets the moses.ini's; -dl is the command line's
    model = DecoderModel.load(a.config, a.weight_overwrite, settings=settings,
                              input_sentences=lines if isinstance(lines, list) else None)
    model.settings.distortion_limit = limit
    log.log(logging.INFO if a.verbose >= 1 else logging.DEBUG, "model loaded in %.2f s", time.time() - t0)
    # the loaded model lives to the end: out of the collector's sight, which otherwise walks it
    # again at each full collection as the sentences' options come and go
    gc.freeze()
    # each sentence makes some hundred thousand short-lived, acyclic objects (options, their
    # tuples): at Python's default of a young collection per 700 allocations, the collector took
    # about a second of a 1,664-sentence run; reference counting frees them either way
    before = gc.get_threshold()
    gc.set_threshold(50_000, 50, 100)
    try:
        _WORKER = LineTranslator(Decoder(model, native=engine_is_native(a.engine)), a)
        total = len(lines) if isinstance(lines, list) else None
        with Outputs(a, raw) as out:
            if a.threads > 1:
                # fork: the workers share the loaded model; imap keeps the input order
                with multiprocessing.get_context("fork").Pool(a.threads, initializer=_quiet_worker) as pool:
                    for k, tr in progress(pool.imap(_in_worker, enumerate(lines), chunksize=1), total, "decode",
                                          "sentence"):
                        out.write(k, tr)
            else:
                for item in progress(enumerate(lines), total, "decode", "sentence"):
                    out.write(*_WORKER(item))
    finally:
        gc.set_threshold(*before)
    return 0


def _decode_with_moses(a: DecodeArgs, cfg, sentences: list[str], raw: RawText | None) -> int:
    refuse_cad_binaries(cfg)
    binary = find_moses(a.moses_bin)
    if binary is None:
        raise CadError("no Moses binary: give --moses-bin PATH, set $MOSES, or put moses on PATH")
    extra = []
    for flag, v in a.overrides.items():
        extra += [flag, v]
    if a.weight_overwrite:
        extra += ["-weight-overwrite", a.weight_overwrite]
    extra += ["-threads", str(a.threads)]
    results = run_moses(binary, a.config, sentences, a.nbest_size, a.distinct, extra)
    with Outputs(a, raw) as out:
        for k, tr in enumerate(results):
            out.write(k, tr)
    return 0


def best_line(tr: Translation, segmentation: bool = False, alignment: bool = False) -> str:
    """The 1-best line. Plain: the words. With Moses's -report-segmentation or -print-alignment-info,
    Moses's own layout (Manager's OutputSurface): every word followed by a space, each phrase by
    `|first-last| ` in source positions, then `||| ` and the word alignment."""
    if not segmentation and not alignment:
        return tr.text
    if segmentation:
        line = "".join("".join(w + " " for w in st.words) + f"|{st.src_start}-{st.src_end - 1}| "
                       for st in tr.best.steps)
    else:
        line = "".join(w + " " for w in tr.best.words)
    if alignment:
        line += "||| " + format_alignment(tr.best)
    return line
