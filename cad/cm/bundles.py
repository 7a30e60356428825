"""Feature tokens that stand for a pronoun and its antecedent's features: `it-fem-sing`."""

from __future__ import annotations

from dataclasses import dataclass

from cad.lang.facts import GENDERS, NUMBERS


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
