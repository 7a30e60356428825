"""The tables a moses.ini names: phrase tables, the lexicalized reordering table and the n-gram
language model, read on Moses's scale.

Phrase and reordering table values enter as natural logs floored at -100 (Moses's LOWEST_SCORE);
language model log10 probabilities are converted to natural logs. Features read these tables;
the tables know no feature.

Each table is read from its text file (restricted to the input's phrases when the input is known)
or, where `cad binarize` wrote one, from its binary form (cad/moses/binarized.py; KenLM's binary
format for the LM), memory-mapped and read one phrase at a time: a `PhraseDictionaryCadBinary`
line or a LexicalReordering/KENLM path naming a binary file, or the binary twin beside a text
table (`phrase-table.gz` → `phrase-table.cadphr`, `reordering-table.gz` → `reordering-table.cadlexr`,
`lm.arpa` → `lm.binlm`, as Moses finds `.minphr` and `.minlexr` files) when it was made from the
text file as it is now. Both give the same entries in the same order and the same floats.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass

import kenlm

from cad.core.errors import CadError
from cad.core.textio import is_stdio, is_uint, read_lines
from cad.moses import binarize_native
from cad.moses.binarized import (BINARY_PHRASE_TABLE, KENLM_MAGIC, PHRASE_MAGIC, PHRASE_SUFFIX, REORDERING_MAGIC,
                                 REORDERING_SUFFIX, BinaryPhraseTable, BinaryReorderingTable, lm_twin, magic_of,
                                 source_stamp, twin_path)
from cad.moses.ini import Feature

log = logging.getLogger(__name__)

LOWEST_SCORE = -100.0
LN10 = math.log(10.0)
ESTIMATES_KEPT = 1 << 15         # LM estimates of target phrases kept (they recur across source phrases)
POINTS_KEPT = 1 << 14            # parsed alignments kept (a few patterns make most of a table's)
NO_FLOOR = 1e-40                 # above it, ln x > -93: LOWEST_SCORE cannot apply


def floor_log(x: float) -> float:
    # max(log(x), LOWEST_SCORE) for x > 0, without the call to max (it runs per table score)
    if x > 0:
        v = math.log(x)
        if v > LOWEST_SCORE:
            return v
    return LOWEST_SCORE


def scored_lines(path: str, wanted: set[str] | None, n_scores: int,
                 what: str) -> Iterator[tuple[int, str, list[str]]]:
    """Lines `src ||| tgt ||| scores ...` whose source is wanted, their scores checked: (line number,
    source, fields)."""
    for lineno, line in enumerate(read_lines(path), 1):
        fields = line.split(" ||| ")
        if len(fields) < 3:
            raise CadError("expected 'source ||| target ||| scores'", path, lineno)
        src = fields[0].strip()
        if wanted is not None and src not in wanted:
            continue
        parts = fields[2].split()
        if len(parts) != n_scores:
            raise CadError(f"{len(parts)} scores, but {what}", path, lineno)
        try:
            for x in parts:
                float(x)
        except ValueError:
            raise CadError(f"non-numeric score in {fields[2]!r}", path, lineno) from None
        yield lineno, src, fields


def native_entries(path: str, wanted: set[str] | None, n_scores: int, what: str,
                   phrase: bool) -> tuple[dict[str, str], int] | None:
    """The wanted lines of a text phrase table (`phrase`) or reordering table read by the compiled
    reader (cad/moses/_binarize.cpp, read_text_entries), as the loaders below keep them: (source ->
    its entries' text, the most words a kept source phrase has); None where it is not built. The
    same entries and errors as the Python loop, which took most of a large model's load."""
    if not binarize_native.available() or is_stdio(path):
        return None
    return binarize_native.read_text_entries(path, n_scores, what, wanted, phrase)


@dataclass
class TargetEntry:
    words: tuple[str, ...]
    scores: tuple[float, ...]            # natural-log table scores
    alignment: tuple[tuple[int, int], ...]


def binary_of(path: str, magic: bytes, suffix: str, feature: Feature, config_path: str | None) -> str | None:
    """The binary form to read for the table at `path`: the file itself when it is binary, else its
    twin when it was made from the text file as it is now (a stale one is reported and left)."""
    if magic_of(path) == magic:
        return path
    twin = twin_path(path, suffix)
    if magic_of(twin) != magic:
        return None
    table = BinaryPhraseTable(twin) if magic == PHRASE_MAGIC else BinaryReorderingTable(twin)
    if table.stamp != source_stamp(path):
        log.warning("%s: %s was made from another %s (run cad binarize again): reading the text table",
                    feature.name, twin, path)
        return None
    if table.prune:
        log.info("%s: reading %s, which keeps the %d best entries of each source phrase (cad binarize --prune)",
                 feature.name, twin, table.prune)
    return str(twin)


class _BinaryEntries:
    """A binary phrase table behind the text loader's dict interface: the entries of a source
    phrase (of the wanted ones, when the input is known, as the text loader keeps them)."""

    def __init__(self, table: BinaryPhraseTable, wanted: set[str] | None = None):
        self.table, self.wanted = table, wanted

    def get(self, src: str, default=None):
        if self.wanted is not None and src not in self.wanted:
            return default
        found = self.table.lookup(src)
        if not found:
            return default
        return [TargetEntry(words, tuple(floor_log(x) for x in scores), align) for words, scores, align in found]

    def __contains__(self, src: str) -> bool:
        return self.get(src) is not None

    def items(self) -> Iterator[tuple[str, list[TargetEntry]]]:
        keys = sorted(self.wanted) if self.wanted is not None else \
            dict.fromkeys(k.decode("utf-8") for k, _ in self.table.keys())
        for src in keys:
            entries = self.get(src)
            if entries:
                yield src, entries


class _BinaryScores:
    """A binary reordering table behind the text loader's dict interface. The decoder asks for the
    pairs of one source phrase together (every entry of the phrase table's phrase, as they are
    made into options), so the last source phrase's scores are kept."""

    def __init__(self, table: BinaryReorderingTable, wanted: set[str] | None = None):
        self.table, self.wanted = table, wanted
        self._source: str | None = None
        self._scores: dict[str, tuple[float, ...]] = {}

    def get(self, key: tuple[str, str], default=None):
        src, tgt = key
        if self.wanted is not None and src not in self.wanted:
            return default
        if src != self._source:
            self._source, self._scores = src, self.table.lookup(src)
        found = self._scores.get(tgt)
        return default if found is None else tuple(floor_log(x) for x in found)

    def get_many(self, src: str, targets: list[str]) -> list[tuple[float, ...] | None]:
        """`get((src, t))` of each target."""
        return [self.get((src, t)) for t in targets]


class PhraseTable:
    """PhraseDictionaryMemory: `src ||| tgt ||| scores [||| alignment [||| counts ...]]`, or its
    binary form (PhraseDictionaryCadBinary, or the twin of the text file)."""

    def __init__(self, feature: Feature, config_path: str | None):
        self.feature = feature
        self.name = feature.name
        self.num_scores = feature.num_features
        self.table_limit = int(feature.args.get("table-limit", "20"))
        self.path = feature.path
        if not self.path:
            raise CadError(f"{feature.name} has no path=", config_path, feature.line)
        if not os.path.exists(self.path):
            raise CadError(f"{feature.name}: phrase table {self.path} not found", config_path, feature.line)
        self.entries: _TextEntries | _BinaryEntries = _TextEntries({})
        self.max_source_length = 0
        self.binary = binary_of(self.path, PHRASE_MAGIC, PHRASE_SUFFIX, feature, config_path)
        if feature.type == BINARY_PHRASE_TABLE and self.binary != self.path:
            raise CadError(f"{feature.name}: {self.path} is not a binary phrase table (cad binarize)",
                           config_path, feature.line)
        if self.binary is not None:
            table = BinaryPhraseTable(self.binary)
            if table.num_scores != self.num_scores:
                raise CadError(f"{feature.name} declares num-features={self.num_scores}, but {self.binary} has "
                               f"{table.num_scores} scores", config_path, feature.line)
            self.entries = _BinaryEntries(table)
            self.max_source_length = table.longest

    def load(self, wanted: set[str] | None) -> None:
        if isinstance(self.entries, _BinaryEntries):
            self.entries.wanted = wanted           # read on demand
            return
        what = f"{self.name} declares num-features={self.num_scores}"
        read = native_entries(self.path, wanted, self.num_scores, what, phrase=True)
        if read is not None:
            self.entries, self.max_source_length = _TextEntries(read[0]), max(self.max_source_length, read[1])
            return
        lines: dict[str, list[str]] = {}
        for lineno, src, fields in scored_lines(self.path, wanted, self.num_scores, what):
            tgt, align = _checked_target(fields, self.path, lineno)      # checked now, kept as text
            lines.setdefault(src, []).append(f"{tgt} ||| {fields[2]} ||| {align}")
            self.max_source_length = max(self.max_source_length, src.count(" ") + 1)
        self.entries = _TextEntries({src: "\n".join(x) for src, x in lines.items()})


def _checked_target(fields: list[str], path: str | None, lineno: int) -> tuple[str, str]:
    """The target phrase and the alignment of a phrase-table line (its fields split at ' ||| '),
    checked, each with its words or points one space apart."""
    tgt = fields[1].split()
    if not fields[0].strip() or not tgt:
        raise CadError("empty source or target phrase", path, lineno)
    points = fields[3].split() if len(fields) > 3 else []
    for tok in points:
        a, sep, b = tok.partition("-")
        if not sep or not is_uint(a) or not is_uint(b):
            raise CadError(f"malformed alignment point {tok!r}", path, lineno)
    return " ".join(tgt), " ".join(points)


class _TextEntries:
    """A text phrase table's entries, checked when read and kept as text per source phrase (one
    string instead of several objects per entry), made into entries when asked for: the decoder
    asks once per source phrase and keeps the table-limited options it makes of them."""

    def __init__(self, lines: dict[str, str]):
        self._lines = lines
        self._points: dict[str, tuple[tuple[int, int], ...]] = {}     # alignments recur: one tuple each

    def text(self, src: str) -> str | None:
        """The entries of `src` as kept: `target ||| scores ||| alignment` lines (cad/decoder/ranking.py
        reads them in the compiled core)."""
        return self._lines.get(src)

    def get(self, src: str, default=None):
        text = self._lines.get(src)
        return default if text is None else self.parse(text.split("\n"))

    def parse(self, lines: list[str]) -> list[TargetEntry]:
        """The entries of these lines of the kept text."""
        out = []
        log = math.log
        points = self._points
        for line in lines:
            tgt, scores, align = line.split(" ||| ")
            alignment = points.get(align)
            if alignment is None:
                if len(points) >= POINTS_KEPT:
                    points.clear()
                alignment = points[align] = tuple(tuple(map(int, p.split("-"))) for p in align.split())
            # floor_log inline where the log cannot reach the floor (it runs per table score)
            out.append(TargetEntry(tuple(tgt.split()),
                                   tuple([log(x) if x > NO_FLOOR else floor_log(x) for x in map(float, scores.split())]),
                                   alignment))
        return out

    def __contains__(self, src: str) -> bool:
        return src in self._lines

    def __len__(self) -> int:
        return len(self._lines)

    def items(self) -> Iterator[tuple[str, list[TargetEntry]]]:
        for src in self._lines:
            yield src, self.get(src)

    def __eq__(self, other) -> bool:
        return dict(self.items()) == (dict(other.items()) if hasattr(other, "items") else other)


class ReorderingTable:
    """LexicalReordering wbe-msd-bidirectional-fe: `src ||| tgt ||| 6 probabilities`."""

    def __init__(self, feature: Feature, config_path: str | None):
        kind = feature.args.get("type", "")
        parts = kind.split("-")
        if "msd" not in parts or "bidirectional" not in parts or "fe" not in parts:
            raise CadError(f"{feature.name}: only msd-bidirectional-fe reordering models are supported, not {kind!r}",
                           config_path, feature.line)
        if feature.num_features != 6:
            raise CadError(f"{feature.name}: msd-bidirectional needs 6 scores", config_path, feature.line)
        self.feature = feature
        self.path = feature.path
        if self.path and not os.path.exists(self.path) and os.path.exists(self.path + REORDERING_SUFFIX):
            self.path += REORDERING_SUFFIX          # Moses's convention: the path without the binary suffix
        if not self.path or not os.path.exists(self.path):
            raise CadError(f"{feature.name}: reordering table {self.path} not found", config_path, feature.line)
        self.scores: _TextScores | _BinaryScores = _TextScores({})
        self.binary = binary_of(self.path, REORDERING_MAGIC, REORDERING_SUFFIX, feature, config_path)
        if self.binary is not None:
            table = BinaryReorderingTable(self.binary)
            if table.num_scores != 6:
                raise CadError(f"{feature.name}: {self.binary} has {table.num_scores} scores, msd-bidirectional "
                               "needs 6", config_path, feature.line)
            self.scores = _BinaryScores(table)

    def load(self, wanted: set[str] | None) -> None:
        if isinstance(self.scores, _BinaryScores):
            self.scores.wanted = wanted
            return
        read = native_entries(self.path, wanted, 6, "the reordering model needs 6", phrase=False)
        if read is not None:
            self.scores = _TextScores(read[0])
            return
        lines: dict[str, list[str]] = {}
        for _, src, fields in scored_lines(self.path, wanted, 6, "the reordering model needs 6"):
            lines.setdefault(src, []).append("\n".join(f"{fields[1].strip()}\t{fields[2]}".rsplit("\t", 1)))
        self.scores = _TextScores({src: "\n".join(x) for src, x in lines.items()})


class _TextScores:
    """A text reordering table's scores, checked when read and kept as text per source phrase (one
    string instead of a key tuple and a tuple of floats per entry): each entry's target and scores
    on a line each (`target<TAB>scores` split at its last tab), so that a phrase's thousands of
    entries become a dict in one call. The decoder asks for the pairs of one source phrase
    together, as _BinaryScores says: the last source phrase's scores are kept."""

    def __init__(self, lines: dict[str, str]):
        self._lines = lines
        self._source: str | None = None
        self._scores: dict[str, str] = {}

    def get(self, key: tuple[str, str], default=None):
        src, tgt = key
        if src != self._source:
            text = self._lines.get(src)
            self._source = src
            pairs = iter(text.split("\n")) if text is not None else iter(())
            self._scores = dict(zip(pairs, pairs))
        found = self._scores.get(tgt)
        if found is None:
            return default
        log = math.log
        return tuple([log(x) if x > NO_FLOOR else floor_log(x) for x in map(float, found.split())])

    def get_many(self, src: str, targets: list[str]) -> list[tuple[float, ...] | None]:
        """`get((src, t))` of each target: with the compiled module, the source's entries are read
        once for all of them and none is made into a string that was not asked for (a common
        phrase has tens of thousands; the decoder asks for its twenty kept ones)."""
        text = self._lines.get(src)
        if text is None or not binarize_native.available():
            return [self.get((src, t)) for t in targets]
        log = math.log
        return [None if found is None else tuple([log(x) if x > NO_FLOOR else floor_log(x)
                                                  for x in map(float, found.split())])
                for found in binarize_native.pick_pairs(text, targets)]

    def __len__(self) -> int:
        return sum((text.count("\n") + 1) // 2 for text in self._lines.values())


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """kenlm prints loading chatter on the C stderr; keep it off the user's terminal."""
    try:
        fd = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(fd, 2)
        os.close(fd)


def lm_binary_of(path: str) -> str | None:
    """The KenLM binary to load for the LM at `path`: itself when binary, else its twin when it is
    newer than the ARPA file."""
    if magic_of(path) == KENLM_MAGIC:
        return path
    twin = lm_twin(path)
    if magic_of(twin) != KENLM_MAGIC:
        return None
    if twin.stat().st_mtime_ns < os.stat(path).st_mtime_ns:
        log.warning("%s is older than %s (run cad binarize again): reading the ARPA file", twin, path)
        return None
    return str(twin)


class LanguageModel:
    def __init__(self, feature: Feature, config_path: str | None):
        self.feature = feature
        path = feature.path
        if not path or not os.path.exists(path):
            raise CadError(f"{feature.name}: language model {path} not found", config_path, feature.line)
        binary = lm_binary_of(path)
        config = kenlm.Config()
        if binary is not None:
            path = binary
            config.load_method = kenlm.LoadMethod.LAZY      # memory-mapped, pages read as queried
        self.path = path
        try:
            with quiet_stderr():
                self.model = kenlm.Model(path, config)
        except Exception as exc:
            raise CadError(f"{feature.name}: kenlm cannot load {path}: {exc}", config_path, feature.line) from None
        self.order = self.model.order
        self._estimates: dict[tuple[str, ...], float] = {}

    def begin(self) -> kenlm.State:
        s = kenlm.State()
        self.model.BeginSentenceWrite(s)
        return s

    def score_words(self, state: kenlm.State, words) -> tuple[float, kenlm.State]:
        """Natural-log score of `words` after `state`, and the state after them."""
        total = 0.0
        base = self.model.BaseScore
        State = kenlm.State
        for w in words:
            out = State()
            total += base(state, w, out)
            state = out
        return total * LN10, state

    def estimate(self, words: tuple[str, ...]) -> float:
        """Context-free estimate of a phrase, as Moses's future cost uses (cached: phrases recur)."""
        v = self._estimates.get(words)
        if v is None:
            if len(self._estimates) >= ESTIMATES_KEPT:
                self._estimates.clear()         # bounded: it would keep every phrase ever asked for
            s = kenlm.State()
            self.model.NullContextWrite(s)
            v = self._estimates[words] = self.score_words(s, words)[0]
        return v
