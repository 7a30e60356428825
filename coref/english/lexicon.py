"""What the ranker knows of words beyond the parse: WordNet's class and animacy of a noun head
(cad.resources.wordnet, Debian's wordnet-base), and the governing words that want an animate or an
event argument (selectional fit: *the mouse died*, *it happened*).

WordNet is loaded once per process, on the first noun looked up (about 2 s); a noun's class is
cached. Without the Debian package, CadError names `make resources`.
"""

from __future__ import annotations

from functools import lru_cache

# verbs whose subject is a person or an animal (*it died*, *they said*)
ANIMATE_SUBJECT_VERBS = frozenset(
    "say tell ask answer think believe know want wish hope decide try die eat drink sleep live love hate like "
    "feel smile laugh cry scream shout speak talk write read buy sell pay agree refuse marry vote fight kill "
    "remember forget learn teach understand realize wonder worry complain argue explain claim admit promise "
    "breathe bite hunt fly swim walk run bark sing dance pray survive suffer wait listen watch notice".split())
# adjectives that want an animate subject of *be* (*it was dead*)
ANIMATE_ADJECTIVES = frozenset(
    "dead alive hungry thirsty tired sick ill happy sad angry afraid scared frightened worried excited proud "
    "asleep awake pregnant married born wounded injured hurt nervous upset jealous lonely brave curious "
    "interested bored eager willing able aware sure glad sorry".split())
# verbs whose subject is an event or a fact (*it happened*, *it took place*)
EVENT_SUBJECT_VERBS = frozenset(
    "happen occur last begin start end finish continue cause lead result matter count mean imply suggest "
    "show prove help hurt change follow go work fail succeed surprise shock bother upset annoy amaze".split())
# adjectives and nouns of *be* that take an event or a fact (*it was a mistake*, *it is true*)
EVENT_PREDICATES = frozenset(
    "true false possible impossible likely unlikely important necessary crucial essential interesting "
    "amazing surprising obvious clear evident easy hard difficult fun great awful terrible wonderful strange "
    "weird funny sad good bad right wrong fine okay ok nice cool fair unfair mistake idea problem question "
    "point issue fact case shame pity joke disaster success failure accident".split())


@lru_cache(maxsize=1)
def _wordnet():
    from cad.resources import wordnet

    return wordnet.load()


@lru_cache(maxsize=100_000)
def noun_class(lemma: str) -> tuple[str | None, bool | None]:
    """(WordNet lexicographer class of the first sense, animate?) of a noun; (None, None) for a
    word WordNet does not list as a noun."""
    nc = _wordnet()
    name = nc.lexname(lemma)
    if name is None:
        return None, None
    return name, nc.is_animate(lemma)


def head_class(tok) -> tuple[str | None, bool | None]:
    """noun_class of a spaCy token's lemma, for common nouns (a name's class is its entity type)."""
    if tok.pos_ != "NOUN":
        return None, None
    return noun_class(tok.lemma_.lower())


def selection(site_gov: str, site_role: str, predicate: str | None) -> str | None:
    """What the pronoun's governor wants of it: `animate`, `event`, or None."""
    if site_role == "subj":
        if site_gov in ANIMATE_SUBJECT_VERBS:
            return "animate"
        if site_gov in EVENT_SUBJECT_VERBS:
            return "event"
        if site_gov == "be" and predicate:
            if predicate in ANIMATE_ADJECTIVES:
                return "animate"
            if predicate in EVENT_PREDICATES:
                return "event"
    return None


@lru_cache(maxsize=100_000)
def noun_lexnames(lemma: str) -> tuple[tuple[str, float], ...]:
    """Every class of a noun's senses with its share of SemCor tags (cad.resources.wordnet.lexnames)."""
    return tuple(_wordnet().lexnames(lemma).items())
