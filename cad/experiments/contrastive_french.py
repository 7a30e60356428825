"""The French edits of `cad contrastive make`: a subject pronoun's gender flipped with the words that
agree with it, and a noun replaced by one of the other gender with its determiner and agreeing
words. Both read spaCy's French dependency parse of the sentence (cad.lang.fr_morph.french_nlp) and
the forms of Grammalecte's dictionary (cad.resources.fr_inflection); an edit that cannot be made
cleanly returns None with the reason, and the item is skipped.

What agrees with a word w (`agreeing`):
- the predicate whose subject w is (dependency nsubj, nsubj:pass or expl:subj) when *être* is its
  copula or auxiliary (cop, aux:pass, aux:tense with lemma être): *elle est morte*, *elle a été
  blessée*, *elle s'est cassée*; *sembler*, *devenir*, *rester*, *paraître*, *demeurer* and their
  xcomp (*elle semble heureuse*); and the adjectives or participles coordinated with that
  predicate (*belle et intelligente*);
- for a noun, its adjectives (amod), participles (acl), the predicate of a relative clause
  whose subject is *qui* with *être* (*la voiture qui est arrivée*) and its determiner.
A predicate that is a noun phrase (*elle est une idée*) does not agree and is left; a predicate
the dictionary knows as an adjective or participle but has no other-gender form for ends the edit.
"""

from __future__ import annotations

from cad.resources.fr_inflection import OTHER, FrenchInflections

PRONOUN_FLIP = {"il": "elle", "elle": "il", "ils": "elles", "elles": "ils"}
PRONOUN_GENDER = {"il": ("masc", "sing"), "elle": ("fem", "sing"), "ils": ("masc", "plur"), "elles": ("fem", "plur")}
SUBJECT = {"nsubj", "nsubj:pass", "expl:subj"}
BE_DEPS = {"cop", "aux:pass", "aux:tense", "aux"}
LINKING = {"sembler", "devenir", "rester", "paraître", "demeurer", "sentir", "trouver"}
# an adjective that agrees with nothing in a locution (un carburant bon marché / une molécule bon marché)
LOCUTIONS = {("bon", "marché"), ("meilleur", "marché")}
# elided words before a noun phrase, and their form before a consonant (qu' énergies -> que sommets)
UNELIDED = {"qu'": "que", "d'": "de", "jusqu'": "jusque", "lorsqu'": "lorsque", "puisqu'": "puisque"}
# determiners by gender: (masculine, feminine, before a vowel) of each family
DET_FAMILIES = [("le", "la", "l'"), ("ce", "cette", None), ("un", "une", None), ("mon", "ma", "mon"), ("ton", "ta", "ton"),
                ("son", "sa", "son"), ("quel", "quelle", None), ("aucun", "aucune", None), ("tout", "toute", None),
                ("certain", "certaine", None), ("nul", "nulle", None), ("quels", "quelles", None),
                ("tous", "toutes", None), ("certains", "certaines", None)]
DET_FAMILY = {w: f for f in DET_FAMILIES for w in f if w} | {"cet": ("ce", "cette", None)}
DET_SAME = {"notre", "votre", "leur", "les", "des", "ces", "mes", "tes", "ses", "nos", "vos", "leurs", "plusieurs",
            "chaque", "quelques", "aux"}
# pronouns that take the gender of the noun phrase after them (*un de ces jeux*, *une de ces
# leçons*): the other-gender form and the number their predicates agree in
QUANTIFIERS = {"un": ("une", "sing"), "une": ("un", "sing"), "aucun": ("aucune", "sing"), "aucune": ("aucun", "sing"),
               "chacun": ("chacune", "sing"), "chacune": ("chacun", "sing"), "certains": ("certaines", "plur"),
               "certaines": ("certains", "plur"), "quelques-uns": ("quelques-unes", "plur"),
               "quelques-unes": ("quelques-uns", "plur")}
PARTITIVE = {"de", "d'", "des", "du"}
VOWELS = set("aeiouyéèêëàâäîïôöûùüœæ")


def starts_with_vowel(word: str) -> bool:
    return word[:1].lower() in VOWELS


