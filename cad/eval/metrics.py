"""The metrics by name, with one interface, as sacrebleu's `Metric`: hypotheses and references in as
sequences of lines, a result with a reproducible signature out. Files are read at the command
line's edge (`cad eval score`, `cad eval bleu`); the metrics never open one.

A metric is one class registered under its name that builds itself from its own options
(`from_options`, strings by name, as `cad eval score --option KEY=VALUE` gives them):

    @register_metric("mine")
    class Mine(Metric):
        name = "MINE"
        options = {"lowercase": "no"}          # its options and their defaults

        def corpus_score(self, hypotheses, references, sources=None):
            ...
            return MetricResult(self.name, score, self.signature(len(references)))

A metric that reads the source side (APT reads the pronouns of the source and the word alignments)
says so (`needs_sources`) and is given `Sources`. The built-in ones (bleu, chrf: sacrebleu's; apt)
are declared here and imported when chosen; installed distributions add metrics as entry points of
the group `cad.metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from cad import __version__
from cad.core.errors import CadError
from cad.core.registry import Registry

ENTRY_POINTS = "cad.metrics"
METRICS = Registry("metric", ENTRY_POINTS)
register_metric = METRICS.register
TRUE, FALSE = ("yes", "true", "1"), ("no", "false", "0")


@dataclass(frozen=True)
class Signature:
    """What decides a metric's score, as `key:value` pairs joined by `|` (sacrebleu's layout: the
    number of references first, the version last), so that a score can be reproduced."""

    items: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, text: str) -> Signature:
        """A signature printed as `key:value|...` (sacrebleu's own)."""
        return cls(tuple(tuple(part.split(":", 1)) for part in text.split("|") if part))  # type: ignore[misc]

    def __str__(self) -> str:
        return "|".join(f"{k}:{v}" for k, v in self.items)


@dataclass(frozen=True)
class MetricResult:
    """A corpus score: the metric's name, the score, its signature, what the metric says beside the
    score (`verbose`, printed after it) and the metric's own result (`detail`)."""

    name: str
    score: float
    signature: Signature
    verbose: str = ""
    detail: Any = field(default=None, compare=False)
    width: int = 2                      # the decimals it is printed with

    def format(self, width: int | None = None) -> str:
        """`NAME|signature = score verbose`, as sacrebleu prints its scores."""
        line = f"{self.name}|{self.signature} = {self.score:.{self.width if width is None else width}f}"
        return f"{line} {self.verbose}" if self.verbose else line


@dataclass(frozen=True)
class Sources:
    """What a metric that reads the source side needs beside the hypotheses and references: the
    source sentences, the source-hypothesis word alignment (Moses i-j) and, per reference stream,
    the source-reference one; all line-parallel."""

    source: Sequence[str]
    hypothesis_alignments: Sequence[str]
    reference_alignments: Sequence[Sequence[str]]


class Metric:
    """What every metric is: `corpus_score(hypotheses, references, sources=None) -> MetricResult`,
    `references` a sequence of reference streams, each line-parallel to `hypotheses`."""

    name: ClassVar[str] = ""                # how its results are headed
    needs_sources: ClassVar[bool] = False
    options: ClassVar[dict[str, str]] = {}  # its options by name, with their defaults

    def __init__(self, **options: str):
        self.settings = {**self.options, **options}

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> Metric:
        unknown = sorted(set(options) - set(cls.options))
        if unknown:
            known = ", ".join(cls.options) or "none"
            raise CadError(f"metric {cls.name or cls.__name__} has no option {', '.join(unknown)} (its options: {known})")
        return cls(**options)

    def flag(self, option: str) -> bool:
        """A yes/no option's value."""
        value = str(self.settings[option]).lower()
        if value not in TRUE + FALSE:
            raise CadError(f"metric {self.name}: {option}={self.settings[option]}: expected yes or no")
        return value in TRUE

    def signature(self, n_refs: int, **items: str) -> Signature:
        """`nrefs`, the metric's `items`, then cad's version."""
        return Signature((("nrefs", str(n_refs)), *items.items(), ("version", f"cad-{__version__}")))

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     sources: Sources | None = None) -> MetricResult:
        raise NotImplementedError

    def check(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]],
              sources: Sources | None = None) -> None:
        """Every reference (and the sources, if the metric reads them) as long as the hypotheses."""
        if not references:
            raise CadError(f"metric {self.name}: no reference")
        if self.needs_sources and sources is None:
            raise CadError(f"metric {self.name} reads the source side: give the source and the alignments")
        streams = [("reference", r) for r in references]
        if self.needs_sources:
            streams += [("source", sources.source), ("hypothesis alignment", sources.hypothesis_alignments)]
            streams += [("reference alignment", r) for r in sources.reference_alignments]
        for what, lines in streams:
            if len(lines) != len(hypotheses):
                raise CadError(f"metric {self.name}: {len(hypotheses)} hypotheses but {len(lines)} lines of {what}")


# the built-in metrics, in the order `cad eval score --metric` lists them
for _name, _target in (("bleu", "cad.eval.bleu:BleuMetric"),
                       ("chrf", "cad.eval.bleu:ChrfMetric"),
                       ("apt", "cad.eval.apt_metric:AptMetric")):
    METRICS.declare(_name, _target)


def build_metric(name: str, options: Mapping[str, str] | None = None) -> Metric:
    """The metric called `name`, built from its options; a CadError naming the metrics there are
    when none is called so."""
    return METRICS.get(name).from_options(dict(options or {}))
