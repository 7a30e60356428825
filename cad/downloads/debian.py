"""The Debian lexical resources cad reads, where it finds them, and how `make resources` gets them.

Three Debian packages: `hunspell-fr-comprehensive` (Grammalecte's French Hunspell dictionary, read
by cad/resources/hunspell_fr.py), `dict-freedict-eng-fra` (FreeDict's English-French dictionary in dictd
format, cad/resources/freedict.py) and `wordnet-base` (the WordNet 3.0 database files, cad/resources/wordnet.py).

Each is looked for at its Debian path under a list of roots: `/` (installed with apt-get), then the
cache folder `${XDG_CACHE_HOME:-~/.cache}/cad/debian` (the packages extracted there with
`apt-get download` + `dpkg-deb -x`, without root). CAD_RESOURCES, a list of roots separated by ':',
replaces that list.

`python -m cad.downloads.debian [--cache DIR]` (run by `make resources`) makes the three packages'
files available: as root with `apt-get install`, else by extracting them into the cache folder. It
is a Python module rather than a shell script so that the installer and the readers share one table
of packages and paths, and the installer runs under the test suite with stand-ins for apt-get.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Sequence

from cad.core.errors import CadError

HUNSPELL_FR = "hunspell-fr-comprehensive"
FREEDICT_ENG_FRA = "dict-freedict-eng-fra"
WORDNET = "wordnet-base"

# The files each reader needs, as `dpkg -c` lists them in bookworm's packages (hunspell-fr-comprehensive
# 1:7.0-1, dict-freedict-eng-fra 2022.04.21-1, wordnet-base 1:3.0-37). wordnet-base has no `lexnames`
# and no `index.sense`: cad/resources/wordnet.py writes the first and does without the second.
_POS = ("noun", "verb", "adj", "adv")
WORDNET_FILES = (tuple(f"usr/share/wordnet/{kind}.{pos}" for kind in ("data", "index") for pos in _POS)
                 + tuple(f"usr/share/wordnet/{pos}.exc" for pos in _POS))
PACKAGES: dict[str, tuple[str, ...]] = {
    HUNSPELL_FR: ("usr/share/hunspell/fr.dic", "usr/share/hunspell/fr.aff"),
    FREEDICT_ENG_FRA: ("usr/share/dictd/freedict-eng-fra.index", "usr/share/dictd/freedict-eng-fra.dict.dz"),
    WORDNET: WORDNET_FILES + ("usr/share/wordnet/cntlist.rev",),
}
LICENCES = {
    HUNSPELL_FR: "MPL-2.0 (Dicollecte/Grammalecte contributors)",
    FREEDICT_ENG_FRA: "GPL-2+ (FreeDict contributors)",
    WORDNET: "WordNet 3.0 licence (Princeton University; permissive, keep the notice)",
}
ENV = "CAD_RESOURCES"
MAKE_TARGET = "make resources"


def cache_root() -> Path:
    """Where cad keeps what it derives or extracts: ${XDG_CACHE_HOME:-~/.cache}/cad."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cad"


def default_cache() -> Path:
    """The folder `make resources` extracts the Debian packages into when it cannot install them."""
    return cache_root() / "debian"


def search_roots() -> list[Path]:
    """The roots under which the packages' files are looked for, first match first."""
    env = os.environ.get(ENV)
    if env is not None:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [Path("/"), default_cache()]


def find_package(package: str, roots: Sequence[Path] | None = None) -> Path | None:
    """The first root holding every file the package's reader needs, or None."""
    files = PACKAGES[package]
    for root in search_roots() if roots is None else roots:
        if all((root / f).is_file() for f in files):
            return root
    return None


def package_files(package: str) -> dict[str, Path]:
    """Each needed file of `package` by its base name, e.g. {'fr.dic': Path('/usr/share/hunspell/fr.dic')}.

    A CadError names the missing files, where they were looked for and the make target that installs them.
    """
    if package not in PACKAGES:
        raise CadError(f"unknown resource package {package!r} (known: {', '.join(PACKAGES)})")
    roots = search_roots()
    root = find_package(package, roots)
    if root is None:
        files = PACKAGES[package]
        where = ", ".join(str(r) for r in roots) or f"nothing ({ENV} is empty)"
        missing = [f for f in files if not any((r / f).is_file() for r in roots)] or list(files)
        raise CadError(f"the Debian package {package} is not available: {', '.join('/' + m for m in missing)} "
                       f"not found under {where}; `{MAKE_TARGET}` installs it (apt-get as root, else "
                       f"apt-get download + dpkg-deb -x into {default_cache()}), or set {ENV} to the "
                       "folder it was extracted into")
    return {Path(f).name: root / f for f in PACKAGES[package]}


