"""Run a real Moses binary on a moses.ini and read its output into cad's Translation objects.

cad asks Moses for what it needs to fill the same objects as its own decoder: an n-best list
(features and total of the best derivation), the segmentation (-report-segmentation) and the word
alignment (-alignment-output-file).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from cad.decoder.search import Derivation, Step, Translation
from cad.core.errors import CadError

_SEGMENT = re.compile(r"^\|(\d+)-(\d+)\|$")
# Moses's switch for each n-best entry's word alignment (cad decode also takes its older spelling,
# -include-alignment-in-n-best, which the Moses of today refuses as an illegal switch)
NBEST_ALIGNMENT = "-print-alignment-info-in-n-best"


def find_moses(explicit: str | None = None) -> str | None:
    for cand in (explicit, os.environ.get("MOSES"), shutil.which("moses")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def parse_features(text: str) -> tuple[list[tuple[str, int, int]], list[float]]:
    names: list[tuple[str, int, int]] = []
    values: list[float] = []
    current = None
    for tok in text.split():
        if tok.endswith("="):
            if current is not None:
                names.append((current[0], current[1], len(values) - current[1]))
            current = (tok[:-1], len(values))
        else:
            values.append(float(tok))
    if current is not None:
        names.append((current[0], current[1], len(values) - current[1]))
    return names, values


def parse_segmented(line: str) -> tuple[list[str], list[Step]]:
    """Moses -report-segmentation output: `words |i-j| words |k-l| ...`."""
    words: list[str] = []
    steps: list[Step] = []
    pending: list[str] = []
    for tok in line.split():
        m = _SEGMENT.match(tok)
        if m:
            s, e = int(m.group(1)), int(m.group(2)) + 1
            steps.append(Step(s, e, len(words), len(words) + len(pending), tuple(pending), 0, ()))
            words.extend(pending)
            pending = []
        else:
            pending.append(tok)
    words.extend(pending)
    return words, steps


def parse_best_line(line: str) -> tuple[list[str], list[Step], list[tuple[int, int]] | None]:
    """A 1-best line of Moses run with -report-segmentation -print-alignment-info:
    `words |i-j| words |k-l| ||| 0-0 1-1 ...` (words, phrases, word alignment or None)."""
    text, sep, points = line.partition("|||")
    words, steps = parse_segmented(text)
    alignment = None
    if sep:
        alignment = []
        for p in points.split():
            s, dash, t = p.partition("-")
            if not dash or not s.isdigit() or not t.isdigit():
                raise ValueError(f"not an alignment point: {p!r}")
            alignment.append((int(s), int(t)))
    return words, steps, alignment


class MosesProcess:
    """One Moses process kept for a whole run, fed one sentence at a time: Moses reads standard
    input line by line and flushes each translation (with -report-segmentation and
    -print-alignment-info, the phrases and the word alignment come on the same line), so the
    sequential passes of cad translate cost one model load, not one per sentence."""

    def __init__(self, binary: str, config: str, extra: list[str] | None = None):
        self.binary = binary
        self._stderr = tempfile.TemporaryFile()
        cmd = [binary, "-f", config, "-report-segmentation", "-print-alignment-info"] + (extra or [])
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        except OSError as exc:
            raise CadError(f"cannot run moses: {exc}", binary) from None
        self.count = 0

    def _failed(self, what: str) -> CadError:
        self.proc.kill()
        self.proc.wait()
        self._stderr.seek(0)
        err = self._stderr.read().decode("utf-8", "replace").strip()[-2000:]
        return CadError(f"moses {what} (status {self.proc.returncode}): {err}", self.binary)

    def translate(self, sentence: str) -> Translation:
        if "\n" in sentence:
            raise CadError("a sentence for moses holds a newline")
        try:
            self.proc.stdin.write(sentence.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._failed(f"stopped before sentence {self.count + 1}") from None
        raw = self.proc.stdout.readline()
        if not raw:
            raise self._failed(f"printed nothing for sentence {self.count + 1}")
        self.count += 1
        try:
            words, steps, alignment = parse_best_line(raw.decode("utf-8").rstrip("\n"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise self._failed(f"printed an unreadable line for sentence {self.count} ({exc})") from None
        best = Derivation(words, 0.0, [], steps)
        best.given_alignment = alignment if alignment is not None else []
        return Translation(sentence.split(), best, [], [])

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()

    def __enter__(self) -> "MosesProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_moses(binary: str, config: str, sentences: list[str], nbest: int = 1, distinct: bool = False,
              extra: list[str] | None = None) -> list[Translation]:
    with tempfile.TemporaryDirectory(prefix="cad-moses-") as tmp:
        tmpd = Path(tmp)
        inp, nb, al = tmpd / "input", tmpd / "nbest", tmpd / "align"
        inp.write_text("".join(s + "\n" for s in sentences), encoding="utf-8")
        # Moses's spelling of the n-best word alignment (each entry's own); with -report-segmentation
        # the n-best texts carry the |i-j| marks too, which parse_segmented reads off
        cmd = [binary, "-f", config, "-input-file", str(inp), "-report-segmentation",
               "-alignment-output-file", str(al), NBEST_ALIGNMENT,
               "-n-best-list", str(nb), str(max(1, nbest))]
        if distinct:
            cmd.append("distinct")
        cmd += extra or []
        proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8")
        if proc.returncode != 0:
            raise CadError(f"moses failed with status {proc.returncode}: {proc.stderr.strip()[-2000:]}", binary)
        out_lines = proc.stdout.splitlines()
        if len(out_lines) != len(sentences):
            raise CadError(f"moses printed {len(out_lines)} lines for {len(sentences)} sentences", binary)
        align_lines = al.read_text(encoding="utf-8").splitlines() if al.exists() else [""] * len(sentences)
        per_sent: dict[int, list[tuple]] = {}
        for lineno, line in enumerate(nb.read_text(encoding="utf-8").splitlines(), 1):
            fields = line.split(" ||| ")
            if len(fields) < 4:
                raise CadError("malformed n-best line", str(nb), lineno)
            names, values = parse_features(fields[2])
            try:
                points = [tuple(map(int, p.split("-"))) for p in fields[4].split()] if len(fields) > 4 else None
            except ValueError:
                raise CadError("malformed word alignment in the n-best line", str(nb), lineno) from None
            per_sent.setdefault(int(fields[0]), []).append((fields[1].strip(), names, values, float(fields[3]),
                                                            points))
        results = []
        for k, (src, out, al_line) in enumerate(zip(sentences, out_lines, align_lines)):
            words, steps = parse_segmented(out)
            entries = per_sent.get(k, [])
            names = entries[0][1] if entries else []
            derivs = []
            for text, _, values, total, points in entries:
                words_k, steps_k = parse_segmented(text)
                derivs.append(Derivation(words_k, total, values, steps_k, given_alignment=points))
            best = Derivation(words, derivs[0].total if derivs else 0.0, derivs[0].features if derivs else [], steps)
            best.given_alignment = [tuple(map(int, p.split("-"))) for p in al_line.split()]
            results.append(Translation(src.split(), best, derivs[:nbest] if nbest else [], names))
        return results
