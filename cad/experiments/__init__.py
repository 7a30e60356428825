"""The experiments that compare pronoun systems: the English-French dev talks (pronoun-eval),
Spanish-English (seed 003), and contrastive suites scored in context."""
