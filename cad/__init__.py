"""cad: coreference-aware machine translation of pronouns, with a Moses-compatible toolkit."""

__version__ = "0.1.0"
