"""cad's binary phrase and reordering tables: written once by `cad binarize`, memory-mapped and
read on demand, one source phrase (or phrase pair) at a time, so that a decoder answers a
sentence without reading or filtering the whole table first.

One file per table, little-endian:

- a header of 128 bytes: magic (`CADPT001` for a phrase table, `CADRT001` for a reordering
  table), number of scores, longest source phrase in words, number of records, number of hash
  buckets (a power of two), offset of the index, the size and modification time (ns) of the
  text table it was made from (a later text table makes the binary one stale), and the pruning it
  was written with (`cad binarize --prune N`: N entries kept per source phrase; 0, as in files
  written before it, for none);
- the records, in the text table's order, each one run of consecutive lines with the same source
  phrase: u16 length and UTF-8 of the source, u32 number of entries, then per entry the scores as
  f64 (the text's numbers as `float()` reads them), u16 length and UTF-8 of the target words
  (phrase table: joined by single spaces; reordering table: the field as written, stripped), and
  in a phrase table u16 number of alignment points and u16 pairs;
- the index: u64 start of each bucket's entries (buckets + 1 values), then the entries, sorted by
  bucket and then by record offset: u64 CRC-32 of the key and u64 record offset, side by side.

A lookup hashes the source with CRC-32, scans its bucket and compares the keys of the records
whose CRC matches: one source phrase is one place in the file, its reordering entries included
(a decoder asks for all of them together). A source phrase whose lines are not consecutive in
the text table has several runs, read in file order; of several reordering lines for one phrase
pair the last counts: both as the text loader reads them (cad/decoder/tables.py), which applies
the decoder's log and floor to the same floats.
"""

from __future__ import annotations

import array
import gzip
import mmap
import os
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

from cad.core.errors import CadError
from cad.core.textio import atomic_output, is_uint, read_lines

PHRASE_MAGIC = b"CADPT001"
REORDERING_MAGIC = b"CADRT001"
# magic, scores, longest source, records, buckets, index, size, mtime, pruning
HEADER = struct.Struct("<8sIIQQQQQQ")
HEADER_SIZE = 128
PHRASE_SUFFIX = ".cadphr"
REORDERING_SUFFIX = ".cadlexr"
LM_SUFFIX = ".binlm"
KENLM_MAGIC = b"mmap lm "
BINARY_PHRASE_TABLE = "PhraseDictionaryCadBinary"     # the moses.ini type of a binary phrase table


def source_stamp(path: str | os.PathLike) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_size, st.st_mtime_ns


