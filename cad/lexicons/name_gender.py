"""The gender of person names in the source language, learned from a parallel corpus.

Why: Spanish names carry no gender the tools can read. FreeLing guesses it from the ending, so
CorZu's features make *Lula*, *Sharon* and *Putin* feminine (108 of the 419 training *su* whose best
antecedent is feminine, singular and human are *his*), and spaCy's Spanish model gives names none.
English says it with its pronouns.

Evidence: a source sentence whose translation has masculine third-person pronouns (he him his
himself) and no feminine ones counts once masculine for each distinct word in it, and the other
way round; sentences with both or neither count nothing. Any one sentence is weak evidence (the
pronoun may be someone else's), but a name seen in dozens of them is not: *putin* 374 to 4,
*merkel* 12 to 40. The corpus is mostly about men, so a word is masculine only when its feminine
share is well below one half (`masc_below`), feminine when above it (`fem_above`), unknown between.

Only name-like words are kept: those that follow a determiner in under `max_det_ratio` of their
occurrences (*el presidente*, *la gente* do; *lula*, *merkel* do not) and are not function words.
Common nouns keep the gender their morphology gives; the lexicon is for names (PROPN, FreeLing's NP).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import time
from collections import Counter
from dataclasses import dataclass, field

from cad.core.cliargs import add_output_argument, run_module
from cad.core.errors import CadError
from cad.core.progress import progress
from cad.core.textio import atomic_output, read_parallel
from cad.lexicons.humanness import SOURCES, _is_word, _lookup
from cad.resources.lexicon_io import add_corpus_arguments, lexicon_rows

log = logging.getLogger("cad.lexicons.name_gender")

HEADER = ("word", "masculine", "feminine", "p_feminine", "gender")

# third-person pronouns that show their antecedent's gender, per target language
CUES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "en": (frozenset({"he", "him", "his", "himself"}), frozenset({"she", "her", "hers", "herself"})),
}


@dataclass(frozen=True)
class NameEntry:
    masculine: int
    feminine: int
    p_feminine: float
    gender: str | None          # masc | fem | None (evidence either way)


@dataclass
class GenderLexicon:
    """Source-language names with their masculine/feminine evidence and the gender it decides."""

    entries: dict[str, NameEntry] = field(default_factory=dict)

    def gender(self, word: str) -> str | None:
        e = self.entries.get(word.lower())
        return None if e is None else e.gender

    def __len__(self) -> int:
        return len(self.entries)

    def save(self, path: str | os.PathLike) -> None:
        with atomic_output(path) as fh:
            fh.write("\t".join(HEADER) + "\n")
            for w in sorted(self.entries):
                e = self.entries[w]
                fh.write(f"{w}\t{e.masculine}\t{e.feminine}\t{e.p_feminine:.4f}\t{e.gender or 'unk'}\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "GenderLexicon":
        p = str(path)
        entries: dict[str, NameEntry] = {}
        for lineno, word, (m, f, prob, g) in lexicon_rows(p, HEADER):
            try:
                m_, f_, p_ = int(m), int(f), float(prob)
            except ValueError:
                raise CadError("the counts must be integers and p_feminine a number", p, lineno) from None
            if m_ < 0 or f_ < 0 or not (math.isfinite(p_) and 0 <= p_ <= 1):
                raise CadError("counts must be >= 0 and p_feminine in [0, 1]", p, lineno)
            if g not in ("masc", "fem", "unk"):
                raise CadError(f"gender must be masc, fem or unk, not {g!r}", p, lineno)
            entries[word] = NameEntry(m_, f_, p_, None if g == "unk" else g)
        return cls(entries)


def decide(m: int, f: int, masc_below: float = 0.2, fem_above: float = 0.5) -> tuple[float, str | None]:
    """(P(feminine), gender) from the counts, with an add-one prior toward one half."""
    p = (f + 1) / (m + f + 2)
    return p, "fem" if p > fem_above else "masc" if p < masc_below else None


@dataclass
class GenderEvidence:
    masculine: Counter = field(default_factory=Counter)
    feminine: Counter = field(default_factory=Counter)
    tokens: Counter = field(default_factory=Counter)
    after_det: Counter = field(default_factory=Counter)
    lines: int = 0
    cue_lines: Counter = field(default_factory=Counter)

    def lexicon(self, min_evidence: int = 5, max_det_ratio: float = 0.1, masc_below: float = 0.2,
                fem_above: float = 0.5) -> GenderLexicon:
        entries = {}
        for w in set(self.masculine) | set(self.feminine):
            m, f = self.masculine[w], self.feminine[w]
            if m + f < min_evidence or self.after_det[w] > max_det_ratio * self.tokens[w]:
                continue
            p, g = decide(m, f, masc_below, fem_above)
            entries[w] = NameEntry(m, f, round(p, 4), g)
        return GenderLexicon(entries)


def learn(src_path: str, tgt_path: str, src_lang: str = "es", tgt_lang: str = "en") -> GenderEvidence:
    """One streaming pass over the sentence-aligned corpus (no word alignment needed)."""
    masc, fem = _lookup(CUES, tgt_lang, "target")
    words = _lookup(SOURCES, src_lang, "source")
    ev = GenderEvidence()
    for lineno, (s, t) in progress(read_parallel([src_path, tgt_path]), desc="name gender", unit="line"):
        src = s.lower().split()
        ev.lines = lineno
        ev.tokens.update(src)
        ev.after_det.update(w for d, w in zip(src, src[1:]) if d in words.determiners)
        tgt = set(t.lower().split())
        m, f = bool(tgt & masc), bool(tgt & fem)
        if m == f:
            continue
        ev.cue_lines["masc" if m else "fem"] += 1
        counts = ev.masculine if m else ev.feminine
        counts.update({w for w in src if _is_word(w) and w not in words.function_words})
    return ev


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m cad.lexicons.name_gender",
        description="Learn the gender of the source language's person names from a parallel corpus: "
                    "source words in sentences whose translation has only masculine (he him his) or only "
                    "feminine (she her hers) pronouns. Writes a TSV: word, masculine, feminine, "
                    "P(feminine), gender (masc|fem|unk).")
    add_corpus_arguments(p, "the pronouns are read")
    add_output_argument(p, "--out", required=True, help="lexicon TSV to write (.gz compresses)")
    p.add_argument("--min-evidence", type=int, default=5,
                   help="leave out words seen in fewer cue sentences (default: %(default)s)")
    p.add_argument("--max-det-ratio", type=float, default=0.1,
                   help="keep only name-like words: at most this share of their occurrences follows a "
                        "determiner (default: %(default)s)")
    p.add_argument("--masc-below", type=float, default=0.2,
                   help="masculine when P(feminine) is below this (default: %(default)s)")
    p.add_argument("--fem-above", type=float, default=0.5,
                   help="feminine when P(feminine) is above this (default: %(default)s)")
    p.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    return p


def _run(a) -> int | None:
    if not 0 <= a.masc_below <= a.fem_above <= 1:
        raise CadError(f"need 0 <= --masc-below <= --fem-above <= 1, got {a.masc_below} and {a.fem_above}")
    if not 0 <= a.max_det_ratio <= 1 or a.min_evidence < 1:
        raise CadError(f"need --max-det-ratio in [0, 1] and --min-evidence >= 1, got {a.max_det_ratio} "
                       f"and {a.min_evidence}")
    start = time.perf_counter()
    ev = learn(f"{a.corpus}.{a.src}", f"{a.corpus}.{a.tgt}", a.src, a.tgt)
    lex = ev.lexicon(a.min_evidence, a.max_det_ratio, a.masc_below, a.fem_above)
    lex.save(a.out)
    g = Counter(e.gender or "unk" for e in lex.entries.values())
    log.info("%d lines (%d masculine, %d feminine cue lines); %d names: %d masc, %d fem, %d unk (%.1fs)",
             ev.lines, ev.cue_lines["masc"], ev.cue_lines["fem"], len(lex), g["masc"], g["fem"], g["unk"],
             time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    return run_module("name_gender", build_parser(), _run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
