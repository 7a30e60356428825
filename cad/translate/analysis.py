"""The spaCy side of `cad translate`, kept off the decoder's path: coreference and the pronouns'
roles of each document (they need no translation, so they run ahead), and the target's tags of
the translations that later pronouns read.

Each runs in a worker process of its own, forked before the decoder's model is loaded, so it
neither waits for nor competes with the decoder for the interpreter; the output is the same as
when everything runs in one process, whatever the timing.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

from cad.cm.construction import cm_roles
from cad.core.errors import CadError
from cad.lang.pairs import Pair, chosen
from coref.records import PronounResolution


@dataclass
class Analysis:
    records: list[PronounResolution]
    roles: dict[tuple[int, int], str] | None = None     # (sentence, token) -> role, for the CM feature


def analyse(resolver, doc_id: str, sentences: list[list[str]], with_roles: bool, pair: Pair | None = None) -> Analysis:
    """Resolve a document's pronouns in `sentences` as written (names and sentence starts keep
    their case, which the English parser and resolver were trained with; a resolver with
    `reads_case = False` gets them lowercased); with_roles: also the roles of the CM's pronouns,
    read from the resolver's own parse where it parses with the English pipeline the roles need
    (the CM's pronouns are those the pair's source studies).
    The records' positions are those of `sentences`, their tokens as the resolver read them."""
    if resolver is None:
        return Analysis([])
    if not getattr(resolver, "reads_case", True):
        sentences = [[t.lower() for t in s] for s in sentences]
    parsed = resolver.parse(sentences) if getattr(resolver, "shares_english_parse", False) else None
    records = resolver.resolve(doc_id, sentences, parsed=parsed) if parsed is not None \
        else resolver.resolve(doc_id, sentences)
    roles = None
    if with_roles:
        studied = chosen(pair).source.cm_pronouns
        roles = cm_roles(sentences, {(r.sentence, r.index) for r in records if r.token.lower() in studied},
                              parsed)
    return Analysis(records, roles)


def onto_tokens(records: list[PronounResolution], sentences: list[list[str]], doc_id: str) -> list[PronounResolution]:
    """The records of a document resolved on its cased text, with the tokens of `sentences`, the
    same words as the decoder reads them (lowercased or truecased: one token for one token)."""
    out = []
    for r in records:
        if not (0 <= r.sentence < len(sentences) and 0 <= r.index < len(sentences[r.sentence])) \
                or sentences[r.sentence][r.index].lower() != r.token.lower():
            raise CadError(f"document {doc_id}: the pronoun {r.token!r} at sentence {r.sentence + 1}, token "
                           f"{r.index + 1} is not a word of the decoder's input there")
        out.append(replace(r, token=sentences[r.sentence][r.index]))
    return out


_RESOLVERS: dict = {}       # in a worker: the resolver its factory made, made once


def analyse_with(make_resolver: Callable[[], object] | None, doc_id: str, sentences: list[list[str]],
                 with_roles: bool, pair_name: str | None = None) -> Analysis:
    """`analyse` with the resolver `make_resolver` gives (made at the first call: a picklable task;
    the pair by its name)."""
    if make_resolver is None:
        return Analysis([])
    from cad.lang.pairs import pair_named

    pair = pair_named(pair_name) if pair_name else None
    return analyse(resolver_of(make_resolver), doc_id, sentences, with_roles, pair)


def resolver_of(make_resolver: Callable[[], object]):
    """The resolver `make_resolver` makes, made once per process."""
    key = repr(make_resolver)
    if key not in _RESOLVERS:
        _RESOLVERS[key] = make_resolver()
    return _RESOLVERS[key]


def _quiet_worker() -> None:
    """Ctrl-C is the main process's to handle (it stops the worker): no traceback from here."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_pool() -> ProcessPoolExecutor:
    """One forked worker: forked while the caller is still small and single-threaded, so the fork
    is cheap and safe. It ignores Ctrl-C, which the main process handles by stopping it."""
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"),
                               initializer=_quiet_worker)


def read_ahead(docs: Iterable[tuple[str, list[list[str]]]], work: Callable[[str, list[list[str]]], Analysis],
               ahead: int, pool: Executor | None = None) -> Iterator[tuple[str, list[list[str]], Analysis]]:
    """(doc_id, sentences, analysis) in the documents' order. With a pool, `work` (picklable)
    runs there on the first documents at once and then stays up to `ahead` documents beyond the
    one being consumed; without one, each document is analysed when it is reached. An error in
    the worker is raised at its document."""
    it = iter(docs)
    if pool is None:
        return ((doc_id, sents, work(doc_id, sents)) for doc_id, sents in it)
    pending: deque[tuple[str, list[list[str]], Future]] = deque()

    def top_up() -> None:
        while len(pending) <= ahead:
            nxt = next(it, None)
            if nxt is None:
                return
            pending.append((nxt[0], nxt[1], pool.submit(work, nxt[0], nxt[1])))

    def drain() -> Iterator[tuple[str, list[list[str]], Analysis]]:
        try:
            while pending:
                doc_id, sents, fut = pending.popleft()
                result = fut.result()
                top_up()
                yield doc_id, sents, result
        finally:
            for _, _, fut in pending:
                fut.cancel()

    top_up()
    return drain()
