"""APT's built-in settings per language pair, made of the word lists each language keeps
(cad/lang): the source pronouns and dictionary of the pair's source, the target list, identical
and equivalent groups and target dictionary of its target."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from cad.eval.apt import AptSettings
from cad.lang.pairs import Pair, chosen, pair

DEFAULT_WEIGHTS = (1.0, 0.5, 0.0, 0.0, 0.0, 0.0)
ALL_CASES = (1, 2, 3, 4, 5, 6)


def settings_for(p: Pair | None = None, weights: Sequence[float] = DEFAULT_WEIGHTS,
                 cases: Sequence[int] = ALL_CASES, count_other: bool = True) -> AptSettings:
    """The pair's settings (default: the default pair's). OTHER (an aligned word outside the
    pronoun list, e.g. *le*, *en*) counts as identical to OTHER, so that the reference scored
    against itself gets APT = 1 (the tool's config_2; config_3 does not)."""
    p = chosen(p)
    src, tgt = p.source, p.target
    return AptSettings(count_other=count_other, source_pronouns=list(src.apt_source_pronouns),
                       target_list=list(tgt.apt_pronouns), equal=[list(g) for g in tgt.apt_equal],
                       similar=[list(g) for g in tgt.apt_similar], source_dict=list(src.apt_source_dictionary),
                       target_dict=list(tgt.apt_dictionary), cases=list(cases), weights=list(weights))


@lru_cache(maxsize=8)
def cached_settings(p: Pair) -> AptSettings:
    """The pair's default settings, made once (the CM reads them for every pronoun)."""
    return settings_for(p)


def french_settings(weights: Sequence[float] = DEFAULT_WEIGHTS, cases: Sequence[int] = ALL_CASES,
                    count_other: bool = True) -> AptSettings:
    """English→French's settings."""
    return settings_for(pair("en", "fr"), weights, cases, count_other)


def english_settings(weights: Sequence[float] = DEFAULT_WEIGHTS, cases: Sequence[int] = ALL_CASES,
                     count_other: bool = True) -> AptSettings:
    """Spanish→English's settings (the lists and their reasons: cad/lang/en.py); the weights are
    the tool's es-en example's. For seed 003's six pronouns only, set `source_pronouns` to
    `list(es.SEED003)` afterwards."""
    return settings_for(pair("es", "en"), weights, cases, count_other)
