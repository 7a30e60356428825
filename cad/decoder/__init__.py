"""A phrase-based stack decoder that reads Moses configurations and tables (Koehn 2010, ch. 6).

tables: the phrase, reordering and language model tables; registry: the features by moses.ini
type, which build themselves from their lines; features and stateful: the built-in stateless and
stateful features; model: a moses.ini loaded into features, weights and tables; options: the
translation options of a sentence and its future costs; forced: the options of constrained
decoding, with the penalized ones that reach any target; search: stack search and cube pruning,
with native, the compiled core behind it; derivation, nbest, serialize: its output; moses_runner: a real
Moses binary behind the same objects.
"""

from cad.decoder.model import DecoderModel, SearchSettings
from cad.decoder.search import Decoder, Translation

__all__ = ["Decoder", "DecoderModel", "SearchSettings", "Translation"]
