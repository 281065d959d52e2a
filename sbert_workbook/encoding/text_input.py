"""Checking the sentences a user passes in, with errors that say what to fix (``03_pooling_and_sts.ipynb``)."""
from __future__ import annotations

import math
from collections.abc import Sequence


def checked_sentences(sentences: Sequence[str] | str) -> list[str]:
    """Return ``sentences`` as a list of str; a single string becomes a one-item list.

    Introduced in ``03_pooling_and_sts.ipynb``. An empty or whitespace-only string is
    allowed and embedded as ``[CLS] [SEP]`` alone (the tokenizer drops the spaces), as
    sentence-transformers does: every such sentence gets the same vector. ``None``/NaN
    (missing values), bytes, other non-strings and an empty list are rejected with a
    message naming the offending position.
    """
    if isinstance(sentences, str):
        return [sentences]
    if sentences is None:
        raise TypeError("sentences is None: pass a list of strings, e.g. ['A man is playing a guitar.'].")
    if isinstance(sentences, (bytes, bytearray)):
        raise TypeError("sentences is bytes, not text: decode it first, e.g. sentences.decode('utf-8').")
    try:
        sentences = list(sentences)
    except TypeError:
        raise TypeError(f"sentences must be a string or a list of strings, not {type(sentences).__name__}.") from None
    if not sentences:
        raise ValueError("The list of sentences is empty: pass at least one sentence.")
    for index, sentence in enumerate(sentences):
        if not isinstance(sentence, str):
            raise TypeError(_not_a_string(index, sentence))
    return sentences


def _not_a_string(index: int, value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (f"Sentence {index} is a missing value ({value!r}), not a string. "
                "Drop the rows with missing text first (e.g. df.dropna()).")
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return (f"Sentence {index} is {shown} ({type(value).__name__}), not a string. "
            "Pass one string per sentence: remove it, or convert it with str() if it is text.")
