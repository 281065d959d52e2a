"""What can be diagnosed, and what the diagnosis reads of it (``07_your_model.ipynb``).

A :class:`Subject` is anything that turns sentences into vectors, with what the frequency part needs (its word vectors
and each word's frequency rank) and one line saying which model ran and how it pools. :func:`load_subject` makes one
from a name: a model folder or hub id (read as its authors meant: :mod:`sbert_workbook.encoding.st_folder`), ``glove``
(GloVe 6B 50-d, averaged) or ``tiny-mlm`` (01's tiny MLM, trained here for a few hundred steps on the toy language;
it reads only its 22 toy words, so the STS parts do not apply to it and say so).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: Names :func:`load_subject` understands besides a model folder or hub id.
GLOVE, TINY_MLM = "glove", "tiny-mlm"
#: GloVe's most frequent words used as its vocabulary in the frequency part (about BERT's 30,522 WordPieces).
GLOVE_VOCABULARY = 30_000


@dataclass
class Subject:
    """A model under diagnosis: ``embed(sentences) -> (n, d)`` float64 vectors, and what the report says about it."""

    name: str
    kind: str  # "sentence-transformers model", "transformer", "word vectors", "toy MLM"
    described: str  # which model ran, and how it pools (load_encoder's lines)
    embed: Callable[[Sequence[str]], np.ndarray]
    word_vectors: Callable[[], tuple[np.ndarray, np.ndarray, str]]  # (vectors, frequency rank per row, rank source)
    reads_english: bool = True
    pooling: str = ""  # how a sentence becomes one vector, and why
    toy_sentences: Callable[[int, int], list[str]] | None = None  # (n, seed) -> sentences it can read, when not English


def load_subject(name: str, device=None, seed: int = 0, tiny_steps: int = 400, batch_size: int = 64,
                 wordfreq_words: int = 30_000) -> Subject:
    """The :class:`Subject` ``name`` names: ``glove``, ``tiny-mlm``, or anything :func:`~sbert_workbook.load_encoder` loads."""
    if str(name).strip().lower() == GLOVE:
        return glove_subject()
    if str(name).strip().lower() == TINY_MLM:
        return tiny_mlm_subject(seed, tiny_steps)
    from sbert_workbook.encoding.encoder import load_encoder

    return encoder_subject(load_encoder(name, device=device), batch_size, wordfreq_words)


def encoder_subject(encoder, batch_size: int = 64, wordfreq_words: int = 30_000) -> Subject:
    """A loaded :class:`~sbert_workbook.encoding.encoder.Encoder`: its own pooling (and Dense, Normalize, prompt)."""
    from sbert_workbook.anisotropy.word_frequency import wordfreq_token_frequencies

    def word_vectors():
        frequencies = wordfreq_token_frequencies(encoder.tokenizer, n_words=wordfreq_words)
        matrix = encoder.model.get_input_embeddings().weight.detach().float().cpu().numpy()
        return matrix, frequencies.ranks, frequencies.corpus

    kind = "sentence-transformers model" if encoder.modules.from_model else "transformer"
    return Subject(encoder.name, kind, f"{encoder.resolved.describe()}; {encoder.modules.describe()}",
                   lambda sentences: encoder.encode(list(sentences), batch_size=batch_size).double().numpy(),
                   word_vectors, pooling=encoder.modules.describe())


def glove_subject() -> Subject:
    """GloVe 6B 50-d, a sentence the mean of its words' vectors (SBERT Table 1's first row; 03)."""
    from sbert_workbook.encoding.glove import GLOVE_NAME, GloveEncoder, load_glove

    glove = load_glove()
    encoder = GloveEncoder(glove)

    def word_vectors():
        rows = min(GLOVE_VOCABULARY, len(glove.words))
        return np.asarray(glove.vectors[:rows], dtype=np.float64), np.arange(rows), f"GloVe's own order (row = rank), top {rows}"

    pooling = "pooling: mean of the word vectors, every token (no transformer)"
    return Subject(GLOVE_NAME, "word vectors", f"{GLOVE_NAME} ({glove.source}); {pooling}",
                   lambda sentences: encoder.encode(list(sentences)).numpy(), word_vectors, pooling=pooling)


def tiny_mlm_subject(seed: int = 0, steps: int = 400) -> Subject:
    """01's tiny MLM, trained ``steps`` steps here on the toy language; a sentence its mean-pooled last hidden state."""
    import torch

    from sbert_workbook.mlm import toy_language
    from sbert_workbook.mlm.tiny import FIRST_WORD_ID, TinyMlm

    language = toy_language.toy_language(seed=seed)
    tiny = TinyMlm(language, seed=seed)
    tiny.train(steps, progress=False)

    @torch.no_grad()
    def embed(sentences):
        ids = tiny.token_ids(np.array([language.encode(sentence) for sentence in sentences]))
        return tiny.model.bert(input_ids=ids).last_hidden_state[:, 1:-1].mean(dim=1).double().numpy()

    def word_vectors():
        vectors = tiny.model.get_input_embeddings().weight.detach()[FIRST_WORD_ID:].double().numpy()
        ranks = np.argsort(np.argsort(-language.unigram()))
        return vectors, ranks, "the toy language's exact unigram p(x)"

    def toy_sentences(n, sample_seed):
        return [language.decode(row) for row in language.sample(n, tiny.length, np.random.default_rng(sample_seed))]

    pooling = "pooling: mean of the last hidden states over the words"
    return Subject(f"tiny MLM ({steps} steps)", "toy MLM", f"01's tiny MLM: {tiny.describe()}, trained {steps} steps here "
                   f"on the toy language (seed {seed}); {pooling}", embed, word_vectors,
                   reads_english=False, pooling=pooling, toy_sentences=toy_sentences)
