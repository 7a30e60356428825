"""The decoder's feature registry: a feature is one class that registers itself under its moses.ini
type and builds itself from its line; `cad decode` then decodes with it without any decoder
module naming it."""

from __future__ import annotations

import configparser
import importlib.metadata
import subprocess
import sys
import textwrap

import pytest

from cad.cli import main
from cad.core.errors import CadError
from cad.decoder import registry
from cad.decoder.features import StatelessFeature
from cad.decoder.model import DecoderModel, SearchSettings
from cad.decoder.search import Decoder
from cad.decoder.stateful import StatefulFeature
from cad.lm.arpa import write_arpa
from cad.lm.kneser_ney import estimate

from conftest import REPO, write

BUILT_IN = {"UnknownWordPenalty", "WordPenalty", "PhrasePenalty", "PhraseDictionaryMemory", "LexicalReordering",
            "Distortion", "KENLM"}


@registry.register("TargetWordBonus")
class TargetWordBonus(StatelessFeature):
    """The fixture feature: how often an option's target words hold the word its line names."""

    def __init__(self, slot, word: str):
        super().__init__(slot)
        self.word = word

    @classmethod
    def from_line(cls, line, slot, config_path, loading):
        if "word" not in line.args:
            raise CadError(f"{line.name} needs word=", config_path, line.line)
        return cls(slot, line.args["word"])

    def evaluate(self, opt):
        return (float(opt.words.count(self.word)),)


@registry.register("RepeatPenalty")
class RepeatPenalty(StatefulFeature):
    """A stateful feature the compiled core does not know: -1 each time a phrase starts with the
    word the previous phrase ended with (its state: the last target word)."""

    def empty_state(self):
        return "<s>"

    def values(self, state, last_start, last_end, opt, complete):
        return ((0, -1.0),) if opt.words[0] == state else ()

    def evaluate(self, state, last_start, last_end, opt, complete):
        v = self.values(state, last_start, last_end, opt, complete)
        return (self.weights[0] * v[0][1] if v else 0.0), opt.words[-1]


def write_model(tmp_path, pt: str, lm_sents: list[str], features: str, weights: str) -> str:
    """A moses.ini written by hand: the baseline features, then `features` and `weights` lines."""
    write(tmp_path / "pt", pt)
    write_arpa(estimate([s.split() for s in lm_sents], 2), tmp_path / "lm.arpa")
    ini = tmp_path / "moses.ini"
    write(ini, textwrap.dedent(f"""\
        [input-factors]
        0

        [mapping]
        0 T 0

        [distortion-limit]
        0

        [feature]
        UnknownWordPenalty
        WordPenalty
        PhrasePenalty
        PhraseDictionaryMemory name=TranslationModel0 num-features=4 path={tmp_path / 'pt'} table-limit=20
        Distortion
        KENLM name=LM0 factor=0 path={tmp_path / 'lm.arpa'} order=2
        """) + features + textwrap.dedent("""
        [weight]
        UnknownWordPenalty0= 1
        WordPenalty0= 0
        PhrasePenalty0= 0
        TranslationModel0= 1 1 1 1
        Distortion0= 0
        LM0= 0.1
        """) + weights)
    return str(ini)


def decode(capsys, ini: str, tmp_path, sentences: list[str], *extra: str) -> tuple[list[str], list[str]]:
    """`cad decode` in this process: the 1-best lines and the n-best list's lines."""
    write(tmp_path / "in", "\n".join(sentences) + "\n")
    nbest = tmp_path / "nbest"
    capsys.readouterr()
    assert main(["decode", "-f", ini, "-input-file", str(tmp_path / "in"), "-n-best-list", str(nbest), "10",
                 *extra]) == 0
    return capsys.readouterr().out.splitlines(), nbest.read_text().splitlines()


