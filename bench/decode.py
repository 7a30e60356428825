"""Decoding speed and memory of cad's decoder on the TED dev talks, with Moses's default settings.

    python bench/decode.py [--model models/baseline/moses.ini] [--data ../shared/data] [--limit N]

The model's tables are first filtered to the input (cad filter). Then cad decode runs with stack
200, cube-pruning pop limit 1000 and the model's [distortion-limit], for normal search (0) and cube
pruning (1), with 1 and 2 threads, on the compiled engine (native); the Python engine runs cube
pruning with 1 thread beside it (--engines). Prints sentences/s with and without the model's load
time (an empty input measures it), ms/word, peak RSS and BLEU (case-insensitive, tokenized dev.fr) per
run, how often the two engines give the same 1-best and model score, and how often cube pruning's
model score is at least that of normal search on the same sentence. --pop-limits 1000,1500,2000
adds the trade-off of larger pop limits.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cad.eval.bleu import bleu_chrf
from cad.corpus.truecase import ModelCase

REPO = Path(__file__).resolve().parents[1]


LOADED = re.compile(r"model loaded in ([0-9.]+) s")


def run(args: list[str], stdout: Path | None = None) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MiB, seconds the model took to load, as cad decode logs it)."""
    t = time.time()
    with open(stdout or os.devnull, "w", encoding="utf-8") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "cad", *args], cwd=REPO, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        log = err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cad {' '.join(args)} failed:\n{log}")
    m = LOADED.search(log)
    return time.time() - t, usage.ru_maxrss / 1024, float(m.group(1)) if m else 0.0


