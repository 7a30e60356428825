"""A native Spanish pronoun resolver: the backend for Spanish text that has no CorZu output.

Learned from CorZu (seed 003's resolver) on News Commentary: there is no gold Spanish coreference,
so CorZu's first candidate is what the ranker imitates (coref.spanish.train trains it).

A document is parsed by spaCy's Spanish model (`cad.lang.es.spanish_nlp`) from the given tokens,
after restoring case: the MT pipeline lowercases, and the small model tags `obama` an adjective and
finds a third fewer persons in lowercased text. The truecasing table is learned from the training
text and stored in the model file, so the resolver has one file to load.

Mentions are what CorZu ranks: common and proper nouns (one mention per head), relative pronouns
(they take the features of the noun their clause modifies), demonstrative pronouns, elided
subjects (a finite third-person verb without a subject; a quarter of CorZu's choices), and the
pronouns resolved before. The document is read in order; every pronoun site gets a softmax over
the mentions of its sentence and the `window` previous ones, most recent first. A pronoun or
elided subject takes the gender, number and humanness of what it was linked to (CorZu propagates
its features along chains the same way), so a later *su* linked to an earlier *él* still says
"masc sing human". Elided subjects are linked by a rule (the nearest earlier subject agreeing in
number): CorZu's records give no antecedents for them to learn from.

What a pronoun's form says: él/ella/ellos/ellas and lo/la/los/las give the antecedent's gender and
number, le/les its number. su/sus and suyo/suya/suyos/suyas agree with the possessed noun and say
nothing certain about the possessor (seed 003 §3); their own gender and number enter the features
only in conjunction with the candidate's, so the ranker learns whatever correlation there is.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Callable, Iterable

import numpy as np

from cad.core.errors import CadError
from cad.lang.es import FORM_MORPH, PRONOUN_CLASS, morph_of
from coref.features import bucket as _bucket, dependency_path
from coref.records import Candidate, PronounResolution, keep_likely
from coref.softmax import SoftmaxRanker, load_json, save_json

MODEL_VERSION = 1
DEFAULT_MODEL = "ranker-es.json.gz"

# classes whose form marks the antecedent (not the possessed noun)
MARKS_ANTECEDENT = frozenset({"pers", "acc", "dat"})
CLITICS = frozenset({"lo", "la", "los", "las", "le", "les"})
ALL_PRONOUNS = tuple(PRONOUN_CLASS)

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




# -- case restoration ----------------------------------------------------------------------------

@dataclass
class Truecaser:
    """The usual written form of words that are not usually lowercase (names, acronyms), learned
    from their occurrences inside sentences (a sentence's first word is capitalized anyway)."""

    forms: dict[str, str] = field(default_factory=dict)

    @classmethod
    def learn(cls, sentences: Iterable[list[str]], min_count: int = 3) -> "Truecaser":
        total: Counter[str] = Counter()
        cased: dict[str, Counter[str]] = {}
        for toks in sentences:
            for t in toks[1:]:
                if not t.isalpha():
                    continue
                low = t.lower()
                total[low] += 1
                if t != low:
                    cased.setdefault(low, Counter())[t] += 1
        forms = {}
        for low in sorted(cased):
            form = max(sorted(cased[low].items()), key=lambda x: x[1])[0]
            if total[low] >= min_count and sum(cased[low].values()) * 2 > total[low]:
                forms[low] = form
        return cls(forms)

    def apply(self, tokens: list[str]) -> list[str]:
        """Only all-lowercase tokens change: text that kept its case is left as it is."""
        out = []
        for i, t in enumerate(tokens):
            if t == t.lower():
                form = self.forms.get(t)
                if form is not None:
                    t = form
                elif i == 0 and t[:1].isalpha():
                    t = t[:1].upper() + t[1:]
            out.append(t)
        return out


def parse(nlp, sentences: list[list[str]], truecaser: Truecaser | None = None) -> list:
    """spaCy Docs whose tokens are exactly `sentences` (indices match); the parser reads the
    truecased forms, while `token.lower_` is the same either way."""
    from spacy.tokens import Doc

    words = [truecaser.apply(s) if truecaser else list(s) for s in sentences]
    return list(nlp.pipe(Doc(nlp.vocab, words=w) for w in words))


# -- mentions and pronoun sites ------------------------------------------------------------------

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
    `genders` (cad/lang/name_gender.py): the gender of person names, which spaCy leaves unmarked."""
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


def inherit(m: EsMention, ante: EsMention | None) -> None:
    """A pronoun or elided subject takes its antecedent's features, except what its own form says."""
    g, n, h = (ante.gender, ante.number, ante.human) if ante is not None else (None, None, None)
    if m.kind in MARKS_ANTECEDENT:
        fg, fn = FORM_MORPH[m.word]
        g, n = fg or g, fn or n
    elif m.kind == "zero" and m.number is not None:
        n = m.number            # the verb's agreement is the subject's number
    m.gender, m.number, m.human = g, n, h


def relative_antecedent(doc, m: EsMention, noun_at: dict[int, EsMention]) -> EsMention | None:
    """The noun a relative clause modifies (*el hombre [que] vino*: hombre)."""
    t = doc[m.head]
    for _ in range(4):
        if t.dep_ == "acl" and t.head.i in noun_at:
            return noun_at[t.head.i]
        if t.head is t:
            return None
        t = t.head
    return None


def name_key(m: EsMention) -> tuple | None:
    """Nominal mentions that name the same thing: one proper noun, or a definite noun repeated
    (*la crisis ... esta crisis*); an indefinite one (*otros países*) starts its own entity."""
    if m.kind == "propn":
        return ("propn", m.word)
    if m.kind == "noun" and m.det in ("def", "dem"):
        return ("noun", m.word, m.number)
    return None


def zero_antecedent(zero: EsMention, seen: list[EsMention], window: int) -> EsMention | None:
    """The rule for elided subjects: the nearest earlier subject agreeing in number, else the
    nearest earlier noun that does (Spanish drops the subject that continues the topic)."""
    lo = zero.sentence - window
    near = [c for c in reversed(seen) if c.sentence >= lo]

    def agrees(c: EsMention) -> bool:
        return zero.number is None or c.number is None or c.number == zero.number

    for c in near:
        if c.role == "subj" and agrees(c) and c.kind not in ("rel", "dem"):
            return c
    for c in near:
        if c.kind in ("noun", "propn") and agrees(c):
            return c
    return None


# -- features ------------------------------------------------------------------------------------

def agrees(site: EsSite, m: EsMention) -> bool:
    """Nothing the pronoun's form says about its antecedent contradicts the mention's features."""
    if site.pclass not in MARKS_ANTECEDENT:
        return True
    if site.gender and m.gender and m.gender != site.gender:
        return False
    return not (site.number and m.number and m.number != site.number)


def pair_features(site: EsSite, m: EsMention, parsed, rank: int, head_count: int, entity_size: int = 1,
                  agree_rank: int = 0, nominal_rank: int = 0) -> list[str]:
    """Binary features of linking the pronoun at `site` to mention `m`. `rank`: how many candidates
    lie between them, `agree_rank` how many agreeing ones, `nominal_rank` how many nouns;
    `head_count`: the head word's occurrences in the document so far and `entity_size` the
    mention's entity's mentions, its salience. Each is also conjoined with the pronoun class."""
    pc = site.pclass
    sd = site.sentence - m.sentence
    tdist = sum(len(parsed[s]) for s in range(m.sentence, site.sentence)) + site.index - m.head
    f = [f"k={m.kind}", f"sd={sd}", f"k={m.kind}|sd={sd}", f"rank={_bucket(rank)}", f"td={_bucket(tdist // 3)}",
         f"crole={m.role}", f"prole={site.role}", f"roles={m.role}>{site.role}", f"sd={sd}|crole={m.role}",
         f"cgen={m.gender}", f"cnum={m.number}", f"hum={m.human}", f"ent={m.ent or '-'}",
         f"det={m.det}", f"hc={_bucket(head_count)}", f"k={m.kind}|hum={m.human}",
         f"esize={_bucket(entity_size)}", f"esize={_bucket(entity_size)}|sd={sd}"]
    if agrees(site, m):
        f.append(f"arank={_bucket(agree_rank)}")
    if not m.pronoun:
        f.append(f"nrank={_bucket(nominal_rank)}")
    if pc in MARKS_ANTECEDENT:
        if site.gender:
            f.append("gen_unk" if m.gender is None else "gen_match" if m.gender == site.gender else "gen_clash")
        f.append("num_unk" if m.number is None else "num_match" if m.number == site.number else "num_clash")
    else:
        # the possessed noun's gender/number against the possessor's: correlations only
        f.append(f"pnum={site.number}|cnum={m.number}")
        if site.gender:
            f.append(f"pgen={site.gender}|cgen={m.gender}")
    if m.nested:
        f.append("nested")
    if m.coord:
        f.append("coord")
    if sd == 0:
        if m.start <= site.index < m.end:
            f.append("contains_pronoun")        # i-within-i: *[su perfecta antítesis]*
        if m.clause == site.clause:
            f += ["same_clause", f"same_clause|crole={m.role}"]
        f.append(f"path={dependency_path(parsed[site.sentence], m.head, site.index)}")
    if m.pronoun:
        f.append(f"cword={m.word}")
        if m.word == site.word:
            f.append("same_word")
        if m.kind == site.pclass:
            f.append("same_class")
    if m.head == 0 or m.start == 0:
        f.append("sentence_initial")
    if m.role == "subj" and parsed[m.sentence][m.clause].dep_ == "ROOT":
        f.append("main_subject")
    # no head-word features: trained on 400 documents they learned their topics (*hamas*,
    # *japón*) and did no better on unseen documents than without
    return [x for base in f for x in (base, f"{base}|{pc}")]


def anaphoricity_features(site: EsSite, doc) -> list[str]:
    """Does CorZu resolve this clitic at all? (neuter *lo*: *lo que*, *lo es*; *le* of *Le Pen*).
    Personal and possessive pronouns need no such model: CorZu resolves all but cataphoric ones
    (643 of 650 in dev)."""
    i = site.index
    tok = doc[i]
    nxt = doc[i + 1].lower_ if i + 1 < len(doc) else "</s>"
    prev = doc[i - 1].lower_ if i > 0 else "<s>"
    f = [f"w={site.word}", f"dep={tok.dep_}", f"pos={tok.pos_}", f"n1={nxt}", f"p1={prev}",
         f"role={site.role}", f"headpos={tok.head.pos_}"]
    if i == 0:
        f.append("first")
    return [x for base in f for x in (base, f"{base}|{site.word}")]


# -- the model -----------------------------------------------------------------------------------

@dataclass
class SpanishModel:
    ranker: SoftmaxRanker
    anaphoricity: SoftmaxRanker | None = None
    window: int = 2
    max_candidates: int = 40
    threshold: float = 0.5              # P(referential) from which a pronoun gets candidates
    truecaser: Truecaser | None = None  # None: parse the tokens as given
    lexicon: dict[str, float] = field(default_factory=dict)   # P(human) of nouns (HumanLexicon)
    info: dict | None = None

    def human_lexicon(self):
        from cad.lang.humanness import Entry, HumanLexicon

        if not self.lexicon:
            return None
        return HumanLexicon({w: Entry(0.0, 0.0, p) for w, p in self.lexicon.items()})

    def save(self, path: str | os.PathLike) -> None:
        save_json({"version": MODEL_VERSION, "language": "es", "window": self.window,
                   "max_candidates": self.max_candidates, "threshold": self.threshold, "info": self.info or {},
                   "ranker": self.ranker.to_dict(),
                   "anaphoricity": self.anaphoricity.to_dict() if self.anaphoricity else None,
                   "truecase": self.truecaser.forms if self.truecaser else None, "lexicon": self.lexicon}, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "SpanishModel":
        d = load_json(path)
        if not isinstance(d, dict) or d.get("version") != MODEL_VERSION or d.get("language") != "es":
            raise CadError(f"not a cad Spanish ranker model of version {MODEL_VERSION}", str(path))
        try:
            ana = d.get("anaphoricity")
            return cls(SoftmaxRanker.from_dict(d["ranker"], str(path)),
                       SoftmaxRanker.from_dict(ana, str(path)) if ana else None,
                       int(d["window"]), int(d["max_candidates"]), float(d["threshold"]),
                       None if d.get("truecase") is None else Truecaser(dict(d["truecase"])),
                       {str(w): float(p) for w, p in (d.get("lexicon") or {}).items()}, d.get("info"))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CadError(f"not a cad Spanish ranker model ({exc})", str(path)) from None


def default_model_path() -> str:
    return str(resources.files("coref") / "data" / DEFAULT_MODEL)


# -- reading a document --------------------------------------------------------------------------

@dataclass
class Decision:
    site: EsSite
    candidates: list[EsMention]
    pair_feats: list[list[str]]
    ana_feats: list[str]


# (index of the chosen candidate or None, probabilities or None, P(referential) or None)
Chooser = Callable[[Decision], "tuple[int | None, np.ndarray | None, float | None]"]


def walk(parsed, choose: Chooser, window: int = 2, max_candidates: int = 40,
         lexicon=None, genders=None) -> list[tuple[Decision, int | None, np.ndarray | None, float | None]]:
    """Read a parsed document in order, asking `choose` for each pronoun site's antecedent among the
    mentions of its sentence and the `window` previous ones (most recent first, at most
    `max_candidates`). A linked pronoun becomes a mention with its antecedent's features."""
    seen: list[EsMention] = []
    heads: Counter[str] = Counter()
    sizes: Counter[int] = Counter()         # entity -> mentions so far
    names: dict[tuple, int] = {}            # what nominal mentions of one entity share
    out = []

    def join(m: EsMention, ante: EsMention | None) -> None:
        key = name_key(m)
        if ante is not None and ante.entity >= 0:
            m.entity = ante.entity
        elif key is not None and key in names:
            m.entity = names[key]
        else:
            m.entity = len(sizes)
        if key is not None:
            names.setdefault(key, m.entity)
        sizes[m.entity] += 1

    for k, doc in enumerate(parsed):
        static = mentions_of_sentence(doc, k, lexicon, genders)
        noun_at = {m.head: m for m in static if m.kind in ("noun", "propn")}
        events = [(m.head, 1, m, None) for m in static] + [(s.index, 0, None, s) for s in sites_of_sentence(doc, k)]
        for _, _, m, site in sorted(events, key=lambda e: (e[0], e[1])):
            if site is None:
                ante = None
                if m.kind == "rel":
                    ante = relative_antecedent(doc, m, noun_at)
                    inherit(m, ante)
                elif m.kind == "zero":
                    ante = zero_antecedent(m, seen, window)
                    inherit(m, ante)
                join(m, ante)
                seen.append(m)
                if m.kind in ("noun", "propn"):
                    heads[m.word] += 1
                continue
            lo = k - window
            cands = [c for c in reversed(seen) if c.sentence >= lo][:max_candidates]
            feats = []
            n_agree = n_nominal = 0
            for r, c in enumerate(cands):
                feats.append(pair_features(site, c, parsed, r, heads[c.word] if not c.pronoun else 0,
                                           sizes[c.entity], n_agree, n_nominal))
                n_agree += agrees(site, c)
                n_nominal += not c.pronoun
            dec = Decision(site, cands, feats, anaphoricity_features(site, doc) if site.word in CLITICS else [])
            choice, probs, p_ref = choose(dec)
            out.append((dec, choice, probs, p_ref))
            pm = site_mention(site, doc)
            ante = cands[choice] if choice is not None else None
            inherit(pm, ante)
            join(pm, ante)
            seen.append(pm)
    return out


class SpanishResolver:
    """Backend for Spanish: `resolve(doc_id, sentences)` gives every third-person pronoun site
    (él ella ellos ellas, su sus suyo suya suyos suyas, and lo la los las le les where tagged as
    pronouns) with its candidate antecedents, seed 003's `keep_likely` over the ranker's
    probabilities. Works on lowercased tokens (see the module's doc)."""

    reads_case = False      # trained on lowercased text: callers give it lowercased tokens

    def __init__(self, model: str | os.PathLike | SpanishModel | None = None, nlp=None, lexicon="model",
                 pronouns: tuple[str, ...] = ALL_PRONOUNS, genders=None):
        """`lexicon`: "model" (the human-noun lexicon stored with the model), None (no lexicon:
        humanness from named entities only), or a cad.lang.humanness.HumanLexicon or its TSV.
        `genders`: a cad.lang.name_gender.GenderLexicon or its TSV, the gender of person names."""
        self.model = model if isinstance(model, SpanishModel) else SpanishModel.load(model or default_model_path())
        if nlp is None:
            from cad.lang.es import spanish_nlp

            nlp = spanish_nlp()
        self.nlp = nlp
        if isinstance(lexicon, str) and lexicon == "model":
            self.lexicon = self.model.human_lexicon()
        elif isinstance(lexicon, (str, os.PathLike)):
            from cad.lang.humanness import HumanLexicon

            self.lexicon = HumanLexicon.load(lexicon)
        else:
            self.lexicon = lexicon
        if isinstance(genders, (str, os.PathLike)):
            from cad.lang.name_gender import GenderLexicon

            genders = GenderLexicon.load(genders)
        self.genders = genders
        self.pronouns = tuple(p.lower() for p in pronouns)

    def parse(self, sentences: list[list[str]]) -> list:
        return parse(self.nlp, sentences, self.model.truecaser)

    def choose(self, dec: Decision):
        p_ref = None
        if self.model.anaphoricity is not None and dec.site.word in CLITICS:
            p_ref = float(self.model.anaphoricity.probabilities([dec.ana_feats, []])[0])
        if not dec.candidates or (p_ref is not None and p_ref < self.model.threshold):
            return None, None, p_ref
        probs = self.model.ranker.probabilities(dec.pair_feats)
        return int(np.argmax(probs)), probs, p_ref

    def decisions(self, sentences: list[list[str]], parsed=None):
        parsed = parsed if parsed is not None else self.parse(sentences)
        return walk(parsed, self.choose, self.model.window, self.model.max_candidates, self.lexicon, self.genders)

    def resolve(self, doc_id: str, sentences: list[list[str]], parsed=None) -> list[PronounResolution]:
        out = []
        for dec, choice, probs, p_ref in self.decisions(sentences, parsed):
            site = dec.site
            if site.word not in self.pronouns:
                continue
            rec = PronounResolution(doc_id, site.sentence, site.index, sentences[site.sentence][site.index],
                                    referential=choice is not None,
                                    anaphoricity=None if p_ref is None else round(p_ref, 6))
            if choice is not None:
                scored = [(to_candidate(c, sentences), float(p)) for c, p in zip(dec.candidates, probs)]
                rec.candidates = keep_likely(scored)
            out.append(rec)
        return out


def to_candidate(m: EsMention, sentences: list[list[str]]) -> Candidate:
    return Candidate(m.sentence, m.start, m.end, m.head, " ".join(sentences[m.sentence][m.start:m.end]), 1.0,
                     m.number, m.human, m.gender, "np")
