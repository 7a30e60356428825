"""`cad decode`: Moses's command line, with cad's decoder or a real Moses binary.

Options keep Moses's spelling: -f, -input-file, -n-best-list FILE N [distinct],
-alignment-output-file, -s/-stack, -b/-beam-threshold, -dl/-distortion-limit, -ttable-limit,
-search-algorithm, -cube-pruning-pop-limit, -max-trans-opt-per-coverage, -translation-option-threshold
(-tot), -weight-overwrite, -threads,
-print-alignment-info-in-n-best (or -include-alignment-in-n-best), -report-segmentation (-t),
-print-alignment-info; cad's own: --decoder cad|moses, --moses-bin PATH, --engine native|python,
--raw [--src L --tgt L]. Each is declared once, in cad/cli/decode_options.py, from which the
parsing, the usage and the arguments are made.

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

# registers the CoreferenceModel feature, which a configuration may name (cad cm config --mode feature)
import cad.cm.feature  # noqa: F401
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.cli.decode_options import DecodeArgs, at_least, parse_args, search_settings  # noqa: F401  (the command's API)
from cad.core.segments import long_line
from cad.core.textio import check_output_path, read_lines
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
        a.threads = at_least(1)("[threads]", cfg.other["threads"][0])
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
