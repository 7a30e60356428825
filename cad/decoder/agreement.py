"""Agreement with the subject pronoun the decoder writes: a stateful feature that reads each
hypothesis's French left to right and counts the adjectives and past participles after *être* that
do not agree in gender and number with the subject pronoun before them (*elle était mort*), and
the inflected copies of the predicates' phrases that let search write the form that agrees
(*elle était morte*) where the phrase table holds only another.

moses.ini:
    PronounAgreement name=PronounAgreement0 num-features=2 [reach=6] [twins=1] [pronouns=1]
    [weight]  PronounAgreement0= 1 3

Two values: the number of predicates that agree with the subject pronoun before them, and minus
the number of those that do not (with the inflected copies used anywhere but as a predicate that
agrees). A disagreeing predicate should cost much; an agreeing one is worth a little, so that the
search writes the agreeing form rather than no predicate at all (*elle n'était pas de la mort*),
but not so much that it writes predicates for their own sake. Its state is the reading's (cad/lang/fr_agreement.py, AgreementStates: no subject, a subject before its *être*,
or after it), which hypotheses must share to recombine; the compiled core runs it natively
(kind 3), from each option's transition table (`agreement`, attached when the option is made).

Inflected copies (`twins=1`): an option of a source span that starts on an English subject pronoun
(*it*, *they*, *he*, *she*) or at most `reach` words after it, and whose words could hold a predicate (the
first word that is not *être*, an auxiliary, a clitic, an adverb or an English word is an
adjective or a participle of the French lexicon), is copied with that word in each other gender
and number the lexicon gives (*blessé*: *blessée*, *blessés*, *blessées*), with the original's
table scores, alignment and reordering scores, scored again by every feature that reads words
(the language model, the coreference model). A copy whose words the span already has is not made:
the table's own entry stands. Moses has no such options; its factored models' generation steps
come nearest (a lemma's translation generated in another form). The copies are the decoder's
alternatives, not a post-edit: the language model and the rest of the sentence still decide.

Pronoun copies (`pronouns=1`): an option of a span that starts on *it* or *they* (the pair's CM
pronouns) whose words open with a subject pronoun and a finite *être* is copied with the pronoun
in each other form that *être* allows (*ils étaient* → *elles étaient*, *c'étaient*; French's
AgreementStates.pronoun_copies), with the original's scores, and the copies' predicates inflected
as above. A phrase table ranks *they were* → *ils étaient* far above *c'étaient* (the table limit
keeps the first only), so the construction (*c'étaient des cadeaux*, where a personal pronoun
before a noun phrase disagrees) and the coreference model's class had no option to choose. Before
a compound *être* (*on a été volé*, *il a été vendu*) the copies are the personal pronouns of its
number. With them, an option of any span holding *it*/*they* whose word aligned to it is an object
clitic of one gender (*repair it* → *le réparer*) is copied with the other (*la réparer*;
AgreementStates.clitic_copies), where another word of the phrase follows the clitic: a phrase that
ends on it (*it* → *le*, *expliqué le*) lands after the verb, where French has no clitic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cad.core.errors import CadError
from cad.decoder.registry import FeatureSlot, Loading, register
from cad.decoder.stateful import StatefulFeature
from cad.lang.pairs import Pair, default_pair, pair_named
from cad.moses.ini import Feature

NATIVE_AGREEMENT = 3        # enum Kind in cad/decoder/_core.cpp
REACH = 6                   # source words after a subject pronoun whose options get inflected copies


def pair_states(pair: Pair) -> Any:
    """The reading of the pair's target (French's: cad/lang/fr_agreement.py, AgreementStates, over
    Grammalecte's dictionary, hunspell-fr-comprehensive, `make resources`)."""
    return pair.target.agreement().states


def _int_arg(line: Feature, key: str, default: int, config_path: str | None) -> int:
    raw = line.args.get(key)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise CadError(f"{line.name}: {key}={raw} is not a whole number >= 0", config_path, line.line)
    return value


