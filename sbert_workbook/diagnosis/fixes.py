"""The fix ladder: post-processing that makes a space less of a cone, each fitted on unlabelled sentences (``07_your_model``).

Each rung is one of 05's calibrators (:mod:`sbert_workbook.calibration`), fitted on the corpus vectors (rows; no labels)
and returned as the map it learned, ``x ↦ fixed x``, to apply to any vectors of the same model. From the least to the
most change:

* centre: x − μ (:class:`~sbert_workbook.calibration.all_but_the_top.AllButTheTop` with D = 0);
* SN, standardise each dimension: (x − μ) / σ (:class:`~sbert_workbook.calibration.calibrators.StandardNormalization`:
  BERT-flow's SN, Timkey & van Schijndel's standardisation);
* all-but-the-top D (Mu & Viswanath, ICLR 2018): centre, then drop the top D principal directions (:class:`AllButTheTop`);
* whitening-k (Su et al. 2021): (x − μ) U_k Λ_k^{−1/2}, the covariance made the identity, its top k directions kept
  (:class:`~sbert_workbook.calibration.calibrators.Whitening`);
* the flow (Li et al. 2020, BERT-flow): a Glow fitted by maximum likelihood maps x to a standard Gaussian
  (:class:`~sbert_workbook.calibration.calibrators.FlowCalibrator`);
* per-cluster all-but-the-top (Rajaee & Pilehvar, ACL 2021, arXiv 2106.01183): k-means clusters, and each sentence
  loses its own cluster's mean and top D directions (:class:`~sbert_workbook.calibration.all_but_the_top.PerClusterAllButTheTop`).

Each map is written once, in ``calibration/``; this module only names the rungs and picks their settings.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sbert_workbook.calibration.all_but_the_top import AllButTheTop, PerClusterAllButTheTop
from sbert_workbook.calibration.calibrators import (Calibrator, FlowCalibrator, StandardNormalization, Whitening,
                                                    su_k)

Fix = Callable[[np.ndarray], np.ndarray]


def fitted(calibrator: Calibrator, corpus) -> Fix:
    """``calibrator`` fitted on the corpus vectors, as a map from vectors to fixed vectors (float64 NumPy rows)."""
    corpus = np.asarray(corpus, dtype=np.float64)
    if corpus.ndim != 2 or len(corpus) < 2:
        raise ValueError(f"A fix is fitted on at least 2 vectors (rows of a matrix); got shape {corpus.shape}.")
    calibrator.fit(corpus)
    return lambda x: calibrator.transform(np.asarray(x, dtype=np.float64)).double().numpy()


def centre(corpus) -> Fix:
    """x ↦ x − μ, μ the corpus mean."""
    return fitted(AllButTheTop(0), corpus)


def standardise(corpus) -> Fix:
    """x ↦ (x − μ) / σ, per dimension (SN)."""
    return fitted(StandardNormalization(), corpus)


def all_but_the_top(corpus, d: int) -> Fix:
    """x ↦ x̃ − Σ_{i ≤ D} (u_iᵀ x̃) u_i with x̃ = x − μ and u_i the corpus's top D principal directions."""
    return fitted(AllButTheTop(d), corpus)


def whiten(corpus, k: int | None = None) -> Fix:
    """x ↦ (x − μ) U_k Λ_k^{−1/2} from Σ = U Λ Uᵀ (the corpus covariance): whitening, keeping the top k directions."""
    return fitted(Whitening(k), corpus)


def flow(corpus, seed: int = 0, **settings) -> Fix:
    """x ↦ f(x), a Glow fitted on the corpus by maximum likelihood (BERT-flow's code defaults: 3 levels × 3 steps, one
    epoch, Adam at 1e-3)."""
    return fitted(FlowCalibrator(seed=seed, progress=False, **settings), corpus)


def per_cluster_all_but_the_top(corpus, clusters: int, d: int, seed: int = 0) -> Fix:
    """k-means with ``clusters`` clusters; a vector is fixed by all-but-the-top of its own cluster (Rajaee & Pilehvar)."""
    return fitted(PerClusterAllButTheTop(clusters, d, seed), corpus)


def default_settings(dim: int, sentences: int) -> dict[str, int]:
    """The ladder's settings for a ``dim``-dimensional model read on ``sentences`` sentences, by the papers' rules:
    D ≈ dim/100 (Mu & Viswanath), k = dim/3 (Su et al.'s 256 of bert-base's 768), and enough k-means clusters for about
    50 sentences each, at most 10."""
    return {"D": max(1, round(dim / 100)), "k": su_k(dim), "clusters": int(np.clip(sentences // 50, 2, 10))}


def ladder(dim: int, sentences: int, seed: int = 0) -> dict[str, Callable[[np.ndarray], Fix]]:
    """The fix ladder for this model, ``{name: corpus -> fix}``, in order, named with its settings."""
    s = default_settings(dim, sentences)
    return {"centre": centre, "SN": standardise,
            f"all-but-the-top (D={s['D']})": lambda corpus: all_but_the_top(corpus, s["D"]),
            f"whitening-{s['k']}": lambda corpus: whiten(corpus, s["k"]),
            "flow": lambda corpus: flow(corpus, seed=seed),
            f"per-cluster all-but-the-top (K={s['clusters']}, D={s['D']})":
                lambda corpus: per_cluster_all_but_the_top(corpus, s["clusters"], s["D"], seed)}
