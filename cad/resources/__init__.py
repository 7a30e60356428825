"""Readers of installed lexical resources, each a file format and nothing of a pipeline: French
nouns' gender and number (`hunspell_fr`, Debian's hunspell-fr-comprehensive) and its inflection
paradigms (`fr_inflection`), an English-French dictionary (`freedict`, dict-freedict-eng-fra),
WordNet's noun classes and animacy (`wordnet`, wordnet-base), and the files of the lexicons cad
learns (`lexicon_io`). cad.downloads finds or installs the files; a language's facts (cad.lang) name
the readers they read."""
