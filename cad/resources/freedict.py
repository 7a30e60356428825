"""English→French translations from FreeDict's English-French dictionary in dictd format (Debian's
`dict-freedict-eng-fra`: /usr/share/dictd/freedict-eng-fra.index and .dict.dz, located by
cad/downloads/debian.py), for antecedent heads the translation left in English.

The .index has one line an entry: the headword as dictd folds it (lowercased, only letters, digits
and spaces: *Anglo‐Saxon* is `anglosaxon`), a tab, the entry's byte offset in the uncompressed
.dict, a tab, its length. Both numbers are written in dictd's base 64: the digits
`A-Za-z0-9+/` (A = 0, / = 63), most significant first, with no padding, so `LOB` is
11·64² + 14·64 + 1; this is not RFC 4648 decoding of bytes. Entries whose headword starts with
`00database` are dictd's metadata. A headword may have several entries (*able* as noun and as adjective).

The .dict.dz is dictzip: a gzip member whose FEXTRA field holds an `RA` subfield (version, chunk
length, chunk count, each chunk's compressed size), the text compressed in chunks that each inflate
on their own. The reader inflates only the chunks an entry spans (a plain gzip file without the
subfield is inflated whole).

An entry of eng-fra 2022.04.21 (the TEI of FreeDict 0.1.6 through its dictd export) reads

    cat /kæt/
    1. mégère, peau de vache, rosse
    2. chat

the headword and its pronunciation between slashes (and, on one headword, a part of speech as `<n>`),
then one line of translations separated by commas, or numbered senses. No translation states a
gender in this edition; a mark `<fem>`, `<masc>` (or `<n, fem>`, `<f>`, `<m>`) after a translation,
as other FreeDict exports write them, is kept. Senses come in the dictionary's order, not by frequency.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from cad.core.errors import CadError
from cad.core.textio import read_lines
from cad.downloads import debian

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {c: i for i, c in enumerate(B64)}
_GENDER_MARKS = {"masc": "masc", "m": "masc", "fem": "fem", "f": "fem", "neut": "neut"}
_HEADWORD = re.compile(r"^(?P<word>.*?)(?: /(?P<pron>[^/]*)/)?(?: <(?P<pos>[^>]*)>)?$")
_SENSE = re.compile(r"^(\d+)\. (.*)$")
_MARK = re.compile(r"\s*<([^>]*)>\s*$")
_ITEMS = re.compile(r",(?![^<>]*>)")          # the commas between translations, not in a <n, fem> mark


def b64_number(text: str) -> int:
    """A dictd base-64 number: `B` is 1, `BA` is 64, `LOB` is 45953."""
    if not text:
        raise ValueError("empty number")
    value = 0
    for ch in text:
        digit = _B64_VALUE.get(ch)
        if digit is None:
            raise ValueError(f"{ch!r} is no dictd base-64 digit")
        value = value * 64 + digit
    return value


def b64_text(value: int) -> str:
    """The dictd base-64 writing of a number (what dictfmt puts in an .index)."""
    if value < 0:
        raise ValueError("negative number")
    digits = []
    while True:
        value, rest = divmod(value, 64)
        digits.append(B64[rest])
        if value == 0:
            return "".join(reversed(digits))


def fold(word: str) -> str:
    """A headword as the .index writes it: lowercased, characters other than letters, digits and
    spaces dropped (dictd's default, without --allchars), spaces collapsed."""
    return " ".join("".join(c for c in word.lower() if c.isalnum() or c.isspace()).split())


@dataclass(frozen=True)
class IndexEntry:
    headword: str
    offset: int
    length: int
    line: int


def read_index(path: str | os.PathLike) -> Iterator[IndexEntry]:
    """The entries of a dictd .index, with their line numbers."""
    p = str(path)
    for lineno, line in enumerate(read_lines(p), 1):
        if not line:
            continue
        cols = line.split("\t")
        if len(cols) != 3:
            raise CadError(f"expected headword, offset and length separated by tabs, found {len(cols)} "
                           "columns", p, lineno)
        try:
            offset, length = b64_number(cols[1]), b64_number(cols[2])
        except ValueError as exc:
            raise CadError(f"bad offset or length ({exc})", p, lineno) from None
        yield IndexEntry(cols[0], offset, length, lineno)


class DictzipFile:
    """Random access to the text of a .dict.dz (or a plain gzip file, inflated whole once)."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        try:
            with open(self.path, "rb") as fh:
                self._data = fh.read()
        except FileNotFoundError:
            raise CadError("file not found", self.path) from None
        self._chunk_len = 0
        self._chunks: list[tuple[int, int]] = []       # (start, compressed size) of each chunk
        self._whole: bytes | None = None
        self._cache: tuple[int, bytes] = (-1, b"")
        self._read_header()

    def _read_header(self) -> None:
        d = self._data
        if len(d) < 18 or d[:2] != b"\x1f\x8b" or d[2] != 8:
            raise CadError("not a gzip file (dictzip is gzip with random-access chunks)", self.path)
        flags, pos = d[3], 10
        ra = None
        if flags & 4:                 # FEXTRA: subfields, one of them dictzip's RA
            (xlen,) = struct.unpack_from("<H", d, pos)
            extra, pos = d[pos + 2:pos + 2 + xlen], pos + 2 + xlen
            i = 0
            while i + 4 <= len(extra):
                sid, (slen,) = extra[i:i + 2], struct.unpack_from("<H", extra, i + 2)
                if sid == b"RA":
                    ra = extra[i + 4:i + 4 + slen]
                i += 4 + slen
        for bit in (8, 16):           # FNAME, FCOMMENT: zero-terminated
            if flags & bit:
                pos = d.index(b"\0", pos) + 1
        if flags & 2:                 # FHCRC
            pos += 2
        if ra is None:
            try:
                self._whole = zlib.decompress(d, wbits=31)
            except zlib.error as exc:
                raise CadError(f"cannot inflate: {exc}", self.path) from None
            return
        version, self._chunk_len, count = struct.unpack_from("<HHH", ra, 0)
        if version != 1 or len(ra) < 6 + 2 * count:
            raise CadError(f"dictzip RA field of version {version} with {count} chunks does not fit its "
                           f"{len(ra)} bytes", self.path)
        for size in struct.unpack_from(f"<{count}H", ra, 6):
            self._chunks.append((pos, size))
            pos += size
        if pos > len(d):
            raise CadError("dictzip chunk sizes run past the end of the file (truncated?)", self.path)

    def _chunk(self, i: int) -> bytes:
        if self._cache[0] != i:
            start, size = self._chunks[i]
            try:
                # each chunk was flushed with Z_FULL_FLUSH: a raw deflate stream of its own
                text = zlib.decompressobj(-15).decompress(self._data[start:start + size])
            except zlib.error as exc:
                raise CadError(f"cannot inflate chunk {i}: {exc}", self.path) from None
            self._cache = (i, text)
        return self._cache[1]

    def read(self, offset: int, length: int) -> bytes:
        """`length` bytes of the uncompressed text from `offset`."""
        if self._whole is not None:
            out = self._whole[offset:offset + length]
        else:
            first, last = offset // self._chunk_len, (offset + length - 1) // self._chunk_len
            if last >= len(self._chunks):
                raise CadError(f"bytes {offset}-{offset + length} lie past the text's end", self.path)
            joined = b"".join(self._chunk(i) for i in range(first, last + 1))
            start = offset - first * self._chunk_len
            out = joined[start:start + length]
        if len(out) != length:
            raise CadError(f"bytes {offset}-{offset + length} lie past the text's end", self.path)
        return out


@dataclass(frozen=True)
class Translation:
    text: str                  # as the entry writes it (*peau de vache*, *rendez‐vous*)
    sense: int                 # 1-based; 1 for an entry without numbered senses
    gender: str | None = None  # "masc" | "fem" | "neut" where the entry marks it


@dataclass(frozen=True)
class Entry:
    headword: str
    pronunciation: str | None
    pos: str | None
    translations: tuple[Translation, ...]


def _translation(item: str, sense: int) -> Translation:
    gender = None
    m = _MARK.search(item)
    if m:
        marks = [t.strip() for t in m.group(1).split(",")]
        gender = next((_GENDER_MARKS[t] for t in marks if t in _GENDER_MARKS), None)
        item = item[:m.start()]
    return Translation(" ".join(item.split()), sense, gender)


def parse_entry(text: str, path: str = "<entry>", line: int | None = None) -> Entry:
    """One entry's text: the headword line, then translations on one line or in numbered senses."""
    lines = [ln for ln in text.strip("\n").split("\n") if ln.strip()]
    if not lines:
        raise CadError("empty entry", path, line)
    m = _HEADWORD.match(lines[0].strip())
    out: list[Translation] = []
    for body in lines[1:]:
        body = body.strip()
        s = _SENSE.match(body)
        sense, items = (int(s.group(1)), s.group(2)) if s else (1, body)
        for item in _ITEMS.split(items):
            if item.strip():
                out.append(_translation(item, sense))
    return Entry(m.group("word"), m.group("pron"), m.group("pos"), tuple(out))


class FreeDict:
    """A dictd dictionary: folded English headword → its entries and French translations."""

    def __init__(self, index: str | os.PathLike, dict_dz: str | os.PathLike):
        self.index_path = str(index)
        self._text = DictzipFile(dict_dz)
        self._entries: dict[str, list[IndexEntry]] = {}
        for e in read_index(index):
            if e.headword.startswith(("00database", "00-database")):
                continue
            self._entries.setdefault(fold(e.headword), []).append(e)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and fold(word) in self._entries

    def headwords(self) -> list[str]:
        """The folded headwords, in the .index's order."""
        return list(self._entries)

    def entries(self, word: str) -> list[Entry]:
        """The entries of an English word (folded as dictd folds it), in the .index's order."""
        out = []
        for e in self._entries.get(fold(word), ()):
            raw = self._text.read(e.offset, e.length)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise CadError(f"the entry at offset {e.offset} is not UTF-8", self.index_path, e.line) from None
            out.append(parse_entry(text, self.index_path, e.line))
        return out

    def translations(self, word: str) -> list[Translation]:
        """Every translation of every entry of `word`, without repeats, in the dictionary's order."""
        seen: set[str] = set()
        out = []
        for entry in self.entries(word):
            for t in entry.translations:
                if t.text not in seen:
                    seen.add(t.text)
                    out.append(t)
        return out

    def french(self, word: str) -> list[str]:
        """The French translations of `word` as text, e.g. french('mouse') == ['souris']."""
        return [t.text for t in self.translations(word)]


def load(index: str | os.PathLike | None = None, dict_dz: str | os.PathLike | None = None) -> FreeDict:
    """FreeDict eng-fra (default: Debian's files, found by cad.downloads.debian)."""
    if index is None or dict_dz is None:
        files = debian.package_files(debian.FREEDICT_ENG_FRA)
        index, dict_dz = files["freedict-eng-fra.index"], files["freedict-eng-fra.dict.dz"]
    for f in (index, dict_dz):
        if not Path(f).is_file():
            raise CadError("file not found", str(f))
    return FreeDict(index, dict_dz)


@lru_cache(maxsize=1)
def _english_french() -> FreeDict:
    return load()


def english_french(word: str) -> list[str]:
    """English→French's dictionary (cad/lang/pairs.py names it): the French translations of an
    English word, Debian's dict-freedict-eng-fra loaded once."""
    return _english_french().french(word)
