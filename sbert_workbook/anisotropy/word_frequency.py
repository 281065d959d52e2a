"""How often each WordPiece token occurs: frequency ranks for ``02_anisotropy.ipynb``.

BERT-flow buckets the vocabulary by frequency rank. A rank needs a corpus, and this
module names the one it used:

* ``"wordfreq"`` — the English list of the ``wordfreq`` package (Speer, 2022; a blend of
  Wikipedia, subtitles, news, books, web text, Twitter and Reddit; installed with the
  workbook, works offline). Each word's frequency is spread over the WordPiece tokens the
  model's tokenizer splits it into: ``f(token) = Σ_word f(word) · count(token in word)``.
* your own sentences (e.g. STS-B and SNLI) — plain WordPiece token counts.

Special tokens ([CLS], [SEP], [PAD], [MASK], [UNK]) and BERT's never-trained ``[unused…]``
slots get no rank (-1): they are not words.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

WORDFREQ_CORPUS = (
    "wordfreq 'en' list (Wikipedia, subtitles, news, books, web, Twitter, Reddit), "
    "top {n_words} words mapped onto WordPiece tokens"
)
UNRANKED = -1


@dataclass
class TokenFrequencies:
    """Per-token frequencies and ranks over a tokenizer's whole vocabulary (index = token id)."""

    tokens: list[str]
    frequencies: np.ndarray  # relative frequency per token id, summing to 1 over ranked tokens
    ranks: np.ndarray  # 0 = most frequent; UNRANKED (-1) for special/unseen tokens
    corpus: str

    def ranked_ids(self) -> np.ndarray:
        """Token ids that have a rank, most frequent first."""
        ranked = np.flatnonzero(self.ranks >= 0)
        return ranked[np.argsort(self.ranks[ranked], kind="stable")]

    def describe(self) -> str:
        return f"{int((self.ranks >= 0).sum())} of {len(self.tokens)} tokens ranked by frequency in: {self.corpus}"


def frequency_ranks(frequencies: np.ndarray, eligible: np.ndarray | None = None) -> np.ndarray:
    """Rank 0 for the most frequent token, 1 for the next…; -1 where frequency is 0 or not eligible.

    Ties keep token-id order, so ranks are reproducible.
    """
    frequencies = np.asarray(frequencies, dtype=np.float64)
    eligible = np.ones(len(frequencies), bool) if eligible is None else np.asarray(eligible, bool)
    if eligible.shape != frequencies.shape:
        raise ValueError(f"eligible has shape {eligible.shape} but frequencies has {frequencies.shape}; give one flag per token.")
    ranked = np.flatnonzero(eligible & (frequencies > 0))
    order = ranked[np.argsort(-frequencies[ranked], kind="stable")]
    ranks = np.full(len(frequencies), UNRANKED, dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def word_tokens(tokenizer) -> np.ndarray:
    """True for vocabulary entries that can be words or word pieces (not special, not ``[unused…]``)."""
    vocabulary = _vocabulary(tokenizer)
    special = set(tokenizer.all_special_tokens)
    return np.array([t not in special and not (t.startswith("[unused") and t.endswith("]")) for t in vocabulary])


def wordfreq_token_frequencies(tokenizer, n_words: int = 100_000, lang: str = "en") -> TokenFrequencies:
    """Frequencies from the ``wordfreq`` list, each word spread over its WordPiece tokens."""
    import wordfreq

    words = wordfreq.top_n_list(lang, n_words)
    if not words:
        raise ValueError(f"wordfreq has no word list for language {lang!r}; try lang='en'.")
    word_freqs = np.array([wordfreq.word_frequency(word, lang) for word in words])
    pieces = tokenizer(words, add_special_tokens=False)["input_ids"]
    counts = np.zeros(len(tokenizer), dtype=np.float64)
    for ids, freq in zip(pieces, word_freqs):
        np.add.at(counts, ids, freq)
    corpus = WORDFREQ_CORPUS.format(n_words=len(words)).replace("'en'", repr(lang))
    return _from_counts(tokenizer, counts, corpus)


def corpus_token_frequencies(tokenizer, sentences: Sequence[str], corpus_name: str = "the given sentences") -> TokenFrequencies:
    """Frequencies from WordPiece token counts over ``sentences`` (say which in ``corpus_name``)."""
    if not len(sentences):
        raise ValueError("No sentences given: pass the texts whose token counts should define frequency.")
    counts = np.zeros(len(tokenizer), dtype=np.float64)
    for ids in tokenizer(list(sentences), add_special_tokens=False)["input_ids"]:
        np.add.at(counts, ids, 1.0)
    return _from_counts(tokenizer, counts, f"WordPiece counts over {len(sentences)} sentences of {corpus_name}")


def sentence_log_frequency(tokenizer, sentences: Sequence[str], frequencies: TokenFrequencies) -> np.ndarray:
    """Mean log10 frequency of each sentence's ranked tokens (NaN when none is ranked)."""
    log_freq = np.full(len(frequencies.frequencies), np.nan)
    ranked = frequencies.ranks >= 0
    log_freq[ranked] = np.log10(frequencies.frequencies[ranked])
    out = []
    for ids in tokenizer(list(sentences), add_special_tokens=False)["input_ids"]:
        values = log_freq[ids] if ids else np.array([np.nan])
        out.append(np.nanmean(values) if np.isfinite(values).any() else np.nan)
    return np.array(out)


def _from_counts(tokenizer, counts: np.ndarray, corpus: str) -> TokenFrequencies:
    eligible = word_tokens(tokenizer)
    counts = np.where(eligible, counts, 0.0)
    total = counts.sum()
    if total <= 0:
        raise ValueError(f"No vocabulary token occurs in {corpus}; is this the right tokenizer?")
    return TokenFrequencies(_vocabulary(tokenizer), counts / total, frequency_ranks(counts, eligible), corpus)


def _vocabulary(tokenizer) -> list[str]:
    return tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
