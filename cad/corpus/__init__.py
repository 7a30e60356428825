"""Corpus preparation: Moses tokenization and cleaning, truecasing, word alignment (eflomal and
symmetrization)."""
