"""cad against the real Moses on the same machine, in one run: decoding, and the language model.

    python bench/moses_side_by_side.py [--model models/baseline/moses.ini] [--data ../shared/data]
        [--moses PATH] [--limit N] [--threads 1,2] [--pop-limit 1000] [--no-lm] [--lm-runs 7]

The Moses programs are the shared build (../shared/tools/moses/bin, its README) or $MOSES (and
`lmplz` beside it); without them the bench says so and exits 0, as it is a comparison, not a part of
cad.

Decoding: the model filtered to the TED dev talks (cad filter), cube pruning with pop limit 1000,
stack 200, the model's distortion limit, a 1-best n-best list for the model scores, with 1 and 2
threads, by `cad decode` (compiled engine) and by `moses` on the same moses.ini. Each run is timed
whole (wall seconds and peak RSS from wait4) and the load alone is timed on an empty input; the
sentences per second *translating* are the sentences over the whole run less that load. For Moses
the sum of its own per-sentence "Translation took" times is printed too (with 1 thread: its own
count of the time translating); for cad the whole run less the load its own log states ("model
loaded in", -v 1), which includes reading the input's phrases of a text table: an empty input's
load reads none of them, while Moses reads its whole table in either case. The 1-best lists are compared: the same text, a model score within
1e-4 of what Moses prints (six significant digits), and where the 1-best differ which decoder found
the better model score (the other made a search error).

LM: `cad lm --order 5` against `lmplz -o 5 -S 1G` on the French side of the model's corpus (corpus.fr
beside the moses.ini, as make train estimates it): --lm-runs alternating runs of each (about a
second each, on a machine whose speed drifts), the medians of their wall times, the largest peak
RSS, and the ARPA files compared entry by entry (the same n-grams, the largest difference of a
log10 probability or back-off).

Extraction: `cad lex` + `cad extract` (its default workers) against train-model.perl's steps 5-7 run
with Moses's programs (extract, LC_ALL=C sort, score both ways, consolidate, lexical-reordering-score:
the sum of their wall times, the largest peak RSS) on the model's corpus with cad's alignment and
lexical tables; both tables compared entry by entry.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_MOSES = REPO.parent / "shared" / "tools" / "moses" / "bin" / "moses"
MOSES_LINE_TIME = re.compile(r"^Line \d+: Translation took ([0-9.]+) seconds total", re.M)
CAD_LOADED = re.compile(r"model loaded in ([0-9.]+) s")


# Runs argv[2:] and writes its wall seconds and peak RSS (KiB) to the file argv[1]. Linux gives a
# process that exec()s the high-water RSS of the memory it replaced: a command started straight
# from this bench, once the bench holds the ARPA or phrase-table comparisons (close to 900 MiB),
# would report at least that. Started from this small launcher, it reports its own; the time is
# taken in the launcher, so its own start-up is not counted.
LAUNCHER = """import os, sys, time
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{time.perf_counter() - t} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def timed(cmd: list[str], stdout: Path | None = None, stdin: Path | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MiB, stderr) of one process, which must succeed."""
    with open(stdout or os.devnull, "w", encoding="utf-8") as out, tempfile.TemporaryFile("w+") as err, \
            open(stdin or os.devnull, encoding="utf-8") as inp, tempfile.TemporaryDirectory() as tmp:
        measured = Path(tmp) / "measured"
        status = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, str(measured), *cmd], cwd=REPO, stdin=inp,
                                stdout=out, stderr=err).returncode
        err.seek(0)
        log = err.read()
        if status != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{log[-3000:]}")
        secs, rss = measured.read_text().split()
        return float(secs), int(rss) / 1024, log


def cad(*args: str) -> list[str]:
    return [sys.executable, "-m", "cad", *args]


def best_of(nbest: Path) -> dict[int, float]:
    out: dict[int, float] = {}
    for line in nbest.read_text(encoding="utf-8").splitlines():
        f = line.split(" ||| ")
        out.setdefault(int(f[0]), float(f[3]))
    return out


def printed(x: float) -> float:
    """Half a unit of the last of the six significant digits Moses prints x with."""
    return 0.5 * 10 ** (math.floor(math.log10(abs(x))) - 5) if x else 0.0


def agreement(cad_out: Path, cad_nb: Path, moses_out: Path, moses_nb: Path) -> str:
    a = [l.rstrip() for l in cad_out.read_text(encoding="utf-8").splitlines()]
    b = [l.rstrip() for l in moses_out.read_text(encoding="utf-8").splitlines()]
    sa, sb = best_of(cad_nb), best_of(moses_nb)
    same = sum(x == y for x, y in zip(a, b))
    close = sum(abs(sa[k] - sb[k]) <= 1e-4 + printed(sb[k]) for k in sb if k in sa)
    moses_err = cad_err = ties = 0
    for k, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if abs(sa[k] - sb[k]) <= 1e-4 + printed(sb[k]):
            ties += 1
        elif sa[k] > sb[k]:
            moses_err += 1
        else:
            cad_err += 1
    return (f"same 1-best on {same}/{len(b)} sentences, model score within 1e-4 (of Moses's printed digits) on "
            f"{close}/{len(b)}; where they differ: cad's score higher (a Moses search error) {moses_err}, "
            f"Moses's higher (a cad search error) {cad_err}, equal scores {ties}")


def decoding(a, moses: str, work: Path) -> None:
    from cad.corpus.truecase import ModelCase

    dev = Path(a.data) / "en-fr" / "dev.en"
    case = ModelCase.of(a.model, "en", "fr")
    lines = [case.source_line(x) for x in dev.read_text(encoding="utf-8").splitlines()]
    if a.limit:
        lines = lines[:a.limit]
    inp = work / "in.txt"
    inp.write_text("".join(l + "\n" for l in lines), encoding="utf-8")
    empty = work / "empty.txt"
    empty.write_text("", encoding="utf-8")
    secs, _, _ = timed(cad("-q", "filter", "--config", a.model, "--input", str(inp), "--out-dir", str(work / "f")))
    ini = str(work / "f" / "moses.ini")
    print(f"decoding: {len(lines)} dev sentences, {sum(len(l.split()) for l in lines)} words; model filtered "
          f"in {secs:.1f} s; cube pruning, pop limit {a.pop_limit}, stack 200")
    common = ["-search-algorithm", "1", "-cube-pruning-pop-limit", str(a.pop_limit), "-s", "200"]
    rates: dict[tuple[str, str], float] = {}
    for threads in a.threads.split(","):
        for name in ("cad", "moses"):
            nb, out = work / f"nb.{name}.{threads}", work / f"out.{name}.{threads}"
            args = ["-f", ini, *common, "-threads", threads]
            cmd = cad("decode", *args, "--engine", "native", "-v", "1") if name == "cad" else [moses, *args]
            load, _, _ = timed(cmd + ["-input-file", str(empty)])
            secs, rss, log = timed(cmd + ["-input-file", str(inp), "-n-best-list", str(nb), "1"], stdout=out)
            rate = len(lines) / max(secs - load, 1e-9)
            rates[(name, threads)] = rate
            own = ""
            if name == "moses":
                took = sum(float(x) for x in MOSES_LINE_TIME.findall(log))
                own = f"; its own per-sentence times sum to {took:.1f} s ({len(lines) / max(took, 1e-9):.2f} sentences/s)"
                rates[("moses-own", threads)] = len(lines) / max(took, 1e-9)
            else:
                # cad reads only the input's phrases of a text table, so the empty input's load
                # misses that reading; its own log says the whole load
                found = CAD_LOADED.search(log)
                if found is None:
                    raise SystemExit(f"cad decode -v 1 did not log its load time:\n{log[-2000:]}")
                loaded = float(found.group(1))
                rates[("cad-own", threads)] = len(lines) / max(secs - loaded, 1e-9)
                own = (f"; its own load (model loaded in {loaded:.1f} s, the input's phrases read) leaves "
                       f"{rates[('cad-own', threads)]:.2f} sentences/s")
            print(f"  {name:5s} {threads} thread(s): whole run {secs:.1f} s ({len(lines) / secs:.2f} sentences/s), "
                  f"load {load:.1f} s, translating {len(lines) / max(secs - load, 1e-9):.2f} sentences/s, "
                  f"peak RSS {rss:.0f} MiB{own}")
        print(f"  {threads} thread(s): " + agreement(work / f"out.cad.{threads}", work / f"nb.cad.{threads}",
                                                     work / f"out.moses.{threads}", work / f"nb.moses.{threads}"))
        print(f"  {threads} thread(s): cad / Moses sentences per second translating: "
              f"{rates[('cad', threads)] / rates[('moses', threads)]:.2f}x; cad (whole run less the empty input's "
              f"load) / Moses by its own count: {rates[('cad', threads)] / rates[('moses-own', threads)]:.2f}x; "
              f"cad by its own load / Moses by its own count: "
              f"{rates[('cad-own', threads)] / rates[('moses-own', threads)]:.2f}x")


def read_arpa_entries(path: Path) -> dict[tuple[int, str], tuple[float, float | None]]:
    out: dict[tuple[int, str], tuple[float, float | None]] = {}
    n = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            s = line.rstrip("\n")
            m = re.match(r"^\\(\d+)-grams:$", s)
            if m:
                n = int(m.group(1))
                continue
            if not n or not s or s.startswith("\\"):
                continue
            f = s.split("\t")
            out[(n, f[1])] = (float(f[0]), float(f[2]) if len(f) > 2 else None)
    return out


def language_model(a, lmplz: str, work: Path) -> None:
    text = Path(a.model).parent / "corpus.fr"
    if not text.exists():
        print(f"lm: skipped, no {text}")
        return
    # a second or so each, on a machine whose speed drifts: alternating pairs, their medians
    runs_cad, runs_kl = [], []
    for _ in range(a.lm_runs):
        runs_cad.append(timed(cad("-q", "lm", "--text", str(text), "--order", "5", "--out", str(work / "cad.arpa"))))
        runs_kl.append(timed([lmplz, "-o", "5", "-S", "1G", "-T", str(work)], stdout=work / "lmplz.arpa", stdin=text))
    secs_cad, secs_kl = statistics.median(r[0] for r in runs_cad), statistics.median(r[0] for r in runs_kl)
    rss_cad, rss_kl = max(r[1] for r in runs_cad), max(r[1] for r in runs_kl)
    mine, theirs = read_arpa_entries(work / "cad.arpa"), read_arpa_entries(work / "lmplz.arpa")
    common = mine.keys() & theirs.keys()
    worst_p = max((abs(mine[k][0] - theirs[k][0]) for k in common), default=0.0)
    worst_b = max((abs((mine[k][1] or 0.0) - (theirs[k][1] or 0.0)) for k in common), default=0.0)
    print(f"lm: 5-gram on {text.name} ({sum(1 for _ in open(text, encoding='utf-8'))} lines), {a.lm_runs} alternating "
          f"runs each, medians: cad lm {secs_cad:.2f} s, peak RSS {rss_cad:.0f} MiB; lmplz -o 5 -S 1G {secs_kl:.2f} s, "
          f"peak RSS {rss_kl:.0f} MiB; cad / lmplz time {secs_cad / secs_kl:.2f}x")
    print("  the pairs (cad, lmplz seconds): " + ", ".join(f"{x[0]:.2f}/{y[0]:.2f}" for x, y in zip(runs_cad, runs_kl)))
    print(f"  ARPA: {len(mine)} entries against {len(theirs)}, {len(common)} in both "
          f"({len(mine.keys() - theirs.keys())} only cad's, {len(theirs.keys() - mine.keys())} only lmplz's); "
          f"largest difference: log10 probability {worst_p:.2g}, back-off {worst_b:.2g}")


def extraction(a, moses: str, work: Path) -> None:
    """cad lex + cad extract against train-model.perl's steps 5-7 with Moses's programs, on the model's
    corpus and cad's alignment and lexical tables; the tables compared entry by entry."""
    model = Path(a.model).parent
    src, tgt, align = model / "corpus.en", model / "corpus.fr", model / "aligned.grow-diag-final-and"
    if not align.exists():
        print(f"extraction: skipped, no {align}")
        return
    d = work / "extract"
    d.mkdir(exist_ok=True)
    secs_lex, _, _ = timed(cad("-q", "lex", "--src", str(src), "--tgt", str(tgt), "--align", str(align), "--out",
                               str(d / "lex")))
    secs_cad, rss_cad, _ = timed(cad("-q", "extract", "--src", str(src), "--tgt", str(tgt), "--align", str(align),
                                     "--lex", str(d / "lex"), "--phrase-table", str(d / "cad.pt.gz"),
                                     "--reordering-table", str(d / "cad.ro.gz")))
    b = Path(moses).parent
    steps = [[str(b / "extract"), str(tgt), str(src), str(align), "extract", "7", "orientation", "--model", "wbe-msd"],
             ["sort", "-o", "extract.sorted", "extract"], ["sort", "-o", "extract.inv.sorted", "extract.inv"],
             ["sort", "-o", "extract.o.sorted", "extract.o"],
             [str(b / "score"), "extract.sorted", str(d / "lex.f2e"), "half.f2e"],
             [str(b / "score"), "extract.inv.sorted", str(d / "lex.e2f"), "half.e2f", "--Inverse"],
             ["sort", "-o", "half.e2f.sorted", "half.e2f"],
             [str(b / "consolidate"), "half.f2e", "half.e2f.sorted", "phrase-table"],
             [str(b / "lexical-reordering-score"), "extract.o.sorted", "0.5", "reordering-table.", "--model",
              "wbe msd wbe-msd-bidirectional-fe"]]
    secs_m, rss_m = 0.0, 0.0
    for cmd in steps:
        t, r, _ = timed(["env", "--chdir", str(d), "LC_ALL=C", *cmd])
        secs_m, rss_m = secs_m + t, max(rss_m, r)
    print(f"extraction on {sum(1 for _ in open(src, encoding='utf-8'))} pairs (lexical tables {secs_lex:.1f} s, "
          f"shared): cad extract {secs_cad:.1f} s, peak RSS {rss_cad:.0f} MiB; Moses extract, sort, score both "
          f"ways, consolidate, lexical-reordering-score {secs_m:.1f} s, largest peak RSS {rss_m:.0f} MiB; "
          f"cad / Moses time {secs_cad / secs_m:.2f}x")
    import gzip

    def rows(path: Path) -> dict:
        with (gzip.open if path.suffix == ".gz" else open)(path, "rt", encoding="utf-8") as fh:
            return {tuple(f[:2]): f[2:] for f in (line.rstrip("\n").split(" ||| ") for line in fh)}

    ours, theirs = rows(d / "cad.pt.gz"), rows(d / "phrase-table")
    common = ours.keys() & theirs.keys()
    off = sum(1 for k in common if ours[k][1].strip() != theirs[k][1].strip() or ours[k][2].split() != theirs[k][2].split()
              or any(abs(float(x) - float(y)) > printed(float(x)) + printed(float(y)) + 2e-7 * abs(float(y))
                     for x, y in zip(ours[k][0].split(), theirs[k][0].split())))
    print(f"  phrase table: {len(ours)} pairs against {len(theirs)}, {len(common)} in both; {off} differ in an "
          f"alignment, a count or a score beyond Moses's printed precision")
    ours, theirs = rows(d / "cad.ro.gz"), rows(d / "reordering-table.wbe-msd-bidirectional-fe.gz")
    common = ours.keys() & theirs.keys()
    diffs = [max(abs(float(x) - float(y)) for x, y in zip(ours[k][0].split(), theirs[k][0].split())) for k in common]
    print(f"  reordering table: {len(ours)} entries against {len(theirs)}, {len(common)} in both; "
          f"{sum(x > 1e-4 for x in diffs)} differ by more than 1e-4 (largest {max(diffs, default=0):.3g})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "baseline" / "moses.ini"))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--moses", default=os.environ.get("MOSES") or (str(SHARED_MOSES) if SHARED_MOSES.exists() else
                                                                  shutil.which("moses")),
                    help="the Moses binary (default: $MOSES, the shared build, or moses on PATH); lmplz is looked "
                         "for beside it, then on PATH")
    ap.add_argument("--limit", type=int, help="only the first N dev sentences")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--pop-limit", type=int, default=1000)
    ap.add_argument("--no-lm", action="store_true", help="skip cad lm against lmplz")
    ap.add_argument("--lm-runs", type=int, default=7, help="alternating runs of cad lm and lmplz, whose medians are "
                    "compared (default: %(default)s)")
    ap.add_argument("--no-extraction", action="store_true", help="skip cad extract against Moses's training steps")
    ap.add_argument("--work", help="keep the filtered model, outputs and ARPA files in this folder")
    a = ap.parse_args()
    if not a.moses or not os.access(a.moses, os.X_OK):
        print("moses side by side: skipped, no Moses binary ($MOSES, ../shared/tools/moses/bin/moses or PATH)")
        return
    if not Path(a.model).exists() or not (Path(a.data) / "en-fr" / "dev.en").exists():
        print(f"moses side by side: skipped, need a trained model at {a.model} (make train) and the dev talks "
              f"in {a.data}/en-fr")
        return
    lmplz = str(Path(a.moses).with_name("lmplz"))
    if not os.access(lmplz, os.X_OK):
        lmplz = shutil.which("lmplz")
    print(f"Moses: {a.moses}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory(prefix="cad-bench-moses-") as tmp:
        work = Path(a.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        decoding(a, a.moses, work)
        if not a.no_lm:
            if lmplz:
                language_model(a, lmplz, work)
            else:
                print("lm: skipped, no lmplz beside moses or on PATH")
        if not a.no_extraction:
            extraction(a, a.moses, work)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
