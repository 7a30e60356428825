"""Phrase table and lexicalized reordering table from a word-aligned corpus, in bounded memory.

Mirrors Moses's extract → sort → score (direct and --Inverse) → consolidate and
lexical-reordering-score, with the sorts done externally:

* phrase table lines: `src ||| tgt ||| p(f|e) lex(f|e) p(e|f) lex(e|f) ||| align ||| c(e) c(f) c(f,e) ||| |||`
  where f is the source and e the target side; each lexical weight uses the most frequent word
  alignment of the pair in its direction (ties: the largest by Moses's comparison, see `_best`;
  the two directions may so keep different alignments, as Moses's two `score` runs do), and the
  printed alignment is the direct one, listed by target position as Moses's `score` prints it.
* reordering table `wbe-msd-bidirectional-fe`: `src ||| tgt ||| m s d m s d ` with constant
  smoothing 0.5 (train-model.perl's default), previous-phrase orientations first.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import tempfile
import threading
from collections import Counter
from typing import Iterator

from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.shards import Parallel, ShardStore
from cad.core.textio import atomic_output
from cad.train.extract import SEP, ScoringStats, extract_rows
from cad.train.extract_shards import ShardRuns, extract_in_shards
from cad.train.extsort import ExternalCounter, ExternalSorter
from cad.train.lexical import NULL, LexTable, aligned_corpus, read_lexical_table

try:
    from cad.train import _phrases
except ImportError:     # not compiled: the Python engine still runs (native_available() says so)
    _phrases = None

log = logging.getLogger(__name__)

ORIENTATIONS = ("mono", "swap", "other")


def fmt(x: float) -> str:
    """Six significant digits, as C++ streams print Moses's scores and counts."""
    return f"{x:g}"


def lexical_weight(src: list[str], tgt: list[str], align: list[tuple[int, int]], table: LexTable) -> float:
    """lex(tgt|src, a) = Π_j mean_{i aligned to j} w(t_j|s_i), or w(t_j|NULL) if j is unaligned.

    `table` maps (source word, target word) to w(target|source); unknown pairs count as 1, like
    Moses's permissive lookup.
    """
    linked: list[list[int]] = [[] for _ in tgt]
    for i, j in align:
        linked[j].append(i)
    score = 1.0
    for j, word in enumerate(tgt):
        if linked[j]:
            score *= sum(table.get((src[i], word), 1.0) for i in linked[j]) / len(linked[j])
        else:
            score *= table.get((NULL, word), 1.0)
    return score


def _points(text: str) -> list[tuple[int, int]]:
    out = []
    for tok in text.split():
        a, _, b = tok.partition("-")
        out.append((int(a), int(b)))
    return out


def _best(counts: Counter[str], n_tgt: int) -> str:
    """The pair's most frequent word alignment; on a tie, the largest as Moses's `score` compares
    them (ExtractionPhrasePair's FindBestAlignmentTargetToSource): as the vector over target
    positions 0..n_tgt-1 of the sorted source positions aligned to each, lexicographically."""
    if len(counts) == 1:                 # most pairs: one alignment, nothing to compare
        return next(iter(counts))
    top = max(counts.values())
    tied = [a for a, c in counts.items() if c == top]
    if len(tied) == 1:
        return tied[0]

    def vector(a: str):
        linked: list[list[int]] = [[] for _ in range(n_tgt)]
        for i, j in _points(a):
            linked[j].append(i)
        return tuple(tuple(sorted(x)) for x in linked)

    return max(tied, key=vector)


def _extract_all(src, tgt, align, max_len: int, direct: ExternalCounter, inverse: ExternalCounter,
                 stats: ScoringStats, total: int | None) -> None:
    extract_rows(progress(aligned_corpus(src, tgt, align), total=total, desc="extract", unit="sent"), max_len,
                 direct, inverse, stats)


def _split(items: Iterator[tuple[str, int]]) -> Iterator[tuple[list[str], int]]:
    for key, count in items:
        yield key.split(SEP), count


def _group_by_field(rows, field_index: int):
    """Group consecutive (fields, count) rows on one field: (value, [rows])."""
    for value, group in itertools.groupby(rows, key=lambda r: r[0][field_index]):
        yield value, list(group)


