"""Corpus preparation: Moses tokenization, lowercasing and clean-corpus-n.perl filtering.

Document boundaries survive cleaning: the output `.docs` file gives each document's first line in
the cleaned corpus, and `.lines` maps every kept line back to its 0-based input line.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from cad.core.docs import DocStart, doc_index_of_lines, read_docs, write_docs
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, count_lines, read_lines, read_parallel

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


# about 5 s of tokenizing a shard on this machine's cores
TOKENIZE_SHARD_LINES = 20_000


def _check_empty(s: str, t: str, src_path, tgt_path, lineno: int, allow_empty: bool) -> None:
    for text, path in ((s, src_path), (t, tgt_path)):
        if not text.strip() and not allow_empty:
            raise CadError("empty line (use --allow-empty to drop such pairs as clean-corpus-n.perl does)",
                           str(path), lineno)


def _tokenize_rows(rows, src_path, tgt_path, src_lang: str, tgt_lang: str, pretokenized: bool, lowercase: bool,
                   allow_empty: bool) -> Iterator[tuple[int, list[str], list[str]]]:
    """(line number, source tokens, target tokens) of each (line number, source, target) row."""
    tok_s, tok_t = Tokenizer(src_lang, pretokenized), Tokenizer(tgt_lang, pretokenized)
    for lineno, s, t in rows:
        _check_empty(s, t, src_path, tgt_path, lineno, allow_empty)
        if lowercase:
            s, t = s.lower(), t.lower()
        yield lineno, clean_tokens(tok_s(s)), clean_tokens(tok_t(t))


def tokenize_shard(task, out: Path, src_path: str, tgt_path: str, src_lang: str, tgt_lang: str, lowercase: bool,
                   allow_empty: bool) -> None:
    """One shard's tokenized lines (out/src, out/tgt: the tokens joined by spaces, an empty line
    for a side with none); an empty input line is an error naming its file and line."""
    first = task.shard.first_line + 1
    rows = zip(range(first, first + len(task.data["src"])), task.data["src"], task.data["tgt"])
    pairs = _tokenize_rows(rows, src_path, tgt_path, src_lang, tgt_lang, False, lowercase, allow_empty)
    with open(out / "src", "w", encoding="utf-8", newline="\n") as fs, \
            open(out / "tgt", "w", encoding="utf-8", newline="\n") as ft:
        for _, ts, tt in pairs:
            fs.write(" ".join(ts) + "\n")
            ft.write(" ".join(tt) + "\n")


def _sharded_pairs(src_path, tgt_path, src_lang: str, tgt_lang: str, lowercase: bool, allow_empty: bool,
                   parallel, store) -> Iterator[tuple[int, list[str], list[str]]]:
    """The same pairs, tokenized in shards of lines by `parallel`'s workers (Moses's tokenizer.perl
    -threads): the tokenizer is what preparing a large raw corpus costs. The shards stay in
    `store` until the caller has written its output, so an interrupted run reuses them."""
    from cad.core.shards import fingerprint_salt, plan_shards, run_shards, shard_tasks

    n = count_lines(src_path)
    shards = plan_shards(n, None, parallel.lines(TOKENIZE_SHARD_LINES))
    salt = fingerprint_salt("tokenize", {"src": src_lang, "tgt": tgt_lang, "lowercase": lowercase,
                                         "allow_empty": allow_empty})
    fn = functools.partial(tokenize_shard, src_path=str(src_path), tgt_path=str(tgt_path), src_lang=src_lang,
                           tgt_lang=tgt_lang, lowercase=lowercase, allow_empty=allow_empty)
    run_shards(shard_tasks(shards, {"src": src_path, "tgt": tgt_path}, salt), len(shards), fn, store, parallel,
               "tokenize")
    lineno = 0
    for shard in shards:
        with open(store.part(shard.index, "src"), encoding="utf-8") as fs, \
                open(store.part(shard.index, "tgt"), encoding="utf-8") as ft:
            for s, t in zip(fs, ft):
                lineno += 1
                yield lineno, s.split(), t.split()


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
    parallel=None,
) -> PrepareStats:
    """Tokenize, lowercase and clean a parallel corpus into `out_prefix.{src,tgt,docs,lines}`.
    `parallel` (cad.core.shards.Parallel): raw text is tokenized in shards by its workers, the
    same output whatever their number."""
    out_prefix = Path(out_prefix)
    n = count_lines(src_path)
    docs = read_docs(docs_path, n) if docs_path else [DocStart(0, "doc0")]
    line_doc = doc_index_of_lines(docs, n) if n else []
    stats = PrepareStats()
    new_starts: dict[int, int] = {}
    files = [f"{out_prefix}.{src_lang}", f"{out_prefix}.{tgt_lang}", f"{out_prefix}.lines"]
    store = None
    if parallel is not None and not pretokenized:
        from cad.core.shards import ShardStore

        store = ShardStore.beside(files[0])
        pairs = _sharded_pairs(src_path, tgt_path, src_lang, tgt_lang, lowercase, allow_empty, parallel, store)
    else:
        rows = ((lineno, s, t) for lineno, (s, t) in read_parallel([src_path, tgt_path]))
        pairs = _tokenize_rows(rows, src_path, tgt_path, src_lang, tgt_lang, pretokenized, lowercase, allow_empty)
    with atomic_output(files[0]) as fs, atomic_output(files[1]) as ft, atomic_output(files[2]) as fl:
        for lineno, ts, tt in progress(pairs, total=n, desc="prepare"):
            stats.read += 1
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
    if store is not None:
        store.remove()
    log.info(
        "prepared %d of %d pairs (dropped: %d empty, %d length, %d ratio)",
        stats.kept, stats.read, stats.dropped_empty, stats.dropped_length, stats.dropped_ratio,
    )
    return stats


def prepare_text(text: str | os.PathLike, out: str | os.PathLike, lang: str, pretokenized: bool, lowercase: bool,
                 case=None) -> int:
    """One side's text made as the corpus's side is (tokenized unless `pretokenized`, cleaned of
    what clean-corpus-n.perl and the tokenizer delete, lowercased, or cased by `case`, a
    Truecaser's truecase), with no pair to clean against: the text of a second LM, as a Moses
    user runs the same tokenizer and truecaser over it. Empty lines are left out. The lines written."""
    tok = Tokenizer(lang, pretokenized)
    n = 0
    with atomic_output(out) as fh:
        for line in read_lines(text):
            tokens = clean_tokens(tok(line.lower() if lowercase else line))
            if tokens:
                fh.write(" ".join(case(tokens) if case is not None else tokens) + "\n")
                n += 1
    return n
