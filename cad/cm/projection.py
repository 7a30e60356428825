"""The projection of an antecedent through a word alignment (seed 004 §3.2): of the target words
aligned to the antecedent's head, else to its source span, the first noun or pronoun with a gender
and a number stands for the antecedent's translation, and gives the gender and number a pronoun
that refers to it takes in the target language. (Seed 004 reads the span; the head first keeps an adjective the
tagger calls a noun, *une réelle lucioles*, from standing for *some natural fireflies*.)

Every fact of a language comes from the pair being translated (cad/lang/pairs.py): the target's
morphology reader tags the translation, the source says which heads are no noun, and the pair's
bilingual resources, where it has them, stand in for an untranslated head. For English→French:
the gender is read, in order, from the French noun lexicon (cad/lang/fr_morph.py tags a noun with
the lexicon's gender where the lexicon gives exactly one), the determiner before the noun, and
spaCy's morphology. Where the antecedent's head was left untranslated (an English word the phrase
table does not know passes through the decoder) or no noun is aligned to it, the English head's
French cognate may be looked for in the lexicon (*adversity*: *adversité*, cad/lang/cognates.py;
source "cognate", only where CAD_GENDER_SOURCES names it), else the head is looked up in the
English-French dictionary and the gender of its translations is read from the lexicon (source
"dictionary"), before spaCy's guess is taken.

Every stage that reads an antecedent's translation goes through here: the CM's collection on the
training corpus, coreference-aware translation (both passes), the n-best rerankers, post-editing,
the oracle that reads the reference, contrastive scoring, and the pronoun classifier of seed 001.
`SOURCES` counts which source decided, for the reports.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

from cad.lang.facts import Morph, gender_sources
from cad.lang.pairs import Pair, chosen

# what a noun, proper noun or pronoun of the antecedent's translation may be tagged
HEAD_POS = ("NOUN", "PROPN", "PRON")
# which source decided each projection made in this process (lexicon, determiner, pronoun,
# dictionary, tagger)
SOURCES: Counter = Counter()


@dataclass(frozen=True)
class Projected:
    gender: str                # "masc" | "fem"
    number: str                # "sing" | "plur"
    word: str                  # the French word the gender was read from
    source: str                # lexicon | determiner | pronoun | cognate | dictionary | tagger
    position: int | None = None    # its target position (None: a dictionary translation)


@dataclass(frozen=True)
class Unread:
    """An antecedent's translation that no source reads a gender from (`unread_translation`):
    the trace names it, no pronoun's bundle is read from it."""
    word: str
    position: int
    source: None = None            # as Projected.source: none decided


def first_noun_or_pronoun(positions: Iterable[int], morph: Sequence[Morph]) -> int | None:
    """Of the target positions aligned to the antecedent, the first noun or pronoun with both a
    gender and a number (seed 004). A pronoun counts only where it is a personal one whose gender
    is its own (il, elle, le, la, ...): *c'*, *ça*, *qui* carry none, whatever the tagger says,
    and a pronoun antecedent translated *c'* must pass on its chain's gender instead."""
    for p in sorted(positions):
        m = morph[p]
        if m.pos in HEAD_POS and m.gender and m.number and (m.pos != "PRON" or m.source == "pronoun"):
            return p
    return None


def aligned_targets(start: int, end: int, alignment: Iterable[tuple[int, int]]) -> list[int]:
    """The target positions aligned to source span [start, end)."""
    return [t for s, t in alignment if start <= s < end]


@lru_cache(maxsize=20000)
def dictionary_gender(english: str, pair: Pair | None = None) -> tuple[str, str] | None:
    """(gender, target word) of a source noun by the pair's dictionary translations: the gender
    most of its one-word translations with one gender in the target's lexicon have (ties: the
    first one's), so that a stray sense does not decide (*cat*: *chat*, but also *mégère*, *rosse*)."""
    pair = chosen(pair)
    votes: Counter = Counter()
    first: dict[str, str] = {}
    for fr in pair.translations(english):
        if " " in fr.strip():
            continue
        g, _ = pair.target.morphology().noun_features(fr)
        if g is not None:
            votes[g] += 1
            first.setdefault(g, fr)
    if not votes:
        return None
    top = max(votes.values())
    g = next(first_g for first_g in first if votes[first_g] == top)
    return g, first[g]


