"""Seed 002's learned metric: a pairwise ranker over tree-kernel features, and the scores it gives.

Learning a kernel machine on ~360k preference pairs with the exact preference kernel
PK(<t1,t2>,<t1',t2'>) = K(t1,t1') + K(t2,t2') - K(t1,t2') - K(t2,t1') would need their Gram
matrix (10^11 kernel values). The Nyström method makes it linear instead: with m landmark
objects L, φ(x) = K(x, L) · U Λ^(-1/2) (K(L, L) = U Λ U^T) so that φ(x)·φ(y) approximates K(x, y),
and then φ(t1) - φ(t2) is exactly the preference kernel's feature map, PK = (φ(t1) - φ(t2)) ·
(φ(t1') - φ(t2')). A linear classifier on those differences is the kernel machine on PK; its
weight vector w turns into a score per translation, w·φ(t), so the metric ranks any number of
translations consistently. Cost: 2m tree kernels per translation (hypothesis and reference
parts), instead of one per pair of training pairs."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

from cad.core.errors import CadError
from cad.core.textio import atomic_output
from cad.core.threads import one_blas_thread
from cad.eval.rank.kernels import gram, paired
from cad.eval.rank.objects import Pair
from cad.eval.rank.tree import Tree

FORMAT = "cad-tree-rank-1"


@dataclass
class KernelSpec:
    """The tree kernel between trees, normalized (K(a,b)/sqrt(K(a,a)K(b,b)))."""
    kind: str = "ptk"            # "ptk" (partial tree kernel) or "stk" (subset tree kernel)
    lam: float = 0.4
    mu: float = 0.4

    def signature(self) -> str:
        return f"{self.kind}|lambda:{self.lam:g}" + (f"|mu:{self.mu:g}" if self.kind == "ptk" else "")


def pair_gram(rows: list[Pair], cols: list[Pair], spec: KernelSpec) -> np.ndarray:
    """K(<t,r>,<t',r'>) = TK(t^r, t'^r') + TK(r^t, r'^t') for every row × column (seed 002, §2.2)."""
    h = gram([p.hyp_rel for p in rows], [p.hyp_rel for p in cols], spec.kind, spec.lam, spec.mu, True)
    r = gram([p.ref_rel for p in rows], [p.ref_rel for p in cols], spec.kind, spec.lam, spec.mu, True)
    return h + r


def preference_kernel(k: np.ndarray, first: tuple[int, int], second: tuple[int, int]) -> float:
    """Seed 002's Eq. 1 over a Gram matrix of translations: PK(<t1,t2>,<t1',t2'>) =
    K(t1,t1') + K(t2,t2') - K(t1,t2') - K(t2,t1'), pairs given as (index of t1, index of t2)."""
    (a1, a2), (b1, b2) = first, second
    return float(k[a1, b1] + k[a2, b2] - k[a1, b2] - k[a2, b1])


def direct_similarity(pairs: list[Pair], spec: KernelSpec) -> np.ndarray:
    """Seed 002's "similarity" column: the normalized tree kernel of each hypothesis with its reference."""
    return np.asarray(paired([p.hyp for p in pairs], [p.ref for p in pairs], spec.kind, spec.lam, spec.mu, True))


@dataclass
class Nystrom:
    landmarks: list[Pair]
    projection: np.ndarray          # m × r: U Λ^(-1/2) over the kept eigenvalues

    @classmethod
    def fit(cls, landmarks: list[Pair], spec: KernelSpec, rel_tol: float = 1e-6) -> "Nystrom":
        k = pair_gram(landmarks, landmarks, spec)
        k = (k + k.T) / 2
        with one_blas_thread():
            vals, vecs = np.linalg.eigh(k)
        keep = vals > rel_tol * vals.max()
        return cls(landmarks, vecs[:, keep] / np.sqrt(vals[keep]))

    def transform(self, pairs: list[Pair], spec: KernelSpec) -> np.ndarray:
        return pair_gram(pairs, self.landmarks, spec) @ self.projection


