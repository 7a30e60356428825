"""A lexicon of human nouns for the source language, learned from a word-aligned parallel corpus.

Evidence (target side, English): the choice of relative pronoun. "who"/"whom" take human
antecedents, "which" non-human ones, so the word right before the relative (or before ", who")
counts once as human or non-human, unless it is a closed-class word ("those who", "in which").
Left out on purpose:
- "whose": the possessive relative of both ("a country whose economy", "a man whose son");
- "that": also a complementizer and a demonstrative, which after a noun it mostly is;
- pronoun cues ("the minister said he ..."): about a hundred hits in the 125k lines of News
  Commentary against ~2,900 who/whom and ~4,000 which, and they need a parser to find the subject.
The token before the relative is not always its head ("the leader of the party who"); such
attachments are rare against the direct ones, and the non-human counts of the same word outweigh them.

Projection: each content word of the source aligned to the antecedent gets the count; when several
are, they share it (1/n each), so that "policymakers" ~ "responsables políticos" gives neither word
a whole vote.

The lexicon is of nouns, but one streaming pass has no tagger: a word is kept as noun-like when at
least `min_det_ratio` of its corpus occurrences follow a determiner ("los ciudadanos", "un
presidente"), which verbs ("saben quién") and names ("obama , who") almost never do.

Probability: (human + k) / (human + nonhuman + 2k), an add-k prior toward 1/2. Words with less
than `min_evidence` counts are left out, so `is_human` says None (no evidence) for them; a tie
(P = 1/2) is not human.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from cad.core.alignment import parse_alignment
from cad.core.cliargs import add_input_argument, add_output_argument, run_module
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, read_parallel
from cad.resources.lexicon_io import add_corpus_arguments, lexicon_rows

log = logging.getLogger("cad.lexicons.humanness")

HEADER = ("word", "human", "nonhuman", "probability")


# -- per-language word lists -------------------------------------------------------------------

@dataclass(frozen=True)
class TargetCues:
    """Relative pronouns that mark the humanness of their antecedent, and the closed-class words
    that can stand before a relative without being its antecedent ("those who", "in which")."""

    human: frozenset[str]
    nonhuman: frozenset[str]
    function_words: frozenset[str]


@dataclass(frozen=True)
class SourceWords:
    """Determiners (for the noun-likeness test) and closed-class words never kept as entries."""

    determiners: frozenset[str]
    function_words: frozenset[str]


_EN_FUNCTION = frozenset("""
a an the this that these those some any all each every many much few several most more less
other others another such both either neither no none one ones own
i me my mine you your yours he him his she her hers it its we us our ours they them their theirs
myself yourself himself herself itself ourselves themselves oneself
anyone anybody someone somebody everyone everybody no-one nobody anything something everything nothing
who whom whose which what whoever whatever whichever where when why how whether if than then
and or but nor so yet for because although though while unless since as until once
of in on at to from by with without within into onto upon about above below under over through
during before after between among amongst against toward towards across along around beyond
behind despite except per via like unlike near off out up down
is are was were be been being am have has had having do does did doing will would shall should
can could may might must ought
not very also only even just still already too again ever never always often here there now
""".split())

_ES_DETERMINERS = frozenset("""
el la los las un una unos unas del al lo
este esta estos estas ese esa esos esas aquel aquella aquellos aquellas
su sus mi mis tu tus nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras
muchos muchas pocos pocas varios varias algunos algunas ciertos ciertas tantos tantas
cada dichos dichas ningún ninguna algún alguna cualquier demás
""".split())

_ES_FUNCTION = _ES_DETERMINERS | frozenset("""
yo me mí conmigo tú te ti contigo él ella ello le les se sí consigo nosotros nosotras nos
vosotros vosotras os ellos ellas
mío mía míos mías tuyo tuya suyo suya suyos suyas
que qué quien quienes quién quiénes cual cuales cuál cuáles cuyo cuya cuyos cuyas donde dónde
cuando cuándo como cómo cuanto cuanta cuantos cuantas cuánto
uno otro otra otros otras todo toda todos todas mucho mucha poco poca alguno ninguno nadie alguien
algo nada ambos ambas mismo misma mismos mismas tal tales esto eso aquello
a ante bajo con contra de desde en entre hacia hasta para por según sin sobre tras durante mediante
y e ni o u pero sino aunque porque pues si mientras
no sí más menos muy tan también tampoco ya aún todavía sólo solo ahí allí aquí así
es son era eran fue fueron ser sido siendo sea sean está están estaba estaban estar estado
ha han había habían haber habido hay he hemos
""".split())

TARGETS: dict[str, TargetCues] = {
    "en": TargetCues(frozenset({"who", "whom"}), frozenset({"which"}), _EN_FUNCTION),
}
SOURCES: dict[str, SourceWords] = {
    "es": SourceWords(_ES_DETERMINERS, _ES_FUNCTION),
}


def _lookup(table: dict, code: str, side: str):
    try:
        return table[code]
    except KeyError:
        raise CadError(f"no humanness word lists for {side} language {code!r} "
                       f"(have: {', '.join(sorted(table))})") from None


def _is_word(tok: str) -> bool:
    # letters, allowing inner hyphens ("policy-makers"); numbers and punctuation are not nouns
    return tok.replace("-", "").isalpha() and not tok.startswith("-") and not tok.endswith("-")


# -- the lexicon -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    human: float
    nonhuman: float
    probability: float


@dataclass
class HumanLexicon:
    """Source-language nouns with their human / non-human evidence and P(human)."""

    entries: dict[str, Entry] = field(default_factory=dict)
    threshold: float = 0.5      # human when P(human) is above this

    def probability(self, word: str) -> float | None:
        # looked up lowercased: the lexicon is learned from a lowercased corpus
        e = self.entries.get(word.lower())
        return None if e is None else e.probability

    def is_human(self, word: str) -> bool | None:
        p = self.probability(word)
        return None if p is None else p > self.threshold

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, word: str) -> bool:
        return word.lower() in self.entries

    def save(self, path: str | os.PathLike) -> None:
        with atomic_output(path) as fh:
            fh.write("\t".join(HEADER) + "\n")
            for w in sorted(self.entries):
                e = self.entries[w]
                fh.write(f"{w}\t{_num(e.human)}\t{_num(e.nonhuman)}\t{e.probability:.4f}\n")

    @classmethod
    def load(cls, path: str | os.PathLike, threshold: float = 0.5) -> "HumanLexicon":
        p = str(path)
        entries: dict[str, Entry] = {}
        for lineno, word, cols in lexicon_rows(p, HEADER):
            try:
                h, n, prob = (float(c) for c in cols)
            except ValueError:
                raise CadError("human, nonhuman and probability must be numbers", p, lineno) from None
            if not all(math.isfinite(x) for x in (h, n, prob)) or h < 0 or n < 0 or not 0 <= prob <= 1:
                raise CadError("counts must be >= 0 and the probability in [0, 1]", p, lineno)
            entries[word] = Entry(h, n, prob)
        return cls(entries, threshold)

    def human_words(self) -> list[str]:
        return sorted(w for w in self.entries if self.is_human(w))


def _num(x: float) -> str:
    # whole counts print as integers; shared (1/n) ones keep three decimals
    return str(int(x)) if float(x).is_integer() else f"{x:.3f}"


# -- learning ----------------------------------------------------------------------------------

@dataclass
class Evidence:
    """What one pass over the corpus counts; `lexicon()` turns it into entries."""

    human: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    nonhuman: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    tokens: Counter = field(default_factory=Counter)          # source word -> occurrences
    after_det: Counter = field(default_factory=Counter)       # ... right after a determiner
    lines: int = 0
    cues: Counter = field(default_factory=Counter)            # "human"/"nonhuman" -> target hits

    def lexicon(self, prior: float = 1.0, min_evidence: float = 3.0,
                min_det_ratio: float = 0.1) -> HumanLexicon:
        entries = {}
        for w in set(self.human) | set(self.nonhuman):
            h, n = self.human.get(w, 0.0), self.nonhuman.get(w, 0.0)
            if h + n < min_evidence - 1e-9:
                continue
            if self.tokens[w] and self.after_det[w] / self.tokens[w] < min_det_ratio:
                continue
            entries[w] = Entry(h, n, round((h + prior) / (h + n + 2 * prior), 4))
        return HumanLexicon(entries)


def antecedents(tgt: list[str], cues: TargetCues) -> Iterable[tuple[int, bool]]:
    """(index of the antecedent, human?) for each relative pronoun in a target sentence."""
    for j, tok in enumerate(tgt):
        if tok in cues.human:
            human = True
        elif tok in cues.nonhuman:
            human = False
        else:
            continue
        a = j - 1
        if a >= 0 and tgt[a] == ",":
            a -= 1
        if a >= 0 and _is_word(tgt[a]) and tgt[a] not in cues.function_words:
            yield a, human


def learn(src_path: str, tgt_path: str, align_path: str, src_lang: str = "es",
          tgt_lang: str = "en") -> Evidence:
    """One streaming pass over the aligned corpus."""
    cues = _lookup(TARGETS, tgt_lang, "target")
    words = _lookup(SOURCES, src_lang, "source")
    ev = Evidence()
    rows = read_parallel([src_path, tgt_path, align_path])
    for lineno, (s, t, a) in progress(rows, desc="humanness", unit="line"):
        src, tgt = s.split(), t.split()
        points = parse_alignment(a, len(src), len(tgt), align_path, lineno)
        ev.lines = lineno
        ev.tokens.update(src)
        ev.after_det.update(w for d, w in zip(src, src[1:]) if d in words.determiners)
        found = list(antecedents(tgt, cues))
        if not found:
            continue
        by_tgt: defaultdict[int, list[int]] = defaultdict(list)
        for i, j in points:
            by_tgt[j].append(i)
        for j, human in found:
            ev.cues["human" if human else "nonhuman"] += 1
            content = sorted({src[i] for i in by_tgt.get(j, ())
                              if _is_word(src[i]) and src[i] not in words.function_words})
            counts = ev.human if human else ev.nonhuman
            for w in content:
                counts[w] += 1.0 / len(content)
    return ev


# -- command line ------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m cad.lexicons.humanness",
        description="Learn a lexicon of human nouns for the source language from a word-aligned "
                    "parallel corpus: target antecedents of who/whom count as human, of which as "
                    "non-human, projected to the aligned source words. Writes a TSV: word, human "
                    "count, nonhuman count, P(human).")
    add_corpus_arguments(p, "the relative pronouns are read")
    add_input_argument(p, "--align", required=True,
                       help="Moses alignment, one line per sentence pair: i-j, i source, j target")
    add_output_argument(p, "--out", required=True, help="lexicon TSV to write (.gz compresses)")
    p.add_argument("--prior", type=float, default=1.0,
                   help="add-k prior: P(human) = (h+k)/(h+n+2k) (default: %(default)s)")
    p.add_argument("--min-evidence", type=float, default=3.0,
                   help="leave out words with fewer human+nonhuman counts (default: %(default)s)")
    p.add_argument("--min-det-ratio", type=float, default=0.1,
                   help="keep only noun-like words: at least this share of their occurrences follows "
                        "a determiner (default: %(default)s; 0 keeps all)")
    p.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    return p


def _run(a) -> int | None:
    if a.prior <= 0:
        raise CadError(f"--prior must be > 0, got {a.prior}")
    start = time.perf_counter()
    ev = learn(f"{a.corpus}.{a.src}", f"{a.corpus}.{a.tgt}", a.align, a.src, a.tgt)
    lex = ev.lexicon(a.prior, a.min_evidence, a.min_det_ratio)
    lex.save(a.out)
    human = len(lex.human_words())
    log.info("%d lines, %d human and %d non-human relative cues; %d entries: %d human, %d not "
             "(%.1fs)", ev.lines, ev.cues["human"], ev.cues["nonhuman"], len(lex), human,
             len(lex) - human, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    return run_module("humanness", build_parser(), _run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
