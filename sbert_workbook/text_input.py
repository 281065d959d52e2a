"""Checking the sentences a user passes in, with errors that say what to fix."""
from __future__ import annotations

from collections.abc import Sequence


def checked_sentences(sentences: Sequence[str] | str) -> list[str]:
    """Return ``sentences`` as a list of str; a single string becomes a one-item list.

    An empty string is allowed: it is embedded as ``[CLS] [SEP]`` alone, like any other
    input. ``None``, non-strings and an empty list are rejected with a message naming the
    offending position.
    """
    if isinstance(sentences, str):
        return [sentences]
    if sentences is None:
        raise TypeError("sentences is None: pass a list of strings, e.g. ['A man is playing a guitar.'].")
    try:
        sentences = list(sentences)
    except TypeError:
        raise TypeError(f"sentences must be a string or a list of strings, not {type(sentences).__name__}.") from None
    if not sentences:
        raise ValueError("The list of sentences is empty: pass at least one sentence.")
    for index, sentence in enumerate(sentences):
        if not isinstance(sentence, str):
            raise TypeError(
                f"Sentence {index} is {sentence!r} ({type(sentence).__name__}), not a string. "
                "Remove it or convert it with str() first."
            )
    return sentences
