"""A phrase-based stack decoder that reads Moses configurations and tables (Koehn 2010, ch. 6)."""

from cad.decoder.model import DecoderModel, SearchSettings
from cad.decoder.search import Decoder, Translation

__all__ = ["Decoder", "DecoderModel", "SearchSettings", "Translation"]
