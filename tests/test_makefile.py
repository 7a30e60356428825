"""The Makefile's own logic where a wrong rule would go unnoticed: the CM configurations are
written again when CM_READING changes, and only then; the CM tables when CM_PARTS changes.

The real Makefile runs with a stand-in for `cad` that writes its arguments to --out, and with the
configurations' inputs marked old (-o), so that nothing else is built."""

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FAKE_CAD = """#!/bin/bash
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--out" ]; then out="$2"; fi
  args="$args $1"; shift
done
echo "$args" > "$out"
"""


@pytest.fixture
def workdir(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("no make")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    for f in ("tables/x/classes.gz", "tables/x/classifier.json", "models/x/moses.ini",
              "cad/data/situation-governors-en-fr.tsv"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    cad = tmp_path / "fakecad"
    cad.write_text(FAKE_CAD)
    cad.chmod(0o755)
    return tmp_path


def make(cwd: Path, reading: str | None) -> None:
    targets = ["moses_configs/x.feature.ini", "moses_configs/x.classifier.ini"]
    old = [a for f in ("tables/x/classes.gz", "tables/x/classifier.json", "models/x/moses.ini") for a in ("-o", f)]
    subprocess.run(["make", "-s", "NAME=x", f"CAD={cwd / 'fakecad'}", "SHARED=/nonexistent", *old,
                    *([f"CM_READING={reading}"] if reading else []), *targets],
                   cwd=cwd, check=True, capture_output=True, text=True)


def state(cwd: Path) -> dict[str, tuple[str, int]]:
    return {n: ((cwd / "moses_configs" / n).read_text(), (cwd / "moses_configs" / n).stat().st_mtime_ns)
            for n in ("x.feature.ini", "x.classifier.ini")}


def test_a_new_cm_reading_rewrites_the_configurations_and_the_same_one_does_not(workdir):
    make(workdir, None)
    first = state(workdir)
    assert all("--reading map" in text for text, _ in first.values())       # the shipped default
    assert "--cm-model classifier" in first["x.classifier.ini"][0]
    time.sleep(1.1)      # coarse file-system clocks: a rewrite must show in the mtime
    make(workdir, "map")
    assert state(workdir) == first                                            # nothing written again
    make(workdir, "mixture")
    second = state(workdir)
    assert all("--reading mixture" in text for text, _ in second.values())
    assert all(second[n][1] > first[n][1] for n in first)
    time.sleep(1.1)
    make(workdir, "mixture")
    assert state(workdir) == second
    make(workdir, None)
    assert all("--reading map" in text for text, _ in state(workdir).values())
    assert os.path.exists(workdir / "moses_configs" / ".x.reading")


def test_the_training_corpus_coreference_follows_the_shipped_ranker(workdir):
    """corpus.coref.jsonl (and so the CM tables) is resolved again when the ranker's model changes,
    and the ranker's experiments read neuralcoref's scores only with COREF_NEURALCOREF=1, MiniLM's
    attention only with COREF_ATTENTION=1."""
    model = workdir / "coref" / "data" / "ranker-en.json.gz"
    model.parent.mkdir(parents=True)
    model.write_text("")
    out = workdir / "models" / "x" / "corpus.coref.jsonl"

    def build(*extra):
        subprocess.run(["make", "-s", "NAME=x", f"CAD={workdir / 'fakecad'}", "SHARED=/nonexistent",
                        "-o", "models/x/moses.ini", *extra, "models/x/corpus.coref.jsonl"],
                       cwd=workdir, check=True, capture_output=True, text=True)

    build()
    assert "--backend ranker" in out.read_text()
    first = out.stat().st_mtime_ns
    time.sleep(1.1)
    build()
    assert out.stat().st_mtime_ns == first                       # nothing changed: nothing run
    model.write_text("new")
    build()
    assert out.stat().st_mtime_ns > first                        # a new model: resolved again

    def recipe(*extra) -> str:
        return subprocess.run(["make", "-n", "NAME=x", "CAD=cad", "SHARED=/s", "-o", ".venv/.installed", *extra,
                               "models/x/dev.coref-cv.jsonl"], cwd=workdir, check=True, capture_output=True,
                              text=True).stdout

    assert "--neuralcoref" not in recipe() and "--attention" not in recipe()
    assert "--neuralcoref" in recipe("COREF_NEURALCOREF=1") and "--attention" not in recipe("COREF_NEURALCOREF=1")
    assert "--attention" in recipe("COREF_ATTENTION=1")


def test_the_cm_tables_are_built_again_when_their_parts_change(workdir):
    """CM_PARTS (cad/cm/construction.py) reaches cad through CAD_CM_PARTS, and the tables are built
    again when it changes (or where no stamp says what they were built with), only then; the
    feature configurations score the likelihood unless CM_OBJECTIVE says otherwise."""
    out = workdir / "tables" / "x" / "cm.gz"
    (workdir / "models" / "x" / "corpus.coref.jsonl").write_text("")
    env_cad = workdir / "envcad"
    env_cad.write_text(FAKE_CAD.replace('echo "$args" > "$out"',
                                        'echo "$args CAD_CM_PARTS=$CAD_CM_PARTS" > "$out/cm.gz"'))
    env_cad.chmod(0o755)

    def build(*extra):
        subprocess.run(["make", "-s", "NAME=x", f"CAD={env_cad}", "SHARED=/nonexistent", "-o", "models/x/moses.ini",
                        "-o", "models/x/corpus.coref.jsonl", *extra, "tables/x/cm.gz"],
                       cwd=workdir, check=True, capture_output=True, text=True)

    build()
    assert out.read_text().rstrip().endswith("CAD_CM_PARTS=construction,referent,demonstrative,complement,governor")
    assert "--domain-weight" not in out.read_text()             # the sample corpus has no TED talks
    first = out.stat().st_mtime_ns
    time.sleep(1.1)
    build()
    assert out.stat().st_mtime_ns == first
    # a new list of situation governors (make situation-governors) changes what `subs` means
    (workdir / "cad" / "data" / "situation-governors-en-fr.tsv").write_text("# new\n")
    build()
    assert out.stat().st_mtime_ns > first
    build("CM_PARTS=referent")
    assert out.read_text().rstrip().endswith("CAD_CM_PARTS=referent")
    build("CM_PARTS=referent", "CM_DOMAIN_WEIGHTS=sated=3")
    assert "--domain-weight sated=3" in out.read_text()
    make(workdir, None)
    assert all("--objective likelihood" in text for text, _ in state(workdir).values())


def test_the_pronoun_experiment_weighs_the_agreement_as_the_configurations_do(workdir):
    """`make pronoun-eval`'s agreement systems get CM_AGREEMENT (0.25,3 for MODEL=large), not
    cad cm experiment's default; CM_AGREEMENT=0 passes nothing."""
    def recipe(*extra) -> str:
        return subprocess.run(["make", "-n", "NAME=x", "CAD=cad", "SHARED=/s", "-o", ".venv/.installed", "-o", "cm",
                               "-o", "models/x/dev.coref-cv.jsonl", *extra, "pronoun-eval"], cwd=workdir, check=True,
                              capture_output=True, text=True).stdout

    experiment = next(line for line in recipe().splitlines() if "cm experiment" in line)
    assert "--agreement-weights 1,3" in experiment
    assert "--agreement-weights 0.5,2" in recipe("CM_AGREEMENT=0.5,2")
    assert "--agreement-weights" not in recipe("CM_AGREEMENT=0")
