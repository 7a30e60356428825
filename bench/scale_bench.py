"""Cost as the corpus grows: cad's phrase extraction and scoring and its LM against Moses's own programs,
on the first N pairs of the large model's prepared corpus and its alignment, for each N.

    python bench/scale_bench.py [--model models/large] [--sizes 33200,250000,all] [--moses DIR]

For each size: `cad lex` (shared by both), `cad extract` (its default workers) against train-model.perl's
steps 5-7 run with Moses's programs one after the other (extract, LC_ALL=C sort, score both ways, sort,
consolidate, lexical-reordering-score; Moses's files left uncompressed, which spares it gzip's time where
cad writes .gz), and `cad lm` against `lmplz -o 5 -S 1G` on the French side. Wall time and the peak RSS of
the largest process, the ratio, and how each grows from one size to the next. `make bench-scale` runs
it; it needs `make large` (or any model folder with corpus.{en,fr}, aligned.grow-diag-final-and).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from moses_side_by_side import cad, timed  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MOSES_BIN = REPO.parent / "shared" / "tools" / "moses" / "bin"


# Moses's extract reads a bare < as the start of markup and drops the sentence ("no target (0) or source
# (25) words << end insentence 77404"): its tokenizer writes &lt; and &gt;, cad's (as the shared corpora)
# leaves them bare. Both programs get them escaped, so that they read the same sentences.
ESCAPE = str.maketrans({"<": "&lt;", ">": "&gt;"})


def head(src: Path, out: Path, n: int | None, escape: bool = False) -> int:
    with open(src, encoding="utf-8") as fh, open(out, "w", encoding="utf-8") as o:
        k = 0
        for line in islice(fh, n):
            o.write(line.translate(ESCAPE) if escape else line)
            k += 1
    return k


def moses_steps(b: Path, d: Path, lex: Path) -> list[tuple[list[str], list[str]]]:
    """train-model.perl's steps 5-7 as (command, files it leaves unneeded): at the whole corpus the
    unsorted extract files alone are about 15 GB, so each is removed once sorted (disk, not time)."""
    return [([str(b / "extract"), str(d / "c.fr"), str(d / "c.en"), str(d / "c.al"), "extract", "7", "orientation",
              "--model", "wbe-msd"], []),
            (["sort", "-o", "extract.sorted", "extract"], ["extract"]),
            (["sort", "-o", "extract.inv.sorted", "extract.inv"], ["extract.inv"]),
            (["sort", "-o", "extract.o.sorted", "extract.o"], ["extract.o"]),
            ([str(b / "score"), "extract.sorted", f"{lex}.f2e", "half.f2e"], ["extract.sorted"]),
            ([str(b / "score"), "extract.inv.sorted", f"{lex}.e2f", "half.e2f", "--Inverse"], ["extract.inv.sorted"]),
            (["sort", "-o", "half.e2f.sorted", "half.e2f"], ["half.e2f"]),
            ([str(b / "consolidate"), "half.f2e", "half.e2f.sorted", "phrase-table"], ["half.f2e", "half.e2f.sorted"]),
            ([str(b / "lexical-reordering-score"), "extract.o.sorted", "0.5", "reordering-table.", "--model",
              "wbe msd wbe-msd-bidirectional-fe"], ["extract.o.sorted"])]


def same_table(moses: Path, cad_gz: Path, every: int = 1000) -> tuple[int, int, int]:
    """(sampled, missing in cad's table, scores off by more than one unit of the sixth significant
    digit Moses prints): every `every`-th line of Moses's phrase table looked up in cad's, streamed
    (neither table in memory). One unit is allowed: the two programs multiply and average the words'
    lexical probabilities in another order, so a weight near a rounding boundary may print one
    unit apart (seen at 3,000 pairs: 4 of 254 sampled entries, each in the sixth digit)."""
    import gzip

    from moses_side_by_side import printed

    sample: dict[tuple[str, str], list[float]] = {}
    with open(moses, encoding="utf-8") as fh:
        for k, line in enumerate(fh):
            if k % every == 0:
                f = line.split(" ||| ")
                sample[(f[0], f[1])] = [float(x) for x in f[2].split()]
    off = 0
    found = 0
    with gzip.open(cad_gz, "rt", encoding="utf-8") as fh:
        for line in fh:
            f = line.split(" ||| ", 3)
            want = sample.get((f[0], f[1]))
            if want is not None:
                found += 1
                got = [float(x) for x in f[2].split()]
                off += any(abs(a - b) > 2.02 * printed(a) for a, b in zip(want, got)) or len(want) != len(got)
    return len(sample), len(sample) - found, off


def one_size(model: Path, n: int | None, b: Path, work: Path) -> dict:
    d = work / f"n{n or 'all'}"
    d.mkdir()
    pairs = head(model / "corpus.en", d / "c.en", n, escape=True)
    head(model / "corpus.fr", d / "c.fr", n, escape=True)
    head(model / "aligned.grow-diag-final-and", d / "c.al", n)
    row: dict = {"pairs": pairs}
    row["lex"], _, _ = timed(cad("-q", "lex", "--src", str(d / "c.en"), "--tgt", str(d / "c.fr"), "--align",
                                 str(d / "c.al"), "--out", str(d / "lex")))
    row["cad_extract"], row["cad_extract_rss"], _ = timed(cad(
        "-q", "extract", "--src", str(d / "c.en"), "--tgt", str(d / "c.fr"), "--align", str(d / "c.al"),
        "--lex", str(d / "lex"), "--phrase-table", str(d / "cad.pt.gz"), "--reordering-table", str(d / "cad.ro.gz")))
    m = d / "moses"
    m.mkdir()
    secs, rss = 0.0, 0.0
    for cmd, done in moses_steps(b, d, d / "lex"):
        # sort's runs beside the files (not /tmp), as train-model.perl's -T
        if cmd[0] == "sort":
            cmd = ["sort", "-T", str(m), *cmd[1:]]
        t, r, _ = timed(["env", "--chdir", str(m), "LC_ALL=C", *cmd])
        secs, rss = secs + t, max(rss, r)
        for name in done:
            (m / name).unlink()
        print(f"  moses {Path(cmd[0]).name}: {t:.1f} s, {r:.0f} MiB", file=sys.stderr, flush=True)
    row["moses_extract"], row["moses_extract_rss"] = secs, rss
    row["sampled"], row["missing"], row["off"] = same_table(m / "phrase-table", d / "cad.pt.gz")
    shutil.rmtree(m)
    row["cad_lm"], row["cad_lm_rss"], _ = timed(cad("-q", "lm", "--text", str(d / "c.fr"), "--order", "5", "--out",
                                                    str(d / "cad.arpa"), "--temp-dir", str(d)))
    row["lmplz"], row["lmplz_rss"], _ = timed([str(b / "lmplz"), "-o", "5", "-S", "1G", "-T", str(d)],
                                              stdout=d / "lmplz.arpa", stdin=d / "c.fr")
    shutil.rmtree(d)
    return row


def report(rows: list[dict]) -> None:
    print("| pairs | cad extract+score | Moses extract..reordering | cad / Moses | cad lm | lmplz | cad / lmplz "
          "| Moses entries sampled: missing in cad, off |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['pairs']:,} | {r['cad_extract']:.1f} s, {r['cad_extract_rss']:.0f} MiB | "
              f"{r['moses_extract']:.1f} s, {r['moses_extract_rss']:.0f} MiB | "
              f"{r['cad_extract'] / r['moses_extract']:.2f}x | {r['cad_lm']:.1f} s, {r['cad_lm_rss']:.0f} MiB | "
              f"{r['lmplz']:.1f} s, {r['lmplz_rss']:.0f} MiB | {r['cad_lm'] / r['lmplz']:.2f}x | "
              f"{r['sampled']:,}: {r['missing']}, {r['off']} |")
    for a, b in zip(rows, rows[1:]):
        g = b["pairs"] / a["pairs"]
        print(f"{a['pairs']:,} → {b['pairs']:,} pairs (×{g:.1f}): cad extract ×{b['cad_extract'] / a['cad_extract']:.1f}, "
              f"Moses ×{b['moses_extract'] / a['moses_extract']:.1f}, cad lm ×{b['cad_lm'] / a['cad_lm']:.1f}, "
              f"lmplz ×{b['lmplz'] / a['lmplz']:.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "large"), help="model folder (default: models/large)")
    ap.add_argument("--sizes", default="33200,250000,all", help="comma-separated pair counts, 'all' for the whole")
    ap.add_argument("--moses", default=str(MOSES_BIN), help="folder of Moses's programs")
    ap.add_argument("--work", default=None, help="scratch folder (default: a temporary one; at the whole corpus "
                                                  "Moses's sorted extract files need about 20 GB)")
    a = ap.parse_args()
    model, b = Path(a.model), Path(a.moses)
    if not (model / "aligned.grow-diag-final-and").exists():
        print(f"scale: skipped, no {model}/aligned.grow-diag-final-and (make large first)")
        return 0
    if not (b / "extract").exists():
        print(f"scale: skipped, no Moses programs in {b}")
        return 0
    sizes = [None if s == "all" else int(s) for s in a.sizes.split(",")]
    with tempfile.TemporaryDirectory(dir=a.work) as tmp:
        rows = []
        for n in sizes:
            rows.append(one_size(model, n, b, Path(tmp)))
            print(f"{rows[-1]['pairs']:,} pairs: {rows[-1]}", file=sys.stderr, flush=True)
        report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
