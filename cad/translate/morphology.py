"""The target morphology of translations that later pronouns read their antecedents from, and
the antecedent's gender and number projected through a translation's word alignment; the target's
reader is the language pair's (cad/lang/pairs.py)."""

from __future__ import annotations

from concurrent.futures import Executor, Future

from cad.cm.projection import Projected, aligned_targets, project
from cad.decoder.search import Translation
from cad.lang.pairs import Pair, chosen


def tag_words(words: list[str], pair_name: str) -> list:
    """One sentence's tags by the target's reader of the pair called `pair_name` (a picklable
    task for a tagging process)."""
    from cad.lang.pairs import pair_named

    return pair_named(pair_name).target.morphology().tag([words])[0]


def load_tagger(pair_name: str) -> None:
    """Load the target reader of the pair called `pair_name` (a tagging worker's warm-up)."""
    from cad.lang.pairs import pair_named

    pair_named(pair_name).target.morphology().load()


class TranslationMorphology:
    """The target tags of translations, computed by `pool` (one worker process, which alone holds
    the target's pipeline, spaCy's for French) or, without one, in the caller: a translation that a
    later pronoun's antecedent lies in is sent for tagging as soon as it is decoded, while the
    decoder goes on."""

    KEEP = 64       # translations kept tagged; antecedents lie a few sentences back at most

    def __init__(self, pool: Executor | None = None, pair: Pair | None = None):
        self.pool = pool            # None: tag in the caller's thread
        self.pair = chosen(pair)
        self.cache: dict[int, tuple[Translation, Future]] = {}

    def prefetch(self, tr: Translation) -> None:
        """Start tagging `tr` in the pool (without one, `of` tags when asked)."""
        if self.pool is not None:
            self._start(tr)

    def _start(self, tr: Translation) -> None:
        if id(tr) in self.cache or not tr.best.words:
            return
        if len(self.cache) >= self.KEEP:
            self.cache.clear()
        if self.pool is None:
            done: Future = Future()
            done.set_result(tag_words(tr.best.words, self.pair.name))
        else:
            done = self.pool.submit(tag_words, tr.best.words, self.pair.name)
        self.cache[id(tr)] = (tr, done)     # the translation kept alive, so that its id stays its own

    def ready(self, tr: Translation) -> bool:
        """Whether `of(tr)` would return at once."""
        if self.pool is None or not tr.best.words:
            return True
        self._start(tr)
        return self.cache[id(tr)][1].done()

    def of(self, tr: Translation) -> list:
        self._start(tr)
        return self.cache[id(tr)][1].result()


def projection(tr: Translation, c, morphology: TranslationMorphology) -> Projected | None:
    """The translation of candidate antecedent `c` in `tr`, a translation of its sentence
    (cad/cm/projection.py)."""
    if not tr.best.words:
        return None
    aligned = aligned_targets(c.start, c.end, tr.best.word_alignment)
    # nothing aligned: only the dictionary can say something, and it needs no tags
    morph = morphology.of(tr) if aligned else []
    return project(c, tr.source, tr.best.words, tr.best.word_alignment, morph, morphology.pair)
