"""The nouns that replace an antecedent's translation in the balanced variants of `cad contrastive
make` (Bawden et al. 2018: the same context translated with a noun of the other gender).

The pool: frequent French nouns of a text (the target side of the corpus, or --nouns-from), each
a singular form that the dictionary (cad.resources.hunspell_fr, cad.resources.fr_inflection) gives one gender
(not epicene, not of both genders: *souris*, *livre*), that no adjective, participle or verb shares
(*porte*, *marche*), that begins with a consonant other than *h* (so that the determiner shows the
gender: *le camion*, not *l'avion*; an *h* may be mute or aspirated, which the dictionary does not
say). Each pool noun gets the WordNet class (noun.artifact, noun.person, …) of the English word it is
most often aligned to in the corpus.

For an antecedent whose English head is h, in order:
1. `translation`: a French translation of h in FreeDict of the wanted gender, when one is in the
   pool (*brain*: cerveau / cervelle) — the variant is then another translation of the same source;
2. `class`: a pool noun of h's WordNet class (for a head WordNet lacks, the class of the
   English words most often aligned to the antecedent's translation);
3. `frequent`: any pool noun, but a person for a person and no person otherwise.
Among the candidates of a step, one of the `top` most frequent is drawn by a generator seeded with
the seed and the item's key, so the suite is the same on every run.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from cad.experiments.contrastive_french import starts_with_vowel
from cad.resources.fr_inflection import FrenchInflections
from cad.resources.hunspell_fr import FrenchNouns

PERSON = "noun.person"


@dataclass
class PoolNoun:
    lemma: str
    gender: str
    count: int
    forms: dict[str, str]           # number -> form
    lexname: str | None = None


def eligible(word: str, nouns: FrenchNouns, inflections: FrenchInflections) -> PoolNoun | None:
    """`word` as a pool noun, or None (the module's docstring says which words are)."""
    if len(word) < 3 or not word.isalpha() or not word.islower() or starts_with_vowel(word) or word[0] == "h":
        return None
    gender = nouns.gender(word)
    if gender not in ("masc", "fem") or not inflections.noun_only(word):
        return None
    if inflections.noun_form(word, "sing") != word:
        return None
    forms = {n: f for n in ("sing", "plur") if (f := inflections.noun_form(word, n))}
    return PoolNoun(word, gender, 0, forms)


class ReplacementNouns:
    def __init__(self, nouns: FrenchNouns, inflections: FrenchInflections, counts: Counter,
                 aligned: dict[str, Counter] | None = None, wordnet=None, freedict=None, seed: int = 1,
                 top: int = 12, min_count: int = 2):
        """`counts`: French word frequencies; `aligned`: French word -> the English words aligned
        to it (for the pool's WordNet classes); `wordnet`, `freedict`: cad.lang's readers, or None."""
        self.nouns, self.inflections = nouns, inflections
        self.wordnet, self.freedict = wordnet, freedict
        self.seed, self.top = seed, top
        self.counts = counts
        self.aligned = aligned or {}
        self.pool: dict[str, PoolNoun] = {}
        for word, c in counts.most_common():
            if c < min_count:
                break
            p = eligible(word, nouns, inflections)
            if p is None:
                continue
            p.count = c
            p.lexname = self._aligned_class(word)
            self.pool[word] = p

    def _aligned_class(self, french: str) -> str | None:
        """The WordNet class of the English words most often aligned to a French word."""
        if self.wordnet is None or french not in self.aligned:
            return None
        for en, _ in self.aligned[french].most_common(3):
            cls = self.wordnet.lexname(en)
            if cls:
                return cls
        return None

    def lexname(self, english: str, french: str | None = None) -> str | None:
        """The class of an antecedent: its English head's, else (a head WordNet lacks: *gamers*)
        that of the English words aligned to its translation."""
        if self.wordnet is None:
            return None
        return self.wordnet.lexname(english.lower()) or (self._aligned_class(french.lower()) if french else None)

    def choose(self, english: str, gender: str, number: str, key: str,
               avoid: set[str] = frozenset(), french: str | None = None) -> tuple[str, str] | None:
        """(form, how) of a noun of `gender` and `number` to stand for the English head `english`
        (translated `french`); None when the pool has none."""
        def fits(p: PoolNoun) -> bool:
            return p.gender == gender and number in p.forms and p.lemma not in avoid and p.forms[number] not in avoid

        rng = random.Random(f"{self.seed}:{key}")
        if self.freedict is not None:
            found = [self.pool[w] for w in self.freedict.french(english.lower()) if w in self.pool]
            found = sorted({p.lemma: p for p in found if fits(p)}.values(), key=lambda p: (-p.count, p.lemma))
            if found:
                return found[0].forms[number], "translation"
        cls = self.lexname(english, french)
        if cls is not None:
            same = [p for p in self.pool.values() if p.lexname == cls and fits(p)]
            if same:
                return self._draw(same, rng).forms[number], "class"
        person = cls == PERSON
        rest = [p for p in self.pool.values() if fits(p) and (p.lexname == PERSON) == person]
        if rest:
            return self._draw(rest, rng).forms[number], "frequent"
        return None

    def _draw(self, cands: list[PoolNoun], rng: random.Random) -> PoolNoun:
        best = sorted(cands, key=lambda p: (-p.count, p.lemma))[:self.top]
        return best[rng.randrange(len(best))]
