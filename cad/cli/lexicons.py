"""The learned Spanish lexicons' options, shared by `cad cm build`, `cad cm experiment-source` and
`cad translate` so that all three read the same ones."""

from __future__ import annotations

import argparse


def add_spanish_lexicons(s: argparse.ArgumentParser, add_in) -> None:
    """The learned Spanish lexicons: give cm build, experiment-source and translate the same ones."""
    add_in(s, "--human-lexicon", help="Spanish: a human-noun lexicon (python -m cad.lexicons.humanness) that marks the common "
                                     "nouns it knows as human where CorZu does not; use the same for cm build, "
                                     "experiment-source and translate")
    add_in(s, "--gender-lexicon", help="Spanish: the gender of person names (python -m cad.lexicons.name_gender), instead of "
                                      "FreeLing's guess from the ending (corzu) or spaCy's none (spanish); use the same "
                                      "for cm build, experiment-source and translate")
