"""Confusion matrices of pronoun translation per source pronoun, as seed 003's Table 2 (rows: the
reference's class, columns: the candidate's), e.g. for su/sus together and for él/ella.

The counts are APT's own matrix (`cad.eval.apt.confusion_matrix`, the tool's .score file) restricted
to some source pronouns, so that the matrices of a partition of the source pronouns add up to the
full one: same classes (equal groups merged), same cases (those used), NONE for a missing side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from cad.eval.apt import AptResult, confusion_matrix

# seed 003, Table 2
SEED003_GROUPS = {"su, sus": ("su", "sus"), "él, ella": ("él", "ella")}


@dataclass
class Confusion:
    pronouns: tuple[str, ...]
    labels: list[str]
    counts: list[list[int]]      # counts[reference class][candidate class]

    def get(self, ref: str, cand: str) -> int:
        return self.counts[self.labels.index(ref)][self.labels.index(cand)]

    @property
    def total(self) -> int:
        return sum(map(sum, self.counts))

    @property
    def diagonal(self) -> int:
        # not C1: NONE/NONE is C6, and OTHER/OTHER is C3 unless count_other
        return sum(self.counts[i][i] for i in range(len(self.labels)))

    def trimmed(self) -> "Confusion":
        """Without the classes that neither side ever has (a readable table)."""
        keep = [i for i in range(len(self.labels))
                if sum(self.counts[i]) or sum(row[i] for row in self.counts)]
        return Confusion(self.pronouns, [self.labels[i] for i in keep],
                         [[self.counts[i][j] for j in keep] for i in keep])


def confusion(result: AptResult, pronouns: Iterable[str]) -> Confusion:
    """The confusion matrix of the occurrences of `pronouns` (source words, lowercase) in `result`."""
    wanted = tuple(dict.fromkeys(p.lower() for p in pronouns))
    subset = [o for o in result.occurrences if o.pronoun in wanted]
    # With no equal groups, apt's labels are the raw list words, a superset of the merged classes
    # the occurrences' axes hold; projecting onto result.labels gives back the merged table
    # without redoing apt's normalization of the groups here.
    labels, m = confusion_matrix(subset, result.settings, [])
    at = {w: i for i, w in enumerate(labels)}
    counts = [[m[at[r]][at[c]] if r in at and c in at else 0 for c in result.labels] for r in result.labels]
    return Confusion(wanted, list(result.labels), counts)


def to_markdown(c: Confusion, title: str | None = None, trim: bool = True) -> str:
    """A Markdown table with row and column totals; the corner cell names the pronouns."""
    if trim:
        c = c.trimmed()
    corner = title or ", ".join(c.pronouns)
    out = ["| " + " | ".join([f"{corner} (ref. \\ cand.)", *c.labels, "total"]) + " |",
           "|" + "---|" * (len(c.labels) + 2)]
    for label, row in zip(c.labels, c.counts):
        out.append("| " + " | ".join([label, *map(str, row), str(sum(row))]) + " |")
    cols = [sum(row[j] for row in c.counts) for j in range(len(c.labels))]
    out.append("| " + " | ".join(["total", *map(str, cols), str(c.total)]) + " |")
    share = f" ({c.diagonal / c.total:.1%})" if c.total else ""
    out += ["", f"Diagonal: {c.diagonal} of {c.total}{share}."]
    return "\n".join(out) + "\n"


def seed003_tables(result: AptResult) -> str:
    """Table 2 of seed 003 for one system: su/sus, then él/ella."""
    return "\n".join(to_markdown(confusion(result, ps), title) for title, ps in SEED003_GROUPS.items())
