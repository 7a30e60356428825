"""APT as a metric (`apt`, cad/eval/metrics.py): the hypotheses against one reference through the
source's pronouns and both word alignments, with a signature that names everything the score
depends on (the cases and their weights, OTHER's rule, the word lists, the alignment heuristics)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from cad.core.errors import CadError
from cad.eval.apt import AptSettings, score
from cad.eval.apt_settings import ALL_CASES, DEFAULT_WEIGHTS, english_settings, french_settings
from cad.eval.metrics import Metric, MetricResult, Signature, Sources

# the built-in word lists by language pair
LISTS = {"en-fr": french_settings, "es-en": english_settings}
LIST_FIELDS = ("source_pronouns", "target_list", "equal", "similar", "source_dict", "target_dict", "source_sep",
               "target_sep")


def _numbers(text: str, kind, what: str) -> list:
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CadError(f"metric APT: {what}={text!r}: expected comma-separated numbers") from None


def lists_name(s: AptSettings) -> str:
    """The language pair whose built-in lists `s` has, else a digest of its lists."""
    lists = {f: getattr(s, f) for f in LIST_FIELDS}
    for name, make in LISTS.items():
        if {f: getattr(make(), f) for f in LIST_FIELDS} == lists:
            return name
    return "sha256:" + hashlib.sha256(json.dumps(lists, sort_keys=True).encode("utf-8")).hexdigest()[:12]


class AptMetric(Metric):
    """`apt`: the accuracy of pronoun translation. Options: `lang` (the built-in lists, en-fr or es-en),
    `cases` and `weights` (comma-separated; six weights or one per case), `count_other` (OTHER
    matches OTHER). `settings=` gives AptSettings whole (an APT configuration file's)."""

    name = "APT"
    needs_sources = True
    options = {"lang": "en-fr", "cases": ",".join(map(str, ALL_CASES)), "weights": ",".join(map(str, DEFAULT_WEIGHTS)),
               "count_other": "yes"}

    def __init__(self, settings: AptSettings | None = None, **options: str):
        super().__init__(**options)
        if settings is None:
            if self.settings["lang"] not in LISTS:
                raise CadError(f"metric APT: lang={self.settings['lang']}: built-in lists exist for "
                               f"{', '.join(LISTS)}")
            cases = _numbers(self.settings["cases"], int, "cases")
            weights = _numbers(self.settings["weights"], float, "weights")
            settings = LISTS[self.settings["lang"]](weights, cases, self.flag("count_other"))
        self.apt = settings.resolved()
        if len(self.apt.weights) != len(self.apt.cases):
            raise CadError(f"{len(self.apt.cases)} cases to use but {len(self.apt.weights)} weights")

    def signature(self, n_refs: int = 1, **items: str) -> Signature:
        s = self.apt
        return super().signature(n_refs, cases=",".join(map(str, s.cases)), weights=",".join(f"{w:g}" for w in s.weights),
                                 other="yes" if s.count_other else "no", lists=lists_name(s),
                                 improve="yes" if s.improve_alignment else "no", margin=str(s.range_margin),
                                 **items)

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]],
                     sources: Sources | None = None) -> MetricResult:
        self.check(hypotheses, references, sources)
        if len(references) != 1:
            raise CadError(f"metric APT scores against one reference, not {len(references)}")
        result = score(sources.source, references[0], hypotheses, sources.reference_alignments[0],
                       sources.hypothesis_alignments, self.apt)
        counts = ",".join(str(result.counts[c]) for c in self.apt.cases)
        # APT's own scale, 0 to 1, at the tool's four decimals
        return MetricResult(self.name, result.score, self.signature(1), f"(findings per case {counts})", result,
                            width=4)
