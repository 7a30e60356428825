"""`cad decode`'s options, declared once: each `DecodeOption` gives its spellings (Moses's
single-dash ones kept), the fields of the arguments it sets, how its values are read and checked,
its place in the usage and its help; the moses.ini section a search option overrides, and the
search setting it becomes. The parser (`parse_args`), the usage text (`USAGE`), the arguments'
class (`DecodeArgs`) and the search settings (`search_settings`) are all derived from OPTIONS.

argparse cannot take Moses's spelling (-n-best-list FILE N [distinct], -dl, -tot): the parsing here
is Moses's, an option and its values one after the other, the last of a repeated option winning."""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from typing import Any, Callable

from cad.core.errors import CadError
from cad.core.segments import LONG_LINES
from cad.core.textio import is_uint
from cad.decoder.model import SearchSettings
from cad.defaults import SOURCE_LANGUAGE, TARGET_LANGUAGE

ENGINES = ("native", "python")
DECODERS = ("cad", "moses")
OVERRIDES = "overrides"         # the field of the search options: {canonical flag: text}, checked with moses.ini's


def at_least(minimum: int) -> Callable[[str, str], int]:
    """An integer of at least `minimum`, or a CadError naming the option."""
    def read(opt: str, value: str) -> int:
        try:
            v = int(value)
        except ValueError:
            raise CadError(f"{opt} needs an integer, not {value!r}") from None
        if v < minimum:
            raise CadError(f"{opt} must be at least {minimum}")
        return v
    return read


def ratio(opt: str, value: str) -> float:
    """A probability ratio between 0 and 1."""
    try:
        v = float(value)
    except ValueError:
        raise CadError(f"{opt} needs a number, not {value!r}") from None
    if not 0 <= v <= 1:
        raise CadError(f"{opt} is a probability ratio between 0 and 1, not {value}")
    return v


def one_of(choices: tuple[str, ...], message: str) -> Callable[[str, str], str]:
    def read(opt: str, value: str) -> str:
        if value not in choices:
            raise CadError(f"{opt} must be {message}")
        return value
    return read


def algorithm(opt: str, value: str) -> int:
    v = at_least(0)(opt, value)
    if v not in (0, 1):
        raise CadError("-search-algorithm: cad supports 0 (normal) and 1 (cube pruning)")
    return v


def text(opt: str, value: str) -> str:
    return value


@dataclass(frozen=True)
class DecodeOption:
    """One option: `names`, its canonical spelling first; `fields`, the arguments it sets with
    their defaults (a search option sets `overrides`); `values`, its values as the usage names
    them ("": a flag, which sets its field to True); `read`, a value's reader and check (run when
    parsed; a search option's when the settings are made, with moses.ini's); `help`, its
    paragraph in the usage; `section`, the moses.ini section a search option overrides, and
    `setting`, the SearchSettings attribute it becomes."""

    names: tuple[str, ...]
    fields: tuple[tuple[str, Any], ...]
    values: str = ""
    read: Callable[[str, str], Any] = text
    help: str = ""
    section: str | None = None          # the moses.ini section it overrides (None: none)
    setting: str | None = None          # the SearchSettings attribute of a search option
    take: Callable | None = None        # reads its own values (-n-best-list): (argv, i) -> (fields, next i)

    @property
    def arity(self) -> int:
        return 1 if self.values else 0

    @property
    def usage(self) -> str:
        """Its place in the synopsis: every spelling, then its values."""
        return "[" + "|".join(self.names) + (f" {self.values}" if self.values else "") + "]"


def _nbest(argv: list[str], i: int) -> tuple[dict[str, Any], int]:
    vals = argv[i + 1:i + 4]
    if len(vals) < 2 or not is_uint(vals[1]):
        raise CadError("-n-best-list needs FILE N [distinct]")
    i += 3
    distinct = i < len(argv) and argv[i] == "distinct"
    return {"nbest_file": vals[0], "nbest_size": int(vals[1]), "distinct": distinct}, i + distinct


