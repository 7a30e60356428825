"""French cognates of English nouns, for the antecedent a decoder left untranslated.

An English word the phrase table does not know passes through the decoder as it is, and no French
article or tagger can then say its gender; the bilingual dictionary (cad/resources/freedict.py) holds
8.8k English headwords and at times only a stray sense (*adversity*: *abaissement*). Much of the
learned vocabulary that a phrase table misses is Latinate, and its French form follows from the
English one by regular suffix correspondences (*adversity* / *adversité*, *symphony* /
*symphonie*, *realism* / *réalisme*, *motor* / *moteur*). A correspondence only
proposes a form: it is taken where the French noun lexicon (Debian's hunspell-fr-comprehensive)
holds that form, accents aside, with one gender. The rules are textbook correspondences; two
were dropped after measuring them on the training corpus (below), none was fitted to the dev talks."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from cad.resources.hunspell_fr import FrenchNouns

# (English ending, French ending), accents left out of the French (the lexicon is searched without
# them); the first that yields a noun of the lexicon with one gender decides, so the longer and
# surer endings come first. "" → "": the English word is a French word, its accents aside
# (*cinema*: *cinéma*). The projection asks for a cognate before the dictionary: on the aligned nouns
# of the training corpus (bench/cognate_gender.py) the cognate's gender was right for 88% of the
# words it decided, the dictionary's for 85% (86% against 88% on the words both decide).
ENDINGS: tuple[tuple[str, str], ...] = (
    ("", ""),
    ("ity", "ite"),          # adversity, university, capacity
    ("ety", "ete"),          # society, variety
    ("ty", "te"),            # liberty, beauty
    ("y", "ie"),             # symphony, biology, energy, theory, colonoscopy
    ("ism", "isme"),         # realism
    ("ist", "iste"),         # artist
    ("ics", "ique"),         # physics, politics
    ("ic", "ique"),          # republic, logic
    ("or", "eur"),           # motor, actor, error
    ("oid", "oide"),         # asteroid
    ("ian", "ien"),          # musician, technician
)
# Left out, measured the same way: *-er* → *-re* (*center*, but *number*) and a dropped final *e*
# were right for 81% and 76% of the words they decided, below the dictionary's 85%.


@dataclass(frozen=True)
class Cognate:
    english: str
    french: str              # the lexicon's form
    gender: str              # masc | fem
    number: str              # the English word's: sing | plur
    rule: str                # the correspondence, as "ity>ite"

    @property
    def word(self) -> str:
        """The cognate, as a pair's cognate finder names it (cad/lang/pairs.py)."""
        return self.french


def strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word.lower()) if not unicodedata.combining(c))


class CognateFinder:
    """English noun → its French cognate in a noun lexicon, through ENDINGS."""

    def __init__(self, lexicon: FrenchNouns, gender_of):
        """`gender_of(form)`: (gender, number) of a French form, None where the lexicon does not
        give one gender (cad.lang.fr_morph.lexicon_features)."""
        self._gender_of = gender_of
        self._index: dict[str, list[str]] = {}
        for form in lexicon:
            if form.islower() and form.isalpha():
                self._index.setdefault(strip_accents(form), []).append(form)

    def _singulars(self, word: str) -> list[tuple[str, str]]:
        """(singular, number) readings of an English word: *theories* → *theory*, *motors* → *motor*."""
        out = [(word, "sing")]
        if word.endswith("ies") and len(word) > 4:
            out.insert(0, (word[:-3] + "y", "plur"))
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
            out.insert(0, (word[:-1], "plur"))
        return out

    def find(self, english: str) -> Cognate | None:
        word = english.lower()
        if not word.isalpha() or len(word) < 4:
            return None         # short words: *art* / *arte*, *bar* / *bare*; a cognate is a long word
        for singular, number in self._singulars(word):
            for en, fr in ENDINGS:
                if not singular.endswith(en) or len(singular) - len(en) < 3:
                    continue
                stem = singular[:len(singular) - len(en)] if en else singular
                forms = self._index.get(stem + fr, ())
                genders = {g for g in (self._gender_of(f)[0] for f in forms) if g is not None}
                if len(genders) == 1:
                    g = genders.pop()
                    french = next(f for f in sorted(forms) if self._gender_of(f)[0] == g)
                    return Cognate(english, french, g, number, f"{en}>{fr}")
        return None


@lru_cache(maxsize=1)
def finder() -> CognateFinder:
    """The cognate finder over the installed French lexicon (`make resources`)."""
    from cad.lang.fr_morph import french_nouns, lexicon_features

    return CognateFinder(french_nouns(), lexicon_features)


def find(english: str) -> Cognate | None:
    """English→French's cognate finder (cad/lang/pairs.py names it)."""
    return finder().find(english)
