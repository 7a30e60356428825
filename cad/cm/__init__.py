"""The Coreference Model (CM) of seeds 004/003 and coreference-aware translation."""