def test_a_stateless_feature_from_a_test_module_decodes_from_its_moses_ini_line(tmp_path, capsys):
    pt = "a ||| x ||| 0.6 0.6 0.6 0.6\na ||| y ||| 0.4 0.4 0.4 0.4\nb ||| z ||| 0.5 0.5 0.5 0.5\n"
    ini = write_model(tmp_path, pt, ["x z", "y z"], "TargetWordBonus name=Bonus0 word=y\n", "Bonus0= 0\n")
    best, nbest = decode(capsys, ini, tmp_path, ["a b"])
    assert best == ["x z"]
    # the feature's values in the n-best list: 1 for the option translating a as y, 0 otherwise
    by_text = {line.split(" ||| ")[1]: line.split(" ||| ")[2] for line in nbest}
    assert set(by_text) == {"x z", "y z"}
    assert "Bonus0= 1 " in by_text["y z"] + " " and "Bonus0= 0 " in by_text["x z"] + " "
    # its weight moves the 1-best, on the command line and in the moses.ini alike
    best, nbest = decode(capsys, ini, tmp_path, ["a b"], "-weight-overwrite", "Bonus0= 5")
    assert best == ["y z"] and nbest[0].split(" ||| ")[1] == "y z"
    ini = write_model(tmp_path, pt, ["x z", "y z"], "TargetWordBonus name=Bonus0 word=y\n", "Bonus0= 5\n")
    assert decode(capsys, ini, tmp_path, ["a b"])[0] == ["y z"]
    # the total of each n-best line is the weighted sum of its features, the bonus included
    for line in nbest:
        _, _, feats, total = line.split(" ||| ")
        values = [float(v) for v in feats.split() if not v.endswith("=")]
        weights = [1, 0, 0, 1, 1, 1, 1, 0, 0.1, 5]
        assert sum(w * v for w, v in zip(weights, values)) == pytest.approx(float(total), abs=1e-6)


def test_a_feature_reads_its_own_line(tmp_path, capsys):
    pt = "a ||| x ||| 0.5 0.5 0.5 0.5\n"
    ini = write_model(tmp_path, pt, ["x"], "TargetWordBonus name=Bonus0\n", "Bonus0= 1\n")
    with pytest.raises(CadError, match="Bonus0 needs word=") as err:
        DecoderModel.load(ini)
    assert err.value.path == ini and err.value.line == 17


def test_an_unknown_feature_type_names_the_file_and_line(tmp_path, capsys):
    ini = write_model(tmp_path, "a ||| x ||| 0.5 0.5 0.5 0.5\n", ["x"], "NoSuchFeature name=N0\n", "N0= 1\n")
    with pytest.raises(CadError, match="feature NoSuchFeature is not supported by cad's decoder") as err:
        DecoderModel.load(ini)
    assert err.value.path == ini and err.value.line == 17
    for name in BUILT_IN | {"TargetWordBonus"}:
        assert name in err.value.message
    capsys.readouterr()
    assert main(["decode", "-f", ini, "-input-file", str(tmp_path / "pt")]) == 1
    assert f"{ini}:17: feature NoSuchFeature is not supported" in capsys.readouterr().err


def test_the_registry_lists_the_built_in_features():
    import cad.cm.feature  # noqa: F401  (registers the CoreferenceModel)

    names = registry.supported()
    assert BUILT_IN | {"CoreferenceModel", "TargetWordBonus", "RepeatPenalty"} <= set(names)
    assert names == sorted(names)
    assert registry.feature_class("CoreferenceModel") is cad.cm.feature.CoreferenceModelFeature
    assert registry.feature_class("TargetWordBonus") is TargetWordBonus


def test_a_type_registers_once(monkeypatch):
    monkeypatch.setattr(registry, "FEATURES", registry.FEATURES.copy())

    class Other(StatelessFeature):
        pass

    with pytest.raises(ValueError, match="registered twice"):
        registry.register("WordPenalty")(Other)


def test_only_the_core_s_own_classes_have_a_native_kind(tmp_path):
    ini = write_model(tmp_path, "a ||| x ||| 0.5 0.5 0.5 0.5\n", ["x"], "", "")
    model = DecoderModel.load(ini)
    kinds = {type(f).__name__: registry.native_kind(f) for f in model.stateful}
    assert kinds == {"Distortion": 0, "KenLMFeature": 2}

    class MyDistortion(type(model.stateful[0])):    # may score what the core does not compute
        pass

    assert registry.native_kind(MyDistortion(model.stateful[0].slot)) is None
    assert all(registry.native_kind(f) is None for f in model.stateless)


