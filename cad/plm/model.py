"""Training and querying the PLM, and Figure 2 of seed 001."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from cad.core.errors import CadError
from cad.core.textio import atomic_output
from cad.decoder.tables import quiet_stderr
from cad.lm.arpa import read_arpa, write_arpa
from cad.lm.kneser_ney import estimate
from cad.plm.sequences import corpus_sequences


def train_plm(documents, out: str | os.PathLike, order: int = 5, history: int = 4) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    seqs = list(corpus_sequences(documents, history))
    if not seqs:
        raise CadError("no French pronoun found in the training text")
    with atomic_output(out / "sequences.txt") as fh:
        fh.writelines(" ".join(s) + "\n" for s in seqs)
    write_arpa(estimate(seqs, order), out / "plm.arpa")
    info = {"sequences": len(seqs), "order": order, "history": history}
    with atomic_output(out / "plm.json") as fh:
        json.dump(info, fh, indent=2)
    return info


class PLM:
    def __init__(self, directory: str | os.PathLike):
        import kenlm

        path = Path(directory) / "plm.arpa"
        if not path.exists():
            raise CadError("no PLM here (cad plm train)", str(path))
        with quiet_stderr():
            self.model = kenlm.Model(str(path))
        self.kenlm = kenlm
        self.path = path

    def logprob(self, history: list[str], word: str) -> float:
        """log10 P(word | history), the history read after <s> as in training."""
        s = self.kenlm.State()
        self.model.BeginSentenceWrite(s)
        for f in history:
            o = self.kenlm.State()
            self.model.BaseScore(s, f, o)
            s = o
        o = self.kenlm.State()
        return self.model.BaseScore(s, word, o)


def figure2(directory: str | os.PathLike, feature: str = "masc.sing",
            pronouns=("il", "ce", "ils", "elle", "elles")) -> dict[str, list[float | None]]:
    """Average log10 probability of the n-grams that hold exactly n times `feature` (n = 1..4) and end
    with the pronoun, as in seed 001's Figure 2."""
    model = read_arpa(Path(directory) / "plm.arpa")
    sums = {p: [[0.0, 0] for _ in range(4)] for p in pronouns}
    for level in model.prob:
        for gram, p in level.items():
            if gram[-1] not in sums or p <= 0:
                continue
            n = sum(1 for g in gram[:-1] if g == feature)
            if 1 <= n <= 4:
                acc = sums[gram[-1]][n - 1]
                acc[0] += math.log10(p)
                acc[1] += 1
    return {p: [a / c if c else None for a, c in v] for p, v in sums.items()}
