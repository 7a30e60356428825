"""What `cad view` reads, each input read once and checked: texts, document boundaries, word
alignments, pronoun traces (`cad translate --trace`) and coreference records (`cad coref`), every
error naming the file and line."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from cad.core.alignment import parse_alignment
from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.textio import read_lines
from coref.records import PronounResolution, parse_record

# the trace fields the page shows in their own places; any other field is listed as it is
KNOWN_TRACE_FIELDS = {"doc", "sentence", "index", "pronoun", "antecedent", "antecedent_sentence",
                      "antecedent_translation", "features", "pass", "target", "candidates", "bundles",
                      "target_class", "gender_source"}


@dataclass
class SystemSpec:
    """One translation to show: its text (tokens), its source-translation alignment, and
    optionally its pronoun trace."""

    name: str
    translation: str
    alignment: str
    trace: str | None = None

    @classmethod
    def parse(cls, spec: str) -> "SystemSpec":
        name, sep, rest = spec.partition("=")
        parts = rest.split(":")
        if not sep or not name or len(parts) not in (2, 3) or not all(parts):
            raise CadError(f"--system {spec!r} must be NAME=TRANSLATION:ALIGNMENT or NAME=TRANSLATION:ALIGNMENT:TRACE")
        return cls(name, parts[0], parts[1], parts[2] if len(parts) == 3 else None)


@dataclass
class Document:
    index: int
    id: str
    first: int          # its first sentence in the whole set (0-based)
    size: int           # its number of sentences

    def sentence(self, global_line: int) -> int:
        return global_line - self.first


@dataclass
class TraceEntry:
    """One trace record, placed: the global sentence and token of its pronoun, the record as
    read, and the file line it came from."""

    line: int
    index: int
    record: dict = field(default_factory=dict)


def read_texts(path: str, tokenize=None) -> list[list[str]]:
    """One sentence a line, as tokens (`tokenize`: raw text to tokens)."""
    lines = list(read_lines(path))
    if tokenize is not None:
        return [tokenize(line) for line in lines]
    return [line.split() for line in lines]


def check_length(path: str, n_lines: int, source: str, n: int) -> None:
    if n_lines != n:
        raise CadError(f"has {n_lines} lines but the source {source} has {n}", path, min(n_lines, n) + 1)


def read_alignments(path: str, src: list[list[str]], tgt: list[list[str]], source: str
                    ) -> list[list[tuple[int, int]]]:
    lines = list(read_lines(path))
    check_length(path, len(lines), source, len(src))
    return [parse_alignment(line, len(src[k]), len(tgt[k]), path, k + 1) for k, line in enumerate(lines)]


def read_documents(path: str | None, n: int) -> list[Document]:
    if path is None:
        return [Document(0, "0", 0, n)]
    starts = read_docs(path, n)
    bounds = [d.first_line for d in starts] + [n]
    return [Document(k, d.doc_id, d.first_line, bounds[k + 1] - d.first_line) for k, d in enumerate(starts)]


def _doc_resolver(values: list[tuple[int, str]], docs: list[Document], path: str):
    """How a file's `doc` fields name documents: by 0-based index (as `cad translate` and `cad
    coref` write them), else by the .docs file's ids when these are unique and name every one."""
    if all(v.isascii() and v.isdigit() and int(v) < len(docs) for _, v in values):
        return lambda v: docs[int(v)]
    by_id = {}
    for d in docs:
        by_id.setdefault(d.id, []).append(d)
    for lineno, v in values:
        if len(by_id.get(v, ())) != 1:
            what = "names no document" if v not in by_id else f"names {len(by_id[v])} documents"
            raise CadError(f"doc {v!r} {what} (give a document's 0-based index, or a unique id of --docs)",
                           path, lineno)
    return lambda v: by_id[v][0]


def _int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _finite(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise ValueError(f"{text} is not a finite number")
    return x


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def loads_finite(line: str):
    """JSON with finite numbers only (the page's data is JSON, which has no NaN or infinity)."""
    return json.loads(line, parse_float=_finite, parse_constant=_no_constant)


STRING_FIELDS = ("antecedent", "antecedent_translation", "features", "pass", "target", "target_class", "gender_source")


def _parse_trace_line(line: str, path: str, lineno: int) -> dict:
    try:
        rec = loads_finite(line)
    except ValueError as exc:        # json.JSONDecodeError included
        raise CadError(f"not a trace record: {exc}", path, lineno) from None
    if not isinstance(rec, dict):
        raise CadError("not a trace record: expected a JSON object", path, lineno)
    if not isinstance(rec.get("doc", "0"), (str, int)) or isinstance(rec.get("doc"), bool):
        raise CadError("not a trace record: doc must be a string", path, lineno)
    if not _int(rec.get("sentence")) or not _int(rec.get("index")):
        raise CadError("not a trace record: sentence and index must be non-negative integers", path, lineno)
    if not isinstance(rec.get("pronoun"), str):
        raise CadError("not a trace record: pronoun must be a string", path, lineno)
    if not isinstance(rec.get("candidates", []), list) or not all(
            isinstance(c, list) and len(c) >= 2 and isinstance(c[0], str) and isinstance(c[1], (int, float))
            for c in rec.get("candidates", [])):
        raise CadError("not a trace record: candidates must be [text, probability] pairs", path, lineno)
    bundles = rec.get("bundles") or {}
    if not isinstance(bundles, dict) or not all(isinstance(w, (int, float)) for w in bundles.values()):
        raise CadError("not a trace record: bundles must map a bundle to its weight", path, lineno)
    s = rec.get("antecedent_sentence")
    if s is not None and not _int(s):
        raise CadError("not a trace record: antecedent_sentence must be a non-negative integer", path, lineno)
    wrong = [k for k in STRING_FIELDS if rec.get(k) is not None and not isinstance(rec[k], str)]
    if wrong:
        raise CadError(f"not a trace record: {', '.join(wrong)} must be a string or null", path, lineno)
    rec["doc"] = str(rec.get("doc", "0"))
    return rec


def _place(path: str, lineno: int, doc: Document, sentence: int, index: int, token: str,
           src: list[list[str]]) -> int:
    """The global sentence of a record's pronoun, checked against the source."""
    if sentence >= doc.size:
        raise CadError(f"sentence {sentence} is past the end of document {doc.index} ({doc.size} sentences)",
                       path, lineno)
    k = doc.first + sentence
    if index >= len(src[k]):
        raise CadError(f"token {index} is past the end of sentence {sentence} of document {doc.index} "
                       f"({len(src[k])} tokens)", path, lineno)
    if src[k][index].lower() != token.lower():
        raise CadError(f"the pronoun {token!r} is {src[k][index]!r} at token {index} of sentence {sentence} of "
                       f"document {doc.index}: this file is not about this source", path, lineno)
    return k


def read_trace(path: str, docs: list[Document], src: list[list[str]]) -> dict[tuple[int, int], TraceEntry]:
    """{(global sentence, token): the record}, checked against the documents and source."""
    rows = [(lineno, _parse_trace_line(line, path, lineno))
            for lineno, line in enumerate(read_lines(path), 1) if line.strip()]
    doc_of = _doc_resolver([(lineno, r["doc"]) for lineno, r in rows], docs, path) if rows else None
    out: dict[tuple[int, int], TraceEntry] = {}
    for lineno, rec in rows:
        doc = doc_of(rec["doc"])
        k = _place(path, lineno, doc, rec["sentence"], rec["index"], rec["pronoun"], src)
        s = rec.get("antecedent_sentence")
        if s is not None and s >= doc.size:
            raise CadError(f"antecedent_sentence {s} is past the end of document {doc.index}", path, lineno)
        if (k, rec["index"]) in out:
            raise CadError(f"a second record for the pronoun at sentence {rec['sentence']}, token {rec['index']} "
                           f"of document {doc.index} (the first: line {out[k, rec['index']].line})", path, lineno)
        out[k, rec["index"]] = TraceEntry(lineno, rec["index"], rec)
    return out


def read_coref(path: str, docs: list[Document], src: list[list[str]]) -> dict[tuple[int, int], PronounResolution]:
    """Coreference records (`cad coref`), as {(global sentence, token): record}; their candidates'
    sentences stay relative to the document."""
    rows = [(lineno, parse_record(line, path, lineno)) for lineno, line in enumerate(read_lines(path), 1)
            if line.strip()]
    doc_of = _doc_resolver([(lineno, r.doc) for lineno, r in rows], docs, path) if rows else None
    out: dict[tuple[int, int], PronounResolution] = {}
    for lineno, r in rows:
        doc = doc_of(r.doc)
        k = _place(path, lineno, doc, r.sentence, r.index, r.token, src)
        for c in r.candidates:
            if c.sentence >= doc.size or c.end > len(src[doc.first + c.sentence]):
                raise CadError(f"candidate {c.text!r} lies outside document {doc.index}", path, lineno)
        out[k, r.index] = r
    return out


def read_report(path: str) -> dict:
    """A `cad eval report` (or `cad cm experiment`) JSON report: its systems' rows."""
    text = "\n".join(read_lines(path))
    try:
        report = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CadError(f"not a JSON report: {exc.msg}", path, exc.lineno) from None
    except RecursionError:
        raise CadError("not a JSON report: nested too deep", path) from None
    rows = report.get("systems") if isinstance(report, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and isinstance(r.get("system"), str)
                                             and isinstance(r.get("cases"), dict) for r in rows):
        raise CadError("not a cad eval report: expected {\"systems\": [{\"system\": ..., \"cases\": ...}, ...]}",
                       path)
    return report
