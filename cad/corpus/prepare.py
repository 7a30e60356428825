"""Corpus preparation: Moses tokenization, lowercasing and clean-corpus-n.perl filtering.

Document boundaries survive cleaning: the output `.docs` file gives each document's first line in
the cleaned corpus, and `.lines` maps every kept line back to its 0-based input line.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from cad.core.docs import DocStart, doc_index_of_lines, read_docs, write_docs
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, count_lines, read_parallel

log = logging.getLogger(__name__)


@dataclass
class CleanConfig:
    min_len: int = 1
    max_len: int = 80
    ratio: float = 9.0


@dataclass
class PrepareStats:
    read: int = 0
    kept: int = 0
    dropped_empty: int = 0
    dropped_length: int = 0
    dropped_ratio: int = 0


class Tokenizer:
    """Moses tokenizer (sacremoses) without XML escaping, as in the shared corpora."""

    def __init__(self, lang: str, pretokenized: bool = False):
        self.pretokenized = pretokenized
        self._tok = None
        if not pretokenized:
            # loaded only for text still to tokenize: sacremoses takes about half a second
            from sacremoses import MosesTokenizer

            self._tok = MosesTokenizer(lang=lang)

    def __call__(self, text: str) -> list[str]:
        if self.pretokenized:
            return text.split()
        return self._tok.tokenize(text, escape=False)


_DROP = {c: None for c in range(32)}
_DROP[ord("|")] = None


def clean_tokens(tokens: list[str]) -> list[str]:
    # clean-corpus-n.perl deletes '|' (the Moses factor separator) from unfactored corpora, and the
    # Moses tokenizer deletes ASCII control characters; pre-tokenized input gets the same treatment.
    out = []
    for t in tokens:
        t = t.translate(_DROP)
        if t:
            out.append(t)
    return out


def keep_pair(src: list[str], tgt: list[str], cfg: CleanConfig, stats: PrepareStats) -> bool:
    if not src or not tgt:
        stats.dropped_empty += 1
        return False
    ls, lt = len(src), len(tgt)
    if ls < cfg.min_len or lt < cfg.min_len or ls > cfg.max_len or lt > cfg.max_len:
        stats.dropped_length += 1
        return False
    if ls / lt > cfg.ratio or lt / ls > cfg.ratio:
        stats.dropped_ratio += 1
        return False
    return True


def prepare_corpus(
    src_path: str | os.PathLike,
    tgt_path: str | os.PathLike,
    out_prefix: str | os.PathLike,
    src_lang: str,
    tgt_lang: str,
    docs_path: str | os.PathLike | None = None,
    pretokenized: bool = False,
    lowercase: bool = True,
    clean: CleanConfig | None = CleanConfig(),
    allow_empty: bool = False,
) -> PrepareStats:
    """Tokenize, lowercase and clean a parallel corpus into `out_prefix.{src,tgt,docs,lines}`."""
    out_prefix = Path(out_prefix)
    n = count_lines(src_path)
    docs = read_docs(docs_path, n) if docs_path else [DocStart(0, "doc0")]
    line_doc = doc_index_of_lines(docs, n) if n else []
    tok_s = Tokenizer(src_lang, pretokenized)
    tok_t = Tokenizer(tgt_lang, pretokenized)
    stats = PrepareStats()
    new_starts: dict[int, int] = {}
    files = [f"{out_prefix}.{src_lang}", f"{out_prefix}.{tgt_lang}", f"{out_prefix}.lines"]
    with atomic_output(files[0]) as fs, atomic_output(files[1]) as ft, atomic_output(files[2]) as fl:
        for lineno, (s, t) in progress(read_parallel([src_path, tgt_path]), total=n, desc="prepare"):
            stats.read += 1
            for text, path in ((s, src_path), (t, tgt_path)):
                if not text.strip() and not allow_empty:
                    raise CadError(
                        "empty line (use --allow-empty to drop such pairs as clean-corpus-n.perl does)",
                        str(path), lineno,
                    )
            if lowercase:
                s, t = s.lower(), t.lower()
            ts, tt = clean_tokens(tok_s(s)), clean_tokens(tok_t(t))
            if clean is not None:
                if not keep_pair(ts, tt, clean, stats):
                    continue
            elif not ts or not tt:
                stats.dropped_empty += 1
                continue
            doc = line_doc[lineno - 1]
            new_starts.setdefault(doc, stats.kept)
            fs.write(" ".join(ts) + "\n")
            ft.write(" ".join(tt) + "\n")
            fl.write(f"{lineno - 1}\n")
            stats.kept += 1
        if stats.read == 0:
            raise CadError("corpus is empty", str(src_path))
        if stats.kept == 0:
            raise CadError("no sentence pair survived cleaning", str(src_path))
    write_docs(f"{out_prefix}.docs", [DocStart(new_starts[k], docs[k].doc_id) for k in sorted(new_starts)])
    log.info(
        "prepared %d of %d pairs (dropped: %d empty, %d length, %d ratio)",
        stats.kept, stats.read, stats.dropped_empty, stats.dropped_length, stats.dropped_ratio,
    )
    return stats
