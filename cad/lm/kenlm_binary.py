"""An ARPA model written in KenLM's binary format ("probing": build_binary's default), which
KenLM (the `kenlm` module, Moses) memory-maps instead of parsing, and which cad writes itself
(`cad binarize`), without KenLM's build_binary.

The layout follows KenLM's source (lm/binary_format.cc, lm/vocab.cc, lm/search_hashed.cc,
util/probing_hash_table.hh, format version 5, probing search version 0), all little-endian:

- the header: the magic line and sanity values, then order, probing multiplier (1.5), model type
  0 (probing), has-vocabulary, search version, and the n-gram counts, padded to 8 bytes;
- the vocabulary: version and bound, padded to 8, then a linear-probing table of (MurmurHash64A of
  the word, word index) entries (12 bytes), max(count + 1, 1.5 * count) buckets, the ideal bucket
  being hash modulo the number of buckets; <unk> is word 0 and is not in the table;
- the unigrams: (log10 probability, log10 back-off) floats by word index, one spare entry;
- each middle order: a probing table of (hash of the reversed n-gram, probability, back-off)
  entries (16 bytes); the highest order: (hash, probability) entries (12 bytes); the n-gram's hash
  combines the word indices from the last word backwards (CombineWordHash);
- the words, each followed by a NUL byte, in index order.

KenLM stores two flags in the floats' sign bits, as its ARPA reader sets them: a probability's
sign bit is cleared when a longer n-gram has this n-gram as its suffix (the state may extend
left), and a back-off of zero is +0.0 when the n-gram is the context of a longer one, -0.0 when
not (the state may then drop it). Entries are inserted in the ARPA file's order, so that the
tables are those build_binary writes, byte for byte (tests/test_binarize.py checks it where a
build_binary is at hand).

Not supported (cad then says so; the ARPA file still loads, slowly): ARPA files without <unk>,
n-grams whose suffix or context is missing from the lower order (pruned models, which KenLM fills
with blank entries), positive log probabilities.
"""

from __future__ import annotations

import os
import struct
from fractions import Fraction

import numpy as np

from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines

MAGIC = b"mmap lm http://kheafield.com/code format version 5\n\0"
PROBING_MULTIPLIER = 1.5
M64 = (1 << 64) - 1
_K1 = np.uint64(8978948897894561157)
_K2 = np.uint64(17894857484156487943)
SIGN = np.uint32(0x80000000)
UNKNOWN = ("<unk>", "<UNK>")


def murmur_hash64a(data: bytes, seed: int = 0) -> int:
    """KenLM's vocabulary hash (util/murmur_hash.cc, MurmurHash64A)."""
    m, r = 0xC6A4A7935BD1E995, 47
    h = (seed ^ (len(data) * m)) & M64
    n = len(data) // 8
    for (k,) in struct.iter_unpack("<Q", data[:8 * n]):
        k = (k * m) & M64
        k ^= k >> r
        k = (k * m) & M64
        h ^= k
        h = (h * m) & M64
    tail = data[8 * n:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * m) & M64
    h ^= h >> r
    h = (h * m) & M64
    h ^= h >> r
    return h


def _combine(current: np.ndarray, word: np.ndarray) -> np.ndarray:
    """CombineWordHash, over arrays (uint64 arithmetic wraps as C++'s does)."""
    with np.errstate(over="ignore"):
        return (current * _K1) ^ ((word.astype(np.uint64) + np.uint64(1)) * _K2)


def ngram_keys(ids: np.ndarray) -> np.ndarray:
    """The hash of each row of word indices (w1 ... wn): from wn back to w1."""
    key = ids[:, -1].astype(np.uint64)
    for j in range(ids.shape[1] - 2, -1, -1):
        key = _combine(key, ids[:, j])
    return key


def to_float32(texts: list[str], path: str) -> np.ndarray:
    """The float nearest each decimal, as KenLM's reader rounds it (correctly rounded: through a
    double, with the rare decimal whose double falls exactly between two floats settled exactly)."""
    try:
        d = np.array([float(t) for t in texts], dtype=np.float64)
    except ValueError as exc:
        raise CadError(f"not a number: {exc}", path) from None
    f = d.astype(np.float32)
    up = np.nextafter(f, np.float32(np.inf)).astype(np.float64)
    down = np.nextafter(f, np.float32(-np.inf)).astype(np.float64)
    f64 = f.astype(np.float64)
    for i in np.nonzero((d == (f64 + up) / 2) | (d == (f64 + down) / 2))[0]:
        exact = Fraction(texts[i])
        lo, hi = sorted((f64[i], up[i] if d[i] > f64[i] else down[i]))
        mid = (Fraction(lo) + Fraction(hi)) / 2
        if exact != mid:
            f[i] = np.float32(hi if exact > mid else lo)
    return f


