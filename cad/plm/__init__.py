"""The Pronoun Language Model (seed 001) and cross-lingual pronoun prediction."""