def _inverse_records(inverse: ExternalCounter, lex_fe: LexTable, tmpdir, max_items) -> ExternalSorter:
    """count(e) and lex(f|e) per pair, re-sorted by source phrase for the join."""
    out = ExternalSorter(tmpdir, max_items)
    for tp, group in _group_by_field(_split(iter(inverse)), 0):
        pairs = []
        count_e = 0
        for sp, rows in _group_by_field(group, 1):
            aligns: Counter[str] = Counter()
            for parts, c in rows:
                aligns[parts[2]] += c
            count_e += sum(aligns.values())
            pairs.append((sp, aligns))
        tw = tp.split(" ")
        for sp, aligns in pairs:
            n_src = len(sp.split(" "))
            best = _points(_best(aligns, n_src))
            lex = lexical_weight(tw, sp.split(" "), best, lex_fe)
            out.add(f"{sp}{SEP}{tp}{SEP}{count_e} {fmt(lex)}")
    return out


def _direct_records(direct: ExternalCounter, lex_ef: LexTable):
    for sp, group in _group_by_field(_split(iter(direct)), 0):
        pairs = []
        count_f = 0
        sw = sp.split(" ")
        for tp, rows in _group_by_field(group, 1):
            aligns: Counter[str] = Counter()
            prev: Counter[str] = Counter()
            nxt: Counter[str] = Counter()
            for parts, c in rows:
                aligns[parts[2]] += c
                po, no = parts[3].split(" ")
                prev[po] += c
                nxt[no] += c
            n = sum(aligns.values())
            count_f += n
            pairs.append((tp, n, aligns, prev, nxt))
        for tp, n, aligns, prev, nxt in pairs:
            best = _best(aligns, len(tp.split(" ")))
            lex = lexical_weight(sw, tp.split(" "), _points(best), lex_ef)
            yield sp, tp, n, count_f, lex, best, prev, nxt


def reordering_scores(prev: Counter, nxt: Counter, smoothing: float = 0.5) -> list[float]:
    out = []
    for counts in (prev, nxt):
        total = sum(counts[o] for o in ORIENTATIONS) + smoothing * len(ORIENTATIONS)
        out.extend((counts[o] + smoothing) / total for o in ORIENTATIONS)
    return out


ENGINES = ("native", "python")


def native_available() -> bool:
    return _phrases is not None


def build_phrase_tables(src, tgt, align, lex_prefix: str, phrase_table: str, reordering_table: str | None,
                        max_len: int = 7, tmpdir: str | None = None, max_items: int = 1_000_000,
                        total: int | None = None, smoothing: float = 0.5, engine: str = "native",
                        parallel: Parallel | None = None) -> ScoringStats:
    """Extract and score. `engine` "native" (cad/train/_phrases.cpp) or "python" (this module, the
    reference): the same tables byte for byte; `max_items` bounds the distinct records of each
    sorted stream held in memory either way. `parallel`: extract in shards of lines (kept in
    PHRASE_TABLE.shards/ until the tables are written, so that a rerun resumes from them), the
    same tables again; None: in this process, without shards."""
    if engine not in ENGINES:
        raise CadError(f"unknown extraction engine {engine!r} (choose from {', '.join(ENGINES)})")
    if engine == "native" and not native_available():
        raise CadError("the compiled extractor (cad.train._phrases) is not built; run pip install -e . "
                       "(needs a C++ compiler) or use --engine python")
    stats = ScoringStats()
    lex_ef = read_lexical_table(f"{lex_prefix}.f2e")   # {(f, e): w(e|f)}
    lex_fe = read_lexical_table(f"{lex_prefix}.e2f")   # {(e, f): w(f|e)}
    shards = store = None
    if parallel is not None:
        store = ShardStore.beside(phrase_table)
        shards = extract_in_shards(src, tgt, align, store, max_len, engine, max_items, parallel)
    if engine == "native":
        stats = _build_native(src, tgt, align, lex_ef, lex_fe, phrase_table, reordering_table, max_len, tmpdir,
                              max_items, total, smoothing, shards)
    else:
        stats = _build_python(src, tgt, align, lex_ef, lex_fe, phrase_table, reordering_table, max_len, tmpdir,
                              max_items, total, smoothing, shards)
    if store is not None:
        store.remove()
    return stats


