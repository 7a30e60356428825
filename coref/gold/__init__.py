"""Gold coreference: readers (ParCorFull MMAX2, LitBank brat and CoNLL), their mapping onto cad
tokens (model), and the gold backend (oracle)."""
