"""The languages and language pairs cad translates, by name: what every stage is given instead of
importing a language's module. `pair("en", "fr")` is English→French: its source and target
`Language` (cad/lang/facts.py) and what the pair itself adds, where the antecedent's gender and
number come from and which bilingual resources help read them.

A language is its module's `LANGUAGE`, declared here as "module:LANGUAGE" and imported when a pair
names it; installed distributions add languages as entry points of the group `cad.languages`
(`xx = package.module:LANGUAGE`) and pairs as entry points of `cad.language_pairs`
(`xx-yy = package.module:PAIR`), so that a new pair is a module of facts and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cad.core.errors import CadError
from cad.core.registry import Registry
from cad.defaults import SOURCE_LANGUAGE, TARGET_LANGUAGE
from cad.lang.facts import Language, load_target

LANGUAGES = Registry("language", "cad.languages")
PAIRS = Registry("language pair", "cad.language_pairs")

# where a pronoun's antecedent features come from: its translation, read by the target's
# morphology through the word alignment (seed 004), or the source's own marking (seed 003: Spanish
# states its antecedents' gender and number, and CorZu reads them), with nothing to project
TRANSLATION = "translation"
SOURCE = "source"
ANTECEDENTS = (TRANSLATION, SOURCE)


@dataclass(frozen=True, eq=False)
class Pair:
    """A translation direction: `src` and `tgt` are language codes (LANGUAGES), `antecedents`
    where the antecedent's features come from (ANTECEDENTS), `dictionary` a "module:attribute"
    function from a source noun to its target translations and `cognates` one from a source noun to
    its target cognate (`.gender`, `.number`, `.word`), both optional."""

    src: str
    tgt: str
    antecedents: str = TRANSLATION
    dictionary: str | None = None
    cognates: str | None = None

    def __post_init__(self) -> None:
        if self.antecedents not in ANTECEDENTS:
            raise CadError(f"pair {self.name}: antecedents={self.antecedents!r} (choose from {', '.join(ANTECEDENTS)})")

    @property
    def name(self) -> str:
        return f"{self.src}-{self.tgt}"

    @property
    def source(self) -> Language:
        return language(self.src)

    @property
    def target(self) -> Language:
        return language(self.tgt)

    @property
    def source_features(self) -> bool:
        """Whether the source states the antecedents' features itself (no projection)."""
        return self.antecedents == SOURCE

    def translations(self, word: str) -> list[str]:
        """A source noun's translations in the pair's dictionary ([] without one)."""
        return list(_resource(self.dictionary)(word)) if self.dictionary else []

    def cognate(self, word: str) -> Any:
        """A source noun's cognate in the target (None without a finder or a cognate)."""
        return _resource(self.cognates)(word) if self.cognates else None

    def __repr__(self) -> str:
        return f"Pair({self.name})"


@lru_cache(maxsize=None)
def _resource(target: str):
    return load_target(target)


for _code in ("en", "fr", "es", "de"):
    LANGUAGES.declare(_code, f"cad.lang.{_code}:LANGUAGE")

EN_FR = Pair("en", "fr", TRANSLATION, dictionary="cad.resources.freedict:english_french",
             cognates="cad.lang.cognates:find")
EN_DE = Pair("en", "de", TRANSLATION)
ES_EN = Pair("es", "en", SOURCE)
for _p in (EN_FR, EN_DE, ES_EN):
    PAIRS.declare(_p.name, f"cad.lang.pairs:{_p.name.upper().replace('-', '_')}")


def language(code: str) -> Language:
    """The language called `code`; a CadError naming the languages there are when none is."""
    found = LANGUAGES.find(code)
    if found is None:
        raise CadError(f"unknown language {code!r} (choose from {', '.join(LANGUAGES)})")
    if not isinstance(found, Language):
        raise CadError(f"language {code!r} is {found!r}, not a Language")
    return found


def pair(src: str, tgt: str) -> Pair:
    """The pair `src`→`tgt`; a CadError naming the pairs there are when it is not one."""
    name = f"{src}-{tgt}"
    found = PAIRS.find(name)
    if found is None:
        raise CadError(f"unknown language pair {name} (choose from {', '.join(PAIRS)})")
    if not isinstance(found, Pair):
        raise CadError(f"language pair {name} is {found!r}, not a Pair")
    return found


def pair_named(name: str) -> Pair:
    """The pair "src-tgt"."""
    src, sep, tgt = name.partition("-")
    if not sep or not src or not tgt:
        raise CadError(f"a language pair is SRC-TGT (en-fr), not {name!r}")
    return pair(src, tgt)


def default_pair() -> Pair:
    """The pair of a command or a function not told which (cad.defaults: English→French)."""
    return pair(SOURCE_LANGUAGE, TARGET_LANGUAGE)


def chosen(given: Pair | None) -> Pair:
    """`given`, or the default pair where a caller gave none."""
    return given if given is not None else default_pair()
