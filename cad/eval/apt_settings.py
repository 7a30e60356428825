"""APT's built-in settings per language pair, made of the word lists cad/lang keeps for each
language. Each is named after its target language, as the lists it mostly holds (target list,
identical and equivalent groups, target dictionary) are that language's."""

from __future__ import annotations

from typing import Sequence

from cad.eval.apt import AptSettings
from cad.lang import en, fr

DEFAULT_WEIGHTS = (1.0, 0.5, 0.0, 0.0, 0.0, 0.0)
ALL_CASES = (1, 2, 3, 4, 5, 6)


def french_settings(weights: Sequence[float] = DEFAULT_WEIGHTS, cases: Sequence[int] = ALL_CASES,
                    count_other: bool = True) -> AptSettings:
    """English→French defaults. OTHER (an aligned word outside the pronoun list, e.g. *le*, *en*)
    counts as identical to OTHER, so that the reference scored against itself gets APT = 1."""
    return AptSettings(count_other=count_other, source_pronouns=list(en.SOURCE_PRONOUNS),
                       target_list=list(fr.TARGET_PRONOUNS), equal=[list(g) for g in fr.EQUAL],
                       similar=[list(g) for g in fr.SIMILAR], source_dict=list(en.SOURCE_PRONOUN_DICT),
                       target_dict=list(fr.PRONOUN_DICT), cases=list(cases), weights=list(weights))


def english_settings(weights: Sequence[float] = DEFAULT_WEIGHTS, cases: Sequence[int] = ALL_CASES,
                     count_other: bool = True) -> AptSettings:
    """Spanish→English defaults (the lists and their reasons: cad/lang/en.py); the weights are the
    tool's es-en example's. OTHER counts as identical to OTHER so that the reference scored
    against itself gets APT = 1 (the tool's config_2; config_3 does not). For seed 003's six
    pronouns only, set `source_pronouns` to `list(es.SEED003)` afterwards."""
    return AptSettings(source_pronouns=list(en.ES_SOURCE_PRONOUNS), target_list=list(en.EN_TARGET_PRONOUNS),
                       equal=[list(g) for g in en.EN_EQUAL], similar=[list(g) for g in en.EN_SIMILAR],
                       source_dict=list(en.ES_PRONOUN_DICT), target_dict=list(en.EN_PRONOUN_DICT),
                       cases=list(cases), weights=list(weights), count_other=count_other)
