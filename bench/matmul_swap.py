"""How much cad's outputs hang on the CPU's matrix-product kernels: runs one cad command with every
matrix product of spaCy's models (thinc's `gemm`) computed by numpy (OpenBLAS) instead of blis,
counting the products whose result differs from blis's in any bit. cython-blis picks its kernel
(skx, haswell, zen, ...) by the CPU at run time, with no override, so another machine multiplies
with other rounding; numpy's products differ from blis's as much (about half the entries of a
product of inner size above a few hundred differ in the last bits), on this machine.

    python bench/matmul_swap.py -q coref --input models/baseline/corpus.en \\
        --docs models/baseline/corpus.docs --out /tmp/coref.swapped.jsonl --workers 1
    cmp /tmp/coref.swapped.jsonl models/baseline/corpus.coref.jsonl

(`--workers 1`: the products are swapped in this process only.) docs/benchmarks.md has the figures.
"""

from __future__ import annotations

import atexit
import sys

import numpy
import thinc.api as thinc
from thinc.backends.numpy_ops import NumpyOps

STATS = {"products": 0, "differing": 0, "entries": 0, "entries differing": 0}


class NumpyProducts(NumpyOps):
    """thinc's NumPy ops with `gemm` by numpy.matmul; blis's result is computed too, to count."""

    name = "numpy"

    def gemm(self, x, y, *, out=None, trans1=False, trans2=False):
        got = numpy.matmul(x.T if trans1 else x, y.T if trans2 else y)
        ref = NumpyOps.gemm(self, x, y, trans1=trans1, trans2=trans2)
        d = int((got != ref).sum())
        STATS["products"] += 1
        STATS["differing"] += d > 0
        STATS["entries"] += got.size
        STATS["entries differing"] += d
        if out is not None:
            out[...] = got
            return out
        return got


def main() -> int:
    thinc.set_current_ops(NumpyProducts())
    atexit.register(lambda: print("matmul_swap: " + ", ".join(f"{k} {v}" for k, v in STATS.items()), file=sys.stderr))
    from cad.cli import main as cad_main

    return cad_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
