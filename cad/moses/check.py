"""`cad moses-ini check`: every file a moses.ini refers to exists and parses."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import kenlm

from cad.core.errors import CadError
from cad.lm.arpa import arpa_order, check_arpa
from cad.moses import binarize_native
from cad.moses.binarized import (BINARY_PHRASE_TABLE, PHRASE_MAGIC, REORDERING_MAGIC, BinaryPhraseTable,
                                 BinaryReorderingTable, magic_of)
from cad.moses.ini import Feature, MosesConfig, parse_config
from cad.core.textio import STDIO, read_lines

KENLM_BINARY_MAGIC = b"mmap lm "


def check_binary_table(path: str, magic: bytes, num_scores: int) -> int:
    table = BinaryPhraseTable(path) if magic == PHRASE_MAGIC else BinaryReorderingTable(path)
    if table.num_scores != num_scores:
        raise CadError(f"{table.num_scores} scores where the moses.ini declares {num_scores}", path)
    return table.records


def check_text_table(path: str, num_scores: int) -> int:
    """check_phrase_table by the compiled reader where it is built (the same checks and errors, about
    twenty times faster: a large model's tables took minutes in Python)."""
    if not binarize_native.available() or path == STDIO:
        return check_phrase_table(path, num_scores)
    return binarize_native.check_text_table(path, num_scores)


def check_phrase_table(path: str, num_scores: int) -> int:
    n = 0
    for lineno, line in enumerate(read_lines(path), 1):
        fields = line.split(" ||| ")
        if len(fields) < 3:
            raise CadError("phrase table line needs at least 'source ||| target ||| scores'", path, lineno)
        scores = fields[2].split()
        if len(scores) != num_scores:
            raise CadError(f"{len(scores)} scores where the moses.ini declares {num_scores}", path, lineno)
        try:
            [float(x) for x in scores]
        except ValueError:
            raise CadError("non-numeric score", path, lineno) from None
        if not fields[0].strip() or not fields[1].strip():
            raise CadError("empty source or target phrase", path, lineno)
        n += 1
    if n == 0:
        raise CadError("phrase table is empty", path)
    return n


def check_language_model(path: str) -> None:
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(KENLM_BINARY_MAGIC):
        try:
            kenlm.Model(path)
        except Exception as exc:  # kenlm raises plain OSError/RuntimeError
            raise CadError(f"kenlm cannot load it: {exc}", path) from None
        return
    check_arpa(path)


def language_model_order(path: str) -> int:
    """The order of an LM file: an ARPA file's header, or KenLM's binary format memory-mapped."""
    if not os.path.exists(path):
        raise CadError("language model not found", path)
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head.startswith(KENLM_BINARY_MAGIC):
        config = kenlm.Config()
        config.load_method = kenlm.LoadMethod.LAZY
        try:
            return kenlm.Model(path, config).order
        except Exception as exc:  # kenlm raises plain OSError/RuntimeError
            raise CadError(f"kenlm cannot load it: {exc}", path) from None
    return arpa_order(path)


def check_feature(f: Feature, cfg: MosesConfig) -> str:
    path = f.path
    if path is None:
        return f"{f.name}: no file"
    if not os.path.exists(path):
        raise CadError(f"{f.name} refers to a missing file {path}", cfg.source, f.line)
    if f.type == BINARY_PHRASE_TABLE or (f.type == "LexicalReordering" and magic_of(path) == REORDERING_MAGIC):
        n = check_binary_table(path, PHRASE_MAGIC if f.type == BINARY_PHRASE_TABLE else REORDERING_MAGIC,
                               f.num_features)
        return f"{f.name}: {path}: binary table, {n} records"
    if f.type.startswith("PhraseDictionary"):
        if f.type != "PhraseDictionaryMemory":
            return f"{f.name}: {path} (format {f.type} not checked)"
        n = check_text_table(path, f.num_features)
        return f"{f.name}: {path}: {n} phrase pairs"
    if f.type == "LexicalReordering":
        n = check_text_table(path, f.num_features)
        return f"{f.name}: {path}: {n} entries"
    if f.type in ("KENLM", "SRILM", "IRSTLM"):
        check_language_model(path)
        return f"{f.name}: {path}: language model loads"
    return f"{f.name}: {path} exists"


def check_config(path: str) -> list[str]:
    """One line per feature; the first feature (in the file's order) that fails raises. The compiled
    reader leaves the GIL, so the features are checked two at a time (a phrase table beside its
    reordering table)."""
    cfg = parse_config(path)
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(lambda f: check_feature(f, cfg), cfg.features))
