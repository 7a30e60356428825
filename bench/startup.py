"""A new user's first sentence and long lines: start-up and memory of `cad decode` answering one
piped sentence, with the text tables and with the binary ones (cad binarize), and Moses's where a
`moses` binary is at hand; then decoding time per word of single lines from 50 to 5,000 words.

    python bench/startup.py [--model models/baseline/moses.ini] [--data ../shared/data]
                            [--moses-bin PATH] [--runs 3] [--lengths 50,100,200,500,1000,2000,5000]

Piped sentence: `echo SENTENCE | cad decode -f moses.ini`, the whole process from start to answer
(wall time) and its peak RSS, the median of --runs runs (the first reads the files into the page
cache; the median is a warm start). "text" reads the text tables through symbolic links in a
temporary directory (so that the binary files beside them are not found: the whole phrase table
is read, as a stream cannot be filtered first); "binary" the model as it is after `make`
(cad binarize writes the binary files beside the text tables; the bench writes them into a
temporary directory if they are not there). Moses: the same sentence through `moses -f` on the
text tables (Moses reads them whole too; this build has no compact tables) and the binary LM.

Long lines: the dev talks' words (truecased as the model reads them) run together into one line
of each length; each line is decoded in a fresh process by the compiled engine (cube pruning,
pop limit 1000, the model's distortion limit) on the binary model, after one short warm-up
sentence; the figure is the CPU time of the translate call per word (less sensitive than wall
time to other work on a shared machine), with the process's peak RSS.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SENTENCE = "it was not dead but it was mortally wounded ."

LONG_LINE = """
import json, resource, sys, time
from cad.decoder import Decoder, DecoderModel
from cad.decoder.model import SearchSettings
ini, path = sys.argv[1], sys.argv[2]
line = open(path, encoding="utf-8").read().strip()
dec = Decoder(DecoderModel.load(ini, settings=SearchSettings(search_algorithm=1)))
dec.translate("this is a short sentence .")
t, w = time.process_time(), time.time()
tr = dec.translate(line)
print(json.dumps({"cpu": time.process_time() - t, "wall": time.time() - w, "words": len(line.split()),
                  "out": len(tr.best.words), "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def timed(cmd: list[str], stdin: str) -> tuple[float, float, str]:
    """(wall seconds from start to exit, peak RSS in MiB, standard output) of one process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t = time.time()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True, cwd=REPO)
        proc.stdin.write(stdin)
        proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.time() - t
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read()[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out.read()


def text_only(ini: Path, tmp: Path) -> Path:
    """A copy of the moses.ini whose tables are symbolic links in `tmp`: no binary twin beside them."""
    from cad.moses.ini import parse_config, write_config

    cfg = parse_config(ini)
    for k, f in enumerate(cfg.features):
        if f.path:
            link = tmp / f"{k}.{Path(f.path).name}"
            link.symlink_to(Path(f.path).resolve())
            f.args["path"] = str(link)
    cfg.source = str(tmp / "moses.ini")
    write_config(cfg, cfg.source)
    return Path(cfg.source)


def binary_model(ini: Path, tmp: Path) -> Path:
    """The model's moses.ini when cad binarize has written its binary files beside the tables, else a
    binary copy in `tmp`."""
    from cad.moses.binarize import binarize_model
    from cad.moses.ini import parse_config
    from cad.decoder.tables import PhraseTable

    cfg = parse_config(ini)
    f = next(f for f in cfg.features if f.type == "PhraseDictionaryMemory")
    if PhraseTable(f, str(ini)).binary is not None:
        return ini
    print("(no binary tables beside the model: cad binarize --out-dir into a temporary directory)", flush=True)
    return Path(binarize_model(ini, tmp / "binary").config.source)


def moses_model(ini: Path, tmp: Path, binlm: Path | None) -> Path:
    """The text tables with KenLM's binary LM where cad binarize wrote one."""
    from cad.moses.ini import parse_config, write_config

    cfg = parse_config(ini)
    for f in cfg.features:
        if f.type == "KENLM" and binlm is not None:
            f.args["path"] = str(binlm)
    cfg.source = str(tmp / "moses.moses.ini")
    write_config(cfg, cfg.source)
    return Path(cfg.source)


def piped(name: str, cmd: list[str], sentence: str, runs: int) -> None:
    got = [timed(cmd, sentence + "\n") for _ in range(runs)]
    walls, rss = [g[0] for g in got], [g[1] for g in got]
    print(f"| {name} | {statistics.median(walls):.2f} s (runs: {', '.join(f'{w:.2f}' for w in walls)}) "
          f"| {statistics.median(rss):.0f} MiB | {got[-1][2].strip()} |", flush=True)


def long_lines(ini: Path, case, data: Path, lengths: list[int], tmp: Path) -> None:
    words = [w for line in open(data / "en-fr" / "dev.en", encoding="utf-8") for w in case.source_line(line).split()]
    print("\n| words | CPU time | ms per word | wall time | output words | peak RSS |\n|---|---|---|---|---|---|",
          flush=True)
    rows = []
    for n in lengths:
        path = tmp / f"line{n}.txt"
        path.write_text(" ".join((words * (1 + n // len(words)))[:n]) + "\n", encoding="utf-8")
        proc = subprocess.run([sys.executable, "-c", LONG_LINE, str(ini), str(path)], capture_output=True, text=True,
                              cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-2000:])
        import json

        r = json.loads(proc.stdout.splitlines()[-1])
        rows.append((n, r["cpu"] / n))
        print(f"| {n} | {r['cpu']:.2f} s | {1000 * r['cpu'] / n:.2f} | {r['wall']:.2f} s | {r['out']} | "
              f"{r['rss']:.0f} MiB |", flush=True)
    per = [p for _, p in rows]
    print(f"\nms per word from {rows[0][0]} to {rows[-1][0]} words: {1000 * min(per):.2f}–{1000 * max(per):.2f} "
          f"(max/min {max(per) / min(per):.2f}×)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(REPO / "models" / "baseline" / "moses.ini"))
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--moses-bin", default=os.environ.get("MOSES"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--lengths", default="50,100,200,500,1000,2000,5000")
    ap.add_argument("--skip-text", action="store_true", help="leave out the text tables' row (about a minute each)")
    a = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from cad.corpus.truecase import ModelCase
    from cad.decoder.moses_runner import find_moses
    from cad.decoder.tables import lm_binary_of
    from cad.moses.ini import parse_config

    ini = Path(a.model).resolve()
    case = ModelCase.of(ini, "en", "fr")
    sentence = case.source_line(SENTENCE)
    cad = [sys.executable, "-m", "cad", "-q", "decode"]
    print(f"model {ini}; piped sentence: {sentence!r}; the machine may be shared with other work\n")
    print("| decoder, tables | whole process (median) | peak RSS | answer |\n|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory(prefix="cad-startup-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "text").mkdir()
        text = text_only(ini, tmp / "text")
        binary = binary_model(ini, tmp)
        piped("cad decode, binary tables and LM (cad binarize)", cad + ["-f", str(binary)], sentence, a.runs)
        if not a.skip_text:
            piped("cad decode, text tables and ARPA LM", cad + ["-f", str(text)], sentence, a.runs)
        shared = REPO.parent / "shared" / "tools" / "moses" / "bin" / "moses"
        moses = find_moses(a.moses_bin) or (str(shared) if shared.exists() else None)
        if moses:
            lm = next(f.path for f in parse_config(binary).features if f.type == "KENLM")
            binlm = lm_binary_of(lm)
            piped(f"Moses, text tables, {'KenLM binary' if binlm else 'ARPA'} LM",
                  [moses, "-f", str(moses_model(text, tmp, Path(binlm) if binlm else None)), "-v", "0"], sentence,
                  a.runs)
        else:
            print("| Moses | (no moses binary: --moses-bin PATH or $MOSES) | | |")
        long_lines(binary, case, Path(a.data), [int(x) for x in a.lengths.split(",")], tmp)


if __name__ == "__main__":
    main()
