"""N-gram language models: modified Kneser-Ney estimation (`kneser_ney`, the reference; `native`,
compiled in `_kn`) and ARPA files (`arpa`)."""
