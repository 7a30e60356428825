"""Decoding with one language model and with two (Moses's LM0 and LM1: the model's own LM and an
in-domain one on the TED part of its corpus), on the first dev sentences.

    python bench/lms_bench.py [--model models/baseline/moses.ini] [--data ../shared/data] [--limit 300]
                              [--python-limit 30] [--before CHECKOUT] [--repeat 3] [--work DIR]

The model's tables are first filtered to the input (cad filter); its LM is read as the model has it
(its binary twin lm.binlm when there is one). The second LM is estimated by `cad lm` (order 5) from
the lines of the model's prepared corpus (OUT/corpus.fr) whose documents (OUT/corpus.docs) are TED
talks (`sated:` ids), turned into KenLM's binary format beside it, and added by `cad moses-ini
add-lm`. Each run loads the model in a process of its own and translates the sentences one by one
with cube pruning (stack 200, pop limit 1000) and 10-best lists; the time is the CPU time of the
translations alone (the model's loading left out; CPU time, which other jobs on the machine disturb
less than the wall clock), as sentences/s. A run's outputs are hashed: the 1-best and the n-best
lists as `cad decode` writes them.

- one LM: the compiled core of this checkout and, with --before, of another checkout (the code
  before a change, its compiled core built), run alternately --repeat times, and whether their
  outputs are the same bytes;
- two LMs: the compiled core against the Python search on the first --python-limit sentences (the
  Python search is some twenty times slower), and whether they agree to the byte.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# run by each checkout's Python: the decoder of that checkout, timed sentence by sentence
TIMED = """
import hashlib, json, sys, time
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.decoder.nbest import nbest_lines
ini, inp, engine = sys.argv[1:4]
sents = open(inp, encoding="utf-8").read().splitlines()
model = DecoderModel.load(ini, input_sentences=sents, settings=SearchSettings(search_algorithm=1))
dec = Decoder(model, native=engine == "native")
digest, seconds = hashlib.sha256(), []
for k, s in enumerate(sents):
    t = time.process_time()
    tr = dec.translate(s, nbest=10)
    seconds.append(time.process_time() - t)
    digest.update((tr.text + "\\n" + "".join(l + "\\n" for l in nbest_lines(k, tr))).encode("utf-8"))
print(json.dumps({"seconds": seconds, "sha256": digest.hexdigest()}))
"""


def timed(checkout: Path, ini: Path, inp: Path, engine: str) -> dict:
    """One run of `checkout`'s decoder: each sentence's CPU seconds and the outputs' hash."""
    env = dict(os.environ, PYTHONPATH=str(checkout), CAD_NATIVE="1" if engine == "native" else "0")
    r = subprocess.run([sys.executable, "-c", TIMED, str(ini), str(inp), engine], cwd=checkout, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"decoding in {checkout} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.splitlines()[-1])


def cad(args: list[str]) -> None:
    r = subprocess.run([sys.executable, "-m", "cad", "-q", *args], cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"cad {' '.join(args)} failed:\n{r.stderr[-3000:]}")


def ted_lines(model_dir: Path, lang: str) -> list[str]:
    """The lines of the model's prepared corpus whose documents are TED talks (sated: ids)."""
    lines = (model_dir / f"corpus.{lang}").read_text(encoding="utf-8").splitlines()
    starts = []
    for row in (model_dir / "corpus.docs").read_text(encoding="utf-8").splitlines():
        first, doc = row.split("\t")
        starts.append((int(first), doc))
    out = []
    for k, (first, doc) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        if doc.startswith("sated:"):
            out.extend(lines[first:end])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "baseline" / "moses.ini"))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--limit", type=int, default=300, help="the first N dev sentences (default: %(default)s)")
    ap.add_argument("--python-limit", type=int, default=30,
                    help="the two-LM Python search on the first N of them (default: %(default)s)")
    ap.add_argument("--before", help="another checkout of cad (its compiled core built) to run beside this one")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each one-LM decoder (default: %(default)s)")
    ap.add_argument("--work", help="keep the filtered model, the second LM and the inputs in this folder")
    a = ap.parse_args()
    from cad.corpus.truecase import ModelCase
    from cad.lm.kenlm_binary import write_kenlm_binary

    model, dev = Path(a.model).resolve(), Path(a.data).resolve() / "en-fr" / "dev.en"
    if not dev.exists() or not model.exists() or not (model.parent / "corpus.docs").exists():
        raise SystemExit(f"need {dev} and a trained model at {model} (make train)")
    with tempfile.TemporaryDirectory(prefix="cad-bench-lms-") as tmp:
        work = Path(a.work or tmp).resolve()
        work.mkdir(parents=True, exist_ok=True)
        case = ModelCase.of(model, "en", "fr")
        lines = [case.source_line(x) for x in dev.read_text(encoding="utf-8").splitlines()[:a.limit]]
        inp, few = work / "in.txt", work / "in.few.txt"
        inp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        few.write_text("\n".join(lines[:a.python_limit]) + "\n", encoding="utf-8")
        cad(["filter", "--config", str(model), "--input", str(inp), "--out-dir", str(work / "f")])
        one = work / "f" / "moses.ini"
        ted = ted_lines(model.parent, "fr")
        (work / "ted.fr").write_text("\n".join(ted) + "\n", encoding="utf-8")
        cad(["lm", "--text", str(work / "ted.fr"), "--order", "5", "--out", str(work / "lm.ted.arpa")])
        write_kenlm_binary(work / "lm.ted.arpa", work / "lm.ted.binlm")
        two = work / "two.ini"
        cad(["moses-ini", "add-lm", "--config", str(one), "--lm", str(work / "lm.ted.arpa"), "--out", str(two)])
        print(f"input: {len(lines)} dev sentences, {sum(len(x.split()) for x in lines)} words; second LM: "
              f"{len(ted)} TED lines of {model.parent / 'corpus.fr'}", flush=True)
        checkouts = {"this checkout": REPO} | ({"before": Path(a.before).resolve()} if a.before else {})
        runs: dict[str, list[dict]] = {name: [] for name in checkouts}
        for _ in range(a.repeat):
            for name, checkout in checkouts.items():
                runs[name].append(timed(checkout, one, inp, "native"))
        for name, got in runs.items():
            rates = [len(lines) / sum(r["seconds"]) for r in got]
            print(f"one LM, native ({name}): {' '.join(f'{x:.1f}' for x in rates)} sentences/s "
                  f"(median {sorted(rates)[len(rates) // 2]:.1f})")
        hashes = {r["sha256"] for got in runs.values() for r in got}
        print(f"one LM: the same outputs and 10-best lists in every run{' before and after' if a.before else ''}: "
              f"{len(hashes) == 1}")
        fast, slow = timed(REPO, two, few, "native"), timed(REPO, two, few, "python")
        n = len(fast["seconds"])
        print(f"two LMs, {n} sentences: native {n / sum(fast['seconds']):.1f} sentences/s, python "
              f"{n / sum(slow['seconds']):.2f} sentences/s ({sum(slow['seconds']) / sum(fast['seconds']):.1f}x); "
              f"the same outputs and 10-best lists: {fast['sha256'] == slow['sha256']}")
        full = timed(REPO, two, inp, "native")
        print(f"two LMs, native, all {len(lines)} sentences: {len(lines) / sum(full['seconds']):.1f} sentences/s",
              flush=True)


if __name__ == "__main__":
    main()
