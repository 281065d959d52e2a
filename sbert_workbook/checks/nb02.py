"""References of notebook 02's checks, computed out of the check cells' sight (``02_anisotropy.ipynb``).

Each is computed another way than the exercise asks for (the one-pass shortcut against the Gram matrix, scikit-learn's
PCA, numpy's SVD, scipy's pairwise distances), so that a check cell holds no line a student could copy as the answer.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.distance import pdist
from scipy.stats import spearmanr


def ex02_1(cone_sample):
    """The mean cosine of every pair i ≠ j by the one-pass shortcut (‖Σ x̂_i‖² − n) / (n(n − 1))."""
    unit = np.asarray(cone_sample, dtype=np.float64)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    n = len(unit)
    return float((np.square(unit.sum(axis=0)).sum() - n) / (n * (n - 1)))


def ex02_2(static_vectors):
    """How many principal directions scikit-learn's PCA needs for half the variance (a count, from 1)."""
    from sklearn.decomposition import PCA

    cumulative = np.cumsum(PCA(svd_solver="full").fit(np.asarray(static_vectors, dtype=np.float64)).explained_variance_ratio_)
    return int(np.argmax(cumulative >= 0.5)) + 1


def ex02_3(layer0_cloud, cloud_lengths):
    """|Spearman ρ| of the sentences' coordinate on numpy's top right singular vector (uncentred) and their length."""
    vectors = np.asarray(layer0_cloud, dtype=np.float64)
    _, _, directions = np.linalg.svd(vectors, full_matrices=False)
    return abs(spearmanr(vectors @ directions[0], cloud_lengths).statistic)


def ex02_4(lesson):
    """The mean L2 norm of the main model's whole-word tokens (no '##') ranked 5000 or rarer, token by token."""
    run = lesson.main_run
    ranks = np.asarray(run.frequencies.ranks)
    chosen = [i for i, token in enumerate(run.frequencies.tokens) if ranks[i] >= 5000 and not token.startswith("##")]
    return float(np.mean([np.sqrt(np.sum(np.square(run.word_embeddings[i].double().numpy()))) for i in chosen]))


def ex02_5(WORD, lesson):
    """The 5 ranked tokens nearest to WORD by numpy's L2 distance to every other ranked token, joined by ', '."""
    run = lesson.main_run
    ranked = np.flatnonzero(np.asarray(run.frequencies.ranks) >= 0)
    if WORD not in run.frequencies.tokens or run.frequencies.tokens.index(WORD) not in ranked:
        raise ValueError(f"{WORD!r} is not a ranked single token of {run.name}: choose another WORD.")
    vectors = run.word_embeddings[ranked].double().numpy()
    at = int(np.flatnonzero(ranked == run.frequencies.tokens.index(WORD))[0])
    distances = np.linalg.norm(vectors - vectors[at], axis=1)
    distances[at] = np.inf  # a word is not its own neighbour
    return ", ".join(run.frequencies.tokens[ranked[i]] for i in np.argsort(distances, kind="stable")[:5])


def ex02_6(lesson):
    """The layer whose token vectors have the lowest mean cosine, every pair i ≠ j of the Gram matrix averaged."""
    def off_diagonal_mean(vectors):
        unit = np.asarray(vectors, dtype=np.float64)
        unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
        gram = unit @ unit.T
        return (gram.sum() - np.trace(gram)) / (len(gram) * (len(gram) - 1))

    return int(np.argmin([off_diagonal_mean(layer) for layer in lesson.main_run.layers["tokens"]]))


def ex02_7(sphere_points):
    """log of the mean of exp(−2 d²) over scipy's squared distances of every pair i < j of the normalised points."""
    points = np.asarray(sphere_points, dtype=np.float64)
    points = points / np.linalg.norm(points, axis=1, keepdims=True)
    return float(np.log(np.mean(np.exp(-2 * pdist(points, "sqeuclidean")))))


def ex02_8(static_vectors):
    """The mean off-diagonal cosine of scikit-learn's cosine matrix of the centred vectors."""
    from sklearn.metrics.pairwise import cosine_similarity

    vectors = np.asarray(static_vectors, dtype=np.float64)
    cosines = cosine_similarity(vectors - vectors.mean(axis=0))
    return float((cosines.sum() - np.trace(cosines)) / (len(cosines) * (len(cosines) - 1)))
