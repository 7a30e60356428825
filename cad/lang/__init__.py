"""One home per language: its pronoun sets and target classes, its APT word lists, its spaCy model
and morphology reader. A stage asks `language(code)` or `pair(src, tgt)` instead of naming French
or English, so adding a language pair is adding a module here."""
