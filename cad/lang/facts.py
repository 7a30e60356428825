"""What cad knows of a language, as plain data: the `Language` each language's module here
declares (its pronoun classes as a target, its APT lists, the pronouns it studies as a source, the
reader of its words' morphology) and the `Morph` its morphology reader gives a word.

The stages never import a language's module: they read these objects from the pair being
translated (cad/lang/pairs.py), so that a language is data the pipeline is given."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from cad.core.envlist import env_choices
from cad.core.errors import CadError

# every gender and number a bundle may carry (a language's `genders` is a part of these)
GENDERS = ("masc", "fem", "neut")
NUMBERS = ("sing", "plur")

# the lexical sources of an antecedent's features a run may use (an ablation turns one off):
# CAD_GENDER_SOURCES lists them, comma-separated, from lexicon, cognate and dictionary
# (cad/cm/projection.py), determiner, and wordnet (the head's animacy, cad/cm/referent.py)
GENDER_SOURCES = ("lexicon", "cognate", "dictionary", "determiner", "wordnet")
# the sources used when CAD_GENDER_SOURCES is not set: all but the cognates, which read the
# antecedent's gender more accurately (CHANGELOG.md) but cost C1+C2 on the dev talks without
# turning one more feminine reference into elle/elles
DEFAULT_GENDER_SOURCES = ("lexicon", "dictionary", "determiner", "wordnet")


def gender_sources() -> frozenset[str]:
    return env_choices("CAD_GENDER_SOURCES", DEFAULT_GENDER_SOURCES, GENDER_SOURCES, "source")


@dataclass(frozen=True)
class Morph:
    pos: str
    gender: str | None     # "masc" | "fem" | "neut"
    number: str | None     # "sing" | "plur"
    # where the gender came from: "lexicon" (the language's noun lexicon, one gender only),
    # "determiner" (the article or demonstrative before the noun), "pronoun" (il, elle, er, ...), or
    # "tagger" (the tagger's morphology)
    source: str = "tagger"


class Morphology:
    """A target language's reader of its words, what the projection of an antecedent reads:
    `tag` (each token's part of speech, gender and number), `noun_features` (a word's gender and
    number as the noun lexicon gives them, None where it gives none or several) and `knows_noun`."""

    def tag(self, sentences: list[list[str]]) -> list[list[Morph]]:
        raise NotImplementedError

    def noun_features(self, word: str) -> tuple[str | None, str | None]:
        raise NotImplementedError

    def knows_noun(self, word: str) -> bool:
        raise NotImplementedError

    def load(self) -> None:
        """Load what `tag` reads (a worker's warm-up; nothing to return)."""

    def pipeline(self, lemmas: bool = False) -> Any:
        """The language's parsing pipeline (spaCy's), with lemmas where asked; a language without
        one cannot serve the stages that parse the target (the contrastive suites, the pronoun LM)."""
        raise CadError(f"{type(self).__name__} has no parsing pipeline")


def load_target(target: str) -> Any:
    """The object "module:attribute" names, imported now (a language's reader, loaded when read)."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for name in attr.split("."):
        obj = getattr(obj, name)
    return obj


# eq=False: a language is one object, hashed by identity (caches are keyed by it)
@dataclass(frozen=True, eq=False)
class Language:
    """One language's facts. As a target: `class_of` (word -> the CM's class), `classes` (the
    CM's classes, OTHER and NONE last), `class_groups` (the reports' recall groups), the gender of
    each personal pronoun class, the classes whose gender the antecedent decides that the reports
    count apart (`marked`), the genders its nouns have, APT's lists (`apt_*`) and its morphology
    reader ("module:attribute", loaded when first read). As a source: the pronouns the CM
    studies (`cm_pronouns`), APT's source lists, the heads that are no noun, its pronouns and the
    reader of its nouns' senses (an antecedent's animacy)."""

    code: str
    name: str
    # -- as the target
    class_of: Mapping[str, str] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    class_groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    personal_gender: Mapping[str, str] = field(default_factory=dict)
    marked: tuple[str, ...] = ()
    # {class: family} for the classes whose choice within a family the antecedent's gender and number
    # make, while the construction chooses the family (French: il/elle/ils/elles personal, le/la clitic),
    # which the factored class table reads (cad/cm/factored.py); empty: no such family
    gender_families: Mapping[str, str] = field(default_factory=dict)
    genders: tuple[str, ...] = ("masc", "fem")
    # the subject pronoun of each (gender, number) of its antecedent (PE's post-editing rule)
    subject_forms: Mapping[tuple[str, str], str] = field(default_factory=dict)
    apt_pronouns: Sequence[str] = ()
    apt_equal: Sequence[Sequence[str]] = ()
    apt_similar: Sequence[Sequence[str]] = ()
    apt_dictionary: Sequence[str] = ()
    # the word its references write where the translator left the pronoun out (French: the DiscoMT
    # 2015 references' NONE), which the reports' strict class agreement reads as no pronoun; None: none
    none_marker: str | None = None
    morphology_reader: str | None = None
    # the classes by which a translation takes an antecedent *it* as a situation or an event (French
    # ça), which a later pronoun that takes it up reads as the CM's event bundle (cad/cm/construction.py)
    situation_classes: tuple[str, ...] = ()
    # "module:attribute" of a function that loads its inflection paradigms (French's from
    # hunspell-fr-comprehensive), which forced decoding reads for a word's other-gender twin
    inflections: str | None = None
    # "module:attribute" of a function that loads its predicate agreement (French's: the adjective
    # or participle after *être* takes the subject pronoun's gender and number), which the
    # PronounAgreement decoder feature and the probe suites read; None: the language has none
    predicate_agreement: str | None = None
    # the impersonal subject that stands for an English passive's agent, whose object clitic is the
    # pronoun's referent (French *on*: *it was sold* → *on l'a vendu*), the clitics (*le*, *la*, *l'*)
    # and the words that may stand between them (*on ne l'a pas vendu*): the CM reads the clitic as
    # the pronoun's translation there (cad/cm/classes.py); None: no such reading
    impersonal_subject: str | None = None
    object_clitics: frozenset[str] = frozenset()
    before_object: frozenset[str] = frozenset()
    # the words that may stand between an object clitic and the verb it is the object of (French:
    # the auxiliaries, the negation, the other clitics: *je ne l'ai pas lavé*, *je le lui ai donné*),
    # over which the CM reads a clitic left unaligned before the verb (cad/cm/classes.py)
    verb_group: frozenset[str] = frozenset()
    # -- as the source
    cm_pronouns: tuple[str, ...] = ()
    apt_source_pronouns: Sequence[str] = ()
    apt_source_dictionary: Sequence[str] = ()
    not_noun_heads: frozenset[str] = frozenset()
    # the pronouns APT may find by their spelling alone (Spanish: not lo, la, los, las, articles
    # far more often than pronouns; those count only where a resolver says they are pronouns)
    unambiguous: tuple[str, ...] = ()
    # the personal pronouns of the third person, and of the first and second (no entity's head)
    third_person: frozenset[str] = frozenset()
    speaker_pronouns: frozenset[str] = frozenset()
    # the subject pronouns of the third person, after which the target may write a predicate that
    # agrees with their translation (the PronounAgreement feature's inflected copies start there)
    subject_pronouns: frozenset[str] = frozenset()
    # "module:attribute" of a function that loads its nouns' senses (WordNet's NounClasses for
    # English), read for an antecedent head's animacy; None: the language has none
    noun_senses: str | None = None

    def morphology(self) -> Morphology:
        """The reader of this language's words (imported on first use: spaCy, lexicons)."""
        if self.morphology_reader is None:
            raise CadError(f"{self.name} has no morphology reader: it cannot be the target of a pair whose "
                           "antecedents are read from their translation")
        return _reader(self.morphology_reader)

    def inflection_lexicon(self) -> Any:
        """The inflection paradigms of this language's words (None where it has none), loaded now."""
        return None if self.inflections is None else load_target(self.inflections)()

    def agreement(self) -> Any:
        """Its predicate agreement (cad.lang.fr_agreement.PredicateAgreement for French), loaded
        once; a CadError where the language has none."""
        if self.predicate_agreement is None:
            raise CadError(f"{self.name} has no predicate agreement (the PronounAgreement feature and the probe "
                           "suites need one)")
        if self.predicate_agreement not in _AGREEMENTS:
            _AGREEMENTS[self.predicate_agreement] = load_target(self.predicate_agreement)()
        return _AGREEMENTS[self.predicate_agreement]

    def senses(self) -> Any:
        """The reader of this language's noun senses (None where it has none), loaded once."""
        if self.noun_senses is None:
            return None
        if self.noun_senses not in _SENSES:
            _SENSES[self.noun_senses] = load_target(self.noun_senses)()
        return _SENSES[self.noun_senses]

    def class_of_words(self, words) -> str:
        """The class of the target words aligned to one source pronoun (cad.lang.first_class)."""
        from cad.lang import first_class

        return first_class(words, self.class_of)


_READERS: dict[str, Morphology] = {}
_SENSES: dict[str, Any] = {}
_AGREEMENTS: dict[str, Any] = {}


def _reader(target: str) -> Morphology:
    reader = _READERS.get(target)
    if reader is None:
        made = load_target(target)
        reader = _READERS[target] = made() if isinstance(made, type) else made
    return reader