def twin_path(text_path: str | os.PathLike, suffix: str) -> Path:
    """Where `cad binarize` puts the binary form of a text table: beside it, the name without .gz
    and with `suffix` (Moses's convention for .minphr and .minlexr)."""
    p = Path(text_path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    return p.with_name(name + suffix)


def lm_twin(path: str | os.PathLike) -> Path:
    """Where `cad binarize` puts KenLM's binary form of an ARPA file: lm.arpa(.gz) → lm.binlm."""
    p = Path(path)
    name = p.name[:-3] if p.name.endswith(".gz") else p.name
    name = name[:-5] if name.endswith(".arpa") else name
    return p.with_name(name + LM_SUFFIX)


def magic_of(path: str | os.PathLike) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(8)
    except OSError:
        return b""


# the most a u16 of the format holds: a key's or a target's bytes, alignment points, a word position
U16_MAX = 0xFFFF


def _points(text: str, path: str, lineno: int) -> list[int]:
    out = []
    for tok in text.split():
        a, sep, b = tok.partition("-")
        if not sep or not is_uint(a) or not is_uint(b):
            raise CadError(f"malformed alignment point {tok!r}", path, lineno)
        for digits in (a.lstrip("0") or "0", b.lstrip("0") or "0"):
            # the length first: int() refuses thousands of digits with an error of its own
            if len(digits) > 5 or int(digits) > U16_MAX:
                raise CadError(f"alignment point {tok!r}: cad's binary tables take word positions up to 65535",
                               path, lineno)
            out.append(int(digits))
    if len(out) // 2 > U16_MAX:
        raise CadError(f"{len(out) // 2} alignment points: more than cad's binary tables take", path, lineno)
    return out


def _check_target(t: bytes, path: str, lineno: int) -> None:
    if len(t) > U16_MAX:
        raise CadError(f"a target phrase of {len(t)} bytes: longer than cad's binary tables take", path, lineno)


class _Writer:
    """Records to a file, with each record's key CRC and offset kept for the index."""

    def __init__(self, fh, magic: bytes, num_scores: int, prune: int = 0):
        self.fh, self.magic, self.num_scores, self.prune = fh, magic, num_scores, prune
        self.crcs, self.offsets = array.array("I"), array.array("Q")
        self.at = HEADER_SIZE
        self.longest = 0
        fh.write(b"\0" * HEADER_SIZE)

    def record(self, key: bytes, body: bytes, path: str | None = None, line: int | None = None) -> None:
        """`path` and `line`: the text table and the line where the record's run began."""
        if len(key) > U16_MAX:
            raise CadError(f"a key of {len(key)} bytes: longer than cad's binary tables take", path, line)
        self.crcs.append(zlib.crc32(key))
        self.offsets.append(self.at)
        data = struct.pack("<H", len(key)) + key + body
        self.fh.write(data)
        self.at += len(data)

    def finish(self, stamp: tuple[int, int]) -> None:
        import numpy as np

        n = len(self.offsets)
        buckets = 1 << max(0, (n - 1).bit_length())
        crcs = np.frombuffer(self.crcs, dtype=np.uint32) if n else np.zeros(0, np.uint32)
        offsets = np.frombuffer(self.offsets, dtype=np.uint64) if n else np.zeros(0, np.uint64)
        bucket = crcs & np.uint32(buckets - 1)
        order = np.argsort(bucket, kind="stable")         # offsets increase: (bucket, offset) order
        starts = np.zeros(buckets + 1, dtype=np.uint64)
        starts[1:] = np.cumsum(np.bincount(bucket, minlength=buckets))
        pad = -self.at % 8
        index = self.at + pad
        entries = np.empty((n, 2), dtype=np.uint64)
        entries[:, 0], entries[:, 1] = crcs[order], offsets[order]
        self.fh.write(b"\0" * pad + starts.tobytes() + entries.tobytes())
        self.fh.seek(0)
        self.fh.write(HEADER.pack(self.magic, self.num_scores, self.longest, n, buckets, index, *stamp, self.prune))


def _scores(fields: list[str], n: int, what: str, path: str, lineno: int) -> bytes:
    parts = fields[2].split()
    if len(parts) != n:
        raise CadError(f"{len(parts)} scores, but {what}", path, lineno)
    try:
        return struct.pack(f"<{n}d", *(float(x) for x in parts))
    except ValueError:
        raise CadError(f"non-numeric score in {fields[2]!r}", path, lineno) from None


# Moses's filter-pt -n ranks a source phrase's entries by p(e|f), the third score (its -i 2)
PRUNE_SCORE = 2


def best_entries(scores: list[float], n: int) -> list[int]:
    """The indices of the `n` highest `scores`, the earlier first on a tie, in increasing order
    (the native engine asks this of a run with a NaN, which Python's sort leaves where it falls)."""
    return sorted(sorted(range(len(scores)), key=lambda i: -scores[i])[:n])


def open_kept_pairs(path: str | os.PathLike):
    """The file of kept pairs to write, gzipped when its name ends in .gz (cad's rule, which
    read_lines reads it by): at level 1, because it is a temporary that sets the disk's peak beside
    a large model's tables (1.9 GB of text for its 45 million pairs, 0.39 GB at level 1, which
    costs little time)."""
    if str(path).endswith(".gz"):
        return gzip.open(path, "wt", compresslevel=1, encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


class Pruner:
    """`cad binarize --prune N`, as Moses's `filter-pt -n N` (which binarize4moses2.perl runs with
    N=100 before binarizing): of a source phrase's entries, the N with the highest p(e|f). filter-pt
    leaves ties to nth_element; here the earlier line wins, and the kept lines stay in table order.
    The kept targets of each source phrase are written to `kept` (one line per source phrase;
    gzipped when the name ends in .gz), so that the reordering table keeps the same phrase pairs
    (`KeptPairs`)."""

    def __init__(self, n: int, kept: str | os.PathLike):
        self.n, self.pruned = n, 0
        self._kept = open_kept_pairs(kept)

    def __call__(self, src: str, run: list[tuple[float, str, bytes]]) -> list[bytes]:
        if len(run) > self.n:
            self.pruned += len(run) - self.n
            run = [run[i] for i in best_entries([score for score, _, _ in run], self.n)]
        self._kept.write(src + " ||| " + "\t".join(tgt for _, tgt, _ in run) + "\n")
        return [body for _, _, body in run]

    def close(self) -> None:
        self._kept.close()


class KeptPairs:
    """The phrase pairs a pruned phrase table kept (Pruner's file, gzipped or not as its name says),
    read in step with a reordering table sorted as the phrase table is (both by their lines' bytes,
    as Moses's and cad's training write them): the targets kept for each source phrase, or None
    for one the phrase table lacks."""

    def __init__(self, kept: str | os.PathLike, phrase_table: str = "the phrase table"):
        self._lines = read_lines(str(kept))
        self._phrase_table = phrase_table
        self._key: bytes | None = b""
        self._targets: set[str] = set()
        self._last = b""

    def targets(self, src: str, path: str, lineno: int) -> set[str] | None:
        want = (src + " ||| ").encode("utf-8")
        if want < self._last:
            raise CadError("the reordering table is not sorted as its lines' bytes (LC_ALL=C sort), so it "
                           "cannot be pruned in step with the phrase table: binarize without --prune", path, lineno)
        self._last = want
        while self._key is not None and self._key < want:
            line = next(self._lines, None)
            if line is None:
                self._key = None
                break
            key, _, tgts = line.partition(" ||| ")
            key_bytes = (key + " ||| ").encode("utf-8")
            if key_bytes <= self._key:
                raise CadError(f"{self._phrase_table} is not sorted as its lines' bytes (LC_ALL=C sort), so "
                               "its reordering table cannot be pruned in step: binarize without --prune")
            self._key, self._targets = key_bytes, set(tgts.split("\t"))
        if self._key == want:
            return self._targets
        return None


def _write_runs(text: str | os.PathLike, out: str | os.PathLike, magic: bytes, num_scores: int,
                entry: Callable[[list[str], str, int], tuple[str, bytes]], phrases: bool,
                keep: Callable[[str, list], list[bytes]] | None = None, prune: int = 0) -> int:
    """Write the text table `text` as binary table `out`, one record per run of lines with the same
    source phrase (`entry`: a line's fields to its source and its entry's bytes, or with `keep` to
    its source and a tuple that `keep` turns, a run at a time, into the entries kept); the number of
    lines read. `phrases`: the header keeps the longest source phrase (for span lookups)."""
    path = str(text)
    stamp = source_stamp(path)
    lines = 0
    with atomic_output(out, binary=True, compress=False) as fh:
        w = _Writer(fh, magic, num_scores, prune)
        run_src, run, run_line = None, [], 0

        def flush() -> None:
            kept = keep(run_src, run) if keep is not None and run else run
            if kept:
                w.record(run_src.encode("utf-8"), struct.pack("<I", len(kept)) + b"".join(kept), path, run_line)

        for lineno, line in enumerate(read_lines(path), 1):
            fields = line.split(" ||| ")
            if len(fields) < 3:
                raise CadError("expected 'source ||| target ||| scores'", path, lineno)
            src, e = entry(fields, path, lineno)
            if src != run_src:
                flush()
                run_src, run, run_line = src, [], lineno
                if phrases:
                    w.longest = max(w.longest, src.count(" ") + 1)
            run.append(e)
            lines += 1
        flush()
        w.finish(stamp)
    return lines


def binarize_phrase_table(text: str | os.PathLike, out: str | os.PathLike, num_scores: int, name: str = "",
                          pruner: Pruner | None = None) -> int:
    """Write the text phrase table `text` as a binary table `out`; the number of lines. `pruner`:
    keep only the best entries of each source phrase."""
    what = f"{name or 'the phrase table'} declares num-features={num_scores}"
    if pruner is not None and num_scores <= PRUNE_SCORE:
        raise CadError(f"--prune ranks by p(e|f), the third score, but {what}", str(text))

    def entry(fields: list[str], path: str, lineno: int) -> tuple[str, bytes]:
        src, tgt = fields[0].strip(), " ".join(fields[1].split())
        if not src or not tgt:
            raise CadError("empty source or target phrase", path, lineno)
        scores = _scores(fields, num_scores, what, path, lineno)
        pts = _points(fields[3], path, lineno) if len(fields) > 3 else []
        t = tgt.encode("utf-8")
        _check_target(t, path, lineno)
        body = scores + struct.pack("<H", len(t)) + t + struct.pack(f"<H{len(pts)}H", len(pts) // 2, *pts)
        if pruner is None:
            return src, body
        return src, (struct.unpack_from("<d", scores, 8 * PRUNE_SCORE)[0], tgt, body)

    return _write_runs(text, out, PHRASE_MAGIC, num_scores, entry, phrases=True, keep=pruner,
                       prune=pruner.n if pruner else 0)


def binarize_reordering_table(text: str | os.PathLike, out: str | os.PathLike, num_scores: int,
                              kept: KeptPairs | None = None, prune: int = 0) -> int:
    """Write the text reordering table `text` as a binary table `out`; the number of lines. `kept`:
    only the phrase pairs a pruned phrase table kept (`prune`: its N, for the header)."""
    def entry(fields: list[str], path: str, lineno: int) -> tuple[str, bytes]:
        scores = _scores(fields, num_scores, f"the reordering model needs {num_scores}", path, lineno)
        src, tgt = fields[0].strip(), fields[1].strip()
        t = tgt.encode("utf-8")
        _check_target(t, path, lineno)
        body = scores + struct.pack("<H", len(t)) + t
        if kept is None:
            return src, body
        targets = kept.targets(src, path, lineno)
        return src, (targets is not None and " ".join(tgt.split()) in targets, body)

    def keep(src: str, run: list) -> list[bytes]:
        return [body for wanted, body in run if wanted]

    return _write_runs(text, out, REORDERING_MAGIC, num_scores, entry, phrases=False,
                       keep=keep if kept is not None else None, prune=prune)


class BinaryTable:
    """A binary table memory-mapped: the records of a key, read when asked."""

    def __init__(self, path: str | os.PathLike, magic: bytes):
        self.path = str(path)
        try:
            with open(self.path, "rb") as fh:
                self._mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise CadError(f"cannot map the binary table: {exc}", self.path) from None
        if hasattr(mmap, "MADV_RANDOM"):
            self._mm.madvise(mmap.MADV_RANDOM)      # lookups jump about: no read-ahead around each
        if len(self._mm) < HEADER_SIZE:
            raise CadError("not a cad binary table (too short)", self.path)
        got, self.num_scores, self.longest, self.records, buckets, index, size, mtime, self.prune = \
            HEADER.unpack_from(self._mm, 0)
        if got != magic:
            raise CadError(f"not a cad binary {'phrase' if magic == PHRASE_MAGIC else 'reordering'} table "
                           f"(magic {got!r})", self.path)
        self.stamp = (size, mtime)
        self._mask = buckets - 1
        end = index + 8 * (buckets + 1) + 16 * self.records
        if end > len(self._mm) or buckets & self._mask:
            raise CadError("truncated or damaged binary table", self.path)
        view = memoryview(self._mm)
        self._starts = view[index:index + 8 * (buckets + 1)].cast("Q")
        self._entries = view[index + 8 * (buckets + 1):end].cast("Q")     # crc, offset, crc, offset, ...

    def offsets(self, key: bytes) -> list[int]:
        """The offsets of the bodies of the records of `key`, in file order."""
        crc = zlib.crc32(key)
        b = crc & self._mask
        out = []
        mm, n, entries = self._mm, len(key), self._entries
        for i in range(self._starts[b], self._starts[b + 1]):
            if entries[2 * i] == crc:
                off = entries[2 * i + 1]
                if mm[off:off + 2] == struct.pack("<H", n) and mm[off + 2:off + 2 + n] == key:
                    out.append(off + 2 + n)
        return out

    def keys(self) -> Iterator[tuple[bytes, int]]:
        """Every record's key and body offset, in file order."""
        for off in sorted(self._entries[1::2]):
            (n,) = struct.unpack_from("<H", self._mm, off)
            yield self._mm[off + 2:off + 2 + n], off + 2 + n


class BinaryPhraseTable(BinaryTable):
    def __init__(self, path: str | os.PathLike):
        super().__init__(path, PHRASE_MAGIC)
        self._scores = struct.Struct(f"<{self.num_scores}d")

    def entries(self, body: int) -> list[tuple[tuple[str, ...], tuple[float, ...], tuple[tuple[int, int], ...]]]:
        mm, unpack, size = self._mm, self._scores.unpack_from, self._scores.size
        (count,) = struct.unpack_from("<I", mm, body)
        at = body + 4
        out = []
        for _ in range(count):
            scores = unpack(mm, at)
            at += size
            (n,) = struct.unpack_from("<H", mm, at)
            words = tuple(mm[at + 2:at + 2 + n].decode("utf-8").split(" "))
            at += 2 + n
            (k,) = struct.unpack_from("<H", mm, at)
            pts = struct.unpack_from(f"<{2 * k}H", mm, at + 2)
            at += 2 + 4 * k
            out.append((words, scores, tuple(zip(pts[0::2], pts[1::2]))))
        return out

    def lookup(self, source: str):
        """The entries of a source phrase, in the text table's order (empty when it has none)."""
        out = []
        for body in self.offsets(source.encode("utf-8")):
            out.extend(self.entries(body))
        return out


class BinaryReorderingTable(BinaryTable):
    def __init__(self, path: str | os.PathLike):
        super().__init__(path, REORDERING_MAGIC)
        self._scores = struct.Struct(f"<{self.num_scores}d")

    def lookup(self, source: str) -> dict[str, tuple[float, ...]]:
        """The scores of every phrase pair of a source phrase, by target (the last line of a pair
        counts)."""
        mm, unpack, size = self._mm, self._scores.unpack_from, self._scores.size
        out: dict[str, tuple[float, ...]] = {}
        for body in self.offsets(source.encode("utf-8")):
            (count,) = struct.unpack_from("<I", mm, body)
            at = body + 4
            for _ in range(count):
                scores = unpack(mm, at)
                (n,) = struct.unpack_from("<H", mm, at + size)
                at += size + 2
                out[mm[at:at + n].decode("utf-8")] = scores
                at += n
        return out
