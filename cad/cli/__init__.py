"""The `cad` command line: the top-level parser; the training commands (cad/cli/training.py), then
each other command group in a module of its own (decode, coref, cm, translate, experiments, eval,
rank, tune, plm, view, serve), registered by name in COMMAND_GROUPS. Every handler imports what it runs when it runs,
so that `cad` starts without loading spaCy, scikit-learn or a model it will not use."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import logging
import os
import sys

from cad import __version__
from cad.core.errors import CadError
from cad.core.registry import Registry
from cad.cli.training import TRAINING_COMMANDS, add_training_parsers
from cad.core.cliargs import check_stdio

log = logging.getLogger("cad")


# The command groups beside the training commands, each a function of its module that adds the group's
# commands to the top-level parser (`add(sub)`), in the order `cad --help` lists them; imported only
# when the whole parser is built. An installed distribution adds commands as entry points of the group
# `cad.commands` (`name = package.module:add_parsers`).
COMMAND_GROUPS = Registry("command group", "cad.commands")
for _name, _target in (("eval", "cad.cli.eval:add_eval_parser"),
                       ("coref", "cad.cli.coref:add_coref_parsers"),
                       ("postedit", "cad.cli.translate:add_postedit_parser"),
                       ("cm", "cad.cli.cm:add_cm_parsers"),
                       ("score", "cad.cli.contrastive:add_score_parser"),
                       ("contrastive", "cad.cli.contrastive:add_contrastive_parsers"),
                       ("translate", "cad.cli.translate:add_translate_parser"),
                       ("tune", "cad.cli.tune:add_tune_parsers"),
                       ("plm", "cad.cli.plm:add_plm_parsers"),
                       ("view", "cad.cli.view:add_view_parser"),
                       ("serve", "cad.cli.serve:add_serve_parser")):
    COMMAND_GROUPS.declare(_name, _target)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command` one of the training commands defined here, only those, and
    the sharding options only on `command`'s own parser (the other groups' parsers import their
    modules, and the sharding options the sharding package: a tenth of a second that `cad lm` need
    not pay). `command`'s parser is the same either way."""
    p = argparse.ArgumentParser(prog="cad", description="Coreference-aware MT of pronouns, with a "
                                "Moses-compatible phrase-based toolkit.")
    p.add_argument("--version", action="version", version=f"cad {__version__}")
    p.add_argument("-q", "--quiet", action="store_true", help="only print warnings and errors")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    add_training_parsers(sub, command)
    if command in set(sub.choices):
        return p
    for name in COMMAND_GROUPS:
        COMMAND_GROUPS.get(name)(sub)
    return p


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
        # `cad decode` takes Moses's single-dash options, which argparse cannot express
        if argv and argv[0] == "decode":
            from cad.cli.decode import decode_main

            try:
                return decode_main(argv[1:])
            except CadError as exc:
                print(f"cad: error: {exc}", file=sys.stderr)
                return 2 if "unknown option" in str(exc) else 1
        args = build_parser(argv[0] if argv else None).parse_args(argv)
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
