"""Parts of one kind by name: the decoder's features, the coreference backends, the CM's pronoun
models, the translation systems and the metrics each keep one `Registry`.

A part is one class, registered under its name when its module is imported:

    @BACKENDS.register("mine")
    class Mine(Backend):
        @classmethod
        def from_options(cls, options): ...

or declared by the module that owns the kind as "module:Class" (`declare`), imported only when it is
chosen: cad's command line needs the names of every part at start-up, not their modules (spaCy,
numpy, scikit-learn). An installed distribution adds parts as entry points of the kind's group
(`[options.entry_points]` of its setup.cfg: `cad.coref_backends = mine = package.module:Mine`),
loaded for a name the registry does not know yet; their names come after the registered ones.

A registry is a sequence of its names in that order, so that it serves as argparse's `choices`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.metadata
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from cad.core.errors import CadError

C = TypeVar("C", bound=type)


@functools.lru_cache(maxsize=4)
def _entry_points(path: tuple[str, ...]) -> Any:
    # one scan of the installed distributions per module search path (a test or a plug-in that
    # changes sys.path is seen); the scan reads every distribution's metadata (about 10 ms)
    return importlib.metadata.entry_points()


def installed(group: str) -> list[importlib.metadata.EntryPoint]:
    """The entry points of `group` that installed distributions declare."""
    return list(_entry_points(tuple(sys.path)).select(group=group))


def qualified(part: type | str) -> str:
    """`module.Class` of a class, or of a declaration "module:Class"."""
    if isinstance(part, str):
        return part.replace(":", ".")
    return f"{part.__module__}.{part.__qualname__}"


def load(target: str) -> Any:
    """The object a declaration "module:attribute" names, its module imported."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for name in attr.split("."):
        obj = getattr(obj, name)
    return obj


class Registry:
    """The parts of one kind (`kind` names it in messages), by name in registration order, and
    those of the entry-point `group` after them."""

    def __init__(self, kind: str, group: str):
        self.kind, self.group = kind, group
        self._entries: dict[str, type | str] = {}
        self._declared: dict[str, str] = {}

    def register(self, name: str) -> Callable[[C], C]:
        """Class decorator: the part called `name`."""

        def add(cls: C) -> C:
            self.add(name, cls)
            return cls

        return add

    def add(self, name: str, cls: type) -> None:
        old = self._entries.get(name)
        # a module imported again (importlib.reload) registers a new class object of the same name
        if old is not None and old is not cls and qualified(old) != qualified(cls):
            raise ValueError(f"{self.kind} {name} is registered twice: {qualified(old)} and {qualified(cls)}")
        self._entries[name] = cls

    def declare(self, name: str, target: str) -> None:
        """The part called `name` is the class `target` ("module:Class"), imported when chosen."""
        old = self._entries.get(name)
        if old is not None and qualified(old) != qualified(target):
            raise ValueError(f"{self.kind} {name} is registered twice: {qualified(old)} and {qualified(target)}")
        self._entries.setdefault(name, target)
        self._declared[name] = target

    def declarations(self) -> dict[str, str]:
        """The declared parts: name -> "module:Class" (setup.cfg lists the same as entry points)."""
        return dict(self._declared)

    def find(self, name: str) -> type | None:
        """The class of the part called `name`, imported if it was declared; an installed
        distribution's entry point for a name not registered; None when there is none."""
        entry = self._entries.get(name)
        if isinstance(entry, str):
            cls = load(entry)
            # importing the module may have registered the class itself
            entry = self._entries.get(name)
            entry = self._entries[name] = cls if isinstance(entry, str) else entry
        if entry is None:
            for ep in installed(self.group):
                if ep.name == name:
                    # loading the module registers the class; a class without the decorator is taken as is
                    entry = self._entries.setdefault(name, ep.load())
                    break
        return entry

    def get(self, name: str) -> type:
        """`find`, or a CadError naming the parts there are."""
        cls = self.find(name)
        if cls is None:
            raise CadError(f"unknown {self.kind} {name!r} (choose from {', '.join(self)})")
        return cls

    def names(self) -> list[str]:
        """The registered and declared names in their order, then the installed ones."""
        return list(self._entries) + [n for n in dict.fromkeys(ep.name for ep in installed(self.group))
                                      if n not in self._entries]

    def loaded(self, name: str) -> bool:
        """Whether the part called `name` is in this process already (not only declared or installed)."""
        return not isinstance(self._entries.get(name, ""), str)

    def classes(self) -> Iterator[tuple[str, type]]:
        """Every part's name and class (each declared or installed one imported)."""
        for name in self.names():
            cls = self.find(name)
            if cls is not None:
                yield name, cls

    @contextlib.contextmanager
    def restored(self) -> Iterator[Registry]:
        """A block that registers parts for a while (a test): afterwards the registry holds what it
        held before."""
        saved = dict(self._entries), dict(self._declared)
        try:
            yield self
        finally:
            self._entries, self._declared = saved

    def copy(self) -> Registry:
        """A registry with the same parts, to register more in without changing this one (tests)."""
        new = Registry(self.kind, self.group)
        new._entries, new._declared = dict(self._entries), dict(self._declared)
        return new

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __contains__(self, name: object) -> bool:
        return name in self._entries or any(ep.name == name for ep in installed(self.group))

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.group!r}: {', '.join(self)})"


class Names:
    """Names computed when read (argparse `choices` drawn from a registry: `Names(lambda: ...)`),
    so that a part registered after the parser is built is still a choice."""

    def __init__(self, names: Callable[[], Iterable[str]]):
        self._names = names

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names()))

    def __len__(self) -> int:
        return len(list(self._names()))

    def __contains__(self, name: object) -> bool:
        return name in list(self._names())
