"""French inflection paradigms from Grammalecte's Hunspell dictionary (the .dic and .aff that
cad/resources/hunspell_fr.py reads): the other-gender form of an adjective, a past participle or a noun
(*mort*/*morte*, *blessé*/*blessée*, *nouveau*/*nouvelle*), a noun's form of a number, and which
forms are nouns only.

Each .dic entry is expanded by the .aff's rules (hunspell_fr.expand); the forms of one entry that
are nouns, adjectives or past participles (`po:ppas`, which the verbs' rules give) make one
paradigm: (gender, number) → forms; the forms of entries that are anything but nouns (verbs,
adverbs, prepositions…) are kept as a set, so that a noun-only form can be told. A form may belong to several paradigms (*mort*: the adjective
mort/morte and the noun *la mort*; *partie*: the noun and the participle of *partir*), and a cell
may hold two forms (*beau* and *bel* before a vowel). The forms of adverbs (`po:adv`, and the
negation's `po:negadv`: *pas*, *jamais*) are kept too, as what may stand between *être* and its
predicate (cad/lang/fr_agreement.py). Reading every entry takes about 3 s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cad.core.errors import CadError
from cad.downloads import debian
from cad.resources.hunspell_fr import analysis_of, expand, read_aff, read_dic

PARTS = {"nom", "adj", "ppas"}
ADVERBS = {"adv", "negadv"}
OTHER = {"masc": "fem", "fem": "masc"}
Cell = tuple[str, str]          # (gender, number): masc | fem | epi, sing | plur | inv


@dataclass
class Paradigm:
    lemma: str
    noun: bool
    cells: dict[Cell, list[str]] = field(default_factory=dict)

    def forms(self, gender: str, number: str) -> list[str]:
        """The forms of a gender (or epicene) and number (or invariable)."""
        out = []
        for (g, n), words in self.cells.items():
            if g in (gender, "epi") and n in (number, "inv"):
                out += [w for w in words if w not in out]
        return out


class FrenchInflections:
    """Word forms → the paradigms they belong to, with their (gender, number) in each."""

    def __init__(self, paradigms: list[Paradigm], other_forms: set[str], adverbs: frozenset[str] | set[str] = frozenset()):
        self.paradigms = paradigms
        self.other_forms = other_forms      # the forms of entries that are not only nouns (verbs, adverbs…)
        self.adverbs = adverbs              # the forms of adverb entries (très, mortellement, pas…)
        self._of: dict[str, list[tuple[int, Cell]]] = {}
        for k, p in enumerate(paradigms):
            for cell, words in p.cells.items():
                for w in words:
                    self._of.setdefault(w, []).append((k, cell))

    def cells(self, word: str) -> list[tuple[Paradigm, Cell]]:
        return [(self.paradigms[k], cell) for k, cell in self._of.get(word, ())]

    def other_gender(self, word: str, gender: str, number: str | None = None) -> str | None:
        """The form of `word` (of `gender`, and `number` when given) for the other gender: the word
        itself when it is epicene or invariable in gender; None when the dictionary lacks it or
        gives two forms (of two paradigms) that the lemma does not settle."""
        lower = word.lower()
        found: dict[str, int] = {}          # form -> how much of its lemma it keeps
        for p, (g, n) in self.cells(lower):
            if g not in (gender, "epi") or (number is not None and n not in (number, "inv")):
                continue
            if g == "epi":
                return word
            for w in p.forms(OTHER[gender], number or n):
                found[w] = max(found.get(w, 0), _common(w, p.lemma))
        return _best_form(found, word)

    def gender_twins(self, word: str) -> list[str]:
        """Every other-gender form of `word` as an adjective or a past participle (nouns keep
        their gender: *ami*/*amie* are two words), in the word's case: *morte* → [*mort*];
        an invariable number has both (*délicieux* → [*délicieuse*, *délicieuses*])."""
        lower = word.lower()
        out: list[str] = []
        for p, (g, n) in self.cells(lower):
            if p.noun or g not in OTHER:
                continue
            for w in [f for number in (("sing", "plur") if n == "inv" else (n,)) for f in p.forms(OTHER[g], number)]:
                if w != lower and (w := _case_as(w, word)) not in out:
                    out.append(w)
        return out

    def inflect(self, word: str, gender: str, number: str) -> str | None:
        """The form of the adjective or past participle `word` (any of its forms) for `gender`
        ("masc" | "fem") and `number` ("sing" | "plur"), in the word's case: *mort* → *morte*,
        *mortes*; *vieux* → *vieille*; *heureux* → *heureuse*; an epicene or invariable word
        itself (*rapide*, *heureux* plural). The form written before consonants where a cell has
        two (*vieux*, not *vieil*); None where the word is no adjective or participle in the
        dictionary (a noun, an adverb, an unknown word) or two of its paradigms disagree."""
        found: dict[str, int] = {}          # form -> how much of its lemma it keeps
        for p, _ in self.cells(word.lower()):
            if p.noun:
                continue
            for w in p.forms(gender, number):
                found[w] = max(found.get(w, 0), _common(w, p.lemma))
        return _best_form(found, word)

    def known(self, word: str) -> bool:
        """A French word of the dictionary, of any part of speech."""
        lower = word.lower()
        return bool(self.cells(lower)) or lower in self.other_forms

    def inflected(self, word: str) -> bool:
        """A form that some adjective or participle has (whose gender may have to change)."""
        return any(not p.noun for p, _ in self.cells(word.lower()))

    def noun_only(self, word: str) -> bool:
        """A form that only nouns have: no adjective, participle, verb, adverb… form."""
        cells = self.cells(word)
        return bool(cells) and all(p.noun for p, _ in cells) and word not in self.other_forms

    def noun_form(self, word: str, number: str) -> str | None:
        """A noun's form of `number` in its one paradigm (None when it has several or none)."""
        nouns = [p for p, _ in self.cells(word) if p.noun]
        if len({id(p) for p in nouns}) != 1:
            return None
        p = nouns[0]
        forms = [w for (g, n), ws in p.cells.items() if n in (number, "inv") for w in ws]
        return forms[0] if len(set(forms)) == 1 else (p.lemma if number == "sing" and p.lemma in forms else None)


def _best_form(found: dict[str, int], word: str) -> str | None:
    """Of two forms of a cell (beau, bel; beaux, bels) or of two paradigms, the one that keeps most
    of its lemma (the form written before consonants), in `word`'s case; a tie settles nothing."""
    if not found:
        return None
    ranked = sorted(found.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return _case_as(ranked[0][0], word)


def _common(a: str, b: str) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def _case_as(form: str, model: str) -> str:
    return form[:1].upper() + form[1:] if model[:1].isupper() else form


def build(dic: str | os.PathLike, aff: str | os.PathLike) -> FrenchInflections:
    affixes = read_aff(aff)
    paradigms: list[Paradigm] = []
    others: set[str] = set()
    adverbs: set[str] = set()
    for _, word, flags, morph in read_dic(dic, affixes):
        parts = analysis_of(morph)[0]
        other = bool(parts - {"nom"})           # an adjective, a verb, an adverb, a preposition…
        adverb = bool(parts & ADVERBS)
        par = Paradigm(word, "nom" in parts and not other)
        for form, fields in expand(word, flags, morph, affixes):
            pos, gender, number = analysis_of(fields)
            if other:
                others.add(form)
            if adverb:
                adverbs.add(form)
            if pos & PARTS and gender is not None and number is not None:
                cell = par.cells.setdefault((gender, number), [])
                if form not in cell:
                    cell.append(form)
        if par.cells:
            paradigms.append(par)
    return FrenchInflections(paradigms, others, adverbs)


def load(dic: str | os.PathLike | None = None, aff: str | os.PathLike | None = None) -> FrenchInflections:
    """The paradigms of `dic`/`aff` (default: Debian's fr.dic and fr.aff, as hunspell_fr.load)."""
    if dic is None or aff is None:
        files = debian.package_files(debian.HUNSPELL_FR)
        dic, aff = files["fr.dic"], files["fr.aff"]
    for f in (Path(dic), Path(aff)):
        if not f.is_file():
            raise CadError("file not found", str(f))
    return build(dic, aff)
