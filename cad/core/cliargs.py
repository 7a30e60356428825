"""Command-line arguments that name text files: '-' for standard input or output, declared once so
that every such option says so in its help and no two of one command take the same stream."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from cad.core.errors import CadError
from cad.core.textio import STDIO, check_output_path, is_stdio


def _register_stdio(parser, key: str, action) -> None:
    name = action.option_strings[0] if action.option_strings else action.dest
    parser.set_defaults(**{key: (*(parser.get_default(key) or ()), (action.dest, name))})


def add_input_argument(parser, *flags: str, help: str, **kw):
    """An argument naming a text file to read, where '-' means standard input."""
    action = parser.add_argument(*flags, help=f"{help} ('-' = stdin)", **kw)
    _register_stdio(parser, "_stdin_options", action)
    return action


def output_path(text: str) -> str:
    """argparse type of an output: a directory or an unwritable place is refused at once, before
    the command works for nothing."""
    try:
        check_output_path(text)
    except CadError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_output_argument(parser, *flags: str, help: str, **kw):
    """An argument naming a text file to write, where '-' means standard output."""
    kw.setdefault("type", output_path)
    suffix = "(default '-': stdout)" if kw.get("default") == STDIO else "('-' = stdout)"
    action = parser.add_argument(*flags, help=f"{help} {suffix}", **kw)
    _register_stdio(parser, "_stdout_options", action)
    return action


def check_stdio(args) -> None:
    """Refuse two inputs (or two outputs) of one command that are both '-'."""
    for key, stream in (("_stdin_options", "standard input"), ("_stdout_options", "standard output")):
        named = []
        for dest, name in getattr(args, key, ()):
            value = getattr(args, dest, None)
            named += [name] * sum(1 for v in (value if isinstance(value, list) else [value]) if is_stdio(v))
        if len(named) > 1:
            raise CadError(f"{' and '.join(named)} are {'both' if len(named) == 2 else 'all'} '-': "
                           f"only one of them can be {stream}")


def refuse_stdout(path: str | os.PathLike | None, option: str) -> None:
    """For a command that prints its report on standard output: its files cannot go there too."""
    if is_stdio(path):
        raise CadError(f"{option} -: this command prints its report on standard output; give a file name")


def run_module(name: str, parser, body, argv: list[str] | None = None) -> int:
    """`python -m` entry points: parse, log to stderr (warnings only with -q/--quiet), refuse two
    '-' streams, run body(args); a CadError is printed as `name: error: ...` with exit status 1."""
    a = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if getattr(a, "quiet", False) else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    try:
        check_stdio(a)
        return body(a) or 0
    except CadError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 1


def agreement_weights(text: str) -> tuple[float, float] | None:
    """--agreement-weights "A,D" (the agreeing predicates' weight, the disagreeing ones'), or 0: none."""
    if text.strip() in ("0", "none"):
        return None
    try:
        got = tuple(float(x) for x in text.split(","))
    except ValueError:
        got = ()
    if len(got) != 2 or min(got) < 0:
        raise CadError(f"--agreement-weights {text!r}: two weights >= 0, A,D (or 0: no agreement feature)")
    return got
