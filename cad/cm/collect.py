"""The evidence `cad cm build` estimates its tables from, collected document by document: the
triples of cm.gz and the class instances of classes.gz and classifier.json; in one process, or in
shards of whole documents in parallel (cad/shards).

A document's evidence depends on that document alone (its sentences, alignment, pronoun records
and weight) and on its index (which half of the classifier's held-out split it falls in). The
shards' collections, joined in shard order, are so the very lists one process collects, and
every table estimated from them is the same bytes.
"""

from __future__ import annotations

import bisect
import functools
import json
from array import array
from pathlib import Path
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterator

from cad.cm.bundles import Bundle
from cad.cm.class_model import pronoun_mixture
from cad.cm.classes import aligned_words, pronoun_class
from cad.cm.construction import SITUATION, cm_roles, situation_translation
from cad.cm.other_words import other_word
from cad.cm.projection import candidate_features, document_morph, project
from cad.cm.referent import animacy_of
from cad.core.aligned_docs import aligned_documents
from cad.core.docs import domain_weight as doc_weight
from cad.core.alignment import parse_alignment
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.shards import Parallel, Shard, ShardStore, ShardTask, fingerprint_salt, plan_shards, run_shards, shard_tasks
from cad.core.textio import is_uint, read_lines
from cad.lang import OTHER
from cad.lang.pairs import Pair, chosen, pair_named
from coref.backends import get_backend
from coref.corpus import BackendSpec, backend_of
from coref.records import PronounResolution, parse_record, read_jsonl

# the target tagging of the antecedents' sentences dominates: a few seconds a shard
DEFAULT_SHARD_LINES = 2000


@dataclass
class CMStats:
    pronouns: int = 0
    with_candidates: int = 0
    unaligned_pronouns: int = 0
    candidates: int = 0
    projected: int = 0
    triples: int = 0
    entries: int = 0
    dropped: int = 0
    class_pronouns: int = 0
    bundles: dict = field(default_factory=dict)


def collect_class_instances(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
                            records: list[PronounResolution], with_human: bool, morph: dict,
                            out: list, weight: float = 1.0, positions: list | None = None,
                            pair: Pair | None = None, words: list | None = None) -> int:
    """Add one document's (bundle mixture, target class) instances for the class CM; returns the
    number of pronouns added. Every it/they counts, referential or not: the class of a
    pleonastic *it* (*il faut*, *c'est*) is as much to learn as that of an anaphoric one.
    `positions`, when given, receives each instance's (source sentence, token index), which the
    classifier CM reads; `words`, each instance's OTHER word (cad/cm/other_words.py; "" for another
    class). The pronouns are those the pair's source studies (*it*, *they*)."""
    pair = chosen(pair)
    recs = [r for r in records if r.token.lower() in pair.source.cm_pronouns]
    roles = cm_roles(src, {(r.sentence, r.index) for r in recs})
    animacy = animacy_of(src, pair)
    for r in recs:
        aligned = aligned_words(src[r.sentence], tgt[r.sentence], align[r.sentence], r.index, pair)
        cls = pronoun_class(aligned, pair)
        mix = pronoun_mixture(r, roles[(r.sentence, r.index)],
                              lambda c: {_read(c, src, tgt, align, morph, roles, pair): 1.0}, with_human, animacy)
        out.append((mix, cls, weight))
        if positions is not None:
            positions.append((src[r.sentence], r.index))
        if words is not None:
            words.append(other_word(aligned) if cls == OTHER else "")
    return len(recs)


def _read(c, src, tgt, align, morph, roles, pair: Pair):
    """What the class CM reads of candidate `c` in the reference: a situation where the reference
    translated a subject *it* by *ça* (situation_translation), else the gender and number of its
    translation. `roles`: the bundle roles of the document's *it*/*they*."""
    if situation_translation(c, tgt[c.sentence], align[c.sentence], roles.get((c.sentence, c.start)), pair):
        return SITUATION
    return candidate_features(c, src, tgt, align, morph, pair)


def collect_triples(src: list[list[str]], tgt: list[list[str]], align: list[list[tuple[int, int]]],
                    records: list[PronounResolution], with_human: bool, stats: CMStats,
                    single_best: bool = False, morph: dict | None = None,
                    pair: Pair | None = None) -> list[tuple[str, str, float]]:
    """Triples (bundle token, target words, score) of one document."""
    if morph is None:
        morph = document_morph(tgt, records, pair)
    out = []
    for r in records:
        stats.pronouns += 1
        if not r.referential or not r.candidates:
            continue
        stats.with_candidates += 1
        tpos = sorted(j for i, j in align[r.sentence] if i == r.index)
        if not tpos:
            stats.unaligned_pronouns += 1
            continue
        target = " ".join(tgt[r.sentence][j] for j in tpos)
        cands = r.candidates[:1] if single_best else r.candidates
        for c in cands:
            if c.kind != "np":
                continue        # clauses carry no gender or number to project
            stats.candidates += 1
            m = project(c, src[c.sentence], tgt[c.sentence], align[c.sentence], morph[c.sentence], pair)
            if m is None:
                continue
            stats.projected += 1
            bundle = Bundle(r.token.lower(), m.gender, m.number, c.human)
            score = 1.0 if single_best else c.probability
            out.append((bundle.token(with_human), target, score))
    stats.triples += len(out)
    return out


