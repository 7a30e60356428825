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
    out = []
    for k, (first, doc_id) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        doc = InputDocument(k, doc_id, [])
        for i in range(first, end):
            tokens = tokenize(" ".join(lines[i].split())) if tokenize is not None and lines[i].strip() \
                else lines[i].split()
            pieces = long_line(tokens, max_len, long_mode, f"{text}:{i + 1}")
            doc.lines.append(InputLine(lines[i], tokens, pieces))
            spans = [(0, len(tokens))] if pieces is None and tokens else (pieces or [])
            for s, e in spans:
                doc.segments.append(tokens[s:e])
                doc.origin.append((len(doc.lines) - 1, s))
        out.append(doc)
    return out


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
        words: list[list[str]] = [[] for _ in doc.lines]
        points: list[list[str]] = [[] for _ in doc.lines]
        for (line, start), out, al in zip(doc.origin, outputs, alignments):
            shift = len(words[line])
            words[line].extend(out.split())
            for p in al.split():
                s, t = p.split("-")
                points[line].append(f"{int(s) + start}-{int(t) + shift}")
        for k, line in enumerate(doc.lines):
            if line.pieces == []:
                self.out.write(line.text.strip() + "\n")
                points[k] = [f"{i}-{i}" for i in range(len(line.tokens))]
                if self.tokens is not None:
                    self.tokens.write(" ".join(line.tokens) + "\n")
            else:
                self.out.write((self.finish(words[k]) if line.tokens else "") + "\n")
                if self.tokens is not None:
                    self.tokens.write(" ".join(words[k]) + "\n")
            if self.alignments is not None:
                self.alignments.write(" ".join(points[k]) + "\n")
        for tr in traces:
            self.trace_line(doc, tr)
        for fh in (self.out, self.tokens, self.alignments, self.trace):
            if fh is not None:
                fh.flush()
        self.sentences += len(doc.lines)

    def trace_line(self, doc: InputDocument, tr: TraceRecord) -> None:
        if self.trace is None:
            return
        line, start = doc.origin[tr.sentence]
        tr.sentence, tr.index = line, tr.index + start
        if tr.antecedent_sentence is not None and 0 <= tr.antecedent_sentence < len(doc.origin):
            tr.antecedent_sentence = doc.origin[tr.antecedent_sentence][0]
        tr.doc, tr.doc_index = doc.doc_id, doc.index
        self.trace.write(trace_json(tr) + "\n")
