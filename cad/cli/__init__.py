"""The `cad` command line: the top-level parser, made of the command groups (cad/cli/groups.py), each
in a module of its own (training, eval, coref, cm, translate, contrastive, tune, plm, view, serve,
...). Every handler imports what it runs when it runs, so that `cad` starts without loading spaCy,
scikit-learn or a model it will not use."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import logging
import os
import sys
from collections.abc import Callable

from cad import __version__
from cad.core.errors import CadError
from cad.core.registry import load
from cad.cli.groups import COMMAND_GROUPS
from cad.core.cliargs import check_stdio

log = logging.getLogger("cad")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command`, the groups in their order up to the one that adds it, so
    that a command does not import the groups after its own (`cad lm`: the training commands'
    module alone). Each group is told `command`, and may leave out of its other commands' parsers
    what is costly to build: `command`'s parser is the same either way, and a command no group
    adds gets the whole parser, whose error lists every command."""
    p = argparse.ArgumentParser(prog="cad", description="Coreference-aware MT of pronouns, with a "
                                "Moses-compatible phrase-based toolkit.")
    p.add_argument("--version", action="version", version=f"cad {__version__}")
    p.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_GROUPS:
        COMMAND_GROUPS.get(name)(sub, command)
        if command in sub.choices:
            break
    return p


def own_argv(parser: argparse.ArgumentParser, command: str) -> Callable[[list[str]], int] | None:
    """The function that reads `command`'s arguments itself, if its parser names one (`own_argv`,
    cad/cli/groups.py): argparse cannot express Moses's single-dash options of `cad decode`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            target = action.choices[command].get_default("own_argv")
            return load(target) if target else None
    return None


QUIET = ("-q", "--quiet")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # -q anywhere on the line (before a '--'), before or after the command
    end = argv.index("--") if "--" in argv else len(argv)
    quiet = any(x in QUIET for x in argv[:end])
    argv = [x for x in argv[:end] if x not in QUIET] + argv[end:]
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO,
                        format="%(asctime)s %(name)s: %(message)s", datefmt="%H:%M:%S")
    try:
        parser = build_parser(argv[0] if argv else None)
        run = own_argv(parser, argv[0]) if argv else None
        if run is not None:
            try:
                return run(argv[1:])
            except CadError as exc:
                # a refused option is a usage error, as argparse's are
                print(f"cad: error: {exc}", file=sys.stderr)
                return 2 if "unknown option" in str(exc) else 1
        args = parser.parse_args(argv)
        args.quiet = quiet
        check_stdio(args)
        args.func(args)
    except CadError as exc:
        print(f"cad: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # what was finished is written (the streaming commands flush each sentence or document)
        print("cad: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of standard output went away (`cad ... | head`): stop quietly, as Unix tools do
        with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO):
            raise
        # a full disk while a stage writes: the outputs are written beside their targets and renamed
        # only when whole (cad.core.textio), so nothing half-written is left, and a rerun resumes
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"cad: error: {where}cannot write: {exc.strerror}", file=sys.stderr)
        return 1
    return 0
