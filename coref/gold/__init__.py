"""Gold coreference readers (ParCorFull MMAX2, LitBank brat and CoNLL) and their mapping onto cad tokens."""