def test_a_stateful_feature_unknown_to_the_core_runs_the_python_search(tmp_path, capsys):
    pt = "a ||| x ||| 0.9 0.9 0.9 0.9\nb ||| x ||| 0.6 0.6 0.6 0.6\nb ||| y ||| 0.3 0.3 0.3 0.3\n"
    outputs = {}
    for weight in (0, 5):
        ini = write_model(tmp_path, pt, ["x x", "x y"], "RepeatPenalty name=Repeats0\n", f"Repeats0= {weight}\n")
        model = DecoderModel.load(ini, settings=SearchSettings())
        assert Decoder(model)._core() is None and any(isinstance(f, RepeatPenalty) for f in model.stateful)
        for engine in ("native", "python"):
            outputs[(weight, engine)] = decode(capsys, ini, tmp_path, ["a b", "b a", "a b a"], "--engine", engine)
        assert outputs[(weight, "native")] == outputs[(weight, "python")]
    assert outputs[(0, "python")][0][0] == "x x" and outputs[(5, "python")][0][0] == "x y"
    assert any("Repeats0= -1" in line for line in outputs[(0, "python")][1])
    # without the feature, the same model runs on the compiled core
    ini = write_model(tmp_path, pt, ["x x", "x y"], "", "")
    from cad.decoder import native

    if native.available():
        assert Decoder(DecoderModel.load(ini))._core() is not None


def test_an_installed_distribution_s_feature_is_found_by_its_entry_point(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(registry, "FEATURES", registry.FEATURES.copy())
    write(tmp_path / "site" / "regfixture_plugin.py", textwrap.dedent("""\
        from cad.decoder.features import StatelessFeature


        class Halves(StatelessFeature):
            def evaluate(self, opt):
                return (0.5 * len(opt.words),)
        """))
    dist = tmp_path / "site" / "regfixture_plugin-1.0.dist-info"
    write(dist / "METADATA", "Metadata-Version: 2.1\nName: regfixture-plugin\nVersion: 1.0\n")
    write(dist / "entry_points.txt", f"[{registry.ENTRY_POINTS}]\nHalves = regfixture_plugin:Halves\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "regfixture_plugin", raising=False)
    assert "Halves" in registry.supported() and not registry.FEATURES.loaded("Halves")
    ini = write_model(tmp_path, "a ||| x y ||| 0.5 0.5 0.5 0.5\n", ["x y"], "Halves\n", "Halves0= 1\n")
    nbest = decode(capsys, ini, tmp_path, ["a"])[1]
    assert nbest and nbest[0].split(" ||| ")[2].endswith("Halves0= 1")
    assert registry.feature_class("Halves").__module__ == "regfixture_plugin"


def test_setup_cfg_declares_the_coreference_model_entry_point():
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(REPO / "setup.cfg")
    declared = {}
    for line in cfg["options.entry_points"][registry.ENTRY_POINTS].strip().splitlines():
        name, _, value = line.partition("=")
        declared[name.strip()] = value.strip()
    assert set(declared) == {"CoreferenceModel"}
    ep = importlib.metadata.EntryPoint("CoreferenceModel", declared["CoreferenceModel"], registry.ENTRY_POINTS)
    assert ep.load() is registry.feature_class("CoreferenceModel")


def _fresh(code: str) -> str:
    """`code` in a new interpreter that sees no entry points (an uninstalled checkout)."""
    prelude = ("import importlib.metadata as md\n"
               "md.entry_points = lambda **kw: md.EntryPoints([])\n")
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_decoder_names_no_coreference_model_and_cad_decode_registers_it():
    assert _fresh("""
        import sys
        import cad.decoder, cad.decoder.native, cad.decoder.nbest, cad.decoder.serialize, cad.decoder.moses_runner
        print(sorted(m for m in sys.modules if m.startswith("cad.cm")))
        """) == "[]"
    assert _fresh("""
        import cad.cli.decode
        from cad.decoder.registry import feature_class
        print(feature_class("CoreferenceModel").__module__)
        """) == "cad.cm.feature"
