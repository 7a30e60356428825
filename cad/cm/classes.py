"""Target pronoun classes: what the French words aligned to a source *it*/*they* amount to.

Spelling variants that play one part fall together (*ce*/*c'*, *ça*/*cela*/*ceci*); a word that is
no pronoun of the list is OTHER; nothing aligned is NONE (the translation dropped the pronoun,
which the reference does for many *it*).
"""

from __future__ import annotations

from typing import Iterable

NONE = "NONE"
OTHER = "OTHER"
CLASS_OF = {
    "il": "il", "elle": "elle", "ils": "ils", "elles": "elles",
    "ce": "ce", "c'": "ce", "c": "ce", "ça": "ça", "ca": "ça", "cela": "ça", "ceci": "ça",
    "on": "on", "le": "le", "la": "la", "l'": "l'", "lui": "lui", "eux": "eux", "y": "y", "en": "en",
}
CLASSES = ("il", "elle", "ils", "elles", "ce", "ça", "on", "le", "la", "l'", "lui", "eux", "y", "en", OTHER, NONE)


def pronoun_class(words: Iterable[str]) -> str:
    """The class of the target words aligned to one source pronoun: the first word of the list
    that is a pronoun of CLASS_OF (*il y* → il, *qu' il* → il), else OTHER, or NONE for no word."""
    words = [w.lower() for w in words]
    if not words:
        return NONE
    for w in words:
        c = CLASS_OF.get(w)
        if c is not None:
            return c
    return OTHER