def best_scores(nbest: Path) -> dict[int, float]:
    out: dict[int, float] = {}
    for line in nbest.read_text(encoding="utf-8").splitlines():
        fields = line.split(" ||| ")
        out.setdefault(int(fields[0]), float(fields[3]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "baseline" / "moses.ini"))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--limit", type=int, help="only the first N sentences")
    ap.add_argument("--algorithms", default="1,0")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--normal-threads", help="thread counts for normal search only (default: --threads); "
                    "normal search is several times slower than cube pruning")
    ap.add_argument("--pop-limits", default=[1000], type=pop_limits,
                    help="cube-pruning pop limits to run (Moses's default 1000 first; normal search uses the first)")
    ap.add_argument("--work", help="keep the filtered model and n-best lists in this folder")
    ap.add_argument("--cm-config", help="also time cad translate on the dev talks (with their documents): plain "
                                        "(--system baseline on --model) against --system cm with this moses.ini "
                                        "(e.g. moses_configs/baseline.feature.ini), coreference included")
    ap.add_argument("--engines", default="native,python",
                    help="decoder engines (default: %(default)s; python runs cube pruning with 1 thread only)")
    a = ap.parse_args()
    dev = Path(a.data) / "en-fr" / "dev.en"
    if not dev.exists() or not Path(a.model).exists():
        raise SystemExit(f"need {dev} and a trained model at {a.model} (make train)")
    with tempfile.TemporaryDirectory(prefix="cad-bench-decode-") as tmp:
        work = Path(a.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        # the input in the model's case (truecased by its truecase-model.en, or lowercased)
        case = ModelCase.of(a.model, "en", "fr")
        lines = [case.source_line(x) for x in dev.read_text(encoding="utf-8").splitlines()]
        if a.limit:
            lines = lines[:a.limit]
        (work / "in.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        words = sum(len(l.split()) for l in lines)
        secs, rss, _ = run(["filter", "--config", a.model, "--input", str(work / "in.txt"), "--out-dir",
                            str(work / "f")])
        print(f"input: {len(lines)} sentences, {words} words; filtering: {secs:.1f} s")
        ref_path = dev.with_suffix(".fr")
        ref = None
        if ref_path.exists():
            ref = work / "ref.txt"
            ref.write_text("\n".join(ref_path.read_text(encoding="utf-8").splitlines()[:len(lines)]) + "\n",
                           encoding="utf-8")
        pops = a.pop_limits
        normal: dict[int, float] | None = None
        cube: dict[int, dict[int, float]] = {}
        first: dict[str, tuple[Path, dict[int, float]]] = {}      # engine -> cube pruning, 1 thread
        for engine in a.engines.split(","):
            for algo in a.algorithms.split(","):
                if engine == "python" and algo != "1":
                    continue
                counts = a.normal_threads if algo == "0" and a.normal_threads else a.threads
                for pop in pops if algo == "1" else [pops[0]]:
                    for threads in counts.split(",") if engine == "native" else ["1"]:
                        nb = work / f"nb.{engine}.{algo}.{pop}.{threads}"
                        out = work / f"out.{engine}.{algo}.{pop}.{threads}"
                        secs, rss, load = run(["decode", "-f", str(work / "f" / "moses.ini"), "-input-file",
                                         str(work / "in.txt"), "-search-algorithm", algo, "-s", "200",
                                         "-cube-pruning-pop-limit", str(pop), "-threads", threads, "-n-best-list",
                                         str(nb), "1", "--engine", engine, "-v", "1"], stdout=out)
                        best = best_scores(nb)
                        if algo == "1":
                            if engine == "native":
                                cube[pop] = best
                            if pop == pops[0] and threads == "1":
                                first[engine] = (out, best)
                            name = f"cube pruning (pop limit {pop})"
                        else:
                            normal = best
                            name = "normal search"
                        # the output is tokenized (and cased) like the model: BLEU on tokens, case aside
                        bleu = f", BLEU {bleu_chrf(out, ref, tokenize='none', lowercase=True)['bleu']:.2f}" if ref else ""
                        print(f"{engine}: {name}, {threads} thread(s): {len(lines) / secs:.2f} sentences/s "
                              f"({len(lines) / max(secs - load, 1e-9):.2f} without the {load:.1f} s of loading), "
                              f"whole run {secs:.1f} s, "
                              f"{1000 * secs / words:.1f} ms/word, peak RSS {rss:.0f} MiB{bleu}")
        if a.cm_config:
            docs = dev.with_suffix(".docs")
            source = dev
            if a.limit:          # the first sentences, as one document
                source = work / "in.raw"
                source.write_text("\n".join(dev.read_text(encoding="utf-8").splitlines()[:len(lines)]) + "\n",
                                  encoding="utf-8")
            times = {}
            # a stand-in with Moses's command line (cad decode streams stdin as Moses does), to time
            # the route --decoder moses takes: one process per pass, on the model filtered to the input
            stand_in = work / "moses"
            stand_in.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m cad decode \"$@\"\n", encoding="utf-8")
            stand_in.chmod(0o755)
            runs = (("plain", a.model, "baseline", []), ("cm", a.cm_config, "cm", []),
                    ("cm, everything in one process", a.cm_config, "cm", ["--read-ahead", "0"]),
                    ("plain through the Moses route", a.model, "baseline",
                     ["--decoder", "moses", "--moses-bin", str(stand_in)]))
            for name, cfg, system, extra in runs:
                args = ["translate", "--config", cfg, "--input", str(source), "--system", system, "--out",
                        str(work / f"translate.{len(times)}"), *extra]
                if not a.limit and docs.exists():
                    args += ["--docs", str(docs)]
                times[name], rss, _ = run(args)
                print(f"cad translate --system {system} {' '.join(extra[:2])} ({Path(cfg).name}): "
                      f"{times[name]:.1f} s, peak RSS {rss:.0f} MiB")
            print(f"coreference-aware translation against plain: {times['cm'] / times['plain']:.2f}x "
                  f"({times['cm, everything in one process'] / times['plain']:.2f}x with --read-ahead 0)")
            same = (work / "translate.0").read_bytes() == (work / "translate.3").read_bytes()
            print(f"plain translation through the Moses route (cad decode as the binary) against cad's decoder: "
                  f"{times['plain through the Moses route'] / times['plain']:.2f}x, same output: {same}")
        if "native" in first and "python" in first:
            (o1, b1), (o2, b2) = first["native"], first["python"]
            same = sum(1 for x, y in zip(o1.read_text(encoding="utf-8").splitlines(),
                                         o2.read_text(encoding="utf-8").splitlines()) if x == y)
            close = sum(1 for k, v in b1.items() if abs(b2.get(k, 1e30) - v) <= 1e-4)
            print(f"native against python (cube pruning, 1 thread): same 1-best on {same}/{len(lines)} sentences, "
                  f"model score within 1e-4 on {close}/{len(lines)}")
        if normal is not None:
            for pop, best in cube.items():
                ok = sum(1 for k, v in normal.items() if best.get(k, -1e30) >= v - 1e-6)
                print(f"cube pruning (pop limit {pop}) model score >= normal search on {ok}/{len(normal)} "
                      f"sentences ({100 * ok / len(normal):.1f}%)")



def pop_limits(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"comma-separated integers expected, not {text!r}") from None
    if any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("pop limits must be at least 1")
    return values

if __name__ == "__main__":
    main()
