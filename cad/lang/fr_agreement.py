"""The predicate that agrees with a French subject pronoun: after *il*/*elle*/*ils*/*elles* and a
form of *être*, an adjective or a past participle takes the subject's gender and number (*elle
était morte*, *ils ont été vendus*, *elle s'est enfuie*). A translation built phrase by phrase
gets it wrong where the pronoun and its predicate come from two phrases (seed 004's demo: *elle
n'était pas mort mais elle était mortellement blessé*): `agreeing_predicate` finds the predicate
and its agreeing form, from the forms of Grammalecte's dictionary (cad/resources/fr_inflection.py),
for a decoder feature or option to use; it changes no translation itself.

Between the subject and *être* may stand the negation, clitics, adverbs and auxiliaries
(cad/lang/fr.py: *elle n'a pas été*, *elle va être*); between *être* and the predicate, adverbs of
the dictionary (*très*, *pas*, *mortellement*) and words it does not know at all, which are English
words the phrase table let through (*elle était mortally blessé*). Anything else ends the search:
a determiner (*elle était une idée*: a noun phrase agrees with nothing here), a preposition, a
conjunction, punctuation. Left out: the subject after the verb (*est-elle morte ?*), linking verbs
other than *être* (*elle semble heureuse*), and coordinated predicates (*morte et enterrée*: the
first only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from cad.lang.fr import BEFORE_ETRE, COPULA_DETERMINERS, ETRE, SUBJECT_AGREEMENT as SUBJECT_CELLS
from cad.resources.fr_inflection import FrenchInflections

REACH = 8           # words looked at after the subject


@dataclass(frozen=True)
class Predicate:
    index: int          # its position in the words
    word: str           # as the words have it
    form: str           # the form that agrees with the subject

    @property
    def agrees(self) -> bool:
        return self.word == self.form


def _untranslated(word: str, inflections: FrenchInflections) -> bool:
    """An English word left in the translation: letters the French dictionary does not know."""
    return word.isalpha() and not inflections.known(word)


def _predicate_word(word: str, inflections: FrenchInflections) -> bool:
    return inflections.inflected(word) and not inflections.noun_only(word)


def agreeing_predicate(words: Sequence[str], subject: int, gender: str, number: str,
                       inflections: FrenchInflections) -> Predicate | None:
    """The adjective or past participle after the form of *être* that follows the subject pronoun
    at `subject`, with its form for `gender` ("masc" | "fem") and `number` ("sing" | "plur"); None
    where no *être* follows, no adjective or participle follows it, or the dictionary has no
    single form for it. An adverb that is also an adjective (*fort*, *bien*) is the predicate
    only where no other follows (*elle était fort belle*: *belle*)."""
    be = None
    chosen = None               # an adverb that may be the predicate (*fort*), while none follows
    for i in range(subject + 1, min(len(words), subject + 1 + REACH)):
        lower = words[i].lower()
        if lower in ETRE and chosen is None:
            be = i
        elif be is None:
            if lower not in BEFORE_ETRE and lower not in inflections.adverbs:
                return None
        elif _predicate_word(lower, inflections):
            chosen = i
            if lower not in inflections.adverbs:
                break
        elif lower not in inflections.adverbs and not _untranslated(lower, inflections):
            break
    if chosen is None:
        return None
    form = inflections.inflect(words[chosen], gender, number)
    return None if form is None else Predicate(chosen, words[chosen], form)


# ---------------------------------------------------------------------------- as a decoder reads it
# The same reading, word by word, as a finite automaton whose state a decoder carries from phrase to
# phrase (cad/decoder/agreement.py): NONE, or a subject pronoun seen (SUBJECTS[k]) before its *être*
# (state 1 + k) or after it (state 6 + k). A predicate read after *être* counts as disagreeing with
# the subject where a form that agrees exists, and as agreeing where it agrees with a personal
# pronoun in a gender of its own (*elle était morte*; not *elle était rapide*), and ends the
# reading. *Ce* (*c'*, *ça*, *cela*) is a subject too, whose predicate is masculine singular:
# *c'était morte* disagrees, *c'était mort* counts nothing. A determiner read after *être* opens a
# noun phrase, which French gives *ce*, not a personal pronoun (*c'étaient des cadeaux*): after
# *il*/*elle*/*ils*/*elles* it counts as disagreeing (the pronoun with its construction), after *ce*
# nothing, and ends the reading.
NONE = 0
SUBJECTS = ("il", "elle", "ils", "elles", "ce")
SUBJECT_FORMS = {"il": 0, "elle": 1, "ils": 2, "elles": 3, "ce": 4, "c'": 4, "ça": 4, "ç'": 4, "cela": 4}
CELLS = (*(SUBJECT_CELLS[s] for s in SUBJECTS[:4]), ("masc", "sing"))
OTHER_GENDER = (1, 0, 3, 2, 1)         # the subject of the same number and the other gender
PERSONAL = 4                           # the subjects before it are il, elle, ils, elles
STATES = 1 + 2 * len(SUBJECTS)
# the finite forms of *être* right after a subject (with *ne*/*n'* between), by number: the
# construction a copy of the subject may be given (AgreementStates.pronoun_copies)
FINITE_ETRE = {"est": "sing", "était": "sing", "sera": "sing", "serait": "sing", "fut": "sing", "fût": "sing",
               "soit": "sing", "sont": "plur", "étaient": "plur", "seront": "plur", "seraient": "plur",
               "furent": "plur", "fussent": "plur", "soient": "plur"}
# the finite forms of *avoir* that make *être*'s compound tenses with *été* (*il a été vendu*, *ils
# avaient été*), by number: a copy of the subject there takes a personal pronoun only (*ç'a été* is
# rare, *ce a été* wrong)
AVOIR_ETE = {"a": "sing", "avait": "sing", "aura": "sing", "aurait": "sing", "eut": "sing", "ont": "plur",
             "avaient": "plur", "auront": "plur", "auraient": "plur", "eurent": "plur"}
# what may stand between that *avoir* and *été* (*il n'a pas été*)
BETWEEN_AVOIR_ETE = ("pas", "jamais", "plus", "point", "toujours", "déjà", "aussi", "bien")
# *on* as the translation of *it*/*they* before a compound *être*: the phrase table's *it was
# stolen* → *on a été volé* (French for *we were robbed*); its copies are the personal pronouns
IMPERSONAL_SUBJECT = "on"
PERSONAL_FORMS = {"sing": ("il", "elle"), "plur": ("ils", "elles")}
# the object clitics of one gender, and their other gender's (AgreementStates.clitic_copies)
CLITIC_OF_OTHER_GENDER = {"le": "la", "la": "le"}
NEGATION = ("ne", "n'")
ELIDING = "aeiouhàâéèêëîïôöûù"         # *c'* before these, *ce* before the rest (*c'était*, *ce sont*)
# a word's part in the reading
SUBJECT, BE, BEFORE_BE, ADVERB, UNTRANSLATED, PREDICATE, OTHER = range(7)


def _before(k: int) -> int:
    return 1 + k


def _after(k: int) -> int:
    return 1 + len(SUBJECTS) + k


@dataclass(frozen=True)
class WordKind:
    part: int                                   # SUBJECT … OTHER
    subject: int = -1                           # SUBJECT: its index in SUBJECTS
    agrees: tuple[bool, ...] = ()               # PREDICATE: agrees with each subject
    agreeable: tuple[bool, ...] = ()            # PREDICATE: has a form that agrees with each subject
    gendered: tuple[bool, ...] = ()             # PREDICATE: agrees with each subject, not with its other gender
    determiner: bool = False                    # opens a noun phrase after *être* (COPULA_DETERMINERS)


class AgreementStates:
    """What each word, and each phrase, does to the reading: `transitions(words)` gives, for every
    state a phrase may start in, the state it ends in and the agreeing and disagreeing predicates
    it holds. `twin` marks the word of a phrase that was inflected to make it (`twin_forms`): it
    counts as disagreeing unless it is read as a predicate that agrees, so that the inflected
    copies of a phrase serve agreement and nothing else. Agreeing predicates are counted, not only
    disagreeing ones: a cost alone would pay the search to write no predicate at all (*elle
    n'était pas de la mort*) rather than the agreeing one.

    An adverb that is also an adjective (*fort*, *bien*) is read as an adverb here, where
    `agreeing_predicate` takes it for the predicate when no other follows."""

    MEMO = 200_000
    start = NONE            # the state before any word
    count = STATES          # states, as the compiled core counts them (AGREEMENT_STATES)

    def __init__(self, inflections: FrenchInflections):
        self.inflections = inflections
        self._kinds: dict[str, WordKind] = {}
        self._memo: dict[tuple, bytes] = {}
        self.cells = CELLS

    def kind(self, word: str) -> WordKind:
        got = self._kinds.get(word)
        if got is None:
            got = self._kinds[word] = self._kind(word)
        return got

    def _kind(self, word: str) -> WordKind:
        lower = word.lower()
        inf = self.inflections
        if lower in SUBJECT_FORMS:
            return WordKind(SUBJECT, SUBJECT_FORMS[lower])
        if lower in COPULA_DETERMINERS:
            # *leur* is a clitic before *être* too (*il leur est*): its part there, a determiner after
            return WordKind(BEFORE_BE if lower in BEFORE_ETRE else OTHER, determiner=True)
        if lower in ETRE:
            return WordKind(BE)
        if lower in BEFORE_ETRE:
            return WordKind(BEFORE_BE)
        if lower in inf.adverbs:
            return WordKind(ADVERB)
        if _predicate_word(lower, inf):
            agrees = tuple(any(not p.noun and g in (gender, "epi") and n in (number, "inv")
                               for p, (g, n) in inf.cells(lower)) for gender, number in self.cells)
            agreeable = tuple(inf.inflect(lower, gender, number) is not None for gender, number in self.cells)
            # a gender of its own: it would not agree with the other gender of the same number
            # (*morte*, *vieux*; not *difficile*, *rapide*)
            gendered = tuple(agrees[k] and not agrees[OTHER_GENDER[k]] for k in range(len(SUBJECTS)))
            return WordKind(PREDICATE, agrees=agrees, agreeable=agreeable, gendered=gendered)
        if _untranslated(lower, inf):
            return WordKind(UNTRANSLATED)
        return WordKind(OTHER)

    def step(self, state: int, word: str, twin: bool = False) -> tuple[int, int, int]:
        """(the state after `word`, 1 if it is a predicate that agrees, 1 if it is one that does not
        or a misused inflected copy) from `state`."""
        w = self.kind(word)
        misused = int(twin)
        if w.part == SUBJECT:
            return _before(w.subject), 0, misused
        if state == NONE:
            return NONE, 0, misused
        k = (state - 1) % len(SUBJECTS)
        if state < _after(0):           # before *être*
            if w.part == BE:
                return _after(k), 0, misused
            return (state if w.part in (BEFORE_BE, ADVERB) else NONE), 0, misused
        if w.part in (BE, ADVERB, UNTRANSLATED):
            return state, 0, misused
        if w.determiner:
            return NONE, 0, int(k < PERSONAL) + misused
        if w.part == PREDICATE:
            if w.agrees[k]:
                # counted where the gender the pronoun chose is at stake: a personal pronoun, a
                # predicate of one gender (*c'est difficile* and *il est rapide* earn nothing, so
                # that the search has no reason to write either for its own sake)
                return NONE, int(k < PERSONAL and w.gendered[k]), 0
            return NONE, 0, int(w.agreeable[k] or twin)
        return NONE, 0, misused

    def transitions(self, words: Sequence[str], twin: int = -1) -> bytes:
        """For each state s: byte s the state after `words` from s, byte STATES + s the agreeing
        predicates they hold, byte 2 * STATES + s the disagreeing ones (word `twin` being the
        inflected one)."""
        key = (tuple(words), twin)
        got = self._memo.get(key)
        if got is not None:
            return got
        if twin < 0 and words and self.kind(words[-1]).part == OTHER and not any(
                self.kind(w).part == SUBJECT for w in words):
            # most phrases: the reading ends at their last word whatever came before, and only a
            # predicate read before it counts; from NONE nothing does
            return self._closed(key, words)
        table = bytearray(3 * STATES)
        for s in range(STATES):
            state, agree, disagree = s, 0, 0
            for i, w in enumerate(words):
                state, a, d = self.step(state, w, i == twin)
                agree, disagree = agree + a, disagree + d
            table[s], table[STATES + s], table[2 * STATES + s] = state, min(agree, 255), min(disagree, 255)
        if len(self._memo) >= self.MEMO:
            self._memo.clear()
        got = self._memo[key] = bytes(table)
        return got

    def _closed(self, key: tuple, words: Sequence[str]) -> bytes:
        """`transitions` of a phrase that ends in NONE from every state (its last word ends any
        reading) and holds no subject: from NONE it counts nothing, and from any other state the
        reading stops at the first word that ends it."""
        table = bytearray(3 * STATES)
        for s in range(1, STATES):
            state, agree, disagree = s, 0, 0
            for w in words:
                state, a, d = self.step(state, w)
                agree, disagree = agree + a, disagree + d
                if state == NONE:
                    break
            table[STATES + s], table[2 * STATES + s] = min(agree, 255), min(disagree, 255)
        if len(self._memo) >= self.MEMO:
            self._memo.clear()
        got = self._memo[key] = bytes(table)
        return got

    def predicate_index(self, words: Sequence[str]) -> int | None:
        """The word of a phrase that would be a subject's predicate if the phrase came after the
        subject (and its *être*): the first word that is not a subject, a form of *être*, a word
        before it, an adverb or an English word, where it is an adjective or a participle."""
        for i, w in enumerate(words):
            part = self.kind(w).part
            if part == PREDICATE:
                return i
            if part not in (SUBJECT, BE, BEFORE_BE, ADVERB, UNTRANSLATED):
                return None
        return None

    def pronoun_copies(self, words: Sequence[str]) -> list[tuple[str, ...]]:
        """The phrase with its subject pronoun in each other form its *être* allows, where it opens
        with a subject pronoun, then *ne*/*n'* or nothing, then a finite form of *être*: *ils
        étaient* → *elles étaient*, *c'étaient*; *c'était* → *il était*, *elle était*. Where a
        phrase table has only one of them for *they were* (*ils étaient*: the corpus's *c'étaient*
        falls below the table limit), the construction (*c'étaient des cadeaux*) and the antecedent's
        gender (*elle était vieille*) have options to choose from. *Ça*/*cela* are left as they are
        (*ça a été*, *cela est*: another register of *ce*). Before a compound tense of *être* (*a
        été*, *ont été*, *avait été*) the copies are the personal pronouns of its number, from a
        personal pronoun or from *on* (*on a été volé*, the 33k table's only option for *it was
        stolen*: *il a été volé*, *elle a été volé*, whose predicate the twins inflect)."""
        if len(words) < 2:
            return []
        first = words[0].lower()
        personal_first = first in SUBJECT_FORMS and SUBJECT_FORMS[first] < PERSONAL
        if not personal_first and first not in ("ce", "c'", IMPERSONAL_SUBJECT):
            return []
        j = 1
        while j < len(words) and words[j].lower() in NEGATION:
            j += 1
        verb = words[j].lower() if j < len(words) else ""
        if verb in FINITE_ETRE and first != IMPERSONAL_SUBJECT:
            number = FINITE_ETRE[verb]
            forms: tuple[str, ...] = (*PERSONAL_FORMS[number], "c'" if words[1].lower()[:1] in ELIDING else "ce")
        elif verb in AVOIR_ETE and _been_after(words, j + 1) and (
                personal_first or (first == IMPERSONAL_SUBJECT and AVOIR_ETE[verb] == "sing")):
            forms = PERSONAL_FORMS[AVOIR_ETE[verb]]
        else:
            return []
        out = []
        for form in forms:
            if SUBJECT_FORMS[form] == SUBJECT_FORMS.get(first):
                continue
            if words[0][:1].isupper():
                form = form[:1].upper() + form[1:]
            out.append((form, *words[1:]))
        return out

    def clitic_copies(self, words: Sequence[str], positions: Sequence[int]) -> list[tuple[str, ...]]:
        """The phrase with each object clitic at `positions` (the words aligned to an English *it*)
        in its other gender: *le réparer* → *la réparer*. A phrase table learned *repair it* →
        *le réparer* from masculine antecedents far more often than *la réparer*, and the table
        limit may keep only the first; the coreference model then has the feminine to choose.
        *L'* and *les* have one form for both genders. A clitic that ends its phrase (*it* → *le*
        alone, *expliqué le*) is not copied: search puts such a phrase after the verb it follows in
        English, where French cannot have the clitic (*j'ai expliqué la*; on the large model's dev
        talks such copies wrote 10 object *la* after their verb that the references leave out)."""
        out = []
        for i in sorted(set(positions)):
            other = CLITIC_OF_OTHER_GENDER.get(words[i].lower()) if 0 <= i < len(words) - 1 else None
            if other is not None:
                if words[i][:1].isupper():
                    other = other.capitalize()
                out.append((*words[:i], other, *words[i + 1:]))
        return out

    def twin_forms(self, word: str) -> list[str]:
        """The other forms of a predicate for the four genders and numbers, without repeats."""
        out: list[str] = []
        for gender, number in self.cells[:4]:
            form = self.inflections.inflect(word, gender, number)
            if form is not None and form != word and form not in out:
                out.append(form)
        return out


def _been_after(words: Sequence[str], k: int) -> bool:
    """Whether *été* follows at `k`, past the adverbs that may stand before it."""
    while k < len(words) and words[k].lower() in BETWEEN_AVOIR_ETE:
        k += 1
    return k < len(words) and words[k].lower() == "été"


@dataclass(frozen=True)
class PredicateAgreement:
    """French's predicate agreement as the rest of cad reads it (cad.lang.facts.Language.agreement):
    the decoder's reading (`states`), the (gender, number) of each subject pronoun, and the
    predicate after a subject, over the inflection lexicon both were built from."""
    inflections: FrenchInflections
    states: AgreementStates
    subject_cells: Mapping[str, tuple[str, str]]

    def agreeing_predicate(self, words: Sequence[str], subject: int, gender: str, number: str) -> Predicate | None:
        return agreeing_predicate(words, subject, gender, number, self.inflections)


def load(inflections: FrenchInflections | None = None) -> PredicateAgreement:
    """The reading over Grammalecte's dictionary (hunspell-fr-comprehensive, `make resources`), or
    over the lexicon given."""
    if inflections is None:
        from cad.resources import fr_inflection

        inflections = fr_inflection.load()
    return PredicateAgreement(inflections, AgreementStates(inflections), dict(SUBJECT_CELLS))
