"""The decoder behind document translation: cad's own, loaded with the tables filtered to the
input (and to the CM's feature tokens the input's pronouns may become), or a real Moses binary
behind the same interface, one persistent process serving sentence-by-sentence passes."""

from __future__ import annotations

import tempfile
from pathlib import Path

# registers the CoreferenceModel feature that the configurations loaded here may name
import cad.cm.feature  # noqa: F401
from cad.cm.bundles import source_vocabulary
from cad.core.errors import CadError
from cad.corpus.truecase import model_truecase_file
from cad.decoder import Decoder, DecoderModel, SearchSettings
from cad.decoder.moses_runner import MosesProcess, find_moses, run_moses
from cad.decoder.native import engine_is_native
from cad.lang.facts import NUMBERS
from cad.lang.pairs import Pair, chosen
from cad.moses.binarize import refuse_cad_binaries
from cad.moses.filter import filter_model
from cad.moses.ini import parse_config


class MosesAdapter:
    """A real Moses binary behind the Decoder.translate interface, on the model filtered to the
    input: one persistent process serves the sentence-by-sentence passes (1-best), and
    `translate_all` runs one process over a whole pass (n-best lists)."""

    def __init__(self, binary: str, config: str, sentences: list[str], search_algorithm: int = 1):
        self.binary = binary
        self._tmp = tempfile.TemporaryDirectory(prefix="cad-moses-model-")
        text = Path(self._tmp.name) / "input"
        text.write_text("".join(s + "\n" for s in sentences), encoding="utf-8")
        self.config = str(filter_model(config, text, Path(self._tmp.name) / "model").source)
        self.extra = ["-search-algorithm", str(search_algorithm)]   # as cad's decoder would search
        self._process = None

    def translate(self, sentence: str, nbest: int = 0, distinct: bool = False):
        if nbest:
            return self.translate_all([sentence], nbest, distinct)[0]
        if self._process is None:
            self._process = MosesProcess(self.binary, self.config, self.extra)
        return self._process.translate(sentence)

    def translate_all(self, sentences: list[str], nbest: int = 0, distinct: bool = False) -> list:
        return run_moses(self.binary, self.config, sentences, max(nbest, 1), distinct, self.extra) \
            if sentences else []

    def close(self) -> None:
        if self._process is not None:
            self._process.close()
            self._process = None
        self._tmp.cleanup()


def feature_token_phrases(sentences: list[str], pair: Pair | None = None) -> list[str]:
    """The CM's feature tokens the input's pronouns may become (those the pair's source studies,
    with the genders of its target, or the source's own features): a model filtered to the input
    must keep their back-off entries."""
    pair = chosen(pair)
    studied = pair.source.cm_pronouns
    extra = []
    for s in sentences:
        for tok in s.split():
            if tok.lower() not in studied:
                continue
            if pair.source_features:
                extra.extend(source_vocabulary([tok.lower()], pair))
                continue
            for g in pair.target.genders:
                for n in NUMBERS:
                    extra.append(f"{tok.lower()}-{g}-{n}")
                    extra.append(f"{tok.lower()}-{g}-{n}-hum")
                    extra.append(f"{tok.lower()}-{g}-{n}-nonhum")
    return extra


def model_truecaser(option: str, cfg, src: str) -> str | None:
    """The source truecasing model `--truecase-model` names: a file, "none", or "auto", the
    truecase-model.<src> that cad train --truecase writes beside the model's phrase table."""
    if option == "none":
        return None
    if option != "auto":
        return option
    return model_truecase_file(cfg, src)


def load_decoder(config: str, sentences: list[str], decoder: str = "cad", moses_bin: str | None = None,
                 search_algorithm: int = 1, engine: str = "native", pair: Pair | None = None):
    """The decoder of `config`, its tables filtered to `sentences` and the feature tokens their
    pronouns may become in the language pair `pair`."""
    wanted = sentences + [" ".join(feature_token_phrases(sentences, pair))]
    if decoder == "moses":
        refuse_cad_binaries(parse_config(config))
        binary = find_moses(moses_bin)
        if binary is None:
            raise CadError("no Moses binary: give --moses-bin PATH, set $MOSES, or put moses on PATH")
        return MosesAdapter(binary, config, wanted, search_algorithm)
    return Decoder(DecoderModel.load(config, input_sentences=wanted,
                                     settings=SearchSettings(search_algorithm=search_algorithm)),
                   native=engine_is_native(engine))
