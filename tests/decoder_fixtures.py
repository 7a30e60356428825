"""Small random Moses models for decoder tests: phrase table, reordering table, KN LM, moses.ini."""

from __future__ import annotations

import random
from pathlib import Path

from cad.lm.arpa import write_arpa
from cad.lm.kneser_ney import estimate
from cad.moses.ini import add_lm, baseline_config, write_config

SRC_VOCAB = ["a", "b", "c", "d", "e"]
TGT_VOCAB = ["x", "y", "z", "w", "v", "u"]


def random_model(tmp: Path, seed: int, n_sentences: int = 12, lm_order: int = 3,
                 weights: dict | None = None, distortion_limit: int = 6, extra_lms: int = 0) -> tuple[Path, list[str]]:
    """`extra_lms`: that many more LMs (LM1, ...), each from its own random text and of another
    order than the last, as `cad moses-ini add-lm` adds them; the rest of the model is the same."""
    rng = random.Random(seed)
    sents = [[rng.choice(SRC_VOCAB) for _ in range(rng.randint(3, 6))] for _ in range(n_sentences)]
    phrases = set()
    for s in sents:
        for i in range(len(s)):
            for j in range(i + 1, min(len(s), i + 3) + 1):
                if rng.random() < 0.6 or j == i + 1:
                    phrases.add(" ".join(s[i:j]))
    pt_lines, ro_lines = [], []
    for src in sorted(phrases):
        ls = src.count(" ") + 1
        for _ in range(rng.randint(1, 3)):
            lt = rng.randint(1, 3)
            tgt = " ".join(rng.choice(TGT_VOCAB) for _ in range(lt))
            scores = " ".join(f"{rng.uniform(0.01, 1):.4f}" for _ in range(4))
            align = " ".join(sorted({f"{rng.randrange(ls)}-{t}" for t in range(lt)}))
            pt_lines.append(f"{src} ||| {tgt} ||| {scores} ||| {align} ||| 1 1 1")
            ro_lines.append(f"{src} ||| {tgt} ||| " + " ".join(f"{rng.uniform(0.05, 1):.4f}" for _ in range(6)))
    # one line per (source, target), as in a real phrase table
    pt_lines = sorted({tuple(l.split(" ||| ")[:2]): l for l in pt_lines}.values())
    seen = set()
    ro_unique = []
    for line in ro_lines:
        key = line.split(" ||| ")[:2]
        if tuple(key) not in seen:
            seen.add(tuple(key))
            ro_unique.append(line)
    (tmp / "pt").write_text("\n".join(pt_lines) + "\n")
    (tmp / "ro").write_text("\n".join(ro_unique) + "\n")
    lm_text = [[rng.choice(TGT_VOCAB) for _ in range(rng.randint(2, 7))] for _ in range(40)]
    write_arpa(estimate(lm_text, lm_order), tmp / "lm.arpa")
    cfg = baseline_config(str(tmp / "pt"), str(tmp / "ro"), str(tmp / "lm.arpa"), lm_order,
                          distortion_limit=distortion_limit, table_limit=0)
    order = lm_order
    for k in range(1, extra_lms + 1):
        # its own generator: the first LM and the tables stay those of the one-LM model
        extra = random.Random(seed * 1009 + k)
        # LM1 of a higher order than LM0 by default: its state is not implied by LM0's
        order = 4 if order != 4 else 2
        # a vocabulary of its own: words the first LM has never seen, and some of its words it lacks
        vocab = TGT_VOCAB[k % 2:] + ["t", "s"]
        text = [[extra.choice(vocab) for _ in range(extra.randint(1, 7))] for _ in range(150)]
        write_arpa(estimate(text, order), tmp / f"lm{k}.arpa")
        add_lm(cfg, str(tmp / f"lm{k}.arpa"), order)
    if weights:
        cfg.weights.update(weights)
    write_config(cfg, tmp / "moses.ini")
    return tmp / "moses.ini", [" ".join(s) for s in sents]
