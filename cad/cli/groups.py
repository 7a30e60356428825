"""The command groups of `cad`, by name, in the order `cad --help` lists them.

A group is one function of its own module, `add(sub, command)`, that adds the group's commands to
argparse's subparsers `sub`; `command` is the one being parsed (None: every command), so that a
group may leave out of its other commands' parsers what is costly to build (the training commands'
sharding options). The built-in groups are declared below as "module:function", imported only when
the parser is built, and only up to the group of the command run: `cad lm` loads the training
commands' module and no other. An installed distribution adds groups as entry points of
`cad.commands` (`name = package.module:add_parsers`), listed after these; a test registers one
with `@COMMAND_GROUPS.register(name)`.

A new group is its module and its line here (setup.cfg's `[options.entry_points]` lists the same,
which tests/test_registries.py checks: an installed cad shows its groups to importlib.metadata).

A command may read its own arguments rather than argparse's (`cad decode` takes Moses's single-dash
options): its parser then only shows it in `cad --help`, and says whose function reads the rest
of the command line with `set_defaults(own_argv="module:function")`, a function of the arguments
after the command's name that returns the exit status (cad/cli/__init__.py).
"""

from __future__ import annotations

from cad.core.registry import Registry

COMMAND_GROUPS = Registry("command group", "cad.commands")

for _name, _target in (("training", "cad.cli.training:add_training_parsers"),
                       ("eval", "cad.cli.eval:add_eval_parser"),
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
