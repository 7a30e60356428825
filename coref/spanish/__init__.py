"""Spanish coreference for pronouns: CorZu's records, and the native resolver learned from them."""
