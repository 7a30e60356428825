"""Truecasing as Moses's pipeline does it (scripts/recaser/train-truecaser.perl, truecase.perl,
detruecase.perl), through sacremoses's port of those scripts (MosesTruecaser, MosesDetruecaser).

Training counts, for every word not at the start of a sentence, the forms it is written in; the
model file is Moses's (`best (count/total) other (count) ...` per word). Truecasing gives the first
word of a sentence its most frequent form and leaves a later word alone when that form of it was
seen (truecase.perl's KNOWN; sacremoses's `use_known=True`), else gives it its most frequent form.
A document written without case (the lowercased SATED part of the shared corpus) would teach that
every name is lowercase: training skips it (see has_case). A corpus without any case gives an empty
model; truecasing with it lowercases, so that a model trained on such a corpus (which is then a
lowercased model) gets the lowercased input it was trained on (truecase.perl would leave the input
as it is, capitals the model never saw included).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Iterable

from cad.core.docs import read_docs
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines
from cad.corpus.prepare import Tokenizer, clean_tokens
from cad.corpus.truecase_tokens import LineTruecaser, WeightLearner
from cad.moses.ini import parse_config

# sacremoses is imported where a model is read or written: it takes about half a second to load,
# and the tools around the decoder import this module for ModelCase even for a lowercased model

_COUNT = re.compile(r"^\((\d+)(?:/(\d+))?\)$")


def has_case(sentences: Iterable[list[str]]) -> bool:
    """Whether a document was written with case: more than half of its sentences begin with a
    capital letter. "Any capital letter at all" is not enough: the SATED release lowercased ASCII
    letters only, and 140 of its documents keep an *États-Unis* or a sentence-initial *Ça*."""
    starts = capitals = 0
    for s in sentences:
        first = next((ch for t in s for ch in t if ch.isalpha()), None)
        if first is not None:
            starts += 1
            capitals += first.isupper()
    return 2 * capitals > starts


def train_truecaser(documents: Iterable[list[list[str]]], out: str | os.PathLike,
                    by_token: bool = True) -> tuple[int, int]:
    """Write a Moses truecasing model of the documents that have case; (documents used, skipped).
    `by_token` False: sacremoses on every token, the reference the cached way (truecase_tokens) is
    tested against."""
    from sacremoses import MosesTruecaser

    learner = MosesTruecaser()
    casing: dict[str, dict[str, int]] = {}
    used = skipped = 0
    # every weight is 1: the forms are counted (a Counter keeps them in order of first sight), and
    # put under their lowercased word after, each word's forms in that order, as counted one by one
    seen: Counter[str] = Counter()
    count = WeightLearner(learner).counted if by_token else None
    for doc in documents:
        if not has_case(doc):
            skipped += 1
            continue
        used += 1
        for sent in doc:
            if count is not None:
                seen.update(count(sent))
                continue
            for low, form, weight in learner.learn_truecase_weights(sent):
                word = casing.setdefault(low, {})
                word[form] = word.get(form, 0) + weight
    for form, c in seen.items():
        casing.setdefault(form.lower(), {})[form] = c
    with atomic_output(out) as fh:
        # words in sorted order and, within a word, forms by count, ties by first occurrence
        # (train-truecaser.perl leaves both orders to Perl's hash order)
        for low in sorted(casing):
            forms = sorted(casing[low].items(), key=lambda x: -x[1])
            total = sum(c for _, c in forms)
            fh.write(" ".join(f"{w} ({c}/{total})" if i == 0 else f"{w} ({c})"
                              for i, (w, c) in enumerate(forms)) + "\n")
    return used, skipped


class Truecaser:
    """A Moses truecasing model (`cad truecase train`'s or train-truecaser.perl's file). `by_token`
    False: sacremoses on every line, the reference the cached way (truecase_tokens) is tested against."""

    def __init__(self, path: str | os.PathLike, by_token: bool = True):
        from sacremoses import MosesTruecaser

        self.path = str(path)
        # checked here with the line named: sacremoses's loader raises a bare ValueError
        for lineno, line in enumerate(read_lines(path), 1):
            fields = line.split()
            if not fields or len(fields) % 2 or not all(_COUNT.match(c) for c in fields[1::2]):
                raise CadError("not a truecasing model line (word (count/total) [word (count)] ...)", path, lineno)
        self._model = MosesTruecaser(load_from=self.path)
        self.empty = not self._model.model["best"]
        self._line = LineTruecaser(self._model) if by_token else None

    def truecase(self, tokens: list[str]) -> list[str]:
        if not tokens:
            return []
        if self.empty:
            return [t.lower() for t in tokens]
        if self._line is not None:
            return self._line(tokens)
        return self._model.truecase(" ".join(tokens), use_known=True)


def recase_file(case, text: str | os.PathLike, out: str | os.PathLike) -> None:
    """Write `text` with `case` (a Truecaser's truecase, or detruecase) applied to each line."""
    with atomic_output(out) as fh:
        for line in read_lines(text):
            fh.write(" ".join(case(line.split())) + "\n")


def detruecase(tokens: list[str]) -> list[str]:
    """detruecase.perl: the first word of each sentence in the line capitalized."""
    from sacremoses import MosesDetruecaser

    return MosesDetruecaser().detruecase(" ".join(tokens)) if tokens else []


def text_documents(text: str | os.PathLike, docs: str | os.PathLike | None) -> Iterable[list[list[str]]]:
    """The documents of a tokenized text, streamed: split at the starts of a .docs file, or one
    document per line without one."""
    starts = iter([d.first_line for d in read_docs(docs)][1:]) if docs else None
    nxt = next(starts, None) if starts is not None else None
    doc: list[list[str]] = []
    for i, line in enumerate(read_lines(text)):
        if starts is None:
            yield [line.split()]
            continue
        if i == nxt:
            yield doc
            doc, nxt = [], next(starts, None)
        doc.append(line.split())
    if nxt is not None:
        raise CadError(f"a document starts at line {nxt + 1}, after the end of {text}", docs)
    if doc:
        yield doc


def model_truecase_file(cfg, lang: str) -> str | None:
    """The truecase-model.<lang> that `cad train` writes beside a model's phrase table (moses.ini
    parsed, or its path), or None: the model was trained lowercased."""
    if isinstance(cfg, (str, os.PathLike)):
        cfg = parse_config(str(cfg))
    tables = [f.path for f in cfg.translation_models() if f.path]
    if not tables:
        return None
    found = Path(tables[0]).parent / f"truecase-model.{lang}"
    return str(found) if found.exists() else None


def _lowercase(tokens: list[str]) -> list[str]:
    return [t.lower() for t in tokens]


class ModelCase:
    """The case a model's text is in, for the tools that give it text or score what it writes
    against a reference: truecased by the models beside its phrase table, or lowercased (a model
    trained with --lowercase, or without truecasing models)."""

    def __init__(self, source_model: str | None = None, target_model: str | None = None):
        self.source_model, self.target_model = source_model, target_model
        self.source = Truecaser(source_model).truecase if source_model else _lowercase
        self.target = Truecaser(target_model).truecase if target_model else _lowercase

    @classmethod
    def of(cls, cfg, src: str, tgt: str) -> "ModelCase":
        return cls(model_truecase_file(cfg, src), model_truecase_file(cfg, tgt))

    @property
    def name(self) -> str:
        return "truecased" if self.source_model else "lowercased"

    def source_line(self, line: str) -> str:
        return " ".join(self.source(line.split()))

    def target_line(self, line: str) -> str:
        return " ".join(self.target(line.split()))


class RawText:
    """Raw text in, publishable text out, around a model (Moses's pipeline around the decoder):
    the input tokenized (tokenizer.perl) and put in the model's case; the output detruecased
    (detruecase.perl; a lowercased model's output stays lowercase) and detokenized
    (detokenizer.perl)."""

    def __init__(self, case: ModelCase, src: str, tgt: str):
        from sacremoses import MosesDetokenizer

        self.case = case
        self._tokenize = Tokenizer(src)
        self._detokenizer = MosesDetokenizer(lang=tgt)

    def source(self, line: str) -> str:
        return " ".join(self.case.source(clean_tokens(self._tokenize(line))))

    def target(self, words: list[str]) -> str:
        if self.case.source_model is not None:
            words = detruecase(words)
        return self._detokenizer.detokenize(list(words))
