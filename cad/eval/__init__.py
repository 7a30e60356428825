"""Evaluation of pronoun translation: APT, pronoun precision/recall, BLEU/chrF, significance, reports."""