def _set_sign(values: np.ndarray) -> None:
    values.view(np.uint32)[:] |= SIGN


def _unset_sign(values: np.ndarray, where: np.ndarray) -> None:
    bits = values.view(np.uint32)
    bits[where] &= ~SIGN


def _extend(backoffs: np.ndarray, where: np.ndarray) -> None:
    """SetExtension: a back-off of -0.0 becomes +0.0 (the n-gram is a context)."""
    bits = backoffs.view(np.uint32)
    rows = np.asarray(where)
    hit = rows[bits[rows] == SIGN]
    bits[hit] = 0


class _Order:
    def __init__(self, ids: np.ndarray, probs: np.ndarray, backoffs: np.ndarray | None):
        self.ids, self.probs, self.backoffs = ids, probs, backoffs
        self.keys = ngram_keys(ids)
        self._sorted = np.argsort(self.keys, kind="stable")
        self._sorted_keys = self.keys[self._sorted]

    def rows_of(self, keys: np.ndarray, what: str, path: str) -> np.ndarray:
        at = np.searchsorted(self._sorted_keys, keys)
        at = np.minimum(at, len(self._sorted_keys) - 1)
        missing = self._sorted_keys[at] != keys
        if missing.any():
            raise CadError(f"an n-gram's {what} is missing from the lower order (a pruned model): KenLM's "
                           "binary format is not written for it by cad (build_binary can)", path)
        return self._sorted[at]


def read_arpa_arrays(path: str) -> tuple[list[str], list[int], list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]]:
    """(words by index, declared counts, per order (word indices, log10 probabilities, back-offs
    or None for the highest order)) of an ARPA file, the floats as KenLM reads them."""
    lines = enumerate(read_lines(path), 1)
    counts: list[int] = []
    for lineno, line in lines:
        s = line.strip()
        if s.startswith("ngram "):
            n, _, c = s[6:].partition("=")
            if not (n.isdigit() and c.isdigit()) or int(n) != len(counts) + 1:
                raise CadError(f"bad count line {s!r}", path, lineno)
            counts.append(int(c))
        elif s == "\\1-grams:":
            break
        elif s and s != "\\data\\" and not s.startswith("#"):
            raise CadError(f"unexpected line {s!r} before the n-grams", path, lineno)
    if len(counts) < 2:
        raise CadError("KenLM's binary format needs a model of order 2 or more", path)
    vocab: dict[str, int] = {}
    words = ["<unk>"]
    orders = []
    for n in range(1, len(counts) + 1):
        probs, backs, grams = [], [], []
        for lineno, line in lines:
            if not line.strip():
                if len(probs) == counts[n - 1]:
                    break
                continue
            fields = line.split("\t")
            toks = fields[1].split() if len(fields) > 1 else []
            if len(toks) != n or len(fields) > 3 or (len(fields) == 3 and n == len(counts)):
                raise CadError(f"not a {n}-gram line: {line!r}", path, lineno)
            probs.append(fields[0])
            backs.append(fields[2] if len(fields) == 3 else "-0.0")
            if n == 1:
                if toks[0] in UNKNOWN:
                    grams.append(0)
                    continue
                if toks[0] in vocab:
                    raise CadError(f"the word {toks[0]!r} is listed twice", path, lineno)
                vocab[toks[0]] = len(words)
                grams.append(len(words))
                words.append(toks[0])
            else:
                try:
                    grams.append([vocab[t] for t in toks])
                except KeyError as exc:
                    raise CadError(f"the word {exc.args[0]!r} is not among the unigrams", path, lineno) from None
        if len(probs) != counts[n - 1]:
            raise CadError(f"\\{n}-grams: {len(probs)} n-grams, the header says {counts[n - 1]}", path)
        for lineno, line in lines:
            if line.strip() == (f"\\{n + 1}-grams:" if n < len(counts) else "\\end\\"):
                break
            if line.strip():
                raise CadError(f"unexpected line {line.strip()!r}", path, lineno)
        p = to_float32(probs, path)
        if (p > 0).any():
            raise CadError("a positive log probability (KenLM refuses it too)", path)
        b = None if n == len(counts) else to_float32(backs, path)
        if b is not None:
            b[b == 0] = np.float32(-0.0)          # every zero back-off starts as "no extension"
        orders.append((np.array(grams, dtype=np.uint32).reshape(len(probs), n), p, b))
    if not (orders[0][0][:, 0] == 0).any():
        raise CadError("the model has no <unk>: KenLM's binary format is not written for it by cad", path)
    return words, counts, orders


