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
