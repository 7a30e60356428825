"""The projection of an antecedent through a word alignment (seed 004 §3.2): of the target words
aligned to the antecedent's source span, the first noun or pronoun whose gender and number the
French tagger gives stands for the antecedent's translation.

Every stage that reads an antecedent's translation goes through here: the CM's collection on the
training corpus, coreference-aware translation (both passes), the n-best rerankers, post-editing,
the oracle that reads the reference, and the pronoun classifier of seed 001's task.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from cad.lang.fr_morph import Morph, tag

# what a noun, proper noun or pronoun of the antecedent's translation may be tagged
HEAD_POS = ("NOUN", "PROPN", "PRON")


def first_noun_or_pronoun(positions: Iterable[int], morph: Sequence[Morph]) -> int | None:
    """Of the target positions aligned to the antecedent, the first noun or pronoun with both a
    gender and a number (seed 004)."""
    for p in sorted(positions):
        if morph[p].pos in HEAD_POS and morph[p].gender and morph[p].number:
            return p
    return None


def aligned_targets(start: int, end: int, alignment: Iterable[tuple[int, int]]) -> list[int]:
    """The target positions aligned to source span [start, end)."""
    return [t for s, t in alignment if start <= s < end]


def antecedent_head(start: int, end: int, alignment: Iterable[tuple[int, int]],
                    morph: Sequence[Morph]) -> int | None:
    """The target position that stands for the translation of source span [start, end), or None."""
    return first_noun_or_pronoun(aligned_targets(start, end, alignment), morph)


def gender_number(start: int, end: int, alignment: Iterable[tuple[int, int]],
                  morph: Sequence[Morph]) -> tuple[str, str] | None:
    """(gender, number) of the translation of source span [start, end), or None."""
    p = antecedent_head(start, end, alignment, morph)
    return None if p is None else (morph[p].gender, morph[p].number)


def candidate_features(c, alignments: Sequence[Sequence[tuple[int, int]]],
                       morph: dict[int, Sequence[Morph]]) -> tuple[str, str] | None:
    """(gender, number) of candidate antecedent `c`'s translation, `alignments` and `morph` being
    its document's per sentence (`morph` only for the sentences tagged)."""
    if c.sentence not in morph:
        return None
    return gender_number(c.start, c.end, alignments[c.sentence], morph[c.sentence])


def document_morph(target: Sequence[list[str]], records) -> dict[int, list[Morph]]:
    """French morphology of the target sentences that hold a candidate antecedent of `records`."""
    needed = sorted({c.sentence for r in records for c in r.candidates})
    return dict(zip(needed, tag([target[k] for k in needed]))) if needed else {}