# ---- the installer (`make resources`) ----

def say_on_stderr(message: str) -> None:
    """How the installer says what it did."""
    print(f"cad resources: {message}", file=sys.stderr, flush=True)


def _run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)


def _tail(proc: subprocess.CompletedProcess) -> str:
    lines = (proc.stderr or proc.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit status {proc.returncode}"


def _apt_install(packages: list[str], say: Callable[[str], None]) -> bool:
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
    proc = _run(cmd)
    if proc.returncode != 0:
        # a fresh machine has no package lists yet: read them once and try again
        say(f"apt-get install failed ({_tail(proc)}); running apt-get update")
        update = _run(["apt-get", "update", "-q"])
        if update.returncode != 0:
            say(f"apt-get update failed: {_tail(update)}")
            return False
        proc = _run(cmd)
    if proc.returncode != 0:
        say(f"apt-get install failed: {_tail(proc)}")
        return False
    say(f"installed with apt-get: {' '.join(packages)}")
    return True


def _extract(packages: list[str], cache: Path, say: Callable[[str], None]) -> None:
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise CadError(f"{tool} not found: cannot fetch {', '.join(packages)}; install them by hand, "
                           f"or extract them elsewhere and set {ENV}")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=cache) as tmp:
        proc = _run(["apt-get", "download", "-q", *packages], cwd=Path(tmp))
        if proc.returncode != 0:
            raise CadError(f"apt-get download {' '.join(packages)} failed: {_tail(proc)} (as root, "
                           "`apt-get update` reads the package lists it needs)")
        debs = sorted(Path(tmp).glob("*.deb"))
        for pkg in packages:
            deb = next((d for d in debs if d.name.startswith(pkg + "_")), None)
            if deb is None:
                raise CadError(f"apt-get download left no .deb for {pkg} in {tmp}")
            proc = _run(["dpkg-deb", "-x", str(deb), str(cache)])
            if proc.returncode != 0:
                raise CadError(f"dpkg-deb -x failed: {_tail(proc)}", str(deb))
            say(f"extracted {deb.name} into {cache}")


def install(cache: Path, use_apt: bool | None = None, say: Callable[[str], None] = say_on_stderr,
            system_root: Path = Path("/")) -> list[str]:
    """Make every package's files available under `system_root` (where apt-get installs) or
    `cache`; return the packages it fetched.

    `use_apt`: install with apt-get (default: when running as root). Nothing is done, and nothing
    said, when every file is already there.
    """
    roots = [system_root, cache]
    missing = [p for p in PACKAGES if find_package(p, roots) is None]
    if not missing:
        return []
    if use_apt is None:
        use_apt = hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None
    if not (use_apt and _apt_install(missing, say) and all(find_package(p, roots) for p in missing)):
        if use_apt:
            say("falling back to apt-get download + dpkg-deb -x")
        _extract(missing, cache, say)
    still = [p for p in missing if find_package(p, roots) is None]
    if still:
        raise CadError(f"{', '.join(still)} still lack files after installing: "
                       + "; ".join(", ".join(PACKAGES[p]) for p in still))
    if not all(find_package(p) is not None for p in missing):
        say(f"cad looks under {', '.join(map(str, search_roots()))}: set {ENV}={cache} for it to find them")
    return missing


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cad.downloads.debian", description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=default_cache(),
                   help="where to extract the packages without root (default: %(default)s)")
    p.add_argument("--no-apt-install", action="store_true",
                   help="extract into --cache even as root, instead of apt-get install")
    p.add_argument("--status", action="store_true", help="print where each package's files are, and exit")
    args = p.parse_args(argv)
    if args.status:
        for pkg in PACKAGES:
            root = find_package(pkg)
            print(f"{pkg}\t{root if root is not None else 'missing'}\t{LICENCES[pkg]}")
        return 0
    return exit_status(lambda: install(args.cache, use_apt=False if args.no_apt_install else None))


def exit_status(job: Callable[[], object]) -> int:
    """Run an installer's job: 0, or 1 with its error on stderr (make shows it and stops)."""
    try:
        job()
    except CadError as exc:
        print(f"cad resources: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
