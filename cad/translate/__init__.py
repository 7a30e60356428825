"""Coreference-aware document translation: the document translator with its passes (seed 004's
back-off table, the CoreferenceModel feature with two passes), rule post-editing, n-best
reranking, the trace, and the spaCy analysis that runs beside the decoder."""
