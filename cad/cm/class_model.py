"""The class CM: P(target pronoun class | bundle), the table the decoder feature and the reranker read.

A bundle names what is known of one source pronoun, coarse to fine, one part per level:
`it-subj-fem-sing` (pronoun, role, the antecedent translation's gender and number), optionally
`-hum`/`-nonhum`; `it-subj-nonref` for a pronoun that refers to nothing (*it is raining*),
`it-subj-event` for one that refers to a clause, `it-subj` when the antecedent's translation gave no
gender. Probabilities are Witten-Bell interpolated along that chain (the coarser bundle is the
bundle without its last part), down to a uniform distribution over the classes under the bare
pronoun, so every bundle gives every class a probability and a rare bundle leans on its parents.

Uncertain coreference enters as a mixture (seed 003's expected value): a pronoun with
anaphoricity a and antecedent candidates c of probability p(c) is the mixture
(1 - a)·nonref + Σ_c a·p(c)·bundle(c), in training (expected counts) and in decoding
(P(class) = Σ_b w_b P(class | b)).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from functools import lru_cache
from typing import Callable

from cad.cm.construction import SITUATION, cm_parts, reads_as_event
from cad.cm.factored import accumulate, coarser, factored, form_split, witten_bell
from cad.cm.models import PronounModel
from cad.cm.referent import ANIMACY, subject_role
from cad.core.errors import CadError
from cad.core.textio import atomic_output, read_lines
from cad.defaults import CM_IMPLICIT_OBJECTIVE, CM_IMPLICIT_READING, CM_OBJECTIVE
from cad.lang import NONE, OTHER
from cad.lang.pairs import Pair, chosen
from coref.english.referent_label import best_label
from coref.records import Candidate, PronounResolution

FLOOR = 1e-7
# the credit of a similar pair (*ce* for *il*) in each expected-credit objective: C1+C2 accuracy's,
# APT's score (its w2), none
CREDIT_OF_SIMILAR = {"credit": 1.0, "apt": 0.5, "exact": 0.0}
OBJECTIVES = ("likelihood", *CREDIT_OF_SIMILAR)
# how a pronoun model reads a pronoun's mixture: all of it (seed 003's expected value), or only its
# most probable bundle (a decision, as seed 004 takes the resolver's one antecedent)
READINGS = ("mixture", "map")
READINGS_HELP = ("mixture: every bundle by its weight (the coreference's uncertainty hedged, towards ce where the "
                 "antecedents disagree); map: only the mixture's most probable bundle, weight 1 (the pronoun "
                 "takes its likeliest antecedent's gender)")


def _default(objective: str) -> str:
    return ", default" if objective == CM_OBJECTIVE else ""


# what each objective scores, for the commands that take --objective
OBJECTIVES_HELP = (f"ln P(class) of the option's pronoun (likelihood{_default('likelihood')}: the probability that it "
                   "is the class the reference writes, strict class agreement), or ln of its expected credit with a "
                   f"similar pair (ce for il or ça) worth 1 (credit{_default('credit')}: C1+C2 accuracy), 0.5 "
                   f"(apt{_default('apt')}: APT's score) or 0 (exact{_default('exact')}: the same word, any other word "
                   "as one); under credit, il earns ce's credit only where the antecedent is not feminine")
# ln of the expected credit is floored here: a dropped pronoun earns no credit, but a floor far
# below the other options' would make dropping impossible whatever the phrase table says
CREDIT_FLOOR = 0.01

# third-person and demonstrative pronouns that stand for an earlier mention of a thing or a group
LINK_PRONOUNS = frozenset({"it", "its", "itself", "they", "them", "their", "theirs", "themselves",
                           "this", "that", "these", "those"})

# candidate -> what its translation says: {(gender, number) | None (nothing): weight}; a
# distribution, so that a pronoun antecedent can pass on what its own antecedents said
Projection = Callable[[Candidate], "dict[tuple[str, str] | None, float]"]


def np_bundle(base: str, gender: str, number: str, human: bool | None, with_human: bool,
              animacy: str | None = None) -> str:
    b = f"{base}-{gender}-{number}"
    if with_human:
        b += "-hum" if human else "-nonhum"
    if animacy is not None:
        b += f"-{animacy}"
    return b


def referent_split(r: PronounResolution) -> tuple[float, float, float] | None:
    """(pleonastic, event, entity): the shares of what the pronoun refers to, from the record's
    `referent_probs` (coref/referent.py; the ranker writes them: 1 - P(referential), P(referential)
    · P(a clause | it refers), the rest for the noun phrases), normalized; None where the record
    has none (another backend, the gold records)."""
    probs = r.referent_probs
    if not probs:
        return None
    pleo, event = probs.get("pleonastic", 0.0), probs.get("event", 0.0)
    entity = sum(v for k, v in probs.items() if k.startswith("np:"))
    z = pleo + event + entity
    return (pleo / z, event / z, entity / z) if z > 0 else None


def _reads_referent(referent: bool | None) -> bool:
    return "referent" in cm_parts() if referent is None else referent


def pronoun_mixture(r: PronounResolution, role: str, project: Projection, with_human: bool = False,
                    animacy: Callable[[Candidate], str | None] | None = None,
                    pass_through: bool = False, referent: bool | None = None) -> dict[str, float]:
    """{bundle: weight}, weights summing to 1. `animacy`: candidate -> "anim", "ent", "abst" or None
    (cad/cm/referent.py), the finest part of a gendered bundle where it says something; an
    animate antecedent's bundle is read under `subject_role`. `pass_through`: a pronoun candidate
    that says nothing passes its weight to the earlier candidates that do (pass_through_pronouns);
    translation sets it, training does not (the reference's own pronouns mostly say their gender,
    and where they do not, *c'*, *leur*, reading a noun instead made the tables worse).
    `referent` (None: as CAD_CM_PARTS says, cad/cm/construction.py): the `nonref`, `event` and
    entity shares are the record's referent probabilities (referent_split), the entity share
    spread over the noun-phrase candidates; else 1 - anaphoricity, the clause candidates' and the
    noun phrases' (seed 003's)."""
    base = f"{r.token.lower()}-{role}"
    split = referent_split(r) if _reads_referent(referent) else None
    out: dict[str, float] = defaultdict(float)
    cands = [c for c in r.candidates if c.probability > 0]
    if split is not None:
        nonref, event, a = split
        if event > 0:
            out[f"{base}-event"] += event
        # the event model's share stands for the clause candidates' (coref's referent_distribution)
        cands = [c for c in cands if c.kind != "event"]
    else:
        if r.anaphoricity is not None:
            a = min(max(float(r.anaphoricity), 0.0), 1.0)
        else:
            a = 1.0 if r.referential else 0.0
        nonref = 1.0 - a
    if nonref > 0.0:
        out[f"{base}-nonref"] += nonref
    if a > 0.0:
        _add_candidates(out, r, base, role, cands, a, project, with_human, animacy, pass_through)
    return dict(out)


def _add_candidates(out: dict[str, float], r: PronounResolution, base: str, role: str, cands: list[Candidate],
                    a: float, project: Projection, with_human: bool, animacy, pass_through: bool) -> None:
    """Spread the referring share `a` over the candidates' bundles (pronoun_mixture): a clause's
    (and, with the demonstrative part, *this*/*that*'s) to the `event` bundle, a noun phrase's to
    the bundles of its translation's gender and number."""
    mass = sum(c.probability for c in cands)
    if not cands or mass <= 0:
        out[base] += a
        return
    events = {id(c) for c in cands if reads_as_event(c)}
    weights = {id(c): a * c.probability / mass for c in cands}
    dists = {id(c): project(c) or {None: 1.0} for c in cands if id(c) not in events}
    if pass_through:
        pass_through_pronouns([c for c in cands if id(c) not in events], dists, weights)
    for c in cands:
        w = weights[id(c)]
        if w <= 0:
            continue
        if id(c) in events:
            out[f"{base}-event"] += w
            continue
        dist = dists[id(c)]
        z = sum(dist.values())
        kind = animacy(c) if animacy is not None else None
        for gn, v in dist.items():
            if gn is None or gn == SITUATION:
                out[base if gn is None else f"{base}-event"] += w * v / z
                continue
            # a pronoun antecedent passes on its chain's animacy with its gender and number
            kind_gn = gn[2] if len(gn) > 2 and animacy is not None else kind
            b = np_bundle(f"{r.token.lower()}-{subject_role(role, kind_gn)}", gn[0], gn[1], c.human,
                          with_human, kind_gn)
            out[b] += w * v / z


def referent_of_bundle(bundle: str) -> str:
    """What a bundle's pronoun refers to: "pleonastic" (`-nonref`), "event" (`-event`) or "np"."""
    return "pleonastic" if bundle.endswith("-nonref") else "event" if bundle.endswith("-event") else "np"


def read_mixture(mixture: dict[str, float], reading: str = CM_IMPLICIT_READING,
                 referent: bool | None = None) -> dict[str, float]:
    """The mixture a pronoun model scores under `reading` (READINGS): the mixture itself, or its
    most probable bundle alone ("map"; a tie goes to the bundle first in sorted order). The bundle,
    not the candidate: the mentions of one entity (*it* ... *it* ... *a mouse*) split its weight.
    `referent` (None: as CAD_CM_PARTS says): "map" first takes the referent the coreference
    decides from the mixture's pleonastic, event and entity shares (coref's best_label: an event
    from a quarter of the referring share), then that referent's likeliest bundle; without it, an
    event share of .3 lost to an entity's .35 wherever the entity's weight stood in one bundle."""
    if reading == "mixture" or not mixture:
        return mixture
    if reading == "map":
        pool = mixture
        if _reads_referent(referent):
            shares: dict[str, float] = {"np:": 0.0}
            for b, w in mixture.items():
                key = "np:" if referent_of_bundle(b) == "np" else referent_of_bundle(b)
                shares[key] = shares.get(key, 0.0) + w
            decided = best_label(dict(shares))[0]
            pool = {b: w for b, w in mixture.items() if referent_of_bundle(b) == decided} or mixture
        top = max(sorted(pool), key=lambda b: pool[b])
        return {top: 1.0}
    raise CadError(f"unknown CM reading {reading!r} (choose from {', '.join(READINGS)})")


def _says_nothing(dist: dict) -> bool:
    return all(gn is None for gn in dist)


def pass_through_pronouns(cands: list[Candidate], dists: dict[int, dict], weights: dict[int, float]) -> None:
    """Move the weight of a pronoun candidate whose translation and chain say nothing (*their* →
    *leur*, *these* → *ces*, a *they* left unresolved) to the candidates before it that say
    something, in proportion to their probabilities (in `weights`, keyed by id). Such a pronoun is
    a link to an earlier mention of the same entity, which the ranked list usually holds too:
    *they* → *their* → *the kindergarteners*. Left where it is when nothing before it says anything."""
    for c in cands:
        if c.kind == "event" or c.text.lower() not in LINK_PRONOUNS or not _says_nothing(dists[id(c)]):
            continue
        before = [d for d in cands if d.kind != "event" and (d.sentence, d.start) < (c.sentence, c.start)
                  and not _says_nothing(dists[id(d)]) and weights[id(d)] > 0]
        z = sum(weights[id(d)] for d in before)
        if z <= 0:
            continue
        w = weights[id(c)]
        for d in before:
            weights[id(d)] += w * weights[id(d)] / z
        weights[id(c)] = 0.0


def antecedent_distribution(mixture: dict[str, float], pair: Pair | None = None) -> dict[tuple[str, ...] | None, float]:
    """What a resolved pronoun passes on to a later pronoun that takes it as antecedent: the
    gender (one of the pair's target genders) and number of its own bundles, with their animacy
    where they have one (None for the bare pronoun-role bundle), renormalized; the nonref and
    clause shares say nothing of an entity and are left out. (Passing the clause share on as a
    situation, as situation_translation reads a pronoun translated *ça*, was tried: an object *it*
    with a small clause share then made the next subject *ça*, *j'ai goûté ça … ça goûtait* for
    the fish, *elle* in the reference.)"""
    genders = chosen(pair).target.genders
    out: dict[tuple[str, ...] | None, float] = defaultdict(float)
    for b, w in mixture.items():
        parts = b.split("-")
        if len(parts) >= 4 and parts[2] in genders and parts[3] in ("sing", "plur"):
            animacy = parts[-1] if len(parts) > 4 and parts[-1] in ANIMACY else None
            out[(parts[2], parts[3]) if animacy is None else (parts[2], parts[3], animacy)] += w
        elif len(parts) == 2:
            out[None] += w
    z = sum(out.values())
    return {k: v / z for k, v in out.items()} if z > 0 else {}


def through_chain(gn: tuple[str, str] | str | None, chain: dict | None) -> dict:
    """A candidate's projection as pronoun_mixture reads it, where the candidate is a pronoun
    already resolved (`chain`: what antecedent_distribution passed on, None for any other): the
    chain's features when the translation says nothing, its animacy added to the translation's
    gender and number when it says which (the translated *elle* knows no animacy, its *souris* did);
    SITUATION where the translation took the pronoun as a situation (situation_translation)."""
    if chain is None or gn == SITUATION:
        return {gn: 1.0}
    if gn is None:
        return chain
    kinds = {k[2] for k in chain if k is not None and len(k) > 2 and tuple(k[:2]) == gn}
    return {(gn[0], gn[1], kinds.pop()) if len(kinds) == 1 else gn: 1.0}


def _apt_word(cls: str, apt_pronouns) -> str | None:
    """The class as APT sees it: a word of the target list, OTHER for any other aligned word
    (*le*, *lui*, *y*, a noun), None for nothing aligned."""
    if cls == NONE:
        return None
    return cls if cls in apt_pronouns else OTHER


def gender_shares(mixture: dict[str, float], pair: Pair | None = None) -> dict[str, float]:
    """{gender: w} for each of the pair's target genders ("masc", "fem" for French): the
    mixture's weight on bundles of each antecedent gender."""
    out = {g: 0.0 for g in chosen(pair).target.genders}
    for b, w in mixture.items():
        parts = b.split("-")
        if len(parts) > 2 and parts[2] in out:
            out[parts[2]] += w
    return out


def credit(dist: dict[str, float], cls: str, similar: float = 1.0, shares: dict[str, float] | None = None,
           pair: Pair | None = None) -> float:
    """Σ_r P(r) credit(cls, r): the probability that translating the pronoun as `cls` is judged
    correct against a reference class drawn from `dist`, a similar pair (*ce* for *il*) worth
    `similar` (see credit_matrix). `shares` (the mixture's gender_shares): a personal pronoun earns a
    similar pair's credit only in the share of the mixture whose antecedent is not of the other
    gender. APT counts *il* right for a *ce* reference because impersonal *il* and *ce* alternate
    (*il est / c'est important que*); *il* for a feminine antecedent is not that *il* but the wrong
    gender, and without this it collects *ce*'s mass and outweighs *elle* wherever French favours
    *c'est*. The genders are the pair's target's, each personal class's its `personal_gender`."""
    pair = chosen(pair)
    row = credit_matrix(similar, pair)[cls]
    keep = 1.0
    own = pair.target.personal_gender.get(cls)
    if shares is not None and own is not None:
        keep = 1.0 - sum(shares.get(g, 0.0) for g in pair.target.genders if g != own)
    same = credit_matrix(0.0, pair)[cls]
    return sum(v * dist.get(r, 0.0) * (1.0 if r in same else keep) for r, v in row.items())


def score_class(dist: dict[str, float], cls: str, objective: str = CM_IMPLICIT_OBJECTIVE,
                shares: dict[str, float] | None = None, pair: Pair | None = None) -> float:
    """A pronoun model's score of translating the pronoun as `cls`, from its distribution over
    classes: ln P(cls) ("likelihood"), or ln of its expected credit (`credit`) under one of
    CREDIT_OF_SIMILAR's weights for a similar pair ("credit", "apt", "exact"), gendered by the
    mixture's `shares` where given; each floored as ClassTable.score floors it."""
    if objective == "likelihood":
        return math.log(max(dist.get(cls, 0.0), FLOOR))
    if objective in CREDIT_OF_SIMILAR:
        return math.log(max(credit(dist, cls, CREDIT_OF_SIMILAR[objective], shares, pair), CREDIT_FLOOR))
    raise CadError(f"unknown CM objective {objective!r} (choose from {', '.join(OBJECTIVES)})")


def split_scores(dist: dict[str, float], cls: str, pair: Pair | None = None) -> tuple[float, float]:
    """ln P(form) and the log-odds of `cls` against the likeliest member of its gender family
    (factored.form_split, the pair's target's families; 0 outside a family), each floored as
    ln P(cls) is: the two values of a CoreferenceModel feature with num-features=2."""
    form, member = form_split(dist, cls, chosen(pair).target.gender_families)
    return math.log(max(form, FLOOR)), math.log(max(member, FLOOR))


@lru_cache(maxsize=8)
def credit_matrix(similar: float = 1.0, pair: Pair | None = None) -> dict[str, dict[str, float]]:
    """{candidate class: {reference class: credit}} for the pairs that APT counts as correct: 1 for
    the same word up to its equal group (*ce* = *c'*, *ça* = *cela*) and OTHER for OTHER, `similar`
    for a pair of one similar group (*ce*/*il*, *ce*/*ça*); a dropped pronoun earns nothing. A
    similar pair is worth 1 in C1+C2 accuracy, .5 in APT's own score (w2), 0 in the exact word's.
    The lists are the pair's target's (APT's)."""
    target = chosen(pair).target

    def canon(w: str) -> str:
        return next((g[0] for g in target.apt_equal if w in g), w)

    groups = [{canon(w) for w in g} for g in target.apt_similar]
    out: dict[str, dict[str, float]] = {}
    for c in target.classes:
        out[c] = {}
        a = _apt_word(c, target.apt_pronouns)
        for r in target.classes:
            b = _apt_word(r, target.apt_pronouns)
            if a is None or b is None:
                continue
            a2, b2 = canon(a), canon(b)
            if a2 == b2:
                out[c][r] = 1.0
            elif similar > 0 and any(a2 in g and b2 in g for g in groups):
                out[c][r] = similar
    return out


class ClassTable(PronounModel):
    """{bundle: {class: probability}} over the classes of the pair's target; `prob` backs off to
    the nearest coarser bundle present. The CM model `table` (cad/cm/models.py), read from classes.gz."""

    @classmethod
    def from_file(cls, path: str | os.PathLike, pair: Pair | None = None) -> ClassTable:
        return cls.read(path, pair)

    def __init__(self, probs: dict[str, dict[str, float]], counts: dict[str, float] | None = None,
                 pair: Pair | None = None):
        self.probs = probs
        self.counts = counts or {}
        self.pair = chosen(pair)
        self.classes = self.pair.target.classes

    def distribution(self, bundle: str) -> dict[str, float]:
        b: str | None = bundle
        while b is not None:
            d = self.probs.get(b)
            if d is not None:
                return d
            b = coarser(b)
        return {}

    def prob(self, bundle: str, cls: str) -> float:
        return self.distribution(bundle).get(cls, 0.0)

    def mixture_prob(self, mixture: dict[str, float], cls: str) -> float:
        return sum(w * self.prob(b, cls) for b, w in mixture.items())

    def log_prob(self, mixture: dict[str, float], cls: str) -> float:
        return math.log(max(self.mixture_prob(mixture, cls), FLOOR))

    def expected_credit(self, mixture: dict[str, float], cls: str) -> float:
        """The expected C1+C2 credit of translating the pronoun as `cls` (`credit`, gendered by
        the mixture): minimum Bayes risk under APT's loss instead of the most likely exact word,
        *ce* being right for *il*, *ce* and *ça*."""
        return credit(self.class_distribution(mixture), cls, 1.0, gender_shares(mixture, self.pair), self.pair)

    def score(self, mixture: dict[str, float], cls: str, objective: str = CM_IMPLICIT_OBJECTIVE) -> float:
        """The feature's value: ln P(cls) ("likelihood") or ln of the expected credit ("credit"),
        gendered as score_class genders it."""
        return score_class(self.class_distribution(mixture), cls, objective, gender_shares(mixture, self.pair),
                           self.pair)

    def class_distribution(self, mixture: dict[str, float], tokens: list[str] | None = None,
                           index: int | None = None) -> dict[str, float]:
        """{class: Σ_b w_b P(class | b)}: the pronoun-model interface that the decoder feature and
        the reranker read (the classifier CM's also reads the source sentence; the table does not)."""
        return {c: self.mixture_prob(mixture, c) for c in self.classes}

    @classmethod
    def estimate(cls, counts: dict[str, dict[str, float]], pair: Pair | None = None, factor: bool = False,
                 gender_counts: dict[str, dict[str, float]] | None = None) -> "ClassTable":
        """Witten-Bell along the chain of `coarser` from counts of the finest bundles, over the
        pair's target classes; `factor`: a gendered bundle's class as its form times its gender and
        number (cad/cm/factored.py, the target's gender families), the second factor from
        `gender_counts` where given (each pronoun counted once, whatever its domain's weight: the
        register decides the form, not the agreement)."""
        target = chosen(pair).target
        full = accumulate(counts)
        probs = factored(counts, target.classes, target.gender_families, gender_counts) if factor \
            else witten_bell(full, target.classes)
        return cls(probs, {h: sum(row.values()) for h, row in full.items()}, pair)

    @classmethod
    def estimate_em(cls, instances: "list[tuple[dict[str, float], str] | tuple[dict[str, float], str, float]]",
                    iterations: int = 5, pair: Pair | None = None, factor: bool = False) -> "ClassTable":
        """EM over the latent bundle of each pronoun. Expected counts with the coreference's prior
        weights (the `estimate` above) spread a pronoun's count over every candidate, the wrong ones
        too, which flattens P(elle | it-fem-sing) towards P(elle | it-masc-sing). Here each
        instance's weights become the posterior w_b P(class | b) / Σ_b' w_b' P(class | b') under the
        previous table, and the table is re-estimated from those counts (Witten-Bell as above).
        An instance may carry a third element, its weight (a domain counted several times).
        `factor`: each table factored (estimate), its gender factor counting every instance once."""
        def counts_of(table: ClassTable | None, weighted: bool = True):
            counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
            for inst in instances:
                mix, c = inst[0], inst[1]
                weight = inst[2] if len(inst) > 2 and weighted else 1.0
                if table is None:
                    post = mix
                else:
                    joint = {b: w * table.prob(b, c) for b, w in mix.items()}
                    z = sum(joint.values())
                    post = {b: v / z for b, v in joint.items()} if z > 0 else mix
                for b, w in post.items():
                    counts[b][c] += weight * w
            return counts

        def fit(table: ClassTable | None) -> ClassTable:
            return cls.estimate(counts_of(table), pair, factor, counts_of(table, False) if factor else None)

        table = fit(None)
        for _ in range(iterations):
            table = fit(table)
        return table

    def write(self, path: str | os.PathLike) -> None:
        with atomic_output(path) as fh:
            for b in sorted(self.probs):
                for c in self.classes:
                    fh.write(f"{b} ||| {c} ||| {self.probs[b].get(c, 0.0):.6g} ||| {self.counts.get(b, 0.0):.6g}\n")

    @classmethod
    def read(cls, path: str | os.PathLike, pair: Pair | None = None) -> "ClassTable":
        classes = chosen(pair).target.classes
        probs: dict[str, dict[str, float]] = defaultdict(dict)
        counts: dict[str, float] = {}
        for lineno, line in enumerate(read_lines(path), 1):
            f = line.split(" ||| ")
            if len(f) < 3:
                raise CadError("expected 'bundle ||| class ||| probability [||| count]'", str(path), lineno)
            b, c = f[0].strip(), f[1].strip()
            if c not in classes:
                raise CadError(f"unknown pronoun class {c!r} (classes: {' '.join(classes)})", str(path), lineno)
            try:
                probs[b][c] = float(f[2])
                if len(f) > 3:
                    counts[b] = float(f[3])
            except ValueError:
                raise CadError("malformed number", str(path), lineno) from None
        if not probs:
            raise CadError("empty class table", str(path))
        return cls(dict(probs), counts, pair)
