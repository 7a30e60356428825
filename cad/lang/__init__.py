"""Languages' facts, and the language pairs cad translates: one module per language (`en`, `es`,
`fr`, `de`: its pronoun classes as a target, similar and equal groups, APT's word lists, the
pronouns it studies as a source) declaring its `Language` (`facts`: the plain data every stage
reads), the readers of a language's words that belong to it (`fr_morph`, French's morphology; `de`
holds German's), its grammar's facts (`fr_agreement`: what agrees with a subject pronoun after
*être*) and a pair's bilingual facts (`cognates`: English→French suffix correspondences); `pairs`,
the registry of languages and pairs (entry points `cad.languages`, `cad.language_pairs`).

Stages outside this room never import a language's module: they are given the pair being
translated (cad.lang.pairs.pair(src, tgt)) and read its source's and target's facts from it, so
that adding a language pair is adding a module of facts (tests/test_architecture.py counts the
modules that name a language's facts directly: none). The readers of installed resources are in
cad.resources, what downloads them in cad.downloads, the lexicons learned from a corpus in
cad.lexicons. This package imports nothing above cad.resources (APT's settings made of these
lists are in cad.eval). Here: the classes every language has (NONE, OTHER) and `first_class`."""

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