def _search(names: tuple[str, ...], values: str, read, section: str | None, setting: str,
            help: str = "") -> DecodeOption:
    return DecodeOption(names, ((OVERRIDES, None),), values, read, help, section, setting)


OPTIONS: tuple[DecodeOption, ...] = (
    DecodeOption(("-f", "-config"), (("config", ""),), "moses.ini"),
    DecodeOption(("-input-file", "-i"), (("input_file", None),), "FILE"),
    DecodeOption(("-n-best-list",), (("nbest_file", None), ("nbest_size", 0), ("distinct", False)),
                 "FILE N [distinct]", take=_nbest),
    DecodeOption(("-alignment-output-file",), (("alignment_file", None),), "FILE"),
    _search(("-s", "-stack"), "N", at_least(0), "stack", "stack"),
    _search(("-b", "-beam-threshold"), "X", ratio, "beam-threshold", "beam_threshold"),
    # the model's load reads moses.ini's distortion limit itself: -dl is the command line's only
    _search(("-dl", "-distortion-limit"), "N", at_least(-1), None, "distortion_limit"),
    _search(("-ttable-limit",), "N", at_least(0), "ttable-limit", "ttable_limit"),
    _search(("-search-algorithm",), "0|1", algorithm, "search-algorithm", "search_algorithm"),
    _search(("-cube-pruning-pop-limit", "-cbp"), "N", at_least(1), "cube-pruning-pop-limit", "pop_limit"),
    _search(("-max-trans-opt-per-coverage",), "N", at_least(0), "max-trans-opt-per-coverage", "max_trans_opt"),
    _search(("-translation-option-threshold", "-tot"), "X", ratio, "translation-option-threshold",
            "option_threshold"),
    DecodeOption(("-weight-overwrite",), (("weight_overwrite", None),), "'Name= w ...'"),
    DecodeOption(("-threads", "-th"), (("threads", 1),), "N", at_least(1)),
    DecodeOption(("-include-alignment-in-n-best", "-print-alignment-info-in-n-best"), (("include_alignment", False),),
                 help="-print-alignment-info-in-n-best (also spelt -include-alignment-in-n-best): each n-best "
                      "entry's word alignment."),
    DecodeOption(("-report-segmentation", "-t"), (("report_segmentation", False),),
                 help="-report-segmentation/-t: each phrase's words followed by |first-last| (source positions, "
                      "Moses's format), in the 1-best and the n-best translations, as Moses writes them."),
    DecodeOption(("-print-alignment-info",), (("print_alignment", False),),
                 help="-print-alignment-info: the word alignment after the translation, as "
                      "\"translation ||| 0-0 1-2 ...\"."),
    DecodeOption(("-v", "-verbose"), (("verbose", 0),), "N", at_least(0),
                 help="-v/-verbose N: 1 logs the model's load time on stderr (default 0: nothing). -q: warnings "
                      "only."),
    DecodeOption(("-q", "--quiet"), (("quiet", False),)),
    DecodeOption(("--decoder",), (("decoder", "cad"),), "cad|moses", one_of(DECODERS, "cad or moses")),
    DecodeOption(("--moses-bin",), (("moses_bin", None),), "PATH"),
    DecodeOption(("--engine",), (("engine", "native"),), "native|python",
                 one_of(ENGINES, f"one of {', '.join(ENGINES)}"),
                 help="--engine: cad's search, compiled (native, the default when built; the same output) or in "
                      "Python."),
    DecodeOption(("--raw",), (("raw", False),),
                 help="--raw: the input is raw text: tokenized, then truecased by the truecase-model.SRC beside "
                      "the model's phrase table (cad train writes it; lowercased without one); each 1-best line "
                      "is detruecased and detokenized. The n-best and alignment files keep the model's tokens, "
                      "whose positions they name."),
    DecodeOption(("--src",), (("src", SOURCE_LANGUAGE),), "L"),
    DecodeOption(("--tgt",), (("tgt", TARGET_LANGUAGE),), "L",
                 help="--src/--tgt: the languages of --raw's tokenizer, truecasing models and detokenizer "
                      "(default en, fr)."),
    DecodeOption(("--max-sentence-length",), (("max_sentence_length", 0),), "N", at_least(0)),
    DecodeOption(("--long-sentences",), (("long_sentences", "split"),), "split|pass",
                 one_of(LONG_LINES, f"one of {', '.join(LONG_LINES)}"),
                 help="--max-sentence-length N: a line of more than N words is cut into pieces of at most N "
                      "(ending after punctuation where one is near), translated one by one and joined "
                      "(--long-sentences split, the default), or copied to the output untranslated (pass); a "
                      "warning names the line (default 0: no limit)."),
)

