"""Feature tokens that stand for a pronoun and its antecedent's features, in the two schemes a
language pair may have (cad/lang/pairs.py): `it-fem-sing`, the antecedent's translation's gender
and number (seed 004, `Bundle`), and `su-fem-sing-hum`, the source antecedent's own gender, number
and humanness where the source states them (seed 003, `source_bundle`)."""

from __future__ import annotations

from dataclasses import dataclass

from cad.lang.facts import GENDERS, NUMBERS
from cad.lang.pairs import Pair, chosen

# the source-marked scheme: an unknown gender or number is `unk` (FreeLing leaves many names without)
UNKNOWN = "unk"
HUMANS = ("hum", "nonhum")


@dataclass(frozen=True)
class Bundle:
    pronoun: str
    gender: str
    number: str
    human: bool | None = None

    def token(self, with_human: bool = False) -> str:
        # one token, and never '|' (Moses's factor separator)
        parts = [self.pronoun.lower(), self.gender, self.number]
        if with_human:
            parts.append("hum" if self.human else "nonhum")
        return "-".join(parts)


def parse_token(token: str) -> Bundle | None:
    parts = token.split("-")
    if len(parts) not in (3, 4) or parts[1] not in GENDERS or parts[2] not in NUMBERS:
        return None
    human = None if len(parts) == 3 else parts[3] == "hum"
    return Bundle(parts[0], parts[1], parts[2], human)


def source_bundle(pronoun: str, c) -> str:
    """`su-fem-sing-hum`: the pronoun with candidate `c`'s own gender, number and humanness."""
    return "-".join((pronoun.lower(), c.gender or UNKNOWN, c.number or UNKNOWN, "hum" if c.human else "nonhum"))


def source_values(pair: Pair | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The genders and numbers a source-marked bundle may carry: the source's, and unknown."""
    return (*chosen(pair).source.genders, UNKNOWN), (*NUMBERS, UNKNOWN)


def source_vocabulary(pronouns, pair: Pair | None = None) -> list[str]:
    """Every source-marked bundle token of these pronouns: a decoder that filters its tables to the
    input must also load the back-off table's entries for the tokens that will replace them."""
    genders, numbers = source_values(pair)
    return [f"{p}-{g}-{n}-{h}" for p in sorted(pronouns) for g in genders for n in numbers for h in HUMANS]


def source_chain(bundle: str) -> list[str]:
    """A source-marked bundle and its back-off parents, finest first: the parts dropped in the order
    the target stops needing them (gender matters for he/she only, number for it/they, humanness
    for all)."""
    p, g, n, h = bundle.split("-")
    return [bundle, f"{p}-{n}-{h}", f"{p}-{h}", p]
