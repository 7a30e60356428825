"""`--coref-model`: which trained model a command that resolves coreference as it goes (`cad translate`,
`postedit`, `rerank`, `score`, `contrastive make`) gives its backend, as `cad coref --model` does."""

from __future__ import annotations

import argparse

from cad.core.errors import CadError


def add_coref_model_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--coref-model", metavar="FILE",
                        help="the model of --backend ranker or spanish (cad coref-train --out, e.g. one trained with "
                             "--attention; default: the model shipped with cad)")


def coref_model(a: argparse.Namespace) -> str | None:
    """The --coref-model of `a`, refused where nothing would read it (rather than ignored): with a
    backend that reads no model, or beside --coref's records, which replace the backend."""
    from coref.backends import BACKENDS, model_backends

    model = getattr(a, "coref_model", None)
    # a backend reads a trained model file when its class says so (coref.backends.Backend.reads_model)
    if model and not getattr(BACKENDS.get(a.backend), "reads_model", False):
        raise CadError(f"--coref-model is for --backend {' or '.join(model_backends())}, not {a.backend}")
    if model and getattr(a, "coref", None):
        raise CadError("--coref-model resolves with a model, --coref gives the records: give one of them")
    return model
