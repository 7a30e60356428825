"""Source-side coreference for pronouns: records, antecedent probabilities, gold readers.

Positions always refer to cad's tokens (pre-tokenized sentences, tokens split on spaces).
The automatic backends (coreferee, the rule-based sieve, stanza) build on these records.
"""
