"""The command groups of `cad` (cad/cli/groups.py): a group is one function defined in this
module, registered under a name and run by `cad` without any cad module naming it; `cad --help`
lists every group's commands in the groups' order; a command may read its own arguments, as
`cad decode` reads Moses's options."""

from __future__ import annotations

import argparse
import re

import pytest

from cad.cli import build_parser, main
from cad.cli.groups import COMMAND_GROUPS
from cad.cli.training import TRAINING_COMMANDS
from cad.core.errors import CadError

TOLD: list[str | None] = []


def add_greeting_parsers(sub, command: str | None = None) -> None:
    """The fixture command group: `cad greet NAME` and `cad greet-back`; it notes which command it
    was told is parsed."""
    TOLD.append(command)
    s = sub.add_parser("greet", help="greet someone")
    s.add_argument("name", help="who")
    s.set_defaults(func=lambda a: print(f"hello {a.name}"))
    s = sub.add_parser("greet-back", help="Moses-style options, read by the command itself")
    s.set_defaults(own_argv=f"{__name__}:greet_back")


def greet_back(argv: list[str]) -> int:
    """`cad greet-back ARGS`: the arguments as given (single-dash options and all), or a usage error."""
    if "-no-such-option" in argv:
        raise CadError("unknown option -no-such-option")
    print("back", *argv)
    return 3


@pytest.fixture
def greeting():
    """The fixture group registered for one test."""
    with COMMAND_GROUPS.restored():
        COMMAND_GROUPS.register("greet")(add_greeting_parsers)
        TOLD.clear()
        yield


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    return list(next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices)


def test_a_command_group_from_this_module_is_a_command(greeting, capsys):
    assert list(COMMAND_GROUPS)[-1] == "greet"
    assert main(["greet", "you"]) == 0 and TOLD == ["greet"]
    assert capsys.readouterr().out == "hello you\n"
    # after the built-in groups, which are built first (their commands are the command line's names)
    assert _commands(build_parser("greet"))[-2:] == ["greet", "greet-back"]
    # a command that reads its own arguments gets them untouched, -q taken out as for any command
    assert main(["greet-back", "-f", "x.ini", "-q", "-n-best-list", "nb", "5"]) == 3
    assert capsys.readouterr().out == "back -f x.ini -n-best-list nb 5\n"
    assert main(["greet-back", "-no-such-option"]) == 2
    assert "cad: error: unknown option -no-such-option" in capsys.readouterr().err


def test_a_group_registered_for_a_test_is_gone_after_it(capsys):
    with COMMAND_GROUPS.restored():
        COMMAND_GROUPS.register("greet")(add_greeting_parsers)
    assert "greet" not in COMMAND_GROUPS
    with pytest.raises(SystemExit):
        main(["greet", "you"])
    assert "invalid choice: 'greet'" in capsys.readouterr().err


def test_cad_help_lists_every_group_s_commands_in_the_groups_order(greeting, capsys):
    """Each group adds the commands of its name (the training group: the pipeline's stages), and
    `cad --help` lists them all, group after group in COMMAND_GROUPS's order."""
    added = []
    for name in COMMAND_GROUPS:
        sub = argparse.ArgumentParser().add_subparsers()
        COMMAND_GROUPS.get(name)(sub, None)
        own = list(sub.choices)
        if name == "training":
            assert own == list(TRAINING_COMMANDS)
        else:
            assert name in own and all(c == name or c.startswith(name + "-") for c in own), name
        added += own
    assert list(COMMAND_GROUPS)[0] == "training" and "serve" in COMMAND_GROUPS
    assert _commands(build_parser()) == added
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    listed = re.findall(r"^    (\S+)", capsys.readouterr().out, flags=re.M)
    assert listed == added


def test_the_decode_command_reads_its_own_options(capsys):
    """`cad decode -h` is cad/cli/decode.py's usage, not argparse's; its line in `cad --help` is
    the training group's."""
    from cad.cli import own_argv
    from cad.cli.decode import decode_main

    assert own_argv(build_parser("decode"), "decode") is decode_main
    assert own_argv(build_parser("decode"), "lm") is None
    with pytest.raises(SystemExit) as done:
        main(["decode", "-h"])
    assert done.value.code == 0 and capsys.readouterr().out.startswith("usage: cad decode -f|-config moses.ini")
