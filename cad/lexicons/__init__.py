"""Lexicons a source language learns from a parallel corpus, each with a command of its own: the
humanness of nouns (`humanness`) and the gender of person names (`name_gender`), read from what
their aligned translations say (their files: cad/resources/lexicon_io.py)."""
