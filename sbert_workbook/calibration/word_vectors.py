"""The same fixes two years earlier, on word vectors: SIF and all-but-the-top (``05_bert_flow.ipynb``).

* **SIF** (Arora, Liang & Ma, 2017, "A simple but tough-to-beat baseline for sentence embeddings"):
  weight each word by a / (a + p(w)), average, then remove from every sentence vector its
  projection on the first principal component of all of them (computed uncentred, as their code does).
* **All-but-the-top** (Mu & Viswanath, 2018, "All-but-the-Top: simple and effective postprocessing
  for word representations"): subtract the mean word vector, then null the top D principal
  directions of the centred vocabulary. Nulling top directions is what BERT-flow's NATSV does to
  sentence vectors.

Word probabilities p(w) come from wordfreq's English list; words it gives no frequency
(punctuation, GloVe's quote tokens) get Zipf's law on GloVe's frequency rank, scaled to agree
with wordfreq on GloVe's most frequent words.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from sbert_workbook.calibration.all_but_the_top import AllButTheTop
from sbert_workbook.calibration.calibrators import null_directions
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.encoding.glove import GLOVE_NAME, GloveEncoder, GloveVectors
from sbert_workbook.evaluation.geometry import covariance_axes, singular_directions
from sbert_workbook.evaluation.sts import evaluate_sts

#: Arora et al.'s recommended weight parameter (their range: 1e-4 to 1e-3).
SIF_A = 1e-3
#: The fixes table's row that averages GloVe without stop words and punctuation (the hard frequency cut SIF softens).
STOP_WORDS_ROW = "avg GloVe, stop words dropped"
#: How many of GloVe's most frequent words fix the scale of the Zipf fallback.
ZIPF_ANCHOR_WORDS = 1000


def zipf_scale(words: Sequence[str], ranks: np.ndarray) -> float:
    """c in p(rank) ≈ c / (rank + 1): the median of wordfreq(w) · (rank + 1) over words wordfreq knows."""
    from wordfreq import word_frequency

    listed = np.array([word_frequency(w, "en") for w in words])
    known = listed > 0
    if not known.any():
        raise ValueError("wordfreq knows none of these words; give real English words to anchor the Zipf scale.")
    return float(np.median(listed[known] * (np.asarray(ranks, dtype=np.float64)[known] + 1)))


def word_probabilities(words: Sequence[str], ranks: np.ndarray, scale: float) -> np.ndarray:
    """p(w): wordfreq's English frequency, or ``scale / (rank + 1)`` (Zipf) where wordfreq gives 0."""
    from wordfreq import word_frequency

    listed = np.array([word_frequency(w, "en") for w in words])
    return np.where(listed > 0, listed, scale / (np.asarray(ranks, dtype=np.float64) + 1))


def sif_weights(probabilities: np.ndarray, a: float = SIF_A) -> np.ndarray:
    """SIF's word weights a / (a + p(w)): about 1 for rare words, small for frequent ones."""
    return a / (a + np.asarray(probabilities, dtype=np.float64))


def without_first_component(x) -> torch.Tensor:
    """SIF's second step: each row without its projection on u_1, the top right singular vector of X (uncentred, as
    Arora et al.'s code computes it); the same nulling as NATSV with k = 1 (:func:`~sbert_workbook.calibration.calibrators.null_directions`)."""
    x = torch.as_tensor(x, dtype=torch.float64)
    return null_directions(x, singular_directions(x, 1))


#: Rows of the vocabulary turned into float64 at a time by :func:`vocabulary_all_but_the_top` (a few MB, not GloVe's 160).
SCATTER_CHUNK = 20_000


def vocabulary_all_but_the_top(vectors, d: int) -> AllButTheTop:
    """:class:`~sbert_workbook.calibration.all_but_the_top.AllButTheTop` of a whole vocabulary: μ, the mean vector, and
    the top ``d`` principal directions of the centred vectors.

    The scatter Σ (v − μ)(v − μ)ᵀ is summed over chunks of rows in float64, so a memory-mapped vocabulary is read in
    pieces and never copied whole (``05`` runs in a laptop's memory)."""
    mean, _, axes = covariance_axes(vectors, chunk=SCATTER_CHUNK)
    return AllButTheTop.of_axes(mean, axes[:, :d])