@dataclass
class TreeRankMetric:
    """w·[φ(t, r), extra features]: the score of a translation t of reference r."""
    spec: KernelSpec
    nystrom: Nystrom
    weights: np.ndarray
    scale: np.ndarray               # per-feature divisor applied before the weights
    extra: list[str] = field(default_factory=list)     # names of the extra features (sentbleu, chrf)
    structure: str = "SYN+CLS"      # the trees it reads (cad.eval.rank.objects.STRUCTURES)

    def features(self, pairs: list[Pair], extra: np.ndarray | None = None) -> np.ndarray:
        x = self.nystrom.transform(pairs, self.spec) if self.nystrom.landmarks else np.zeros((len(pairs), 0))
        if self.extra:
            if extra is None or extra.shape != (len(pairs), len(self.extra)):
                raise CadError(f"the model needs the features {', '.join(self.extra)} for every translation")
            x = np.hstack([x, extra])
        return x

    def score(self, pairs: list[Pair], extra: np.ndarray | None = None) -> np.ndarray:
        return (self.features(pairs, extra) / self.scale) @ self.weights

    def signature(self) -> str:
        return (f"tree-rank|{self.structure}|{self.spec.signature()}|landmarks:{len(self.nystrom.landmarks)}"
                + (f"|extra:{'+'.join(self.extra)}" if self.extra else ""))

    def save(self, path: str | os.PathLike) -> None:
        obj = {"format": FORMAT, "kernel": vars(self.spec), "extra": self.extra, "structure": self.structure,
               "landmarks": [[str(p.hyp_rel), str(p.ref_rel)] for p in self.nystrom.landmarks],
               "projection": self.nystrom.projection.tolist(), "weights": self.weights.tolist(),
               "scale": self.scale.tolist()}
        with atomic_output(path) as fh:
            json.dump(obj, fh)
            fh.write("\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "TreeRankMetric":
        try:
            with open(path, encoding="utf-8") as fh:
                obj = json.load(fh)
        except (OSError, ValueError) as exc:
            raise CadError(f"cannot read the model: {exc}", str(path)) from None
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise CadError(f"not a {FORMAT} model", str(path))
        try:
            # only the marked trees of a landmark are ever compared
            landmarks = [Pair(Tree("ROOT"), Tree("ROOT"), Tree.parse(h), Tree.parse(r)) for h, r in obj["landmarks"]]
            model = cls(KernelSpec(**obj["kernel"]), Nystrom(landmarks, np.asarray(obj["projection"], dtype=float)
                                                              .reshape(len(landmarks), -1)),
                        np.asarray(obj["weights"], dtype=float), np.asarray(obj["scale"], dtype=float),
                        list(obj["extra"]), obj.get("structure", "SYN+CLS"))
        except (KeyError, TypeError, ValueError) as exc:
            raise CadError(f"a damaged model ({type(exc).__name__}: {exc})", str(path)) from None
        width = model.nystrom.projection.shape[1] + len(model.extra)
        if model.weights.shape != (width,) or model.scale.shape != (width,):
            raise CadError(f"a damaged model: {model.weights.shape[0]} weights for {width} features", str(path))
        return model


def train_ranker(x: np.ndarray, wins: np.ndarray, loses: np.ndarray, c: float = 1.0,
                 seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(weights, scale) of a linear pairwise ranker: logistic regression without intercept on
    φ(winner) - φ(loser), each difference's sign flipped at random (fixed seed) so that both
    classes are present; the features are divided by their standard deviation over the
    differences first, so that C means the same for kernel and metric features."""
    # loaded only to train: scikit-learn takes over a second, and scoring does not need it
    from sklearn.linear_model import LogisticRegression

    d = x[wins] - x[loses]
    scale = d.std(axis=0)
    scale[scale == 0] = 1.0
    d = d / scale
    rng = np.random.default_rng(seed)
    sign = rng.choice([-1.0, 1.0], size=len(d))
    clf = LogisticRegression(C=c, fit_intercept=False, max_iter=2000)
    with one_blas_thread():
        clf.fit(d * sign[:, None], (sign > 0).astype(int))
    return clf.coef_[0], scale