@dataclass
class Collection:
    triples: list[tuple[str, str, float]] = field(default_factory=list)
    instances: list[tuple[dict[str, float], str, float]] = field(default_factory=list)
    positions: list[tuple[list[str], int]] = field(default_factory=list)
    halves: list[int] = field(default_factory=list)
    words: list[str] = field(default_factory=list)        # each instance's OTHER word, "" for another class
    stats: CMStats = field(default_factory=CMStats)

    def to_json(self) -> bytes:
        # JSON keeps every float exactly (repr round-trips) and the mixtures' key order
        counts = {k: v for k, v in asdict(self.stats).items() if k != "bundles"}
        return json.dumps({"triples": self.triples, "instances": self.instances, "positions": self.positions,
                           "halves": self.halves, "words": self.words,
                           "stats": counts}, ensure_ascii=False).encode("utf-8")

    def extend_json(self, data: bytes) -> None:
        d = json.loads(data)
        self.triples.extend(tuple(t) for t in d["triples"])
        self.instances.extend(tuple(i) for i in d["instances"])
        self.positions.extend(tuple(p) for p in d["positions"])
        self.halves.extend(d["halves"])
        self.words.extend(d["words"])
        for k, v in d["stats"].items():
            setattr(self.stats, k, getattr(self.stats, k) + v)


def collect_document(acc: Collection, n_doc: int, src: list[list[str]], tgt: list[list[str]],
                     al: list[list[tuple[int, int]]], recs: list[PronounResolution], with_human: bool,
                     single_best: bool, weight: float, coref: str | None, pair: Pair | None = None) -> None:
    """Add document `n_doc`'s (0-based, in the corpus) triples and class instances to `acc`."""
    for r in recs:
        if r.sentence >= len(src) or r.index >= len(src[r.sentence]):
            raise CadError(f"pronoun record at sentence {r.sentence}, token {r.index} is outside document "
                           f"{n_doc}", coref)
    morph = document_morph(tgt, recs, pair)
    acc.triples.extend(collect_triples(src, tgt, al, recs, with_human, acc.stats, single_best, morph, pair))
    added = collect_class_instances(src, tgt, al, recs, with_human, morph, acc.instances, weight, acc.positions,
                                    pair, acc.words)
    acc.stats.class_pronouns += added
    acc.halves.extend([n_doc % 2] * added)


def collect_in_process(corpus: str, align: str, src_lang: str, tgt_lang: str, docs: str | None,
                       doc_ids: list[tuple[int, str]] | None, coref: str | None, backend: str, with_human: bool,
                       single_best: bool, domain_weights: dict[str, float], pair: Pair | None = None) -> Collection:
    """Every document's evidence, one after the other in this process (any input may be '-')."""
    acc = Collection()
    by_doc: dict[str, list[PronounResolution]] = {}
    resolver = None
    if coref:
        for r in read_jsonl(coref):
            by_doc.setdefault(r.doc, []).append(r)
    else:
        resolver = get_backend(backend)
    docs_iter = aligned_documents(f"{corpus}.{src_lang}", f"{corpus}.{tgt_lang}", align, docs)
    n_docs = len(doc_ids) if doc_ids is not None else 1
    for n_doc, (doc_id, src, tgt, al) in enumerate(progress(docs_iter, total=n_docs, desc="cm", unit="doc")):
        recs = by_doc.get(doc_id, []) if resolver is None else resolver.resolve(doc_id, src)
        collect_document(acc, n_doc, src, tgt, al, recs, with_human, single_best,
                         doc_weight(doc_ids[n_doc][1] if doc_ids is not None else None, domain_weights), coref,
                         pair)
    return acc


@dataclass(frozen=True)
class CollectSpec:
    """What a shard task needs besides its data: the files named in errors and the options."""

    align: str
    coref: str | None                  # records file; None: resolve with `backend`
    backend: str
    with_human: bool
    single_best: bool
    domain_weights: tuple[tuple[str, float], ...]
    pair: str                          # the language pair's name (cad.lang.pairs)


def collect_shard(task: ShardTask, out: Path, spec: CollectSpec) -> None:
    d = task.data
    first = task.shard.first_line
    starts = [int(s) for s in d["starts"]] + [len(d["src"])]
    names = d["names"] or None
    by_doc: dict[str, list[PronounResolution]] = {}
    for line, lineno in zip(d["records"], d["record_lines"]):
        r = parse_record(line, spec.coref, int(lineno))
        by_doc.setdefault(r.doc, []).append(r)
    resolver = None
    if spec.coref is None:
        resolver = backend_of(BackendSpec(spec.backend))
    acc = Collection()
    weights = dict(spec.domain_weights)
    pair = pair_named(spec.pair)
    for k in range(len(starts) - 1):
        n_doc = task.shard.first_doc + k
        src, tgt, al = [], [], []
        for i in range(starts[k], starts[k + 1]):
            ss, tt = d["src"][i].split(), d["tgt"][i].split()
            src.append(ss)
            tgt.append(tt)
            al.append(parse_alignment(d["align"][i], len(ss), len(tt), spec.align, first + i + 1))
        recs = by_doc.get(str(n_doc), []) if resolver is None else resolver.resolve(str(n_doc), src)
        collect_document(acc, n_doc, src, tgt, al, recs, spec.with_human, spec.single_best,
                         doc_weight(names[k] if names else None, weights), spec.coref, pair)
    (out / "json").write_bytes(acc.to_json())


