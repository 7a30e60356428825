"""The verbs whose subject *it* French writes as a situation: *ça marche*, *ça fait mal*, *ça m'a
frappé*, *ça va prendre du temps*, whatever noun the *it* took up before.

French takes up an event, a state of affairs or what was just done with *ça* as the subject of
such verbs, and speakers do so even where the *it* has a noun antecedent (*the trick … I'll show
you how it works* → *comment ça marche*): on the dev talks, gold coreference gives the *ça*
references an antecedent noun as often as the ranker does, and the CM then writes its gender
(*elle marche*). Which verbs those are is a matter of the verb, not of the antecedent, and the
aligned corpus says it: every subject *it* (coref/english/constructions.py: SUBJECT, the verb
that is no copula) is counted by its verb's form against the class of its aligned French words.

Each instance counts by its document's domain weight, as in the class table (`make` weighs TED ×3:
the Hansard's formal register writes *il* and *cela* where speakers say *ça*). A verb whose subjects
were a situation class (`Language.situation_classes`, French *ça*/*cela*) in at least `share` of at
least `min_subjects` (weighted) instances, the share smoothed as (k + 1) / (n + 2), is a situation
governor, and the CM reads its subject *it* under the role `subs` instead of
`subj` (cad/cm/construction.py), in training and in translation: the bundle `it-subs-fem-sing`
learns from the corpus how often such a subject follows its antecedent's gender.

The table is counted once from an aligned corpus (`cad cm governors`; the shipped one from the
large model's CM corpus, `make situation-governors`) and shipped as
cad/data/situation-governors-en-fr.tsv, so that training, every decoder and the experiments read
the same list: `# cad-situation-governors-1` and its counting's settings, then
`governor<TAB>subjects<TAB>situations` for every verb counted, the decision made on reading.
The verb's form is its lowercased word (the parse runs without a lemmatizer): *works*, *worked*
and *work* are counted apart.
"""

from __future__ import annotations

import functools
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from cad.core.alignment import parse_alignment
from cad.core.docs import domain_weight, iter_docs
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, count_lines, read_lines, read_parallel
from cad.lang.pairs import Pair, chosen

log = logging.getLogger(__name__)

FORMAT = "cad-situation-governors-1"
MIN_SUBJECTS = 10
SHARE = 0.4
SHIPPED = Path(__file__).resolve().parent.parent / "data" / "situation-governors-en-fr.tsv"
BATCH = 500          # sentences parsed together


@dataclass(frozen=True)
class GovernorCount:
    governor: str       # the verb's lowercased form
    subjects: float     # subject *it* of that verb counted, each by its document's domain weight
    situations: float   # of which the translation was a situation class


def is_situation(count: GovernorCount, min_subjects: float = MIN_SUBJECTS, share: float = SHARE) -> bool:
    """At least `min_subjects` subjects, and the smoothed share of situations at least `share`."""
    return count.subjects >= min_subjects and (count.situations + 1) / (count.subjects + 2) >= share


class SituationGovernors:
    """The verbs whose subject *it* the CM reads under the role `subs`."""

    def __init__(self, counts: Iterable[GovernorCount], min_subjects: float = MIN_SUBJECTS, share: float = SHARE):
        self.counts = {c.governor: c for c in counts}
        self.min_subjects, self.share = min_subjects, share
        self.verbs = frozenset(g for g, c in self.counts.items() if is_situation(c, min_subjects, share))

    def __contains__(self, word: str) -> bool:
        return word.lower() in self.verbs

    def write(self, path: str | os.PathLike, source: str) -> None:
        with atomic_output(path) as out:
            out.write(f"# {FORMAT} min_subjects={self.min_subjects:g} share={self.share:g} source={source}\n")
            for c in sorted(self.counts.values(), key=lambda c: (-c.subjects, c.governor)):
                out.write(f"{c.governor}\t{c.subjects:g}\t{c.situations:g}\n")

    @classmethod
    def read(cls, path: str | os.PathLike) -> "SituationGovernors":
        lines = read_lines(path)
        header = next(lines, "")
        if not header.startswith(f"# {FORMAT}"):
            raise CadError(f"not a situation-governor table (expected '# {FORMAT} ...')", str(path), 1)
        settings = dict(kv.split("=", 1) for kv in header.split()[2:] if "=" in kv)
        try:
            min_subjects, share = float(settings.get("min_subjects", MIN_SUBJECTS)), float(settings.get("share", SHARE))
        except ValueError:
            raise CadError("bad min_subjects or share in the header", str(path), 1) from None
        counts: list[GovernorCount] = []
        seen: dict[str, int] = {}
        for n, line in enumerate(lines, start=2):
            fields = line.split("\t")
            try:
                count = GovernorCount(fields[0], float(fields[1]), float(fields[2])) if len(fields) == 3 else None
            except ValueError:
                count = None
            if count is None or not fields[0] or not 0 <= count.situations <= count.subjects:
                raise CadError("expected governor<TAB>subjects<TAB>situations (0 <= situations <= subjects)", str(path), n)
            if count.governor in seen:
                raise CadError(f"{count.governor!r} again (first on line {seen[count.governor]})", str(path), n)
            seen[count.governor] = n
            counts.append(count)
        return cls(counts, min_subjects, share)