BY_NAME = {name: o for o in OPTIONS for name in o.names}
HELP = ("-h", "--help", "-help")

# the arguments: one field per option's field, in the table's order (a search option's `overrides`)
DecodeArgs = make_dataclass("DecodeArgs", [
    (name, Any, field(default_factory=dict) if name == OVERRIDES else field(default=default))
    for name, default in dict.fromkeys(f for o in OPTIONS for f in o.fields)])


def _wrap(words: list[str], first: str, indent: str, width: int = 108) -> list[str]:
    lines, line = [], first
    for w in words:
        if len(line) + 1 + len(w) > width and line.strip():
            lines.append(line)
            line = indent + w
        else:
            line = f"{line} {w}" if line.strip() else line + w
    return lines + [line]


def usage() -> str:
    """The usage text: the synopsis of every option, then what the command does and each option's help."""
    synopsis = _wrap([o.usage[1:-1] if o.names[0] == "-f" else o.usage for o in OPTIONS], "usage: cad decode",
                     "       ")
    about = ("Reads one tokenized sentence per line (stdin or -input-file), writes translations to stdout in order, "
             "each written and flushed (with its n-best and alignment lines) as soon as it is done; a blank line "
             "gives an empty line. Ctrl-C stops: the finished lines stay, the exit status is 130.")
    paragraphs = [about] + [o.help for o in OPTIONS if o.help]
    return "\n".join(synopsis + [line for p in paragraphs for line in _wrap(p.split(), "", "")])


USAGE = usage()


def parse_args(argv: list[str]):
    """DecodeArgs from Moses-style arguments; -h prints the usage and exits; a CadError names an
    unknown option, a missing or wrong value."""
    got: dict[str, Any] = {}
    overrides: dict[str, str] = {}
    i = 0
    while i < len(argv):
        opt = argv[i]
        if opt in HELP:
            print(USAGE)
            raise SystemExit(0)
        o = BY_NAME.get(opt)
        if o is None:
            raise CadError(f"unknown option {opt}\n{USAGE}")
        if o.take is not None:
            values, i = o.take(argv, i)
            got.update(values)
            continue
        if o.arity and i + 1 >= len(argv):
            raise CadError(f"option {opt} needs a value")
        value = argv[i + 1] if o.arity else ""
        canonical = o.names[0]
        if o.setting is not None:
            overrides[canonical] = value            # checked with moses.ini's in search_settings
        else:
            got[o.fields[0][0]] = o.read(canonical, value) if o.arity else True
        i += 1 + o.arity
    a = DecodeArgs(**got, **{OVERRIDES: overrides})
    if not a.config:
        raise CadError(f"-f moses.ini is required\n{USAGE}")
    if a.raw and (a.report_segmentation or a.print_alignment):
        raise CadError("--raw writes detokenized text: -report-segmentation and -print-alignment-info name "
                       "token positions (use the alignment or n-best files)")
    return a


def search_settings(a, other: dict[str, list[str]]) -> SearchSettings:
    """The search settings: moses.ini's sections first, then the command line, as Moses does."""
    s = SearchSettings()
    values = {o.names[0]: other[o.section][0] for o in OPTIONS if o.section and other.get(o.section)}
    values.update(getattr(a, OVERRIDES))
    for flag, value in values.items():
        o = BY_NAME[flag]
        setattr(s, o.setting, o.read(flag, value))
    return s