def _doc_index(doc: str, n_docs: int) -> int | None:
    """The document a record's id names as one process matches it (the id is str(index))."""
    if is_uint(doc) and str(int(doc)) == doc and int(doc) < n_docs:
        return int(doc)
    return None


class RecordRouter:
    """Each shard's lines of a pronoun records file, read in one pass when the file lists the
    documents in order (as cad coref writes it: the memory here stays flat), else held by shard."""

    def __init__(self, coref: str, shards: list[Shard], n_docs: int):
        self.coref = coref
        firsts = [s.first_doc for s in shards]
        shard_of = array("i")
        held: list[str] | None = [] if coref == "-" else None     # standard input is read once
        in_order, last = True, -1
        for lineno, line in enumerate(read_lines(coref), 1):
            k = None
            if line.strip():
                k = _doc_index(parse_record(line, coref, lineno).doc, n_docs)
            s = -1 if k is None else bisect.bisect_right(firsts, k) - 1
            shard_of.append(s)
            if held is not None:
                held.append(line)
            if s >= 0:
                in_order = in_order and s >= last
                last = max(last, s)
        self.shard_of = shard_of
        self.buckets: dict[int, tuple[list[str], list[str]]] | None = None
        if not in_order or held is not None:
            self.buckets = {}
            lines = held if held is not None else read_lines(coref)
            for i, line in enumerate(lines):
                if shard_of[i] >= 0:
                    b = self.buckets.setdefault(shard_of[i], ([], []))
                    b[0].append(line)
                    b[1].append(str(i + 1))
        else:
            self._stream = self._in_order()
            next(self._stream)

    def _in_order(self) -> Iterator[tuple[list[str], list[str]]]:
        lines = enumerate(read_lines(self.coref))
        shard = yield ([], [])
        pending: tuple[int, str] | None = None
        while True:
            got: tuple[list[str], list[str]] = ([], [])
            while True:
                if pending is None:
                    pending = next(lines, None)
                    if pending is None:
                        break
                i, line = pending
                s = self.shard_of[i]
                if s > shard:
                    break
                if s == shard:
                    got[0].append(line)
                    got[1].append(str(i + 1))
                pending = None
            shard = yield got

    def __call__(self, shard: Shard) -> dict[str, list[str]]:
        if self.buckets is not None:
            lines, numbers = self.buckets.pop(shard.index, ([], []))
        else:
            lines, numbers = self._stream.send(shard.index)
        return {"records": lines, "record_lines": numbers}


def collect_in_shards(corpus: str, align: str, src_lang: str, tgt_lang: str,
                      doc_ids: list[tuple[int, str]] | None, n_lines: int, coref: str | None, backend: str,
                      with_human: bool, single_best: bool, domain_weights: dict[str, float],
                      parallel: Parallel, store: ShardStore, pair: Pair | None = None) -> Collection:
    """Every document's evidence, collected in shards (kept in `store`; the caller removes it)."""
    starts = [first for first, _ in doc_ids] if doc_ids is not None else [0]
    shards = plan_shards(n_lines, starts, parallel.lines(DEFAULT_SHARD_LINES)) if n_lines else []
    spec = CollectSpec(str(align), str(coref) if coref else None, backend, with_human, single_best,
                       tuple(sorted(domain_weights.items())), chosen(pair).name)
    salt = fingerprint_salt("cm-collect", {k: v for k, v in asdict(spec).items() if k not in ("align", "coref")})
    records: Callable[[Shard], dict[str, list[str]]] | None = (
        RecordRouter(str(coref), shards, len(starts)) if coref else None)

    def extra(shard: Shard) -> dict[str, list[str]]:
        out = {"starts": [str(s - shard.first_line) for s in starts[shard.first_doc:shard.end_doc]],
               "names": [name for _, name in doc_ids[shard.first_doc:shard.end_doc]] if doc_ids else []}
        out.update(records(shard) if records else {"records": [], "record_lines": []})
        return out

    inputs = {"src": f"{corpus}.{src_lang}", "tgt": f"{corpus}.{tgt_lang}", "align": align}
    fn = functools.partial(collect_shard, spec=spec)
    run_shards(shard_tasks(shards, inputs, salt, extra), len(shards), fn, store, parallel, "cm")
    acc = Collection()
    for s in shards:
        acc.extend_json(store.part(s.index, "json").read_bytes())
    return acc