@register("PronounAgreement", native_kind=NATIVE_AGREEMENT)
class PronounAgreement(StatefulFeature):
    def __init__(self, slot: FeatureSlot, states: Any, reach: int = REACH, twins: bool = True,
                 subjects: frozenset[str] = frozenset(), pronouns: bool = True,
                 copied: frozenset[str] = frozenset()):
        super().__init__(slot)
        self.states = states
        self.native_states = states.count       # the core's AGREEMENT_STATES must be the same
        self.subjects = subjects or default_pair().source.subject_pronouns
        self.copied = copied or frozenset(default_pair().source.cm_pronouns)
        self.reach = reach
        self.twins = twins
        self.pronouns = pronouns
        self.starts: frozenset[int] = frozenset()
        self.pronoun_starts: frozenset[int] = frozenset()

    @classmethod
    def from_line(cls, line: Feature, slot: FeatureSlot, config_path: str | None,
                  loading: Loading) -> PronounAgreement:
        if slot.size != 2:
            raise CadError(f"{line.name}: a PronounAgreement has num-features=2 (agreeing and disagreeing "
                           "predicates)", config_path, line.line)
        reach = _int_arg(line, "reach", REACH, config_path)
        twins = _int_arg(line, "twins", 1, config_path)
        pronouns = _int_arg(line, "pronouns", 1, config_path)
        for key, value in (("twins", twins), ("pronouns", pronouns)):
            if value not in (0, 1):
                raise CadError(f"{line.name}: {key}= is 0 or 1, not {value}", config_path, line.line)
        try:
            pair = pair_named(line.args["pair"]) if "pair" in line.args else default_pair()
            states = pair_states(pair)
        except CadError as exc:
            raise CadError(f"{line.name}: {exc} (French's inflection lexicon is hunspell-fr-comprehensive: "
                           "`make resources` installs it)", config_path, line.line) from None
        return cls(slot, states, reach, bool(twins), pair.source.subject_pronouns, bool(pronouns),
                   frozenset(pair.source.cm_pronouns))

    def begin_sentence(self, tokens: list[str]) -> None:
        super().begin_sentence(tokens)
        starts: set[int] = set()
        for i, t in enumerate(tokens):
            if t.lower() in self.subjects:
                # from the pronoun itself: a phrase may hold it with its predicate (*it was stolen*
                # ||| *il a été volé*)
                starts.update(range(i, min(len(tokens), i + 1 + self.reach)))
        self.starts = frozenset(starts)
        self.pronoun_starts = frozenset(i for i, t in enumerate(tokens) if t.lower() in self.copied)

    def empty_state(self) -> Any:
        return self.states.start

    def annotate(self, opt, source: str) -> None:
        opt.agreement = self.states.transitions(opt.words)

    def annotate_unknown(self, opt) -> None:
        # an English word passed through: the reading goes on over it (*elle était mortally blessée*)
        opt.agreement = self.states.transitions(opt.words)

    def _table(self, opt) -> bytes:
        t = opt.agreement
        if t is None:       # an option made elsewhere (forced decoding's penalized options)
            t = opt.agreement = self.states.transitions(opt.words)
        return t

    def evaluate(self, state, last_start, last_end, opt, complete):
        t = self._table(opt)
        w, n = self.weights, self.native_states
        return w[0] * t[n + state] + w[1] * -t[2 * n + state], t[state]

    def values(self, state, last_start, last_end, opt, complete):
        t = self._table(opt)
        n = self.native_states
        agree, disagree = t[n + state], t[2 * n + state]
        return ((0, float(agree)),) * bool(agree) + ((1, float(-disagree)),) * bool(disagree)

    def makes_variants(self, start: int, end: int) -> bool:
        return (self.twins and start in self.starts) or (
            self.pronouns and any(start <= p < end for p in self.pronoun_starts))

    def variants(self, start: int, end: int, opt, make: Callable[[tuple[str, ...]], Any]) -> list:
        """The inflected copies of `opt` on span [start, end) (see the module's doc); `make(words)`
        builds a copy of `opt` with other words, scored by the stateless features (None where the
        span already has an option of those words)."""
        out = []
        if self.twins and start in self.starts:
            out.extend(self._twins(opt.words, make))
        if self.pronouns:
            # the object clitics aligned to an *it*/*they* of the span, in the other gender
            aligned = [t for s, t in opt.alignment if start + s in self.pronoun_starts]
            for words in self.states.clitic_copies(opt.words, aligned) if aligned else ():
                copy = make(words)
                if copy is not None:
                    copy.agreement = self.states.transitions(words)
                    out.append(copy)
        if self.pronouns and start in self.pronoun_starts:
            for words in self.states.pronoun_copies(opt.words):
                copy = make(words)
                if copy is not None:        # None: the span has an option of these words already
                    copy.agreement = self.states.transitions(words)
                    out.append(copy)
                if self.twins:
                    out.extend(self._twins(words, make))
        return out

    def _twins(self, words: tuple[str, ...], make) -> list:
        i = self.states.predicate_index(words)
        if i is None:
            return []
        out = []
        for form in self.states.twin_forms(words[i]):
            copy = make(words[:i] + (form,) + words[i + 1:])
            if copy is None:        # the span has an option of these words already
                continue
            copy.agreement = self.states.transitions(copy.words, i)
            out.append(copy)
        return out