def _case_as(form: str, model: str) -> str:
    return form[:1].upper() + form[1:] if model[:1].isupper() else form


def _be(token) -> bool:
    return any(c.dep_ in BE_DEPS and c.lemma_ == "être" for c in token.children)


def predicates(token) -> list:
    """The words whose gender follows `token` as their subject (the module's docstring)."""
    if token.dep_ not in SUBJECT or token.head is token:
        return []
    # the head, and the verbs coordinated with it that share its subject (elles ont … et se sentent …)
    heads = [token.head] + [c for c in token.head.children
                            if c.dep_ == "conj" and not any(x.dep_ in SUBJECT for x in c.children)]
    out = []
    for head in heads:
        if _be(head):
            out.append(head)
        elif head.lemma_ in LINKING:
            out += [c for c in head.children if c.dep_ == "xcomp"]
    for p in list(out):
        out += [c for c in p.children if c.dep_ == "conj" and not any(x.dep_ in SUBJECT for x in c.children)]
    return out


def noun_dependents(token) -> list:
    """The adjectives, participles and relative-clause predicates that agree with a noun."""
    out = []
    for c in token.children:
        if c.dep_ in ("amod", "acl"):
            out.append(c)
            out += [x for x in c.children if x.dep_ == "conj"]
        elif c.dep_ == "acl:relcl" and any(x.dep_ in SUBJECT and x.lower_ == "qui" for x in c.children) and _be(c):
            out.append(c)
    return out


Edits = dict[int, list[str]]      # token position -> the words that replace it (none, one or two)


def apply_edits(words: list[str], edits: Edits) -> list[str]:
    return [w for i, old in enumerate(words) for w in edits.get(i, [old])]


def merge(a: Edits | None, b: Edits | None) -> Edits | None:
    """Two edits of one sentence, or None when either failed or they change one word differently."""
    if a is None or b is None or any(a[i] != b[i] for i in a.keys() & b.keys()):
        return None
    return {**a, **b}


