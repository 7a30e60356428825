"""Mentions and pronoun sites of a spaCy parse of cad's Spanish tokens.

Mentions are what CorZu ranks: common and proper nouns (one mention per head), coordinations of
them, relative pronouns (they take the features of the noun their clause modifies while the
document is read: coref.spanish.entities), demonstrative pronouns, elided subjects (a finite
third-person verb without a subject; a quarter of CorZu's choices), and the pronouns resolved
before (`site_mention`).

Pronoun sites are the third-person pronouns to resolve: él/ella/ellos/ellas, su/sus,
suyo/suya/suyos/suyas, and lo/la/los/las/le/les where tagged as pronouns. They live here, not
beside the features as in English (coref.english.features), because the mention finder must
leave them out of the relative pronouns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cad.lang.es import FORM_MORPH, PRONOUN_CLASS, morph_of

# classes whose form marks the antecedent (not the possessed noun)
MARKS_ANTECEDENT = frozenset({"pers", "acc", "dat"})
CLITICS = frozenset({"lo", "la", "los", "las", "le", "les"})

DETERMINER_TYPES = {
    "el": "def", "la": "def", "los": "def", "las": "def", "del": "def", "al": "def", "lo": "def",
    "un": "indef", "una": "indef", "unos": "indef", "unas": "indef",
    "este": "dem", "esta": "dem", "estos": "dem", "estas": "dem", "ese": "dem", "esa": "dem",
    "esos": "dem", "esas": "dem", "aquel": "dem", "aquella": "dem", "aquellos": "dem", "aquellas": "dem",
    "su": "poss", "sus": "poss", "mi": "poss", "mis": "poss", "tu": "poss", "tus": "poss",
    "nuestro": "poss", "nuestra": "poss", "nuestros": "poss", "nuestras": "poss",
}
SUBJECT_DEPS = frozenset({"nsubj", "csubj", "expl:pass"})
NON_HUMAN_ENTS = frozenset({"LOC", "ORG", "MISC"})
EDGE_DEPS = frozenset({"case", "cc", "punct", "mark"})
# nouns that only denote people, which the lexicon learned from relative clauses (too few "the
# sister who") may lack: kinship and everyday roles
HUMAN_NOUNS = frozenset("""
hermano hermana hermanos hermanas hijo hija hijos hijas abuelo abuela abuelos abuelas tío tía tíos tías
niño niña niños niñas amigo amiga amigos amigas esposo esposa esposos esposas novio novia marido maridos
padre madre padres madres hombre hombres mujer mujeres persona personas gente rey reina reyes
ministro ministra ministros ministras presidente presidenta presidentes diputado diputada diputados
senador senadora senadores alumno alumna alumnos alumnas maestro maestra maestros maestras
profesor profesora profesores estudiante estudiantes médico médica médicos periodista periodistas
economista economistas ciudadano ciudadana ciudadanos ciudadanas vecino vecina vecinos vecinas
empleado empleada empleados trabajador trabajadora trabajadores votante votantes líder líderes
dirigente dirigentes
""".split())


@dataclass
class EsMention:
    sentence: int
    start: int                  # token span, end exclusive
    end: int
    head: int
    kind: str                   # noun | propn | rel | dem | zero | pers | su | suyo | acc | dat
    gender: str | None          # masc | fem | None; for pronouns and zeros: what their chain says
    number: str | None          # sing | plur | None
    human: bool | None
    role: str                   # subj | obj | iobj | obl | nmod | appos | conj | root | other
    ent: str = ""               # spaCy's entity type of the head: PER LOC ORG MISC, or ""
    word: str = ""              # the head, lowercased
    det: str = "bare"           # def | indef | dem | poss | bare
    nested: bool = False        # inside another noun phrase (*la casa de [Juan]*)
    coord: bool = False         # a coordination (*Juan y María*)
    clause: int = -1            # the head of the clause the mention belongs to
    entity: int = -1            # set while reading: mentions linked (or named alike) share it

    @property
    def pronoun(self) -> bool:
        return self.kind not in ("noun", "propn")


@dataclass
class EsSite:
    sentence: int
    index: int
    word: str                   # lowercased
    pclass: str                 # pers | su | suyo | acc | dat
    gender: str | None          # what the form shows (FORM_MORPH)
    number: str | None
    role: str                   # the pronoun's role; a possessive: "poss_" + its noun's role
    clause: int


def role_of(tok) -> str:
    dep = tok.dep_
    if dep in SUBJECT_DEPS:
        return "subj"
    if dep in ("obj", "iobj", "obl", "nmod", "appos", "conj"):
        return dep
    if dep == "ROOT":
        return "root"
    return "other"


def clause_of(tok) -> int:
    """The nearest verb (or predicate with a copula or subject) above a token: its clause."""
    t = tok
    for _ in range(50):
        if t.pos_ in ("VERB", "AUX") or any(c.dep_ in ("cop", "nsubj") for c in t.children):
            if t.dep_ not in ("aux", "cop"):
                return t.i
        if t.head is t:
            return t.i
        t = t.head
    return t.i


def _human(tok, lexicon) -> bool | None:
    if tok.ent_type_ == "PER" or tok.lower_ in HUMAN_NOUNS:
        return True
    if lexicon is not None:
        h = lexicon.is_human(tok.lower_)
        if h is not None:
            return h
    if tok.ent_type_ in NON_HUMAN_ENTS:
        return False
    return None


def _determiner(tok) -> str:
    for c in tok.children:
        if c.dep_ == "det" and c.i < tok.i:
            return DETERMINER_TYPES.get(c.lower_, "other")
    return "bare"


def _unk(x: str) -> str | None:
    return None if x == "unk" else x


def is_site(tok) -> bool:
    """A third-person pronoun to resolve: the personal and possessive forms always, the clitics
    lo/la/los/las/le/les only where tagged PRON (they are articles far more often)."""
    low = tok.lower_
    if low not in PRONOUN_CLASS:
        return False
    return low not in CLITICS or tok.pos_ == "PRON"


def site_of(tok, sentence: int) -> EsSite:
    low = tok.lower_
    pclass = PRONOUN_CLASS[low]
    gender, number = FORM_MORPH[low]
    role = role_of(tok)
    if pclass == "su" or (pclass == "suyo" and tok.dep_ == "det"):
        role = "poss_" + role_of(tok.head)
    return EsSite(sentence, tok.i, low, pclass, gender, number, role, clause_of(tok))


def sites_of_sentence(doc, sentence: int) -> list[EsSite]:
    return [site_of(t, sentence) for t in doc if is_site(t)]


def _zero_head(tok) -> bool:
    """A finite third-person verb whose clause has no overt subject: CorZu's elided subject (PE)
    sits on the finite verb, which is the auxiliary or copula where there is one."""
    if tok.pos_ not in ("VERB", "AUX") or "Fin" not in tok.morph.get("VerbForm"):
        return False
    if tok.morph.get("Person") not in (["3"], []):
        return False
    clause = tok.head if tok.dep_ in ("aux", "cop") else tok
    return not any(c.dep_ in SUBJECT_DEPS for c in clause.children)


def noun_span(doc, tok, with_conjuncts: bool = True) -> tuple[int, int]:
    """The noun's subtree without the preposition, conjunction or punctuation at its edges (UD
    hangs *de* and *y* below the noun: *[de] la casa*); without its conjuncts, the first one alone."""
    start, end = tok.left_edge.i, tok.right_edge.i + 1
    if not with_conjuncts:
        kept = [c for c in tok.children if c.dep_ not in ("conj", "cc")]
        start = min([tok.i] + [c.left_edge.i for c in kept])
        end = max([tok.i] + [c.right_edge.i for c in kept]) + 1
    while start < tok.i and doc[start].dep_ in EDGE_DEPS:
        start += 1
    while end - 1 > tok.i and doc[end - 1].dep_ in EDGE_DEPS:
        end -= 1
    return start, end


def coordination(doc, first: EsMention, conjuncts: list, lexicon) -> EsMention:
    """*la ministra y el presidente*: plural, masculine unless every conjunct is feminine, human if
    any conjunct is. It shares its head with the first conjunct, which is a mention of its own."""
    genders = {_unk(morph_of(t).gender) for t in conjuncts}
    humans = [_human(t, lexicon) for t in conjuncts]
    start, end = noun_span(doc, conjuncts[0])
    return replace(first, start=start, end=end, number="plur", coord=True,
                   gender="fem" if genders == {"fem"} else "masc" if "masc" in genders else None,
                   human=True if True in humans else False if all(h is False for h in humans) else None)


def mentions_of_sentence(doc, sentence: int, lexicon=None, genders=None) -> list[EsMention]:
    """The mentions a parse gives before any resolution (pronoun sites join while reading).
    `genders` (cad/lexicons/name_gender.py): the gender of person names, which spaCy leaves unmarked."""
    out = []
    for tok in doc:
        if tok.pos_ in ("NOUN", "PROPN"):
            if tok.dep_ in ("flat", "compound", "fixed") and tok.head.pos_ in ("NOUN", "PROPN"):
                continue        # part of a name whose first word heads it
            m = morph_of(tok)
            conjs = [c for c in tok.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN")]
            number = _unk(m.number)
            if number is None and tok.pos_ == "PROPN":
                number = "sing"         # names are singular unless marked (*los Estados unidos*)
            start, end = noun_span(doc, tok, with_conjuncts=False)
            nested = tok.dep_ == "nmod" or (tok.head is not tok and tok.head.pos_ in ("NOUN", "PROPN")
                                            and tok.dep_ not in ("conj", "appos"))
            human, gender = _human(tok, lexicon), _unk(m.gender)
            if gender is None and genders is not None and human and tok.pos_ == "PROPN":
                gender = genders.gender(tok.lower_)
            one = EsMention(sentence, start, end, tok.i, "propn" if tok.pos_ == "PROPN" else "noun",
                            gender, number, human, role_of(tok), tok.ent_type_,
                            tok.lower_, _determiner(tok), nested, False, clause_of(tok))
            out.append(one)
            if conjs:
                out.append(coordination(doc, one, [tok] + conjs, lexicon))
        elif tok.pos_ == "PRON" and "Rel" in tok.morph.get("PronType") and not is_site(tok):
            # features come from the noun the clause modifies (relative_antecedent, while reading)
            out.append(EsMention(sentence, tok.i, tok.i + 1, tok.i, "rel", None, None, None, role_of(tok),
                                 "", tok.lower_, "bare", False, False, clause_of(tok)))
        elif tok.pos_ == "PRON" and "Dem" in tok.morph.get("PronType"):
            m = morph_of(tok)
            out.append(EsMention(sentence, tok.i, tok.i + 1, tok.i, "dem", _unk(m.gender), _unk(m.number), None,
                                 role_of(tok), "", tok.lower_, "bare", False, False, clause_of(tok)))
        elif _zero_head(tok):
            m = morph_of(tok)
            out.append(EsMention(sentence, tok.i, tok.i + 1, tok.i, "zero", None, _unk(m.number), None, "subj",
                                 "", tok.lower_, "bare", False, False, clause_of(tok)))
    return out


def site_mention(site: EsSite, doc) -> EsMention:
    """A resolved pronoun as a mention for later pronouns (features filled in by its link)."""
    tok = doc[site.index]
    return EsMention(site.sentence, site.index, site.index + 1, site.index, site.pclass, None, None, None,
                     role_of(tok), "", site.word, "bare", False, False, site.clause)