def all_but_the_top_words(fix: AllButTheTop, vectors) -> np.ndarray:
    """v ↦ ṽ − Σ_i (u_iᵀ ṽ) u_i with ṽ = v − μ: ``fix`` applied to word vectors, in float64 (its ``transform``
    returns float32, for sentence vectors).

    The paper's Algorithm 1 writes u_iᵀ v(w); projecting the centred ṽ instead keeps the result
    centred (the two differ by one constant vector, Σ_i (u_iᵀ μ) u_i).
    """
    v = torch.as_tensor(np.asarray(vectors), dtype=torch.float64) - fix.mean_
    return null_directions(v, fix.directions_).numpy()


def sif_encoder(glove: GloveVectors, a: float = SIF_A) -> GloveEncoder:
    """Averaged GloVe with SIF's word weights (no component removed yet); p(w) is computed once per word used."""
    scale = zipf_scale(glove.words[:ZIPF_ANCHOR_WORDS], np.arange(min(ZIPF_ANCHOR_WORDS, len(glove.words))))
    cache: dict[int, float] = {}

    def weight(rows: np.ndarray) -> np.ndarray:
        new = [int(r) for r in set(rows.tolist()) if r not in cache]
        if new:
            cache.update(zip(new, sif_weights(word_probabilities([glove.words[r] for r in new], np.array(new), scale), a)))
        return np.array([cache[int(r)] for r in rows])

    return GloveEncoder(glove, weight, label=f"{GLOVE_NAME}, SIF weights a={a:g}")


def sif_embed(glove: GloveVectors, a: float = SIF_A):
    """sentences → SIF vectors: weighted averages with their first principal component (over these sentences) removed."""
    weighted = sif_encoder(glove, a)

    def embed(sentences):
        return without_first_component(weighted.encode(sentences))

    embed.__name__ = f"{GLOVE_NAME}, SIF (a={a:g}, first principal component removed)"
    return embed


def all_but_the_top_encoder(glove: GloveVectors, d: int, fitted: AllButTheTop | None = None) -> GloveEncoder:
    """Averaged GloVe on all-but-the-top word vectors; μ and the directions come from all words (or ``fitted``, D ≥ d).

    Only the words a sentence uses are transformed, when it is encoded.
    """
    fitted = vocabulary_all_but_the_top(glove.vectors, d) if fitted is None else fitted
    fix = AllButTheTop.of_axes(fitted.mean_, fitted.directions_[:, :d])
    return GloveEncoder(glove, word_transform=lambda vectors: all_but_the_top_words(fix, vectors),
                        label=f"{GLOVE_NAME}, all-but-the-top D={d}")


def word_vector_fixes_table(glove: GloveVectors, datasets: Sequence[str] = SEVEN_STS_SETS, limit: int | None = None,
                            a: float = SIF_A, d_values: Sequence[int] = (1, 2, 3), aggregation: str = "all",
                            data_dir=None) -> pd.DataFrame:
    """Spearman × 100 of cosine per data set (plus ``avg``) for averaged GloVe, with stop words dropped, SIF (each step
    alone, then both) and all-but-the-top.

    The stop-word row drops English stop words and punctuation before averaging, as sentence-transformers'
    ``WhitespaceTokenizer`` does: a hard frequency cut, where SIF's weights are a soft one.

    SIF's first component is removed over each test set's own sentences (as Arora et al. do); the
    all-but-the-top mean and directions come from all of GloVe's words, fitted once for the largest D.
    """
    methods = {"avg GloVe": GloveEncoder(glove), STOP_WORDS_ROW: GloveEncoder(glove, drop_stop_words=True),
               "SIF weights only": sif_encoder(glove, a),
               "remove 1st PC only": lambda s: without_first_component(GloveEncoder(glove).encode(s)),
               "SIF (weights + remove 1st PC)": sif_embed(glove, a)}
    fitted = vocabulary_all_but_the_top(glove.vectors, max(d_values))  # one fit on all words serves every D
    for d in d_values:
        methods[f"all-but-the-top (D={d})"] = all_but_the_top_encoder(glove, d, fitted)
    rows, last = {}, None
    for label, method in methods.items():
        last = evaluate_sts(method, datasets, aggregation=aggregation, limit=limit, data_dir=data_dir)
        rows[label] = last["spearman"]
    table = pd.DataFrame(rows).T
    table.index.name = "method on word vectors"
    table.attrs["provenance"] = dict(last.attrs["provenance"], model=f"{GLOVE_NAME} ({glove.source})",
                                     pooling="(weighted) mean of word vectors, see the row",
                                     pairs=", ".join(f"{n} {p}" for n, p in last["pairs"].items() if n != "avg"))
    return table