def _untranslated(c, source_tokens: Sequence[str] | None, target: Sequence[str], head: int | None,
                  pair: Pair) -> bool:
    """Whether the antecedent has no target head: nothing aligned that is a noun, or its source
    head passed through the decoder as it is (a word the phrase table does not know), which no
    target lexicon, article or tagger can give a gender."""
    if head is None:
        return True
    if source_tokens is None or not 0 <= c.head < len(source_tokens):
        return False
    return target[head].lower() == source_tokens[c.head].lower() and \
        not pair.target.morphology().knows_noun(target[head])


def _english_head(c, source_tokens: Sequence[str] | None, source: str, pair: Pair) -> str | None:
    """The candidate's source head, where `source` (a gender source) may read it: a noun, not a
    pronoun (*it* → *c'* has no gender a dictionary or a cognate could give)."""
    if source_tokens is None or not 0 <= c.head < len(source_tokens) or source not in gender_sources():
        return None
    english = source_tokens[c.head]
    return None if english.lower() in pair.source.not_noun_heads else english


def _number(c, morph: Sequence[Morph], head: int | None, default: str) -> str:
    return getattr(c, "number", None) or (morph[head].number if head is not None else None) or default


def _from_dictionary(c, source_tokens: Sequence[str] | None, morph: Sequence[Morph], head: int | None,
                     pair: Pair, by_lemma: bool = False) -> Projected | None:
    """The gender of the candidate's source head's dictionary translations; `by_lemma`: those of
    its singular where the word itself has none (a head the decoder passed through as it is)."""
    english = _english_head(c, source_tokens, "dictionary", pair) if pair.dictionary else None
    found = None if english is None else dictionary_gender(english.lower(), pair)
    if found is None and english is not None and by_lemma:
        # a plural the dictionary lists under its singular (*carpets* passed through: *tapis*)
        lemma = _noun_lemma(english.lower(), pair)
        found = None if lemma is None else dictionary_gender(lemma, pair)
    if found is None:
        return None
    return Projected(found[0], _number(c, morph, head, "sing"), found[1], "dictionary", None)


def _noun_lemma(word: str, pair: Pair) -> str | None:
    """The source noun's base form by its noun senses' reader (WordNet's morphy for English:
    *busses* → *bus*), where it differs from the word; None where the source has no such reader."""
    senses = pair.source.senses() if pair.source.noun_senses is not None else None
    if senses is None:
        return None
    lemma = senses.wordnet.morphy(word, "n")
    return lemma if lemma and lemma != word else None


def _from_cognate(c, source_tokens: Sequence[str] | None, morph: Sequence[Morph], head: int | None,
                  pair: Pair) -> Projected | None:
    """The gender of the candidate's source head's target cognate (English→French's:
    cad/lang/cognates.py)."""
    english = _english_head(c, source_tokens, "cognate", pair) if pair.cognates else None
    found = None if english is None else pair.cognate(english)
    if found is None:
        return None
    return Projected(found.gender, _number(c, morph, head, found.number), found.word, "cognate", None)


def lexicon_noun_of_head(c, target: Sequence[str], alignment: Iterable[tuple[int, int]],
                         pair: Pair | None = None) -> Projected | None:
    """Where the tagger saw no noun among the antecedent's words: the first target word aligned to
    the source head that the target's lexicon knows as a noun of one gender and one number. The
    small French tagger reads a noun without its article as an adjective (*si vous avez
    capsules*), but the English head is a noun and the lexicon says what its translation is."""
    morphology = chosen(pair).target.morphology()
    for t in sorted(t for s, t in alignment if s == c.head):
        if 0 <= t < len(target):
            gender, number = morphology.noun_features(target[t])
            if gender is not None and number is not None:
                return Projected(gender, number, target[t], "lexicon", t)
    return None


