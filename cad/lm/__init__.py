"""N-gram language models: modified Kneser-Ney estimation and ARPA files."""
