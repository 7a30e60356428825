"""Calibration of predicted probabilities: expected against observed accuracy in probability bins,
and the expected calibration error (the bins' gaps weighted by their size)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Calibration:
    bins: int = 10
    points: list[tuple[float, bool]] = field(default_factory=list)

    def add(self, p: float, correct: bool) -> None:
        self.points.append((float(p), bool(correct)))

    def table(self) -> list[tuple[float, float, int, float, float]]:
        """(low, high, count, mean probability, observed accuracy) per non-empty bin."""
        rows = []
        for b in range(self.bins):
            lo, hi = b / self.bins, (b + 1) / self.bins
            pts = [(p, ok) for p, ok in self.points if lo <= p < hi or (b == self.bins - 1 and p == 1.0)]
            if pts:
                rows.append((lo, hi, len(pts), sum(p for p, _ in pts) / len(pts), sum(ok for _, ok in pts) / len(pts)))
        return rows

    def ece(self) -> float:
        n = len(self.points)
        return sum(c * abs(mp - acc) for _, _, c, mp, acc in self.table()) / n if n else 0.0

    def report(self, title: str) -> str:
        lines = [f"{title}\tbin\tcount\tmean p\tobserved"]
        lines += [f"{title}\t{lo:.1f}-{hi:.1f}\t{c}\t{mp:.3f}\t{acc:.3f}" for lo, hi, c, mp, acc in self.table()]
        lines.append(f"{title}\tECE\t{self.ece():.3f} ({len(self.points)} predictions)")
        return "\n".join(lines)


def fit_temperature(lists: list[tuple[list[float], list[bool]]], low: float = 0.25, high: float = 4.0) -> float:
    """The temperature T that best calibrates ranked lists: each list's probabilities p become
    p^(1/T) renormalized (a softmax of the scores divided by T), and T minimizes the negative log
    of the probability the lists give their right candidates (the ranker's training objective) on
    held-out lists. Lists without a right candidate are skipped."""
    import numpy as np
    from scipy.optimize import minimize_scalar

    data = [(np.log(np.clip(np.asarray(p, dtype=float), 1e-12, 1.0)), np.asarray(ok, dtype=bool))
            for p, ok in lists if any(ok) and len(p) > 1]
    if not data:
        return 1.0

    def nll(t: float) -> float:
        total = 0.0
        for s, ok in data:
            z = s / t
            m = z.max()
            total += np.log(np.exp(z - m).sum()) - np.log(np.exp(z[ok] - m).sum())
        return total

    return float(minimize_scalar(nll, bounds=(low, high), method="bounded").x)


def with_temperature(p: list[float], t: float) -> list[float]:
    """p^(1/t) renormalized (see fit_temperature)."""
    import numpy as np

    z = np.log(np.clip(np.asarray(p, dtype=float), 1e-12, 1.0)) / t
    e = np.exp(z - z.max())
    return list(e / e.sum())
