"""Witten-Bell estimation of the class table along its bundle chains, joint or factored.

The joint table conditions every class on the whole bundle (`it-copa-fem-sing-anim`) and backs off
along one chain, the last part first (`it-copa-fem-sing`, `it-copa-fem`, `it-copa`, `it`): with the
construction as the bundle's role, the evidence of a feminine antecedent is split over some ten
roles, and a sparse `it-copa-fem-sing` backs off to `it-copa`, which knows no gender and says *ce*.

French decides the two things apart: the construction and the referent decide the pronoun's form
(a personal pronoun, *ce*, *ça*, an object clitic, nothing), the antecedent decides which personal
pronoun (*il*, *elle*, *ils*, *elles*) or which gendered clitic (*le*, *la*). Those families of
classes are a fact of the target language (`Language.gender_families`, cad/lang: French's are
`personal` and `clitic`; a target that declares none gets the joint table back). So the factored
table reads, for a bundle that names an antecedent's gender (`-masc`/`-fem`/`-neut`),

    P(class | bundle) = P(form | bundle) · P(class | form, the bundle without its role)

where the form distribution is the joint one's with the gendered classes of a family pooled, on the
same chain, and the second factor is estimated from every role's counts together (chain
`it-fem-sing-anim`, `it-fem-sing`, `it-fem`, `it`, then uniform over the family), each pronoun
counted once: a domain counted several times (`cad cm build --domain-weight sated=3`) weighs on the
form, which is a matter of register (TED's speakers say *ça*), not on the agreement, which is not
(the TED talks' *they* after a feminine plural is *ils* in 43% of the weighted counts, against 26%
in the corpus counted once). A bundle without
a gender (`-nonref`, `-event`, the bare pronoun-role) keeps its joint distribution: there the form
is all there is to choose (impersonal *il* is a form, not a gender).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping

from cad.lang.facts import GENDERS

Counts = dict[str, dict[str, float]]


def coarser(bundle: str) -> str | None:
    head, sep, _ = bundle.rpartition("-")
    return head if sep else None


def accumulate(counts: Counts, parent=coarser) -> Counts:
    """Each bundle's counts added to it and to every bundle up its chain of `parent`."""
    full: Counts = defaultdict(lambda: defaultdict(float))
    for bundle, row in counts.items():
        h: str | None = bundle
        while h is not None:
            for c, v in row.items():
                full[h][c] += v
            h = parent(h)
    return full


class WittenBell:
    """P(class | bundle) from accumulated counts: Witten-Bell interpolated with the parent bundle's
    distribution, the root's parent uniform over `classes`; a bundle without counts is its parent's."""

    def __init__(self, full: Counts, classes: Iterable[str], parent=coarser):
        self.full, self.classes, self.parent = full, tuple(classes), parent
        self.uniform = {c: 1.0 / len(self.classes) for c in self.classes}
        self.probs: Counts = {}

    def __call__(self, h: str) -> dict[str, float]:
        if h not in self.probs:
            up_bundle = self.parent(h)
            up = self.uniform if up_bundle is None else self(up_bundle)
            own = self.full.get(h, {})
            total = sum(own.values())
            kinds = sum(1 for v in own.values() if v > 0)
            if total <= 0:
                self.probs[h] = dict(up)
            else:
                self.probs[h] = {c: (own.get(c, 0.0) + kinds * up[c]) / (total + kinds) for c in self.classes}
        return self.probs[h]


def witten_bell(full: Counts, classes: Iterable[str], parent=coarser) -> Counts:
    """{bundle: {class: P}} for every bundle of `full` (WittenBell)."""
    dist = WittenBell(full, classes, parent)
    return {h: dist(h) for h in list(full)}


def is_gendered(bundle: str) -> bool:
    parts = bundle.split("-")
    return len(parts) >= 3 and parts[2] in GENDERS


def without_role(bundle: str) -> str:
    """`it-copa-fem-sing-anim` -> `it-fem-sing-anim`: what the antecedent says, whatever the construction."""
    parts = bundle.split("-")
    return "-".join([parts[0], *parts[2:]])


def factored(counts: Counts, classes: Iterable[str], families: Mapping[str, str],
             gender_counts: Counts | None = None) -> Counts:
    """{bundle: {class: P}} for every bundle up the chains of `counts` (the finest bundles' counts):
    the gendered ones factored into form and gender (the module's docstring), the others joint.
    `families`: {class: its family} for the classes whose choice within the family the antecedent's
    gender and number make (the target's `gender_families`). `gender_counts` (default `counts`):
    the counts the second factor is estimated from."""
    classes = tuple(classes)
    full = accumulate(counts)
    probs = witten_bell(full, classes)
    forms = tuple(dict.fromkeys(families.get(c, c) for c in classes))
    form = WittenBell({h: _pooled(row, families) for h, row in full.items()}, forms)
    members = {}
    for family in set(families.values()):
        chosen = tuple(c for c in classes if families.get(c) == family)
        # from the finest bundles' counts: `full` holds each of them again up its chain
        own: Counts = defaultdict(lambda: defaultdict(float))
        for b, row in (counts if gender_counts is None else gender_counts).items():
            if is_gendered(b):
                for c, v in row.items():
                    if c in chosen:
                        own[without_role(b)][c] += v
        members[family] = WittenBell(accumulate(own), chosen)
    for h in full:
        if is_gendered(h):
            f, g = form(h), without_role(h)
            probs[h] = {c: f[families[c]] * members[families[c]](g)[c] if c in families else f[c] for c in classes}
    return probs


def _pooled(row: dict[str, float], families: Mapping[str, str]) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for c, v in row.items():
        out[families.get(c, c)] += v
    return out


def form_split(dist: Mapping[str, float], cls: str, families: Mapping[str, str]) -> tuple[float, float]:
    """(P(form), P(cls | form) / max over the family's members of P(member | form)) of a class
    distribution: the form is the class's family (`families`, the target's gender families: *il*,
    *elle*, *ils*, *elles* are one personal form) or the class itself, and the second factor is how
    far the class falls behind the member the antecedent asks for: 1 for that member and for a class
    without a family. The decoder feature with two values scores their logarithms apart
    (cad/cm/feature.py), so that the construction's choice of a personal pronoun and the
    antecedent's choice among them get a weight each. Against the likeliest member rather than
    P(cls | form) itself, which is below 1 for every member: a gender weight would then make the
    right personal pronoun dearer than *ce* or *ça*, which have no member to pay for."""
    family = families.get(cls)
    if family is None:
        return dist.get(cls, 0.0), 1.0
    members = [p for c, p in dist.items() if families.get(c) == family]
    form, best = sum(members), max(members, default=0.0)
    return form, (dist.get(cls, 0.0) / best if best > 0 else 0.0)
