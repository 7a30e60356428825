"""`cad translate`'s input and output around the DocumentTranslator: the input's lines grouped
into documents and cut into the segments that are translated (a blank line none, a line over
--max-sentence-length words several or none, cad/core/segments.py), and each document's
translation written as soon as it is done, line for line with the input, flushed: the output,
the word alignment and the pronoun trace (its sentences and tokens those of the input lines, its
documents named by their --docs ids)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Callable, TextIO

from cad.core.docs import read_docs
from cad.core.segments import long_line
from cad.core.textio import read_lines, streamed_output
from cad.translate.trace import TraceRecord, trace_json


@dataclass
class InputLine:
    text: str                                  # as given
    tokens: list[str]                          # the source words (tokenized with --raw)
    pieces: list[tuple[int, int]] | None      # None: translated whole (or blank); []: passed through


@dataclass
class InputDocument:
    index: int
    doc_id: str                                # the --docs id
    lines: list[InputLine]
    segments: list[list[str]] = field(default_factory=list)          # what is translated
    origin: list[tuple[int, int]] = field(default_factory=list)     # segment -> (line, first token)

    @property
    def key(self) -> str:
        """The name the translator and the resolvers know the document by: its index, as always."""
        return str(self.index)


def read_input(text: str, docs: str | None, tokenize: Callable[[str], list[str]] | None, max_len: int,
               long_mode: str) -> list[InputDocument]:
    """The documents of `text` (one sentence a line; `docs`: first_line<TAB>id boundaries), each
    line tokenized by `tokenize` (--raw) or split at white space, cut into segments."""
    lines = list(read_lines(text))
    starts = [(d.first_line, d.doc_id) for d in read_docs(docs, len(lines))] if docs else [(0, "0")]
    return [document_of(k, doc_id, lines[first:starts[k + 1][0] if k + 1 < len(starts) else len(lines)], first,
                        tokenize, max_len, long_mode, text)
            for k, (first, doc_id) in enumerate(starts)]


def document_of(index: int, doc_id: str, lines: list[str], first: int, tokenize: Callable[[str], list[str]] | None,
                max_len: int, long_mode: str, name: str) -> InputDocument:
    """One document of `lines` (its first line the input's `first`, for the warnings that `name`
    the input), each line tokenized by `tokenize` or split at white space, cut into segments: what
    `cad translate` and `cad serve` translate alike."""
    doc = InputDocument(index, doc_id, [])
    for i, line in enumerate(lines):
        tokens = tokenize(" ".join(line.split())) if tokenize is not None and line.strip() else line.split()
        pieces = long_line(tokens, max_len, long_mode, f"{name}:{first + i + 1}")
        doc.lines.append(InputLine(line, tokens, pieces))
        spans = [(0, len(tokens))] if pieces is None and tokens else (pieces or [])
        for s, e in spans:
            doc.segments.append(tokens[s:e])
            doc.origin.append((len(doc.lines) - 1, s))
    return doc


@dataclass
class DocumentLines:
    """A document's translation line for line with its input: the output lines (post-processed by
    `finish`), the decoder's tokens, the word alignments (Moses i-j) and the trace records, their
    sentences and tokens those of the lines."""

    outputs: list[str]
    tokens: list[str]
    alignments: list[str]
    traces: list[TraceRecord]


def document_lines(doc: InputDocument, outputs: list[str], alignments: list[str], traces: list[TraceRecord],
                   finish: Callable[[list[str]], str] = " ".join) -> DocumentLines:
    """`outputs`, `alignments` and `traces` of the document's segments, in their order, joined
    into its lines (a line cut into pieces gets their words and shifted alignments; a line passed
    through is copied, aligned word for word)."""
    words: list[list[str]] = [[] for _ in doc.lines]
    points: list[list[str]] = [[] for _ in doc.lines]
    for (line, start), out, al in zip(doc.origin, outputs, alignments):
        shift = len(words[line])
        words[line].extend(out.split())
        for p in al.split():
            s, t = p.split("-")
            points[line].append(f"{int(s) + start}-{int(t) + shift}")
    got = DocumentLines([], [], [], [line_trace(doc, tr) for tr in traces])
    for k, line in enumerate(doc.lines):
        if line.pieces == []:
            got.outputs.append(line.text.strip())
            got.tokens.append(" ".join(line.tokens))
            points[k] = [f"{i}-{i}" for i in range(len(line.tokens))]
        else:
            got.outputs.append(finish(words[k]) if line.tokens else "")
            got.tokens.append(" ".join(words[k]))
        got.alignments.append(" ".join(points[k]))
    return got


def line_trace(doc: InputDocument, tr: TraceRecord) -> TraceRecord:
    """A trace record of the document's segments made one of its lines (in place), named by the
    document's --docs id and index."""
    line, start = doc.origin[tr.sentence]
    tr.sentence, tr.index = line, tr.index + start
    if tr.antecedent_sentence is not None and 0 <= tr.antecedent_sentence < len(doc.origin):
        tr.antecedent_sentence = doc.origin[tr.antecedent_sentence][0]
    tr.doc, tr.doc_index = doc.doc_id, doc.index
    return tr


class TranslationWriter:
    """Each document's lines, alignment and trace records, written and flushed as it is done.
    `finish`: the post-processing of an output line's words (detruecasing, detokenizing)."""

    def __init__(self, out: str, alignment_out: str | None, trace: str | None,
                 finish: Callable[[list[str]], str] | None = None, tokens_out: str | None = None):
        self._stack = contextlib.ExitStack()
        self.out = self._stack.enter_context(streamed_output(out))
        # the decoder's tokens in its model's case: what the alignment and the trace index (cad view reads them)
        self.tokens = self._stack.enter_context(streamed_output(tokens_out)) if tokens_out else None
        self.alignments = self._stack.enter_context(streamed_output(alignment_out)) if alignment_out else None
        self.trace = self._stack.enter_context(streamed_output(trace)) if trace else None
        self.finish = finish or " ".join
        self.sentences = 0

    def __enter__(self) -> "TranslationWriter":
        return self

    def __exit__(self, *exc) -> bool | None:
        return self._stack.__exit__(*exc)

    def write(self, doc: InputDocument, outputs: list[str], alignments: list[str],
              traces: list[TraceRecord]) -> None:
        """`outputs`, `alignments` and `traces` of the document's segments, in their order."""
        got = document_lines(doc, outputs, alignments, traces if self.trace is not None else [], self.finish)
        self.out.writelines(x + "\n" for x in got.outputs)
        if self.tokens is not None:
            self.tokens.writelines(x + "\n" for x in got.tokens)
        if self.alignments is not None:
            self.alignments.writelines(x + "\n" for x in got.alignments)
        if self.trace is not None:
            self.trace.writelines(trace_json(tr) + "\n" for tr in got.traces)
        for fh in (self.out, self.tokens, self.alignments, self.trace):
            if fh is not None:
                fh.flush()
        self.sentences += len(doc.lines)