def _build_python(src, tgt, align, lex_ef: LexTable, lex_fe: LexTable, phrase_table: str,
                  reordering_table: str | None, max_len: int, tmpdir: str | None, max_items: int,
                  total: int | None, smoothing: float, shards: ShardRuns | None) -> ScoringStats:
    stats = ScoringStats()
    with ExternalCounter(tmpdir, max_items) as direct, ExternalCounter(tmpdir, max_items) as inverse:
        if shards is None:
            _extract_all(src, tgt, align, max_len, direct, inverse, stats, total)
        else:
            for d, i in shards.runs:
                direct.add_run(d)
                inverse.add_run(i)
            stats.sentences, stats.extracted = shards.sentences, shards.extracted
        log.info("extracted %d phrase pair occurrences from %d sentences", stats.extracted, stats.sentences)
        with _inverse_records(inverse, lex_fe, tmpdir, max_items) as inv_sorted:
            inverse.close()
            inv_iter = iter(inv_sorted)
            with contextlib.ExitStack() as outputs:
                pt = outputs.enter_context(atomic_output(phrase_table))
                ro = outputs.enter_context(atomic_output(reordering_table)) if reordering_table else None
                last_src = None
                for sp, tp, n, count_f, lex_ef_v, best, prev, nxt in progress(
                        _direct_records(direct, lex_ef), desc="score", unit="pair"):
                    isp, itp, payload = next(inv_iter).split(SEP)
                    if isp != sp or itp != tp:
                        raise AssertionError(f"phrase table halves out of step: {sp!r}/{tp!r} vs {isp!r}/{itp!r}")
                    count_e_s, lex_fe_s = payload.split(" ")
                    count_e = int(count_e_s)
                    pt.write(f"{sp}{SEP}{tp}{SEP}{fmt(n / count_e)} {lex_fe_s} {fmt(n / count_f)} {fmt(lex_ef_v)}"
                             f"{SEP}{best}{SEP}{fmt(count_e)} {fmt(count_f)} {fmt(n)} ||| |||\n")
                    if ro is not None:
                        scores = " ".join(f"{x:.6f}" for x in reordering_scores(prev, nxt, smoothing))
                        ro.write(f"{sp}{SEP}{tp}{SEP}{scores} \n")
                    stats.phrase_pairs += 1
                    if sp != last_src:
                        stats.source_phrases += 1
                        last_src = sp
    log.info("wrote %d phrase pairs for %d source phrases", stats.phrase_pairs, stats.source_phrases)
    return stats


class _Writer:
    """Writes (and gzip-compresses) a table in a thread of its own: the native scorer releases the
    GIL while it works, so that compression, as long as the scoring at a million pairs, runs on the
    other core. The first write error is raised at the next block or at the end."""

    def __init__(self, fh):
        self._fh = fh
        self._blocks: queue.Queue = queue.Queue(maxsize=8)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="table-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (block := self._blocks.get()) is not None:
            if self._error is None:
                try:
                    self._fh.write(block)
                except BaseException as exc:    # noqa: BLE001 (handed to the scoring thread)
                    self._error = exc

    def __call__(self, block: bytes) -> None:
        if self._error is not None:
            raise self._error
        self._blocks.put(block)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._blocks.put(None)
        self._thread.join()
        if self._error is not None and exc[0] is None:
            raise self._error


def _build_native(src, tgt, align, lex_ef: LexTable, lex_fe: LexTable, phrase_table: str,
                  reordering_table: str | None, max_len: int, tmpdir: str | None, max_items: int,
                  total: int | None, smoothing: float, shards: ShardRuns | None) -> ScoringStats:
    stats = ScoringStats()
    with tempfile.TemporaryDirectory(prefix="cad-phrases-", dir=tmpdir) as runs:
        core = _phrases.PhraseTables(max_len, runs, max_items, lex_ef, lex_fe)
        try:
            if shards is None:
                for ss, tt, points in progress(aligned_corpus(src, tgt, align), total=total, desc="extract",
                                               unit="sent"):
                    core.add(ss, tt, points)
                stats.sentences, stats.extracted = core.sentences(), core.extracted()
            else:
                for d, i in shards.runs:
                    core.add_runs(str(d), str(i))
                stats.sentences, stats.extracted = shards.sentences, shards.extracted
            log.info("extracted %d phrase pair occurrences from %d sentences", stats.extracted, stats.sentences)
            with contextlib.ExitStack() as outputs:
                pt = outputs.enter_context(_Writer(outputs.enter_context(atomic_output(phrase_table, binary=True))))
                ro = (outputs.enter_context(_Writer(outputs.enter_context(atomic_output(reordering_table, binary=True))))
                      if reordering_table else None)
                stats.phrase_pairs, stats.source_phrases = core.write(pt, ro, smoothing)
        except RuntimeError as exc:
            # the core's sort runs could not be written or read back (a full disk, a vanished
            # temporary folder); the outputs were not renamed into place
            raise CadError(f"phrase extraction failed: {exc}", runs) from None
    log.info("wrote %d phrase pairs for %d source phrases", stats.phrase_pairs, stats.source_phrases)
    return stats
