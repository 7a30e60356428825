"""sacremoses's truecasing (MosesTruecaser.learn_truecase_weights and .truecase with
use_known=True), one distinct token at a time: the same results, without a regular expression or
two per token of every line.

Both walk a line's tokens with one bit of state, whether the next word starts a sentence. What a
token adds, and the state it leaves, depend only on the token and that bit, so they are worked out
once per distinct token (by sacremoses's own rules, with its model, sets and expressions) and
looked up after that: a large corpus has about 30 times more tokens than distinct ones. A token
whose handling depends on its neighbours (an XML-like '<' or '>', which sacremoses's split_xml may
join across spaces or split inside a token; whitespace inside a token, which it splits at) sends
its whole line to sacremoses itself.
"""

from __future__ import annotations

import re

# what learn_truecase_weights does with a token: bits, since a sentence end could have letters
_SKIP, _SENT_END, _LETTERS = 1, 2, 4
_XML_TAG = re.compile(r"(<\S[^>]*>)")           # sacremoses's test for an XML tag in a token
_FACTORS = re.compile(r"^([^\|]+)(.*)")         # and its split of a word from its factors
# distinct tokens a LineTruecaser remembers (a few hundred bytes each): more than a large corpus's
# side has (about 100,000), and a bound for a server that truecases whatever it is sent
MAX_CACHED = 500_000


def _plain(token: str) -> bool:
    """Whether sacremoses reads the token alone, as the one token it is (see the module's note)."""
    return "<" not in token and ">" not in token and token.split() == [token]


class WeightLearner:
    """learn_truecase_weights(tokens) of a MosesTruecaser (possibly_use_first_token off, as
    train_truecaser calls it): (lowercased, form, 1) for every word with letters not starting a
    sentence."""

    def __init__(self, learner):
        self._learner = learner
        self._kinds: dict[str, int] = {}

    def _kind(self, token: str) -> int:
        m = self._learner
        if _XML_TAG.search(token) or token in m.DELAYED_SENT_START:
            kind = _SKIP
        else:
            kind = (_SENT_END if token in m.SENT_END else 0) | (_LETTERS if m.SKIP_LETTERS_REGEX.search(token) else 0)
        self._kinds[token] = kind
        return kind

    def counted(self, tokens: list[str]) -> list[str]:
        """The forms learn_truecase_weights counts, each with weight 1, in order."""
        kinds = self._kinds
        first = True
        out = []
        for token in tokens:
            kind = kinds.get(token)
            if kind is None:
                kind = self._kind(token)
            if kind & _SKIP:
                continue
            if kind & _SENT_END and not first:
                first = True
                continue
            # a word with letters counts unless it starts a sentence; anything else met here (a
            # sentence end at a sentence's start included) just ends the start
            if kind & _LETTERS and not first:
                out.append(token)
            first = False
        return out

    def weights(self, tokens: list[str]) -> list[tuple[str, str, int]]:
        """learn_truecase_weights(tokens)."""
        return [(token.lower(), token, 1) for token in self.counted(tokens)]


class LineTruecaser:
    """MosesTruecaser.truecase(" ".join(tokens), use_known=True) of a loaded model (is_asr off)."""

    def __init__(self, model):
        self._model = model
        self._asr = bool(model.is_asr)          # not what cad loads; sacremoses handles it, line by line
        # token -> (its form at a sentence's start, the state after it, its form elsewhere, the
        # state after that), or None for a token sacremoses must see in its line
        self._cache: dict[str, tuple[str, bool, str, bool] | None] = {}

    def _entry(self, token: str) -> tuple[str, bool, str, bool] | None:
        entry = None
        if _plain(token):
            entry = self._case(token, True) + self._case(token, False)
        if len(self._cache) < MAX_CACHED:
            self._cache[token] = entry
        return entry

    def _case(self, token: str, first: bool) -> tuple[str, bool]:
        """truecase's loop body for one token: its form and the state after it."""
        m = self._model
        if token == "|" or token.startswith("|"):
            return token, first                 # appended as it is, the state untouched
        word, factors = _FACTORS.search(token).groups()
        best = m.model["best"].get(word.lower(), None)
        if first and best:
            word = best
        elif word in m.model["known"]:
            pass
        elif best:
            word = best
        token = word + factors
        if token in m.SENT_END:
            return token, True
        if token not in m.DELAYED_SENT_START:
            return token, False
        return token, first

    def __call__(self, tokens: list[str]) -> list[str]:
        if self._asr:
            return self._model.truecase(" ".join(tokens), use_known=True)
        cache = self._cache
        first = True
        out = []
        for token in tokens:
            entry = cache[token] if token in cache else self._entry(token)
            if entry is None:
                return self._model.truecase(" ".join(tokens), use_known=True)
            if first:
                word, first = entry[0], entry[1]
            else:
                word, first = entry[2], entry[3]
            out.append(word)
        return out