class Editor:
    """Gender edits on one parsed sentence (a spaCy Doc over cad's tokens): each returns the
    edits (position -> new words) and an empty reason, or None and the reason it cannot be done."""

    def __init__(self, inflections: FrenchInflections):
        self.inf = inflections

    def _agree(self, words: list[str], deps: list, gender: str, number: str, edits: Edits) -> str | None:
        """Add the other-gender forms of `deps` to `edits`; the reason when one cannot be made."""
        for w in deps:
            if w.i in edits:
                continue
            if w.i + 1 < len(words) and (words[w.i].lower(), words[w.i + 1].lower()) in LOCUTIONS:
                continue
            new = self.inf.other_gender(words[w.i], gender, number)
            if new is None:
                if self.inf.inflected(words[w.i]) and not self.inf.noun_only(words[w.i]):
                    return f"no {OTHER[gender]} form of '{words[w.i]}'"
                continue            # a noun phrase, an adverb: nothing agrees
            if new != words[w.i]:
                edits[w.i] = [new]
                for d in (c for c in w.children if c.dep_ == "det"):   # la meilleure -> le meilleur
                    other = self._determiner(d.text, OTHER[gender], (edits.get(d.i + 1) or [words[d.i + 1]])[0])
                    if other is None or len(other) != 1:
                        return f"determiner '{d.text}' of '{words[w.i]}'"
                    edits[d.i] = other
        return None

    def _adjacent(self, doc, q: int, gender: str, number: str) -> list:
        """The adjectives right after the noun at `q` whose form agrees with it, whatever the
        parser made of them (*des lucioles naturelles* parsed as two nouns)."""
        out = []
        for t in doc[q + 1:]:
            cells = [cell for p, cell in self.inf.cells(t.lower_) if not p.noun]
            if not any(g in (gender, "epi") and n in (number, "inv") for g, n in cells):
                break
            out.append(t)
        return out

    def flip_pronouns(self, doc, positions: list[int]) -> tuple[Edits | None, str]:
        """The pronouns at `positions` (il, elle, ils, elles) of the other gender, and the
        predicates that agree with them."""
        words = [t.text for t in doc]
        edits: Edits = {}
        for p in positions:
            low = words[p].lower()
            if low not in PRONOUN_FLIP:
                return None, f"'{words[p]}' is not il, elle, ils or elles"
            gender, number = PRONOUN_GENDER[low]
            edits[p] = [_case_as(PRONOUN_FLIP[low], words[p])]
            why = self._agree(words, predicates(doc[p]), gender, number, edits)
            if why:
                return None, f"agreement: {why}"
        return edits, ""

    def replace_noun(self, doc, q: int, new_noun: str, gender: str, new_gender: str,
                     number: str) -> tuple[Edits | None, str]:
        """The noun at `q` (of `gender`) replaced by `new_noun` (of `new_gender`, the same number),
        with its determiner and, when the gender changes, the words that agree with it."""
        words = [t.text for t in doc]
        noun = doc[q]
        edits: Edits = {q: [_case_as(new_noun, words[q]) if q == 0 else new_noun]}
        if new_gender != gender:
            why = self._agree(words, noun_dependents(noun) + predicates(noun) + self._adjacent(doc, q, gender, number),
                              gender, number, edits)
            if why:
                return None, f"agreement: {why}"
            head = noun.head
            quantifier = QUANTIFIERS.get(head.lower_) if head.i != q and noun.dep_ == "nmod" else None
            if quantifier and any(c.dep_ == "case" and c.lower_ in PARTITIVE for c in noun.children):
                # un de ces jeux -> une de ces leçons, and what agrees with the pronoun
                edits[head.i] = [_case_as(quantifier[0], words[head.i])]
                why = self._agree(words, predicates(head), gender, quantifier[1], edits)
                if why:
                    return None, f"agreement: {why}"
        # the determiner: before the noun and the adjectives that precede it
        left = q
        while left > 0 and doc[left - 1].head.i == q and doc[left - 1].dep_ in ("amod", "advmod", "nummod"):
            left -= 1
        if left == 0 or not (doc[left - 1].head.i == q and doc[left - 1].dep_ == "det"
                             or words[left - 1].lower() in ("du", "au", "des", "aux")):
            if number == "plur":
                _unelide(words, edits, left)
                return edits, ""      # a plural without determiner (20 minutes, voici des…): none to change
            return None, "no determiner before the noun"
        d = left - 1
        new = self._determiner(words[d], new_gender, (edits.get(left) or [words[left]])[0])
        if new is None:
            return None, f"determiner '{words[d]}'"
        if new[0].lower() == "le" and d > 0 and words[d - 1].lower() in ("de", "à") and doc[d - 1].head.i == q:
            edits[d - 1] = [_case_as("du" if words[d - 1].lower() == "de" else "au", words[d - 1])]
            new = []            # de la voiture -> du camion
        edits[d] = new
        _unelide(words, edits, d)
        return edits, ""

    @staticmethod
    def _determiner(det: str, gender: str, following: str) -> list[str] | None:
        """The determiner `det` for a noun phrase of `gender` whose next word is `following`
        (one or two words: du → de la), None for one it cannot change."""
        low = det.lower()
        vowel = starts_with_vowel(following)
        if low in DET_SAME:
            return [det]
        if following[:1].lower() == "h":
            return None          # h muet or aspiré: the dictionary does not say
        if low in ("du", "au"):
            if gender == "masc" and not vowel:
                return [det]
            return [_case_as("de" if low == "du" else "à", det), "l'" if vowel else "la"]
        fam = DET_FAMILY.get(low)
        if fam is None:
            return None
        masc, fem, elided = fam
        if fam[0] == "ce":
            form = ("cet" if vowel else "ce") if gender == "masc" else "cette"
        else:
            form = elided if vowel and elided else masc if gender == "masc" else fem
        return [_case_as(form, det)]


def _unelide(words: list[str], edits: Edits, first: int) -> None:
    """An elided word before a noun phrase that now begins with a consonant takes its full form."""
    before = first - 1
    if before < 0 or before in edits or words[before].lower() not in UNELIDED:
        return
    new_first = (edits.get(first) or [words[first]])[0]
    if not starts_with_vowel(new_first) and new_first[:1].lower() != "h":
        edits[before] = [_case_as(UNELIDED[words[before].lower()], words[before])]
