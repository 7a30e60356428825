"""cad's binary phrase and reordering tables: written once by `cad binarize`, memory-mapped and
read on demand, one source phrase (or phrase pair) at a time, so that a decoder answers a
sentence without reading or filtering the whole table first.

One file per table, little-endian:

- a header of 128 bytes: magic (`CADPT001` for a phrase table, `CADRT001` for a reordering
  table), number of scores, longest source phrase in words, number of records, number of hash
  buckets (a power of two), offset of the index, and the size and modification time (ns) of the
  text table it was made from (a later text table makes the binary one stale);
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
HEADER = struct.Struct("<8sIIQQQQQ")      # magic, scores, longest source, records, buckets, index, size, mtime
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


def _points(text: str, path: str, lineno: int) -> list[int]:
    out = []
    for tok in text.split():
        a, sep, b = tok.partition("-")
        if not sep or not is_uint(a) or not is_uint(b):
            raise CadError(f"malformed alignment point {tok!r}", path, lineno)
        out += [int(a), int(b)]
    return out


class _Writer:
    """Records to a file, with each record's key CRC and offset kept for the index."""

    def __init__(self, fh, magic: bytes, num_scores: int):
        self.fh, self.magic, self.num_scores = fh, magic, num_scores
        self.crcs, self.offsets = array.array("I"), array.array("Q")
        self.at = HEADER_SIZE
        self.longest = 0
        fh.write(b"\0" * HEADER_SIZE)

    def record(self, key: bytes, body: bytes) -> None:
        if len(key) > 0xFFFF:
            raise CadError(f"a key of {len(key)} bytes: longer than cad's binary tables take")
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
        self.fh.write(HEADER.pack(self.magic, self.num_scores, self.longest, n, buckets, index, *stamp))


def _scores(fields: list[str], n: int, what: str, path: str, lineno: int) -> bytes:
    parts = fields[2].split()
    if len(parts) != n:
        raise CadError(f"{len(parts)} scores, but {what}", path, lineno)
    try:
        return struct.pack(f"<{n}d", *(float(x) for x in parts))
    except ValueError:
        raise CadError(f"non-numeric score in {fields[2]!r}", path, lineno) from None


def _write_runs(text: str | os.PathLike, out: str | os.PathLike, magic: bytes, num_scores: int,
                entry: Callable[[list[str], str, int], tuple[str, bytes]], phrases: bool) -> int:
    """Write the text table `text` as binary table `out`, one record per run of lines with the same
    source phrase (`entry`: a line's fields to its source and its entry's bytes); the number of lines.
    `phrases`: the header keeps the longest source phrase (the phrase table's, for span lookups)."""
    path = str(text)
    stamp = source_stamp(path)
    lines = 0
    with atomic_output(out, binary=True, compress=False) as fh:
        w = _Writer(fh, magic, num_scores)
        run_src, run = None, []

        def flush() -> None:
            if run:
                w.record(run_src.encode("utf-8"), struct.pack("<I", len(run)) + b"".join(run))

        for lineno, line in enumerate(read_lines(path), 1):
            fields = line.split(" ||| ")
            if len(fields) < 3:
                raise CadError("expected 'source ||| target ||| scores'", path, lineno)
            src, e = entry(fields, path, lineno)
            if src != run_src:
                flush()
                run_src, run = src, []
                if phrases:
                    w.longest = max(w.longest, src.count(" ") + 1)
            run.append(e)
            lines += 1
        flush()
        w.finish(stamp)
    return lines


def binarize_phrase_table(text: str | os.PathLike, out: str | os.PathLike, num_scores: int, name: str = "") -> int:
    """Write the text phrase table `text` as a binary table `out`; the number of lines."""
    what = f"{name or 'the phrase table'} declares num-features={num_scores}"

    def entry(fields: list[str], path: str, lineno: int) -> tuple[str, bytes]:
        src, tgt = fields[0].strip(), " ".join(fields[1].split())
        if not src or not tgt:
            raise CadError("empty source or target phrase", path, lineno)
        scores = _scores(fields, num_scores, what, path, lineno)
        pts = _points(fields[3], path, lineno) if len(fields) > 3 else []
        t = tgt.encode("utf-8")
        return src, scores + struct.pack("<H", len(t)) + t + struct.pack(f"<H{len(pts)}H", len(pts) // 2, *pts)

    return _write_runs(text, out, PHRASE_MAGIC, num_scores, entry, phrases=True)


def binarize_reordering_table(text: str | os.PathLike, out: str | os.PathLike, num_scores: int) -> int:
    """Write the text reordering table `text` as a binary table `out`; the number of lines."""
    def entry(fields: list[str], path: str, lineno: int) -> tuple[str, bytes]:
        scores = _scores(fields, num_scores, f"the reordering model needs {num_scores}", path, lineno)
        t = fields[1].strip().encode("utf-8")
        return fields[0].strip(), scores + struct.pack("<H", len(t)) + t

    return _write_runs(text, out, REORDERING_MAGIC, num_scores, entry, phrases=False)


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
        got, self.num_scores, self.longest, self.records, buckets, index, size, mtime = \
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
