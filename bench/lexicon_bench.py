"""Load time, memory and coverage of the lexical-resource readers on Debian's files (`make resources`).

    python bench/lexicon_bench.py [--sample 10] [--seed 1]

Each reader loads in a process of its own: first with an empty cache folder (the Hunspell lexicon
built from the .dic, the WordNet folder laid out for NLTK), then again with the cache the first
load left. Prints seconds, the peak RSS above a bare interpreter's, and the reader's size; then
how many FreeDict translations the Hunspell lexicon gives a gender, and a random sample of nouns
with their gender, to check by hand.
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

CHILD = r"""
import json, resource, sys, time
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
kind, cache = sys.argv[1], sys.argv[2]
if kind == "hunspell":
    from cad.resources import hunspell_fr
    r = hunspell_fr.load(cache_dir=cache)
    size = len(r)
elif kind == "freedict":
    from cad.resources import freedict
    r = freedict.load()
    size = len(r)
else:
    t0 = time.perf_counter()
    import nltk.corpus.reader.wordnet  # noqa: F401  (NLTK's import alone, reported apart)
    imported = time.perf_counter() - t0
    from cad.resources import wordnet
    r = wordnet.load(cache_dir=cache)
    size = len(list(r.wordnet.all_lemma_names(pos="n")))
out = {"seconds": time.perf_counter() - t, "rss_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024,
       "size": size}
if kind == "wordnet":
    out["nltk_import_seconds"] = imported
print(json.dumps(out))
"""


def child(kind: str, cache: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, kind, cache], cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def coverage(sample: int, seed: int) -> None:
    import random

    from cad.resources import freedict, hunspell_fr
    from cad.downloads import debian

    dic = debian.package_files(debian.HUNSPELL_FR)["fr.dic"]
    entries = sum(1 for line in open(dic, encoding="utf-8") if " po:nom" in line or "\tpo:nom" in line)
    fr = hunspell_fr.load()
    fd = freedict.load()
    translations = [t.text for h in fd.headwords() for t in fd.translations(h)]
    with_gender = sum(1 for t in translations if fr.phrase_gender(t) is not None)
    print(f"\nHunspell: {entries} noun entries (po:nom lines) in {dic}, {len(fr)} noun forms after the affix rules")
    genders: dict[str, int] = {}
    for w in fr:
        g = fr.gender(w) or "none"
        genders[g] = genders.get(g, 0) + 1
    print("forms by gender: " + ", ".join(f"{g} {n}" for g, n in sorted(genders.items())))
    print(f"FreeDict: {len(fd)} headwords, {len(translations)} translations; {with_gender} "
          f"({with_gender / len(translations):.0%}) get a gender from Hunspell (whole phrase or its first noun)")
    rng = random.Random(seed)
    print(f"\n{sample} random noun forms (seed {seed}), to check by hand:")
    for w in rng.sample(sorted(fr), sample):
        print(f"  {w}\t{fr.gender(w)}\t{sorted(fr.analyses(w), key=str)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, default=10, help="random nouns to print (default 10)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print(f"{'reader':10} {'load':>6} {'cold s':>8} {'RSS MB':>8}  size")
    with tempfile.TemporaryDirectory() as cache:
        for kind in ("hunspell", "freedict", "wordnet"):
            for load in ("cold", "warm"):
                r = child(kind, cache)
                extra = f"  (NLTK's import {r['nltk_import_seconds']:.2f} s)" if "nltk_import_seconds" in r else ""
                print(f"{kind:10} {load:>6} {r['seconds']:8.2f} {r['rss_mb']:8.1f}  {r['size']}{extra}")
    sys.path.insert(0, str(REPO))
    coverage(a.sample, a.seed)


if __name__ == "__main__":
    main()
