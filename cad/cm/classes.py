"""Target pronoun classes: what the French words aligned to a source *it*/*they* amount to.

Spelling variants that play one part fall together (*ce*/*c'*, *ça*/*cela*/*ceci*); a word that is
no pronoun of the list is OTHER; nothing aligned is NONE (the translation dropped the pronoun,
which the reference does for many *it*).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from cad.eval.apt import Side, classify, improve
from cad.eval.apt_settings import french_settings
from cad.lang import first_class
from cad.lang.fr import CLASS_OF, NONE, OTHER, TARGET_CLASSES as CLASSES  # noqa: F401  (French's home)


def pronoun_class(words: Iterable[str]) -> str:
    """The French class of the target words aligned to one source pronoun (`first_class`)."""
    return first_class(words, CLASS_OF)


@lru_cache(maxsize=1)
def _apt_settings():
    return french_settings()


def aligned_words(src: Sequence[str], tgt: Sequence[str], align: Iterable[tuple[int, int]], pos: int) -> list[str]:
    """The target words of source token `pos`, with APT's alignment improvement (Miculicich
    Werlen & Popescu-Belis 2017, §2.3): when nothing or no pronoun is aligned, a French pronoun
    next to the translations of the neighbouring source words is taken (*kill it* → *la tuer*,
    where word aligners leave the clitic unaligned in most sentences). The CM learns and the
    decoder scores the same notion of "what the pronoun became" as APT measures."""
    align = list(align)
    s = _apt_settings()
    positions = sorted(j for i, j in align if i == pos)
    side = Side(positions, [tgt[j] for j in positions], classify([tgt[j] for j in positions], s)) if positions else None
    side = improve(side, pos, list(src), list(tgt), align, s)
    return list(side.tokens) if side else []
