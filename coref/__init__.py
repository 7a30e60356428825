"""Source-side coreference resolution for pronouns (backends arrive with the coref issue)."""
