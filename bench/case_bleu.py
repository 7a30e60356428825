"""What truecasing gives users: BLEU of cased, detokenized output on the TED dev talks, for a
lowercased and a truecased baseline model side by side.

    python bench/case_bleu.py [--lowercased models/lowercased/moses.ini] [--truecased models/baseline/moses.ini]
                              [--data ../shared/data] [--limit N]

Each model translates dev.en (`cad translate --system baseline --detokenize`, its documents, the
untuned weights), reading the input as it was trained (lowercased, or truecased by the
truecase-model.en beside its phrase table) and writing detokenized text (detruecased by the
truecased one). The reference is dev.fr detokenized with sacremoses. Printed: sacrebleu's BLEU
with its defaults (cased, 13a) and case-insensitive, with the signatures, and sacrebleu's paired
bootstrap (1,000 resamples) of the truecased model against the lowercased one, cased and not.
Train the lowercased model with `make LOWERCASE=1 NAME=lowercased train`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def translate(config: str, source: Path, docs: Path | None, out: Path) -> float:
    t = time.time()
    args = [sys.executable, "-m", "cad", "-q", "translate", "--config", config, "--input", str(source),
            "--system", "baseline", "--detokenize", "--out", str(out)]
    if docs is not None:
        args += ["--docs", str(docs)]
    subprocess.run(args, cwd=REPO, check=True)
    return time.time() - t


def paired(ref: Path, baseline: Path, system: Path, lowercase: bool) -> str:
    """sacrebleu's paired bootstrap of `system` against `baseline`: its BLEU, mean, 95% interval and p."""
    args = [sys.executable, "-m", "sacrebleu", str(ref), "-i", str(baseline), str(system), "-m", "bleu",
            "--paired-bs", "--paired-bs-n", "1000", "--format", "json"] + (["-lc"] if lowercase else [])
    got = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)[-1]["BLEU"]
    return f"BLEU {got['score']:.2f} (mean {got['mean']:.2f} ± {got['ci']:.2f}), p = {got['p_value']:.4f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lowercased", default=str(REPO / "models" / "lowercased" / "moses.ini"),
                    help="a model trained with --lowercase (default: models/lowercased/moses.ini)")
    ap.add_argument("--truecased", default=str(REPO / "models" / "baseline" / "moses.ini"),
                    help="a model trained truecased, the default (default: models/baseline/moses.ini)")
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"), help="shared data folder")
    ap.add_argument("--limit", type=int, help="only the first N sentences (as one document)")
    a = ap.parse_args()
    from sacrebleu.metrics import BLEU
    from sacremoses import MosesDetokenizer

    from cad.corpus.truecase import model_truecase_file

    dev = Path(a.data) / "en-fr"
    for name, config in (("lowercased", a.lowercased), ("truecased", a.truecased)):
        if not Path(config).exists():
            sys.exit(f"case_bleu: no {name} model at {config}")
    if model_truecase_file(a.lowercased, "en") or not model_truecase_file(a.truecased, "en"):
        sys.exit("case_bleu: --lowercased must have no truecase-model.en beside its phrase table, "
                 "--truecased one")
    with tempfile.TemporaryDirectory(prefix="cad-bench-case-") as tmp:
        work = Path(tmp)
        source, docs = dev / "dev.en", dev / "dev.docs"
        ref_lines = (dev / "dev.fr").read_text(encoding="utf-8").splitlines()
        if a.limit:
            source, docs = work / "dev.en", None
            source.write_text("\n".join(
                (dev / "dev.en").read_text(encoding="utf-8").splitlines()[:a.limit]) + "\n", encoding="utf-8")
            ref_lines = ref_lines[:a.limit]
        md = MosesDetokenizer(lang="fr")
        ref = work / "ref.detok"
        ref.write_text("".join(md.detokenize(x.split()) + "\n" for x in ref_lines), encoding="utf-8")
        outs = {}
        for name, config in (("lowercased", a.lowercased), ("truecased", a.truecased)):
            outs[name] = work / f"{name}.fr"
            secs = translate(config, source, docs if docs is not None and docs.exists() else None, outs[name])
            print(f"{name} ({config}): translated {len(ref_lines)} sentences in {secs:.1f} s")
        refs = [ref.read_text(encoding="utf-8").splitlines()]
        print("| model | BLEU, cased | BLEU, case-insensitive |")
        print("|---|---|---|")
        sigs = {}
        for name, path in outs.items():
            hyp = path.read_text(encoding="utf-8").splitlines()
            row = []
            for lc in (False, True):
                bleu = BLEU(lowercase=lc)
                row.append(f"{bleu.corpus_score(hyp, refs).score:.2f}")
                sigs[lc] = str(bleu.get_signature())
            print(f"| {name} | {row[0]} | {row[1]} |")
        print(f"signatures: {sigs[False]}; {sigs[True]}")
        for lc in (False, True):
            print(f"paired bootstrap, truecased against lowercased, {'case-insensitive' if lc else 'cased'}: "
                  f"{paired(ref, outs['lowercased'], outs['truecased'], lc)}")


if __name__ == "__main__":
    main()