@functools.lru_cache(maxsize=1)
def shipped() -> SituationGovernors:
    """The shipped table (cad/data/situation-governors-en-fr.tsv)."""
    if not SHIPPED.exists():
        raise CadError(f"{SHIPPED} is missing: the package is incomplete (make situation-governors counts it)")
    return SituationGovernors.read(SHIPPED)


def subject_governor(tok) -> str | None:
    """The form of the verb whose plain subject the pronoun `tok` (a spaCy token) is, or None."""
    from coref.english.constructions import SUBJECT, construction_of

    c = construction_of(tok)
    if c.label != SUBJECT or c.governor is None:
        return None
    return tok.doc[c.governor].lower_


def _subject_its(rows: Iterator[tuple[int, list[str]]], path: str, weights: Callable[[int], float]
                 ) -> Iterator[list[tuple[list[str], list[str], list[tuple[int, int]], float]]]:
    """Batches of the sentences holding *it*: words, translation, alignment, domain weight."""
    batch: list = []
    for lineno, (s, t, a) in rows:
        words = s.split()
        if not any(w.lower() == "it" for w in words):
            continue
        tw = t.split()
        batch.append((words, tw, parse_alignment(a, len(words), len(tw), path, lineno), weights(lineno)))
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _line_weights(docs: str | None, src: str, domain_weights: dict[str, float]) -> Callable[[int], float]:
    """1-based line -> its document's domain weight (cad cm build's --domain-weight), read with the
    boundaries as the lines go by (asked in increasing order), one document at a time."""
    if not docs or not domain_weights:
        return lambda _lineno: 1.0
    starts = iter_docs(docs, count_lines(src))
    current, following = 1.0, next(starts, None)

    def weight(lineno: int) -> float:
        nonlocal current, following
        while following is not None and following.first_line <= lineno - 1:
            current, following = domain_weight(following.doc_id, domain_weights), next(starts, None)
        return current

    return weight


def count_governors(src: str, tgt: str, align: str, pair: Pair | None = None, docs: str | None = None,
                    domain_weights: dict[str, float] | None = None) -> list[GovernorCount]:
    """Every plain subject *it* of the aligned corpus, counted by its verb's form against whether
    its aligned words are a situation class of the target; each by its document's domain weight
    (`docs`, `domain_weights` as cad cm build reads them)."""
    from cad.cm.classes import aligned_words, pronoun_class
    from coref.english.roles import read_pronouns

    situation = chosen(pair).target.situation_classes
    if not situation:
        raise CadError(f"the target language {chosen(pair).tgt} has no situation class: nothing to count")
    weights = _line_weights(docs, src, domain_weights or {})
    subjects: dict[str, float] = {}
    situations: dict[str, float] = {}
    done = 0
    for batch in progress(_subject_its(read_parallel([src, tgt, align]), align, weights), desc="governors",
                          unit="batch"):
        sents = [b[0] for b in batch]
        positions = {(k, i) for k, s in enumerate(sents) for i, w in enumerate(s) if w.lower() == "it"}
        for (k, i), gov in read_pronouns(sents, positions, subject_governor).items():
            if gov is None:
                continue
            words, tw, al, w = batch[k]
            subjects[gov] = subjects.get(gov, 0.0) + w
            if pronoun_class(aligned_words(words, tw, al, i), pair) in situation:
                situations[gov] = situations.get(gov, 0.0) + w
        done += len(batch)
    log.info("%d sentences with it: %g subject it (weighted) of %d verbs", done, sum(subjects.values()), len(subjects))
    return [GovernorCount(g, n, situations.get(g, 0.0)) for g, n in subjects.items()]
