"""A static model distilled from a sentence transformer with model2vec: every token's vector computed once, a sentence
the mean of its tokens' vectors, no transformer at query time (``08_what_an_embedding_costs``).

model2vec's recipe (Tulkens & van Dongen, ``model2vec.distill.distill_from_model``), step by step, and the earlier
lesson each step is:

1. each vocabulary token passed through the transformer alone (``[CLS] token [SEP]``) and mean-pooled: a static
   vector per token, read from the contextual model (02's "static" view reads the *input* embeddings instead);
2. centring and PCA to ``pca_dims`` dimensions: 05's whitening-k without the rescaling (the centring is also the
   first step of SN and of all-but-the-top);
3. each token vector weighted by ``a / (a + p(token))``, p ∝ 1/(r + 1) for the r-th token of the vocabulary
   (r = 1, 2, …; Zipf's law, with the vocabulary's order taken as its frequency order):
   SIF's frequency weighting (03's Avg. GloVe baseline, 05) applied to the vocabulary once, for 02's frequency bias.

model2vec is installed without its ``distill`` extra, whose ``transformers<5.4`` pin would hold back the transformers
every other notebook uses; distillation needs only ``skeletoken`` beside it (pinned in pyproject.toml).
"""
from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import numpy as np

#: model2vec's defaults: 256 PCA dimensions, SIF coefficient 1e-4.
PCA_DIMS, SIF_COEFFICIENT = 256, 1e-4


def distil_static_model(model_folder: str | Path, pca_dims: int = PCA_DIMS, sif_coefficient: float = SIF_COEFFICIENT,
                        device: str = "cpu", longest_token: int | None = None):
    """model2vec's static model distilled from the transformer in ``model_folder`` (a Hugging Face model folder).

    ``longest_token`` keeps only the vocabulary's tokens of at most that many characters (the test suite's small
    runs); None distils every token (``[unusedN]`` placeholders left out, as model2vec does)."""
    from model2vec.distill import distill_from_model
    from transformers import AutoModel

    from sbert_workbook.encoding.quiet_loading import load_tokenizer, quiet_transformers, transformer_folder

    folder = transformer_folder(Path(model_folder))
    if not (folder / "config.json").is_file():
        raise ValueError(f"{folder} is not a model folder (no config.json): pass the folder a transformer was saved "
                         "in, e.g. load_encoder(MODEL).resolved.path.")
    with quiet_transformers():
        model, tokenizer = AutoModel.from_pretrained(folder), load_tokenizer(folder)
    # [unusedN]: placeholders, as model2vec's default; past longest_token characters, except special tokens ([UNK], ...)
    removed = r"\[unused\d+\]" if longest_token is None else rf"\[unused\d+\]|(?!\[).{{{longest_token + 1},}}"
    with _no_progress_bars():
        return distill_from_model(model, tokenizer, pca_dims=pca_dims, sif_coefficient=sif_coefficient, device=device,
                                  token_remove_pattern=removed)


@contextlib.contextmanager
def _no_progress_bars():
    """model2vec's bar over the vocabulary off inside the block: its module's ``tqdm``, disabled (restored after)."""
    from unittest import mock

    from model2vec.distill import inference
    from tqdm import tqdm

    with mock.patch.object(inference, "tqdm", functools.partial(tqdm, disable=True)):
        yield


def static_vectors(static_model, sentences: list[str]) -> np.ndarray:
    """The static model's sentence vectors (the mean of their tokens' vectors, normalised), float32."""
    return np.asarray(static_model.encode(list(sentences), show_progress_bar=False), dtype=np.float32)
