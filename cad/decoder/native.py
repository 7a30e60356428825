"""The compiled search core (cad/decoder/_core.cpp) behind `Decoder.translate`.

Python still collects the translation options and scores them with the stateless features (the
coreference model among them) and builds the future-cost table; the core runs the search with
the stateful features it knows natively (Distortion, LexicalReordering, any number of
KenLMFeatures, each with the LM the `kenlm` module loaded, each its own feature and its own state
in a hypothesis, and PronounAgreement of cad/decoder/agreement.py, from the transition table each
option carries) and returns the option sequences of the best derivation and of
the n-best paths; Python replays those few sequences through the features for their values.
The core follows the Python search operation for operation, so the output is the same.

The core is used when it can be: every stateful feature is one of those four classes (the
registry gives the core's kind of each, cad/decoder/registry.py), the sentence's coverages fit the
core's window (`fits`: any sentence of at most 256 words, and under a distortion limit below 256
a sentence of any length), no forced decoding, and the core reads every LM exactly as the kenlm
module does (checked once per model). Otherwise, or with CAD_NATIVE=0 in the environment, the
Python search runs. The core builds the future-cost table itself from the options' estimates
(the same values as cad/decoder/options.py's `future_costs`)."""

from __future__ import annotations

import importlib
import logging
import os
from bisect import bisect_right
from collections.abc import Sequence

import kenlm

from cad.core.errors import CadError
from cad.decoder.options import placed
from cad.decoder.registry import native_kind
from cad.decoder.stateful import NATIVE_LM
from cad.decoder.tables import LN10

try:
    # by its full name: `from cad.decoder import _core` reads, to import-graph tools, as importing
    # this package, whose __init__ imports the search, which imports this module
    _core = importlib.import_module("cad.decoder._core")
except ImportError:         # a checkout without the built extension: the Python search runs
    _core = None

log = logging.getLogger(__name__)
_PROBE = ("the", "de", ",", "</s>", "a-word-no-model-has", "il", "elle")


def available() -> bool:
    return _core is not None


def enabled() -> bool:
    return os.environ.get("CAD_NATIVE", "1") != "0" and available()


def core_for(stateful: list) -> object | None:
    """The core for these stateful features, or None when the Python search must run."""
    if not enabled() or any(native_kind(f) is None for f in stateful):
        return None
    # a feature whose states the core counts otherwise (a core built from another version)
    states = {getattr(f, "native_states", None) for f in stateful} - {None}
    if states and states != {getattr(_core, "AGREEMENT_STATES", None)}:
        log.warning("compiled search core not used (it counts %s agreement states, not %s): rebuild it",
                    getattr(_core, "AGREEMENT_STATES", None), ", ".join(map(str, states)))
        return None
    # the LMs in the order of their features: the core's k-th LM is the k-th LM feature's
    lms = [f.lm for f in stateful if native_kind(f) == NATIVE_LM]
    # the core lives on the first LM that it reads (checked once per loaded model), by the others
    # it reads too, not in a global registry that would keep every model ever loaded alive
    cores = getattr(lms[0], "_native_cores", None) if lms else None
    others = tuple(lms[1:])
    if cores is not None and others in cores:
        return cores[others]
    core = None
    try:
        core = _core.Core([lm.model for lm in lms], LN10)
        for k, lm in enumerate(lms):
            for w in _PROBE:
                s, out = kenlm.State(), kenlm.State()
                lm.model.BeginSentenceWrite(s)
                if core.probe(w, k) != lm.model.BaseScore(s, w, out):
                    raise RuntimeError(f"the core scores {w!r} differently from the kenlm module ({lm.path})")
    except (RuntimeError, TypeError) as exc:
        log.warning("compiled search core not used (%s): the Python search runs", exc)
        core = None
    if lms:
        if cores is None:
            cores = lms[0]._native_cores = {}
        cores[others] = core
    return core


def fits(n: int, options: dict, limit: int) -> bool:
    """Whether the core's coverage window holds every coverage of this sentence's search."""
    return _core is not None and _core.Core.fits(n, limit, max((e - s for s, e in options), default=1))


def search(decoder, core, tokens: list[str], options: dict, nbest: int,
           distinct: bool) -> tuple[list, list[list]]:
    """(the best derivation's options, the n-best paths' options in Python's pop order).
    `options`: span -> options or unplaced templates (SentenceOptions.raw); the core takes each
    option's span from its list's key, and only the returned options are placed."""
    n = len(tokens)
    flat: list = []
    spans = []
    for (s, e), opts in options.items():
        spans.append((s, e, len(flat), len(opts)))
        flat.extend(opts)
    feats = [(native_kind(f), list(f.weights), bool(f.expensive), bound)
             for f, bound in zip(decoder.stateful, decoder._bounds)]
    st = decoder.model.settings
    best, paths = core.search(n, flat, spans, feats, st.search_algorithm, st.stack, st.log_beam, st.distortion_limit,
                              st.pop_limit, nbest, distinct)
    return Paths(best, flat, spans).best(), Paths(paths, flat, spans)


class Paths(Sequence):
    """The core's paths as lists of placed options, each placed when it is read: a distinct n-best
    list reads up to n-best-factor times more paths than it keeps (2,000 for 100), and placing
    every option of every path cost more than the search. `text(k)` is a path's target text
    without placing it."""

    def __init__(self, paths: list, flat: list, spans: list):
        self._paths, self._flat, self._spans = paths, flat, spans
        self._firsts = [first for _, _, first, _ in spans]      # ascending, as flat was filled

    def _at(self, i: int):
        s, e, _, _ = self._spans[bisect_right(self._firsts, i) - 1]
        return placed(self._flat[i], s, e)

    def best(self) -> list:
        """The path itself, when it is one (the best derivation's option indices)."""
        return [self._at(i) for i in self._paths]

    def text(self, k: int) -> str:
        return " ".join(w for i in self._paths[k] for w in self._flat[i].words)

    def __len__(self) -> int:
        return len(self._paths)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        return [self._at(i) for i in self._paths[k]]


def engine_is_native(engine: str) -> bool:
    """--engine native asks for the compiled core, which a checkout without the built extension
    lacks: say so instead of silently running the slower Python search."""
    if engine == "native" and not available():
        raise CadError("--engine native: the compiled core (cad.decoder._core) is not built; run pip install -e . "
                       "(needs a C++ compiler) or use --engine python")
    return engine == "native"
