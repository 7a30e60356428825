"""ARPA language model files: writing cad's models, reading any ARPA back for queries."""

from __future__ import annotations

import math
import os
import re

from cad.core.errors import CadError
from cad.lm.kneser_ney import BOS, EOS, UNK, Gram, KNModel
from cad.core.textio import atomic_output, read_lines

LOG_ZERO = -99.0


def _log10(p: float) -> float:
    return math.log10(p) if p > 0 else LOG_ZERO


def write_arpa(model: KNModel, path: str | os.PathLike) -> None:
    counts = [len(level) for level in model.prob]
    with atomic_output(path) as fh:
        fh.write("\\data\\\n")
        for n, c in enumerate(counts, 1):
            fh.write(f"ngram {n}={c}\n")
        for n in range(1, model.order + 1):
            fh.write(f"\n\\{n}-grams:\n")
            probs = model.prob[n - 1]
            contexts = model.backoff[n - 1] if n < model.order else {}
            for g in sorted(probs):
                # <s> is never predicted: lmplz writes its log10 probability as 0 (SRILM: -99)
                lp = "0" if g == (BOS,) else f"{_log10(probs[g]):.9g}"
                line = f"{lp}\t{' '.join(g)}"
                if n < model.order:
                    # lmplz gives no backoff to n-grams ending in </s> or <unk>: they are never contexts
                    bo = contexts.get(g, 1.0) if g[-1] not in (EOS, UNK) else 1.0
                    line += f"\t{_log10(bo):.9g}" if bo != 1.0 else "\t0"
                fh.write(line + "\n")
        fh.write("\n\\end\\\n")


_NGRAM_COUNT = re.compile(r"^ngram (\d+)=(\d+)$")


def arpa_order(path: str | os.PathLike) -> int:
    """The order of an ARPA file, from its \\data\\ header alone (the n-grams are not read)."""
    p = str(path)
    order = 0
    started = False
    for lineno, line in enumerate(read_lines(p), 1):
        s = line.strip()
        if not started:
            if s == "\\data\\":
                started = True
            elif s:
                raise CadError("expected \\data\\ before anything else", p, lineno)
            continue
        m = _NGRAM_COUNT.match(s)
        if m:
            order = max(order, int(m.group(1)))
        elif s:
            break
    if order == 0:
        raise CadError("no 'ngram N=count' line in the \\data\\ header", p)
    return order


class _Sections:
    """What arpa_entries has read of the header and the sections so far."""

    def __init__(self):
        self.declared: dict[int, int] = {}
        self.sections = 0


def arpa_entries(path: str | os.PathLike, seen: _Sections | None = None):
    """The n-grams of an ARPA file as (order, words, log10 probability, log10 back-off or None),
    streamed and checked line by line (a CadError names the file and line); `seen` gets the
    header's declared counts and the number of sections."""
    p = str(path)
    seen = _Sections() if seen is None else seen
    declared = seen.declared
    state = "start"
    cur_n = 0
    lineno = 0
    for lineno, line in enumerate(read_lines(p), 1):
        s = line.strip()
        if state == "start":
            if s == "\\data\\":
                state = "counts"
            elif s:
                raise CadError("expected \\data\\ before anything else", p, lineno)
            continue
        if state == "counts":
            if not s:
                continue
            m = _NGRAM_COUNT.match(s)
            if m:
                declared[int(m.group(1))] = int(m.group(2))
                continue
            state = "grams"
        if not s:
            continue
        if s == "\\end\\":
            state = "end"
            break
        m = re.match(r"^\\(\d+)-grams:$", s)
        if m:
            cur_n = int(m.group(1))
            if cur_n != seen.sections + 1 or cur_n not in declared:
                raise CadError(f"unexpected section {s}", p, lineno)
            seen.sections += 1
            continue
        if cur_n == 0:
            raise CadError("n-gram line outside an n-gram section", p, lineno)
        parts = s.split("\t") if "\t" in s else s.split()
        if "\t" in s:
            words = parts[1].split()
            rest = parts[2:]
        else:
            words = parts[1:1 + cur_n]
            rest = parts[1 + cur_n:]
        if len(words) != cur_n or len(rest) > 1:
            raise CadError(f"malformed {cur_n}-gram line", p, lineno)
        try:
            lp = float(parts[0])
            bo = float(rest[0]) if rest else 0.0
        except ValueError:
            raise CadError("malformed number", p, lineno) from None
        if not (math.isfinite(lp) and math.isfinite(bo)):
            raise CadError("log10 value is not a finite number", p, lineno)
        if lp > 0:      # KenLM refuses these too (a probability above 1)
            raise CadError(f"positive log10 probability {parts[0]}", p, lineno)
        if rest:
            try:
                10 ** bo
            except OverflowError:
                raise CadError(f"log10 back-off {rest[0]} out of range", p, lineno) from None
        yield cur_n, tuple(words), lp, (bo if rest else None)
    if state != "end":
        raise CadError("missing \\end\\", p, lineno)


def _check_counts(declared: dict[int, int], found: list[int], p: str) -> None:
    for n, c in declared.items():
        if n > len(found) or found[n - 1] != c:
            raise CadError(f"header declares {c} {n}-grams but the file has "
                           f"{found[n - 1] if n <= len(found) else 0}", p)


def check_arpa(path: str | os.PathLike) -> list[int]:
    """read_arpa's checks, streamed, holding no n-gram (a large model's ARPA file takes gigabytes
    as a KNModel): the number of n-grams of each order. Unlike read_arpa it counts an n-gram
    written twice twice."""
    seen = _Sections()
    found: list[int] = []
    for n, _, _, _ in arpa_entries(path, seen):
        if n > len(found):
            found.append(0)
        found[n - 1] += 1
    found += [0] * (seen.sections - len(found))
    _check_counts(seen.declared, found, str(path))
    return found


def read_arpa(path: str | os.PathLike) -> KNModel:
    """Read an ARPA file into a queryable model (log10 values converted to linear)."""
    p = str(path)
    seen = _Sections()
    prob: list[dict[Gram, float]] = []
    backoff: list[dict[Gram, float]] = []
    for n, g, lp, bo in arpa_entries(p, seen):
        while n > len(prob):
            prob.append({})
            backoff.append({})
        # <s> is never predicted, whatever its file says (lmplz 0, SRILM -99)
        prob[-1][g] = 0.0 if lp <= LOG_ZERO or g == (BOS,) else 10 ** lp
        if bo is not None:
            backoff[-1][g] = 10 ** bo
    while seen.sections > len(prob):
        prob.append({})
        backoff.append({})
    _check_counts(seen.declared, [len(level) for level in prob], p)
    model = KNModel(len(prob), [])
    model.prob = prob
    model.backoff = backoff[:-1] if backoff else []
    return model
