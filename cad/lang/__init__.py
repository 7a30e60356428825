"""One home per language: its pronoun sets and target classes, its APT word lists, its spaCy model
and morphology reader (`fr`, `en`, `es`, `fr_morph`); the lexicons learned for a source language
from a parallel corpus (`humanness`, `name_gender`, their files `lexicon_io`); the installing and
loading of spaCy pipelines (`models`); the lexical resources of Debian's registry, found or
installed by `resources`: French nouns' gender and number (`hunspell_fr`, hunspell-fr-comprehensive)
and the inflection paradigms of its dictionary (`fr_inflection`), with which a predicate
after *être* agrees with its subject pronoun (`fr_agreement`),
an English-French dictionary (`freedict`, dict-freedict-eng-fra) and WordNet's noun classes and
animacy (`wordnet`, wordnet-base); neuralcoref's pretrained model files, fetched from
PyPI by `neuralcoref_files`. Stages read a language's facts from its module here
instead of spelling them out, so adding a language pair is adding a module. Facts only: this
package imports nothing above cad.core (APT's settings made of these lists are in cad.eval).
Here: the classes every language has (NONE, OTHER) and `first_class`."""

from __future__ import annotations

from typing import Iterable, Mapping

NONE = "NONE"
OTHER = "OTHER"


def first_class(words: Iterable[str], class_of: Mapping[str, str]) -> str:
    """The class of the target words aligned to one source pronoun: that of the first word which
    is a pronoun of `class_of` (*il y* → il, *to him* → him), else OTHER, or NONE for no word."""
    words = [w.lower() for w in words]
    if not words:
        return NONE
    for w in words:
        c = class_of.get(w)
        if c is not None:
            return c
    return OTHER
