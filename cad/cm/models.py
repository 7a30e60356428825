"""The CM's pronoun models by name: what the CoreferenceModel feature (`model=` on its moses.ini
line), `cad cm config --cm-model` and `cad translate --cm-mode rerank --cm-model` read.

A pronoun model is one class registered under its name that builds itself from its file
(`from_file`, in the classes of the language pair's target) and gives P(class | a pronoun's bundle
mixture, its source sentence):

    @register_cm_model("mine")
    class Mine(PronounModel):
        @classmethod
        def from_file(cls, path, pair=None): ...

        def class_distribution(self, mixture, tokens=None, index=None): ...

The built-in ones are declared here by where they live and imported when chosen (`cad` builds its
command line from the names without loading numpy or scikit-learn); installed distributions add
models as entry points of the group `cad.cm_models`.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from cad.core.registry import Registry
from cad.defaults import CM_MODEL

ENTRY_POINTS = "cad.cm_models"
CM_MODELS = Registry("CM model", ENTRY_POINTS)
register_cm_model = CM_MODELS.register


class PronounModel:
    """What every pronoun model is: `class_distribution(mixture, tokens, index)` -> {class: P}, the
    interface the decoder feature and the reranker read."""

    # whether it scores the expected APT credit objectives (credit, apt, exact) besides ln P(class):
    # those need the target language's credit matrix, which only the French classes have
    credits: ClassVar[bool] = True
    # the language pair (src, tgt) a CoreferenceModel line without pair= means for this model (None:
    # the default pair): a model made for one kind of pair only names it
    implicit_pair: ClassVar[tuple[str, str] | None] = None

    @classmethod
    def from_file(cls, path: str | os.PathLike, pair: Any = None) -> PronounModel:
        """The model in `path`, scoring the target classes of `pair` (cad.lang.pairs.Pair; None:
        the default pair)."""
        raise NotImplementedError

    def class_distribution(self, mixture: dict[str, float], tokens: list[str] | None = None,
                           index: int | None = None) -> dict[str, float]:
        raise NotImplementedError


# the built-in models: the class table (classes.gz), the classifier CM (classifier.json) and
# Spanish→English's table of bundles of the source antecedent's own features
for _name, _target in (("table", "cad.cm.class_model:ClassTable"),
                       ("classifier", "cad.cm.class_classifier:ClassifierCM"),
                       ("source-table", "cad.cm.source_table:SourceClassTable")):
    CM_MODELS.declare(_name, _target)


def load_pronoun_model(path: str | os.PathLike, kind: str = CM_MODEL, pair: Any = None):
    """The pronoun model called `kind`, read from `path` in the classes of `pair`'s target; a
    CadError naming the models there are when none is called so."""
    return CM_MODELS.get(kind).from_file(path, pair)
