"""The fix ladder: post-processing that makes a space less of a cone, each fitted on unlabelled sentences (``07_your_model``).

Each fix takes the corpus vectors (rows; no labels) and returns the map it learned, ``x ↦ fixed x``, to apply to any
vectors of the same model. From the least to the most change:

* centre: x − μ;
* SN, standardise each dimension: (x − μ) / σ (BERT-flow's SN; Timkey & van Schijndel's standardisation);
* all-but-the-top D (Mu & Viswanath, ICLR 2018): centre, then drop the top D principal directions;
* whitening-k (Su et al. 2021): (x − μ) U_k Λ_k^{−1/2}, the covariance made the identity, its top k directions kept;
* the flow (Li et al. 2020, BERT-flow): a Glow fitted by maximum likelihood maps x to a standard Gaussian;
* per-cluster all-but-the-top (Cai et al., ICLR 2021: a space isotropic within clusters, anisotropic overall): k-means
  clusters, and each sentence loses its own cluster's mean and top D directions.

05 teaches the same maps as calibrators (:mod:`sbert_workbook.calibration.calibrators`); these are the few lines each
a student reads beside its equation, and the tests hold every one to 05's implementation (the flow *is* 05's).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sbert_workbook.diagnosis.rogue import standardised

Fix = Callable[[np.ndarray], np.ndarray]


def _rows(vectors) -> np.ndarray:
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or len(x) < 2:
        raise ValueError(f"A fix is fitted on at least 2 vectors (rows of a matrix); got shape {np.shape(vectors)}.")
    return x


def centre(corpus) -> Fix:
    """x ↦ x − μ, μ the corpus mean."""
    mean = _rows(corpus).mean(axis=0)
    return lambda x: np.asarray(x, dtype=np.float64) - mean


def standardise(corpus) -> Fix:
    """x ↦ (x − μ) / σ, per dimension (SN)."""
    corpus = _rows(corpus)
    mean, std = corpus.mean(axis=0), corpus.std(axis=0)
    return lambda x: standardised(x, mean, std)


def top_directions(centred: np.ndarray, d: int) -> np.ndarray:
    """The top ``d`` principal directions u_1 … u_d of centred rows, as the rows of a (d, dim) matrix."""
    return np.linalg.svd(centred, full_matrices=False)[2][:d]


def all_but_the_top(corpus, d: int) -> Fix:
    """x ↦ x̃ − Σ_{i ≤ D} (u_iᵀ x̃) u_i with x̃ = x − μ and u_i the corpus's top D principal directions."""
    corpus = _rows(corpus)
    mean = corpus.mean(axis=0)
    top = top_directions(corpus - mean, d)

    def fixed(x):
        centred = np.asarray(x, dtype=np.float64) - mean
        return centred - (centred @ top.T) @ top
    return fixed


def whiten(corpus, k: int | None = None) -> Fix:
    """x ↦ (x − μ) U_k Λ_k^{−1/2} from Σ = U Λ Uᵀ (the corpus covariance): whitening, keeping the top k directions."""
    corpus = _rows(corpus)
    mean = corpus.mean(axis=0)
    eigenvectors, eigenvalues, _ = np.linalg.svd(np.cov(corpus, rowvar=False, bias=True))
    kernel = (eigenvectors / np.sqrt(np.maximum(eigenvalues, 1e-12)))[:, :k]
    return lambda x: (np.asarray(x, dtype=np.float64) - mean) @ kernel


def flow(corpus, seed: int = 0, **settings) -> Fix:
    """x ↦ f(x), a Glow fitted on the corpus by maximum likelihood: 05's :class:`FlowCalibrator` (BERT-flow's code
    defaults: 3 levels × 3 steps, one epoch, Adam at 1e-3)."""
    from sbert_workbook.calibration.calibrators import FlowCalibrator

    fitted = FlowCalibrator(seed=seed, progress=False, **settings).fit(_rows(corpus).astype(np.float32))
    return lambda x: fitted.transform(np.asarray(x, dtype=np.float32)).numpy().astype(np.float64)


def per_cluster_all_but_the_top(corpus, clusters: int, d: int, seed: int = 0) -> Fix:
    """k-means with ``clusters`` clusters; a vector is fixed by :func:`all_but_the_top` of its own cluster (Cai et al.)."""
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    corpus = _rows(corpus)
    with threadpool_limits(1):  # small: one thread beats several spinning on a busy laptop
        kmeans = KMeans(n_clusters=clusters, n_init=1, random_state=seed).fit(corpus)
    per_cluster = [all_but_the_top(corpus[kmeans.labels_ == c], d) for c in range(clusters)]

    def fixed(x):
        x = np.asarray(x, dtype=np.float64)
        labels, out = kmeans.predict(x), np.empty_like(x)
        for c, fix in enumerate(per_cluster):
            out[labels == c] = fix(x[labels == c])
        return out
    return fixed


def default_settings(dim: int, sentences: int) -> dict[str, int]:
    """The ladder's settings for a ``dim``-dimensional model read on ``sentences`` sentences, by the papers' rules:
    D ≈ dim/100 (Mu & Viswanath), k = dim/3 (Su et al.'s 256 of bert-base's 768), and enough k-means clusters for about
    50 sentences each, at most 10."""
    return {"D": max(1, round(dim / 100)), "k": max(1, dim // 3), "clusters": int(np.clip(sentences // 50, 2, 10))}


def ladder(dim: int, sentences: int, seed: int = 0) -> dict[str, Callable[[np.ndarray], Fix]]:
    """The fix ladder for this model, ``{name: corpus -> fix}``, in order, named with its settings."""
    s = default_settings(dim, sentences)
    return {"centre": centre, "SN": standardise,
            f"all-but-the-top (D={s['D']})": lambda corpus: all_but_the_top(corpus, s["D"]),
            f"whitening-{s['k']}": lambda corpus: whiten(corpus, s["k"]),
            "flow": lambda corpus: flow(corpus, seed=seed),
            f"per-cluster all-but-the-top (K={s['clusters']}, D={s['D']})":
                lambda corpus: per_cluster_all_but_the_top(corpus, s["clusters"], s["D"], seed)}
