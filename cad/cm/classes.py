"""Target pronoun classes: what the target words aligned to a source pronoun amount to, in the
classes of the pair's target language (cad/lang: *il*, *elle*, *ce* … for French).

Spelling variants that play one part fall together (*ce*/*c'*, *ça*/*cela*/*ceci*); a word that is
no pronoun of the list is OTHER; nothing aligned is NONE (the translation dropped the pronoun,
which the reference does for many *it*).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from cad.eval.apt import Side, classify, improve
from cad.eval.apt_settings import cached_settings
from cad.lang import NONE, OTHER
from cad.lang.pairs import Pair, chosen


def pronoun_class(words: Iterable[str], pair: Pair | None = None) -> str:
    """The target class of the words aligned to one source pronoun (cad.lang.first_class)."""
    return chosen(pair).target.class_of_words(words)


def aligned_words(src: Sequence[str], tgt: Sequence[str], align: Iterable[tuple[int, int]], pos: int,
                  pair: Pair | None = None) -> list[str]:
    """The target words of source token `pos`, with APT's alignment improvement (Miculicich
    Werlen & Popescu-Belis 2017, §2.3): when nothing or no pronoun is aligned, a target pronoun
    next to the translations of the neighbouring source words is taken (*kill it* → *la tuer*,
    where word aligners leave the clitic unaligned in most sentences). The CM learns and the
    decoder scores the same notion of "what the pronoun became" as APT measures."""
    align = list(align)
    s = cached_settings(chosen(pair))
    positions = sorted(j for i, j in align if i == pos)
    side = Side(positions, [tgt[j] for j in positions], classify([tgt[j] for j in positions], s)) if positions else None
    side = improve(side, pos, list(src), list(tgt), align, s)
    target = chosen(pair).target
    if side is None or target.class_of_words(side.tokens) in (NONE, OTHER):
        clitic = _clitic_before_verb(pos, tgt, align, target)
        if clitic is not None:
            return clitic
    if side is None:
        return []
    return _clitic_after_agent(side, tgt, target) or list(side.tokens)


def _clitic_before_verb(pos: int, tgt: Sequence[str], align: list[tuple[int, int]], target) -> list[str] | None:
    """The object clitic before the translation of the word before the pronoun, over the words of
    its verb group, where nothing else reads as the pronoun: *I fixed it* → *je l'ai réparé*, *I didn't
    clean it* → *je ne l'ai pas lavé*, *did you like it?* → *l'avez-vous aimé ?*. Word aligners leave
    the clitic unaligned, and APT's improvement looks one word around the verb, where the auxiliary
    stands: 192 of the 33k corpus's 7,861 *it*/*they* read so (157 of them NONE before), and the CM
    paid nearly as much for dropping an object *it* as for its clitic (NONE .24, *l'* .05, *le* .31 in
    the 33k table's `it-obj-masc-sing-ent`), and the large model wrote *mon père réparer* for *my
    father will repair it*."""
    if not target.object_clitics or pos == 0:
        return None
    verb = [j for i, j in align if i == pos - 1]
    if not verb:
        return None
    j = min(verb) - 1
    while j >= 0 and tgt[j].lower().split("-")[0] in target.verb_group and tgt[j].lower() not in target.object_clitics:
        j -= 1
    if j < 0 or tgt[j].lower() not in target.object_clitics or any(i != pos for i, k in align if k == j):
        return None         # no clitic there, or one that translates another source word
    return [tgt[j]]


def _clitic_after_agent(side, tgt: Sequence[str], target) -> list[str] | None:
    """The object clitic after the target's impersonal subject, where that subject alone is what
    the pronoun became: *it was sold* → *on l'a vendu* aligns *it* to *on*, the agent French gives a
    passive, while the thing sold is *l'*. Read as *on*, the 33k corpus's `it-copp-masc-sing-ent`
    said *on* .42 (against *il* .23) and the decoder wrote *on a été volé* for *it was stolen*."""
    if target.impersonal_subject is None or len(side.positions) != 1 \
            or side.tokens[0].lower() != target.impersonal_subject:
        return None
    j = side.positions[0] + 1
    while j < len(tgt) and tgt[j].lower() in target.before_object:
        j += 1
    return [tgt[j]] if j < len(tgt) and tgt[j].lower() in target.object_clitics else None
