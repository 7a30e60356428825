"""Fitting a model on one BLAS thread, so that the same data give the same model on any machine.

An iterative fit (L-BFGS over a large vocabulary) takes dot products through BLAS, and OpenBLAS
splits a long one over its threads, one per core by default: the partial sums, and so the last bits
of every step, depend on how many threads there were, and a few hundred steps carry that into the
weights (the English ranker's differed by up to 1e-3 between one and two threads). Every trainer
fits (and the ranking metric's Nyström basis is decomposed) inside `one_blas_thread()`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit BLAS (and OpenMP) to one thread for the duration of the block."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield
