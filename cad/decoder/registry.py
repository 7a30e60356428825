"""The decoder's features by moses.ini feature type (Moses's FeatureRegistry, moses/FF/Factory.cpp).

A feature is one class that registers itself under the type its moses.ini line starts with and
builds itself from that line:

    @register("MyFeature")
    class MyFeature(StatelessFeature):
        @classmethod
        def from_line(cls, line, slot, config_path, loading):   # the default: cls(slot)
            ...

`DecoderModel.from_config` asks `feature_class(type)` for each line of [feature], so a feature
defined anywhere is decoded with as soon as its module is imported. For installed distributions
a type not registered yet is looked up among the entry points of the group `cad.decoder_features`
(`Name = package.module:Class`), whose loading registers it: that is how the CoreferenceModel,
which lives in cad/cm/feature.py, is found without the decoder naming it. The features are one
`Registry` (cad/core/registry.py), as the other kinds of parts are.

Tables (cad/decoder/tables.py) live apart: a feature that reads one creates it from its line and
hands it to `Loading`, which loads every table once all lines are read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from cad.core.errors import CadError
from cad.core.registry import Registry
from cad.decoder.tables import LanguageModel, PhraseTable, ReorderingTable
from cad.moses.ini import MosesConfig

ENTRY_POINTS = "cad.decoder_features"

T = TypeVar("T", bound=type)

FEATURES = Registry("feature type", ENTRY_POINTS)    # moses.ini type -> feature class, in registration order
_NATIVE: dict[type, int] = {}         # feature class -> the compiled core's kind of it
# built-in features whose module loads only when a configuration names them (the agreement reads
# the French lexicon's module, which plain decoding does not need)
FEATURES.declare("PronounAgreement", "cad.decoder.agreement:PronounAgreement")


@dataclass
class FeatureSlot:
    """A feature's part of the weight vector: `size` values from `offset`, and their weights."""

    name: str
    type: str
    offset: int
    size: int
    weights: list[float]


@dataclass
class Loading:
    """What the features of one configuration share while they are built from their lines: the
    tables they read, and the source phrases the input can ask for (None: every phrase)."""

    config: MosesConfig
    wanted: set[str] | None = None
    tables: list[PhraseTable] = field(default_factory=list)       # [mapping]'s indices
    reordering: ReorderingTable | None = None
    lms: list[LanguageModel] = field(default_factory=list)        # one per KENLM line, in moses.ini order

    def load_tables(self) -> None:
        """Read the phrase and reordering tables, restricted to the wanted phrases. Run after every
        line is built, so that an error of a later line shows before a long table read."""
        for t in self.tables:
            t.load(self.wanted)
        if self.reordering is not None:
            self.reordering.load(self.wanted)


def register(feature_type: str, native_kind: int | None = None) -> Callable[[T], T]:
    """Class decorator: the feature of moses.ini lines of `feature_type`. `native_kind`: the compiled
    search core runs this very class itself (cad/decoder/native.py), under that kind."""

    def add(cls: T) -> T:
        FEATURES.add(feature_type, cls)
        if native_kind is not None:
            _NATIVE[cls] = native_kind
        return cls

    return add


def supported() -> list[str]:
    """The feature types cad's decoder can build: those registered and those installed distributions
    declare as entry points."""
    return sorted(FEATURES.names())


def feature_class(feature_type: str, config_path: str | None = None, line: int | None = None) -> type:
    """The class of moses.ini lines of `feature_type`; a CadError naming the configuration's file
    and line when no feature of that type is registered or installed."""
    cls = FEATURES.find(feature_type)
    if cls is None:
        raise CadError(f"feature {feature_type} is not supported by cad's decoder "
                       f"(supported: {', '.join(supported())})", config_path, line)
    return cls


def native_kind(feature: object) -> int | None:
    """The compiled core's kind of a stateful feature, or None when the core cannot run it. Only
    the registered class itself has a kind: a subclass may score differently from what the core
    computes."""
    return _NATIVE.get(type(feature))
