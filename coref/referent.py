"""What an *it*/*they* refers to: a noun phrase (with the entity type of what it names), an event or
proposition (a clause: *we burned the coal. It was a mistake*), or nothing (pleonastic: *it is
raining*, *it seems that*). Gold labels from GUM (entity types, clause antecedents) and ParCorFull
(`type=pleonastic`, `antetype=event`), and their P/R/F.

Labels: `pleonastic`, `event`, `np:<type>` with GUM's entity types (person, animal, plant, object,
substance, place, organization, time, event, abstract, quantity), `np:?` where the gold gives none
(ParCorFull). `coarse` maps them onto np / event / pleonastic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PRONOUNS = frozenset({"it", "they", "them", "its", "their", "itself", "themselves", "he", "she", "him", "her",
                      "his", "i", "we", "you", "me", "us", "this", "that", "these", "those"})
# the first word of a clause (*[that he left] … it*)
_CLAUSE_OPENERS = {"that", "whether", "to", "how", "if", "why", "what", "when"}


def coarse(label: str) -> str:
    return label.split(":", 1)[0]


def is_clause(mention_tokens: list[int], word) -> bool:
    """A gold mention is a clause when the first word of its span whose head lies outside it is a
    verb, or when it opens with a complementizer. `word(i)` gives document token i's
    (lowercased form, part of speech, document index of its head) from a parse."""
    span = set(mention_tokens)
    words = [word(i) for i in mention_tokens]
    roots = [w for w, i in zip(words, mention_tokens) if w[2] == i or w[2] not in span]
    if roots and roots[0][1] in ("VERB", "AUX"):
        return True
    return len(words) > 2 and words[0][0] in _CLAUSE_OPENERS


def parsed_words(gold, parsed):
    """`word` for is_clause over the parse of a gold document's own sentences (gold.sentences())."""
    def word(i: int) -> tuple[str, str, int]:
        s, j = gold.sentence_of(i)
        tok = parsed[s][j]
        return tok.lower_, tok.pos_, gold.sentence_starts[s] + tok.head.i
    return word


def gold_referent(gold, mention, word=None) -> str:
    """The label of the pronoun whose own gold mention is `mention` (None: no mention of its own)."""
    if mention is None or mention.attrs.get("type") in ("pleonastic",):
        return "pleonastic"
    if "etype" not in mention.attrs:                      # ParCorFull: no entity types
        if mention.attrs.get("antetype") == "event":
            return "event"
        ante = _antecedent(gold, mention, "entity_key_mmax")
        if ante is not None and ante.attrs.get("mention") in ("clause", "vp"):
            return "event"
        return "np:?"
    ante = _antecedent(gold, mention, "entity")
    if ante is None:
        return "event" if mention.attrs["etype"] == "event" else "np:" + mention.attrs["etype"]
    if word is not None and is_clause(ante.tokens, word):
        return "event"
    return "np:" + ante.attrs.get("etype", "?")


def _antecedent(gold, mention, key: str):
    """The nearest earlier non-pronoun mention of the pronoun's entity, else the first later one."""
    if key == "entity":
        same = [m for m in gold.mentions if m.attrs.get("entity") == mention.attrs.get("entity") and m is not mention]
    else:
        same = [m for m in gold.mentions if mention.chain is not None and m.chain == mention.chain and m is not mention]
    nominal = [m for m in same if not (len(m.tokens) == 1 and gold.tokens[m.tokens[0]].lower() in PRONOUNS)]
    before = [m for m in nominal if m.tokens[-1] < mention.tokens[0]]
    if before:
        return max(before, key=lambda m: (m.tokens[-1], -len(m.tokens)))
    after = [m for m in nominal if m.tokens[0] > mention.tokens[-1]]
    return min(after, key=lambda m: (m.tokens[0], -len(m.tokens))) if after else None


@dataclass
class TypeScores:
    """Counts of (gold label, predicted label) pairs and P/R/F per label."""
    pairs: dict[tuple[str, str], int] = field(default_factory=dict)

    def add(self, gold: str, pred: str) -> None:
        self.pairs[(gold, pred)] = self.pairs.get((gold, pred), 0) + 1

    def merged(self, f) -> "TypeScores":
        out = TypeScores()
        for (g, p), n in self.pairs.items():
            out.pairs[(f(g), f(p))] = out.pairs.get((f(g), f(p)), 0) + n
        return out

    def table(self) -> list[tuple[str, int, int, float, float, float]]:
        """(label, gold count, predicted count, P, R, F) per label, most frequent gold first."""
        labels = sorted({x for pair in self.pairs for x in pair},
                        key=lambda lab: (-sum(n for (g, _), n in self.pairs.items() if g == lab), lab))
        rows = []
        for lab in labels:
            tp = self.pairs.get((lab, lab), 0)
            ng = sum(n for (g, _), n in self.pairs.items() if g == lab)
            npred = sum(n for (_, p), n in self.pairs.items() if p == lab)
            prec = tp / npred if npred else 0.0
            rec = tp / ng if ng else 0.0
            f = 2 * prec * rec / (prec + rec) if tp else 0.0
            rows.append((lab, ng, npred, prec, rec, f))
        return rows

    def accuracy(self) -> float:
        total = sum(self.pairs.values())
        return sum(n for (g, p), n in self.pairs.items() if g == p) / total if total else 0.0

    def report(self, title: str) -> str:
        lines = [f"{title}\tlabel\tgold\tpredicted\tP\tR\tF"]
        for lab, ng, npred, prec, rec, f in self.table():
            lines.append(f"{title}\t{lab}\t{ng}\t{npred}\t{prec:.3f}\t{rec:.3f}\t{f:.3f}")
        lines.append(f"{title}\taccuracy\t{self.accuracy():.3f} ({sum(self.pairs.values())} pronouns)")
        return "\n".join(lines)


def predicted_label(rec) -> str | None:
    """A record's referent as a label, None where the backend predicts none."""
    if getattr(rec, "referent", None) is None:
        return None
    if rec.referent == "np":
        return "np:" + (rec.referent_type or "?")
    return rec.referent