def unread_translation(c, target: Sequence[str], alignment: Iterable[tuple[int, int]],
                       pair: Pair | None = None) -> Unread | None:
    """Where `project` reads nothing: the first target word aligned to the source head that the
    lexicon knows as a noun, whatever its genders. An antecedent opening its sentence is often
    translated without its article (*The mouse ran away* -> *souris enfui en courant*), the tagger
    reads a lowercased noun at the start of a sentence as an adjective, and *souris* has both
    genders in the lexicon: the gender stays unknown, but the trace can still say what the
    antecedent became."""
    morphology = chosen(pair).target.morphology()
    for t in sorted(t for s, t in alignment if s == c.head):
        if 0 <= t < len(target) and morphology.knows_noun(target[t]):
            return Unread(target[t], t)
    return None


def project(c, source_tokens: Sequence[str] | None, target: Sequence[str], alignment: Iterable[tuple[int, int]],
            morph: Sequence[Morph], pair: Pair | None = None) -> Projected | None:
    """The translation of candidate antecedent `c` (its span and head in `source_tokens`, the
    sentence it lies in) read from `target` (that sentence's translation, tagged `morph` by the
    pair's target morphology) through `alignment`. `source_tokens` None: no dictionary fallback."""
    pair = chosen(pair)
    alignment = list(alignment)
    # the words aligned to the English head first: *some natural fireflies* → *une réelle lucioles*,
    # where the tagger takes *réelle* for a noun, is *lucioles*
    head = first_noun_or_pronoun(aligned_targets(c.head, c.head + 1, alignment), morph)
    if head is None and "lexicon" in gender_sources():
        found = lexicon_noun_of_head(c, target, alignment, pair)
        if found is not None:
            SOURCES[found.source] += 1
            return found
    if head is None:
        head = first_noun_or_pronoun(aligned_targets(c.start, c.end, alignment), morph)
    out = None
    if _untranslated(c, source_tokens, target, head, pair):
        # with a head, _untranslated says it was passed through as it is, which may be a plural
        # the dictionary lists under its singular (a candidate left without a noun is not looked up so)
        out = _from_cognate(c, source_tokens, morph, head, pair) or \
            _from_dictionary(c, source_tokens, morph, head, pair, by_lemma=head is not None)
    if out is None and head is not None:
        out = Projected(morph[head].gender, morph[head].number, target[head], morph[head].source, head)
    if out is not None:
        SOURCES[out.source] += 1
    return out


def gender_number(c, source_tokens: Sequence[str] | None, target: Sequence[str],
                  alignment: Iterable[tuple[int, int]], morph: Sequence[Morph],
                  pair: Pair | None = None) -> tuple[str, str] | None:
    """(gender, number) of candidate `c`'s translation, or None."""
    p = project(c, source_tokens, target, alignment, morph, pair)
    return None if p is None else (p.gender, p.number)


def candidate_features(c, sources: Sequence[Sequence[str]] | None, targets: Sequence[Sequence[str]],
                       alignments: Sequence[Sequence[tuple[int, int]]],
                       morph: dict[int, Sequence[Morph]], pair: Pair | None = None) -> tuple[str, str] | None:
    """(gender, number) of candidate antecedent `c`'s translation, the arguments being its
    document's per sentence (`morph` only for the sentences tagged)."""
    if c.sentence not in morph:
        return None
    src = sources[c.sentence] if sources is not None else None
    return gender_number(c, src, targets[c.sentence], alignments[c.sentence], morph[c.sentence], pair)


def document_morph(target: Sequence[list[str]], records, pair: Pair | None = None) -> dict[int, list[Morph]]:
    """The target morphology of the sentences that hold a candidate antecedent of `records`."""
    needed = sorted({c.sentence for r in records for c in r.candidates})
    return dict(zip(needed, chosen(pair).target.morphology().tag([target[k] for k in needed]))) if needed else {}
