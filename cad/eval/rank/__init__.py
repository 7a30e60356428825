"""Seed 002: learning to rank translations against a reference with tree kernels: the WMT
judgments (`judgments`), spaCy's parses as trees (`syntax`, `tree`, `objects`), the kernels
(`kernels`, compiled in `_kernels`), the learned metric (`metric`) and its cross-validation
(`experiment`)."""
