"""The construction an English *it*/*they* stands in, read from spaCy's parse: French chooses its
pronoun by it as much as by the antecedent. A thing already mentioned takes *il*/*elle* before
*être* and an adjective or a participle (*it was very old* → *elle était très vieille*, whose
predicate agrees), *ce* before a noun phrase or a clause (*it is a good idea* → *c'est une bonne
idée*, *it is what I wanted* → *c'est ce que je voulais*), *il* in impersonal constructions (*it is
important to know* → *il est important de savoir*, *it seems that* → *il semble que*), *ce* in a
cleft (*it was John who* → *c'est Jean qui*), a clitic as object (*I bought it* → *je l'ai acheté*).

`construction_of` is a pure function of the pronoun's token; `pronoun_constructions` reads a
document's pronouns as coref/english/roles.py reads their roles (one parse per sentence, or the
resolver's). The labels contain no hyphen, so that one can stand as a part of a CM bundle
(`it-copula_adjective-fem-sing`, whose parts are split on hyphens).

What the rules leave out, knowingly: only *be* is a copula (*it seems easy*, *it became famous*
are `subject`); an adjective with an infinitive is extraposition for *it* even where *it* refers
(*it is easy to use*); a noun phrase with a relative clause after *it is* is a cleft (*it is the
house that Jack built*), which French writes with *c'est* as well.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from coref.english.roles import BE, read_pronouns

COPULA_ADJECTIVE = "copula_adjective"      # it was very old; they were sold (participle)
COPULA_NOUN_PHRASE = "copula_noun_phrase"  # it is a good idea; it's me
COPULA_CLAUSE = "copula_clause"            # it is what I wanted; it is that he never came
COPULA_OTHER = "copula_other"              # it is in the box; it's over; what they are
EXTRAPOSITION = "extraposition"            # it is important to know; it seems that he left
CLEFT = "cleft"                            # it was John who broke it; it was in Paris that we met
SUBJECT = "subject"                        # it has changed a lot; it ran away
OBJECT = "object"                          # I bought it
PREPOSITIONAL_OBJECT = "prepositional_object"   # I think about it
OTHER = "other"
CONSTRUCTIONS = (COPULA_ADJECTIVE, COPULA_NOUN_PHRASE, COPULA_CLAUSE, COPULA_OTHER, EXTRAPOSITION, CLEFT,
                 SUBJECT, OBJECT, PREPOSITIONAL_OBJECT, OTHER)

SUBJECT_DEPS = {"nsubj", "nsubjpass", "expl"}
OBJECT_DEPS = {"dobj", "obj", "dative"}
# verbs whose *it* stands for the that-clause after them (*it seems that*, *it turns out that*);
# with an infinitive they raise a referring subject (*it seems to work*)
SEEM = {"seem", "seems", "seemed", "appear", "appears", "appeared", "happen", "happens", "happened",
        "occur", "occurs", "occurred", "turn", "turns", "turned"}
# verbs whose *it* stands for the infinitive after them (*it takes time to learn*, *it makes sense to wait*)
TAKE = {"take", "takes", "took", "taken", "taking", "make", "makes", "made", "making"}
# passives whose *it* stands for the infinitive after them (*it was decided to wait*); others
# take a referring subject (*it was designed to fly*)
DECIDED = {"decided", "agreed", "planned", "proposed", "suggested", "recommended", "hoped", "intended"}
# the words that open a clause a pronoun may stand for or that follows a cleft's focus
CLAUSE_WORDS = {"that", "what", "whether", "if", "how", "why", "where", "when", "who", "whom", "which", "whose"}
RELATIVE_WORDS = {"who", "whom", "which", "that", "whose", "where", "when"}
# adverbs that can be a cleft's focus (*it was then that I understood*)
FOCUS_ADVERBS = {"then", "now", "here", "there", "today", "yesterday", "tomorrow"}
CLAUSE_DEPS = {"ccomp", "xcomp", "advcl", "acl", "relcl", "csubj"}
# determiners of a definite focus (*it was the cat that ate it*) rather than of a noun predicate
# that takes a complement clause (*it is a pity that he left*, *it is time to go*)
DEFINITE = {"the", "this", "that", "these", "those", "my", "your", "his", "her", "its", "our", "their"}


@dataclass(frozen=True)
class Construction:
    label: str                      # one of CONSTRUCTIONS
    participle: bool = False        # the predicate after *be* is a past participle (passive or adjectival)
    predicate: int | None = None    # the predicate's token (adjective, participle, noun, clause head)
    # *be* stands after an auxiliary or a modal (*it has been*, *it will be*, *it might be*, *it 's
    # going to be*): French *ce* needs *être* right after it (*c'est*, *c'était*), so such a copula
    # is *ça* or *il*/*elle* (*ça a été*, *ça va être*, *elle peut être*)
    auxiliary: bool = False
    # the verb of a plain subject (*it works*, *it took a lot of preparation*): French's choice of
    # *ça* there goes with the verb (cad/cm/governors.py)
    governor: int | None = None


def _is_be(tok) -> bool:
    # norm_: a Moses-split negation (*wasn 't*) has the norm of spaCy's own split (coref/english/tokens.py)
    return tok.lower_ in BE or tok.norm_ in BE


def _infinitive(tok) -> bool:
    return any(c.dep_ == "aux" and c.lower_ == "to" for c in tok.children)


def _opener(clause):
    """The word that opens a clause: its marker or its first wh-word or relativizer."""
    for t in clause.subtree:
        if t.i >= clause.i:
            return None
        if t.lower_ in CLAUSE_WORDS:
            return t
    return None


def _clauses(*heads) -> list:
    return [c for h in heads for c in h.children if c.dep_ in CLAUSE_DEPS]


def _complement_clause(clauses: list, result_of=None):
    """The first clause a pronoun points forward to: an infinitive, or one opened by *that*, a
    wh-word, *whether* or *if*; not *so fast that …*, a result clause of the predicate."""
    result = result_of is not None and any(c.lower_ in ("so", "such") for c in result_of.children)
    for c in clauses:
        opener = _opener(c)
        if _infinitive(c) or (opener is not None and c.dep_ != "advcl" and not (result and opener.lower_ == "that")):
            return c
    return None


def _relative_clause(clauses: list):
    """The first clause opened by a relativizer (the rest of a cleft: *who broke it*, *that we met*)."""
    for c in clauses:
        opener = _opener(c)
        if opener is not None and opener.lower_ in RELATIVE_WORDS and not _infinitive(c):
            return c
    return None


def _definite_focus(attr) -> bool:
    """A focus a cleft puts first: a name, a pronoun, a definite or a bare noun phrase (a
    lowercased *john* is tagged a common noun), not an indefinite one (*a tool that cuts wood*)."""
    if attr.pos_ in ("PROPN", "PRON") or attr.tag_ in ("DT", "PRP", "NNP", "NNPS"):
        return True
    dets = [c for c in attr.children if c.dep_ in ("det", "poss")]
    return not dets or any(c.lower_ in DEFINITE for c in dets)


def _noun_phrase(be, attr, it: bool) -> Construction:
    if it:
        clause = _relative_clause(_clauses(attr, be))
        if clause is not None and _definite_focus(attr):
            return Construction(CLEFT, predicate=attr.i)
        rel = clause is not None and _opener(clause).dep_ in ("nsubj", "nsubjpass")
        if not rel and _complement_clause(_clauses(attr, be)) is not None:
            return Construction(EXTRAPOSITION, predicate=attr.i)
    return Construction(COPULA_NOUN_PHRASE, predicate=attr.i)


# the forms of *be* that stand after an auxiliary or a modal (*has been*, *will be*, *might be*, *is
# going to be*, *it 's being*): the finite forms (*is*, *was*, *'s*) stand alone
NON_FINITE_BE = {"be", "been", "being"}


def _under_auxiliary(be) -> bool:
    return be.lower_ in NON_FINITE_BE


def _copula(tok, be) -> Construction:
    """*it* / *they* as the subject of *be*, by what follows; whether *be* stands after an
    auxiliary (Construction.auxiliary)."""
    found = _copula_frame(tok, be)
    return replace(found, auxiliary=True) if _under_auxiliary(be) else found


def _copula_frame(tok, be) -> Construction:
    it = tok.lower_ == "it"
    kids = {}
    for c in be.children:
        kids.setdefault(c.dep_, c)
    if "attr" in kids and _fronted_question_word(tok, kids["attr"]):
        # *what they are*, *who it is*: no noun phrase follows *be*; French keeps the subject's own
        # pronoun (*ce qu'ils sont*, *qui ils sont*, *ce que c'est*)
        return Construction(COPULA_OTHER)
    if "attr" in kids:
        return _noun_phrase(be, kids["attr"], it)
    if "acomp" in kids:
        pred = kids["acomp"]
        if pred.tag_ == "VBG":              # *it 's raining*, parsed as an adjective
            return Construction(SUBJECT)
        if pred.tag_ in ("PRP", "PRP$"):    # *they are mine*
            return Construction(COPULA_NOUN_PHRASE, predicate=pred.i)
        participle = pred.tag_ == "VBN"
        if it and _complement_clause(_clauses(pred, be), pred) is not None:
            return Construction(EXTRAPOSITION, participle, pred.i)
        return Construction(COPULA_ADJECTIVE, participle, pred.i)
    clauses = _clauses(be)
    focus = kids.get("prep") or next((c for c in be.children if c.dep_ == "advmod" and c.lower_ in FOCUS_ADVERBS), None)
    if it and focus is not None and _relative_clause(clauses) is not None:
        return Construction(CLEFT, predicate=focus.i)
    clause = next((c for c in clauses if c.dep_ in ("ccomp", "advcl") and _opener_or_mark(c)), None)
    if clause is not None:
        return Construction(COPULA_CLAUSE, predicate=clause.i)
    return Construction(COPULA_OTHER)


def _fronted_question_word(tok, attr) -> bool:
    """The predicate of *be* is a wh-word before its subject (*what they are*, *who it was*)."""
    return attr.i < tok.i and attr.lower_ in CLAUSE_WORDS


def _opener_or_mark(clause) -> bool:
    """A clause that can be the predicate of *be*: opened by a wh-word, *that*, *because*…"""
    return _opener(clause) is not None or any(c.dep_ == "mark" for c in clause.children)


def _passive(tok, verb) -> Construction:
    """*it* / *they* as the subject of a passive with *be* (*it was mortally wounded*)."""
    if tok.lower_ == "it":
        # the extraposed clause follows the participle with no noun phrase between (*it is said
        # that*, *it was decided yesterday to*); after one it belongs to that noun (*it 's based on
        # this research that …*, whose *it* refers)
        clauses = [c for c in _clauses(verb) if not _noun_between(verb, c)]
        that = next((c for c in clauses if c.dep_ == "ccomp" and _opener(c) is not None), None)
        to = next((c for c in clauses if _infinitive(c)), None)
        if that is not None or (to is not None and verb.lower_ in DECIDED):
            return Construction(EXTRAPOSITION, True, verb.i)
    return Construction(COPULA_ADJECTIVE, True, verb.i)


def _noun_between(verb, clause) -> bool:
    """Whether a noun stands between `verb` and the first word of `clause`."""
    first = min(t.i for t in clause.subtree)
    return any(t.pos_ in ("NOUN", "PROPN") for t in verb.doc[verb.i + 1:first])


def _be_passive(verb) -> bool:
    return any(c.dep_ == "auxpass" and _is_be(c) for c in verb.children)


def _subject(tok, head) -> Construction:
    if _is_be(head):
        return _copula(tok, head)
    if _be_passive(head):
        return _passive(tok, head)
    if tok.lower_ == "it":
        clauses = _clauses(head)
        if head.lower_ in SEEM and any(c.dep_ == "ccomp" and _opener(c) is not None for c in clauses):
            return Construction(EXTRAPOSITION, predicate=head.i)
        if head.lower_ in TAKE and any(_infinitive(c) for c in clauses):
            return Construction(EXTRAPOSITION, predicate=head.i)
    # *it seems to be broken*, *it has to be done*: the *be* of the infinitive
    for x in (c for c in head.children if c.dep_ == "xcomp"):
        if _is_be(x):
            return _copula(tok, x)
        if _be_passive(x):
            return _passive(tok, x)
    return Construction(SUBJECT, governor=head.i)


def construction_of(tok) -> Construction:
    """The construction of the pronoun `tok` (a token of a spaCy parse, *it* or *they*)."""
    if tok.dep_ in SUBJECT_DEPS and tok.head is not tok:
        return _subject(tok, tok.head)
    if tok.dep_ in OBJECT_DEPS:
        return Construction(OBJECT)
    if tok.dep_ == "pobj":
        return Construction(PREPOSITIONAL_OBJECT)
    return Construction(OTHER)


def pronoun_constructions(sentences: list[list[str]], positions: set[tuple[int, int]],
                          parsed: list | None = None) -> dict[tuple[int, int], Construction]:
    """{(sentence, token): construction} for the given positions of a document's tokenized
    sentences, parsed as `pronoun_roles` parses them (`parsed`: a resolver's Docs)."""
    return read_pronouns(sentences, positions, construction_of, parsed)