def _buckets(count: int) -> int:
    """ProbingHashTable::Size: max(entries + 1, multiplier * entries), the product in floats."""
    return max(count + 1, int(np.float32(PROBING_MULTIPLIER) * np.float32(count)))


def _probing_table(records: np.ndarray, keys: np.ndarray, entries: int | None = None) -> bytes:
    """Linear probing from hash modulo buckets, in the records' order (KenLM's insertion order);
    the table sized for `entries` (default: the records)."""
    buckets = _buckets(len(records) if entries is None else entries)
    occupied = bytearray(buckets)
    positions = []
    for p in (keys % np.uint64(buckets)).tolist():
        while occupied[p]:
            p += 1
            if p == buckets:
                p = 0
        occupied[p] = 1
        positions.append(p)
    table = np.zeros(buckets, dtype=records.dtype)
    table[positions] = records
    return table.tobytes()


def _header(counts: list[int]) -> bytes:
    sanity = MAGIC.ljust(56, b"\0") + struct.pack("<fffIIIQ", 0.0, 1.0, -0.5, 1, 0xFFFFFFFF, 0, 1)
    fixed = struct.pack("<B3xfIB3xI", len(counts), PROBING_MULTIPLIER, 0, 1, 0)
    head = sanity + fixed + struct.pack(f"<{len(counts)}Q", *counts)
    return head.ljust(-(-len(head) // 8) * 8, b"\0")


VOCAB_ENTRY = np.dtype([("key", "<u8"), ("value", "<u4")])
MIDDLE_ENTRY = np.dtype([("key", "<u8"), ("prob", "<f4"), ("backoff", "<f4")])
LONGEST_ENTRY = np.dtype([("key", "<u8"), ("prob", "<f4")])


def write_kenlm_binary(arpa: str | os.PathLike, out: str | os.PathLike) -> None:
    """Write the ARPA model `arpa` as KenLM's probing binary `out` (what `build_binary arpa out`
    writes)."""
    path = str(arpa)
    words, counts, orders = read_arpa_arrays(path)
    uni_ids, uni_probs, uni_backs = orders[0]
    unigram = np.zeros((counts[0] + 1, 2), dtype=np.float32)
    unigram[uni_ids[:, 0], 0] = uni_probs
    unigram[uni_ids[:, 0], 1] = uni_backs
    if abs(float(unigram[0, 1])) > 1e-7:
        raise CadError(f"the back-off of <unk> should be zero, not {float(unigram[0, 1])}", path)
    levels = [None] + [_Order(ids, p, b) for ids, p, b in orders[1:]]
    for level in levels[1:]:
        _set_sign(level.probs)
    for n in range(2, len(counts) + 1):
        ids = levels[n - 1].ids
        if n == 2:
            _unset_sign(unigram[:, 0], ids[:, 1])       # views of the table: set in place
            _extend(unigram[:, 1], ids[:, 0])
        else:
            lower = levels[n - 2]
            _unset_sign(lower.probs, lower.rows_of(ngram_keys(ids[:, 1:]), "suffix", path))
            _extend(lower.backoffs, lower.rows_of(ngram_keys(ids[:, :-1]), "context", path))
    vocab = np.zeros(len(words) - 1, dtype=VOCAB_ENTRY)
    vocab["key"] = [murmur_hash64a(w.encode("utf-8")) for w in words[1:]]
    vocab["value"] = np.arange(1, len(words), dtype=np.uint32)
    parts = [_header(counts), struct.pack("<II", 0, len(words)),
             _probing_table(vocab, vocab["key"], counts[0]), unigram.tobytes()]
    for level in levels[1:-1]:
        rec = np.zeros(len(level.keys), dtype=MIDDLE_ENTRY)
        rec["key"], rec["prob"], rec["backoff"] = level.keys, level.probs, level.backoffs
        parts.append(_probing_table(rec, level.keys))
    top = levels[-1]
    rec = np.zeros(len(top.keys), dtype=LONGEST_ENTRY)
    rec["key"], rec["prob"] = top.keys, top.probs
    parts.append(_probing_table(rec, top.keys))
    parts.append(b"".join(w.encode("utf-8") + b"\0" for w in words))
    with atomic_output(out, binary=True, compress=False) as fh:
        for part in parts:
            fh.write(part)
