"""A comma-separated choice from an environment variable (CAD_CM_PARTS, CAD_GENDER_SOURCES): the
ablation switches that make passes to every cad it runs."""

from __future__ import annotations

import os
from typing import Iterable

from cad.core.errors import CadError


def env_choices(name: str, default: Iterable[str], allowed: Iterable[str], what: str) -> frozenset[str]:
    """The names listed in $`name` (comma-separated, blanks ignored), or `default` where it is unset;
    a name outside `allowed` is an error naming the variable and the choices (`what`: the kind of name,
    for the message)."""
    value = os.environ.get(name)
    if value is None:
        return frozenset(default)
    allowed = tuple(allowed)
    chosen = frozenset(x.strip() for x in value.split(",") if x.strip())
    unknown = chosen - set(allowed)
    if unknown:
        raise CadError(f"{name}: unknown {what}(s) {', '.join(sorted(unknown))} (choose from {', '.join(allowed)})")
    return chosen
