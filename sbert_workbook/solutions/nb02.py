"""Reference solutions for ``02_anisotropy.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np
from scipy.stats import pearsonr, spearmanr

from sbert_workbook.anisotropy import metrics as an
from sbert_workbook.evaluation import geometry
from sbert_workbook.evaluation.projection import project
from sbert_workbook.evaluation.similarity import mean_cosine
from sbert_workbook.teaching.exercises import solution


def _gram_mean(vectors, normalise: bool = True, diagonal: bool = False, divide_by_n_squared: bool = False) -> float:
    x = np.asarray(vectors, dtype=np.float64)
    if normalise:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    gram, n = x @ x.T, len(x)
    total = gram.sum() if diagonal else gram.sum() - np.trace(gram)
    return float(total / (n * n if diagonal or divide_by_n_squared else n * (n - 1)))


@solution(wrong={
    "diagonal included (every cos(x_i, x_i) = 1 averaged in)": lambda cone_sample: _gram_mean(cone_sample, diagonal=True),
    "not normalised: mean dot product, not mean cosine": lambda cone_sample: _gram_mean(cone_sample, normalise=False),
    "off-diagonal sum divided by n² instead of n(n − 1)": lambda cone_sample: _gram_mean(cone_sample, divide_by_n_squared=True),
})
def ex02_1(cone_sample) -> float:
    """The mean off-diagonal entry of the Gram matrix of the unit vectors."""
    return _gram_mean(cone_sample)


def _directions_for(ratios, share: float = 0.5, off_by_one: bool = False) -> int:
    return int(np.searchsorted(np.cumsum(ratios), share) + (0 if off_by_one else 1))


@solution(wrong={
    "off by one: the index where the cumulative share reaches 0.5, not the count": lambda static_vectors: _directions_for(
        geometry.principal_variance_ratios(static_vectors), off_by_one=True),
    "uncentred shares (the common direction counted as a principal direction)": lambda static_vectors: _directions_for(
        geometry.principal_variance_ratios(static_vectors, center=False)),
    "shares of σ, not of σ² (the variance)": lambda static_vectors: _directions_for(
        (lambda s: s / s.sum())(np.sqrt(geometry.principal_variance_ratios(static_vectors)))),
})
def ex02_2(static_vectors) -> int:
    """How many centred principal directions it takes for the cumulative variance share to reach 0.5."""
    return _directions_for(geometry.principal_variance_ratios(static_vectors))


@solution(wrong={
    "Pearson instead of Spearman": lambda layer0_cloud, cloud_lengths: float(
        pearsonr(project(layer0_cloud, "svd")[:, 0], cloud_lengths)[0]),
    "the centred 'pca' axis instead of the uncentred 'svd' one": lambda layer0_cloud, cloud_lengths: float(
        spearmanr(project(layer0_cloud, "pca")[:, 0], cloud_lengths).statistic),
    "the second svd coordinate ([:, 1]) instead of the first": lambda layer0_cloud, cloud_lengths: float(
        spearmanr(project(layer0_cloud, "svd")[:, 1], cloud_lengths).statistic),
})
def ex02_3(layer0_cloud, cloud_lengths) -> float:
    """Spearman ρ between the first uncentred singular coordinate and the sentence length in tokens."""
    return float(spearmanr(project(layer0_cloud, "svd")[:, 0], cloud_lengths).statistic)


def _rare_norm(norms, ranks, tokens, low: int = 5000, high: float = np.inf, drop_pieces: bool = True,
               unranked: bool = False, squared: bool = False) -> float:
    ranks = np.asarray(ranks)
    in_bucket = ((ranks >= low) & (ranks < high)) | ((ranks < 0) if unranked else False)
    whole = np.array([not token.startswith("##") for token in tokens]) if drop_pieces else True
    chosen = np.asarray(norms, dtype=np.float64)[in_bucket & whole]
    return float((chosen ** 2 if squared else chosen).mean())


@solution(wrong={
    "'##' pieces kept (the whole bucket's norm)": lambda norms, ranks, tokens: _rare_norm(norms, ranks, tokens,
                                                                                          drop_pieces=False),
    "unranked tokens (rank −1) counted as rare": lambda norms, ranks, tokens: _rare_norm(norms, ranks, tokens,
                                                                                         unranked=True),
    "the [500, 5K) bucket instead of [5K, …)": lambda norms, ranks, tokens: _rare_norm(norms, ranks, tokens, low=500,
                                                                                       high=5000),
    "mean squared norm, not mean norm": lambda norms, ranks, tokens: _rare_norm(norms, ranks, tokens, squared=True),
})
def ex02_4(norms, ranks, tokens) -> float:
    """Mean L2 norm of the input embeddings of tokens ranked ≥ 5000 that are not '##' pieces."""
    return _rare_norm(norms, ranks, tokens)


def _neighbours(WORD, W, tokens, ranked_rows, drop_nearest: bool = False, include_self: bool = False,
                as_token_ids: bool = False) -> list[str]:
    vectors = np.asarray(W)[ranked_rows]
    row = int(np.flatnonzero(ranked_rows == tokens.index(WORD))[0])
    if drop_nearest:  # as if an.knn returned the word itself first
        nearest = an.knn(vectors, 6, queries=[row])[1][0][1:]
    elif include_self:
        nearest = np.concatenate([[row], an.knn(vectors, 4, queries=[row])[1][0]])
    else:
        nearest = an.knn(vectors, 5, queries=[row])[1][0]
    return [tokens[i] if as_token_ids else tokens[ranked_rows[i]] for i in nearest]


@solution(wrong={
    "the word itself counted as its nearest neighbour": lambda WORD, W, tokens, ranked_rows: _neighbours(
        WORD, W, tokens, ranked_rows, include_self=True),
    "off by one: asked an.knn for 6 and dropped the first, as if it returned the word itself":
        lambda WORD, W, tokens, ranked_rows: _neighbours(WORD, W, tokens, ranked_rows, drop_nearest=True),
    "positions among ranked_rows read as token ids (tokens[i], not tokens[ranked_rows[i]])":
        lambda WORD, W, tokens, ranked_rows: _neighbours(WORD, W, tokens, ranked_rows, as_token_ids=True),
})
def ex02_5(WORD, W, tokens, ranked_rows) -> list[str]:
    """The 5 ranked tokens nearest to WORD in L2 distance, nearest first, WORD itself left out."""
    return _neighbours(WORD, W, tokens, ranked_rows)


@solution(wrong={
    "the most anisotropic layer (argmax)": lambda token_cone: int(np.argmax(token_cone)),
    "the smallest value itself (min), not its layer (argmin)": lambda token_cone: float(np.min(token_cone)),
    "off by one: transformer layers counted from 1 after the embedding layer": lambda token_cone: int(
        np.argmin(token_cone)) + 1,
})
def ex02_6(token_cone) -> int:
    """The layer (0 = embeddings) whose single token vectors have the lowest mean cosine."""
    return int(np.argmin(token_cone))


def _uniformity_by_hand(points, normalise: bool = True, log: bool = True, squared: bool = True,
                        diagonal: bool = False) -> float:
    x = np.asarray(points, dtype=np.float64)
    if normalise:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    norms = (x * x).sum(axis=1)
    d2 = np.maximum(norms[:, None] + norms[None, :] - 2 * x @ x.T, 0)
    pairs = d2 if diagonal else d2[np.triu_indices(len(x), k=1)]
    mean = np.exp(-2 * (pairs if squared else np.sqrt(pairs))).mean()
    with np.errstate(divide="ignore"):  # log(0) = −inf for unnormalised points, which the check reports
        return float(np.log(mean) if log else mean)


@solution(wrong={
    "not normalised onto the sphere (raw Gaussian vectors)": lambda sphere_points: _uniformity_by_hand(
        sphere_points, normalise=False),
    "without the log": lambda sphere_points: _uniformity_by_hand(sphere_points, log=False),
    "distance not squared: exp(−2‖x − y‖)": lambda sphere_points: _uniformity_by_hand(sphere_points, squared=False),
    "pairs i = j included": lambda sphere_points: _uniformity_by_hand(sphere_points, diagonal=True),
})
def ex02_7(sphere_points) -> float:
    """log of the mean of exp(−2‖x̂_i − x̂_j‖²) over pairs i < j of the normalised points."""
    return _uniformity_by_hand(sphere_points)


@solution(wrong={
    "not centred (the cone as it was)": lambda static_vectors: mean_cosine(static_vectors),
    "centred, but the diagonal (each cos(x_i, x_i) = 1) averaged in": lambda static_vectors: (lambda u: float(
        (u @ u.T).mean()))((lambda c: c / np.linalg.norm(c, axis=1, keepdims=True))(
            np.asarray(static_vectors, dtype=np.float64) - np.asarray(static_vectors, dtype=np.float64).mean(axis=0))),
    "normalised first, then centred": lambda static_vectors: mean_cosine(
        (lambda u: u - u.mean(axis=0))(np.asarray(static_vectors) / np.linalg.norm(static_vectors, axis=1, keepdims=True))),
})
def ex02_8(static_vectors) -> float:
    """Mean cosine of random pairs after subtracting the mean vector (over sentences) from every vector."""
    x = np.asarray(static_vectors, dtype=np.float64)
    return mean_cosine(x - x.mean(axis=0))


DISCUSSION = {
    "ex02_3": "Compare the two numbers. In static every sentence of n tokens carries the position embeddings of 0 … n − 1, "
              "whose average drifts with n whatever the words; word_embeddings has no positions, so what it keeps of the "
              "correlation enters through the words alone: a longer sentence averages more, and more varied, word "
              "vectors, and the fixed [CLS] and [SEP] rows weigh less in a longer average. If most of it survives (as "
              "with the embedded all-MiniLM-L6-v2 in our quick run), length reaches the cone's axis mainly through the "
              "words; the gap between the two is what the position part adds.",
    "ex02_5": "For a frequent word the neighbours are related words (other evaluative adjectives, comparatives, near "
              "synonyms). For a rare token BERT-flow finds sparse, poorly trained regions where nearness says little; "
              "in the embedded all-MiniLM-L6-v2, fine-tuned for similarity, a rare word's neighbours are often still "
              "related, with '##' fragments and names mixed in. Try a few ranks above 5000 before concluding.",
    "ex02_7": "On the sphere in 384 dimensions two random unit vectors are almost orthogonal, so ‖x − y‖² is close to 2 "
              "and ℓ_uniform is close to −2·2 = −4: that is the floor, up to sampling noise. Every view in the summary "
              "table lies above it; the trained mean pooling comes closest, the cone-shaped views (cls, static) far "
              "above it, because their vectors are close to each other (small distances, exp(−2‖x − y‖²) near 1).",
    "ex02_8": "Centring removes the common direction: the mean cosine of the centred static view drops to about 0, "
              "typically just below 0 when the norms are similar. Centring makes the raw vectors sum to zero; only for "
              "UNIT vectors that sum to zero is the mean cosine exactly −1/(n − 1), and with unequal norms it need not "
              "even be negative: (10, 0) and ten copies of (−1, 0) sum to zero, yet their mean cosine is +0.64 (90 "
              "pairs of copies at +1, 20 pairs with (10, 0) at −1: 70/110). So one subtraction removes the cone. The "
              "STS-B Spearman of the centred view rises, but it stays below the trained mean pooling: the cone is not "
              "the only problem; the remaining directions are still shaped by frequency and position, which is what "
              "whitening and BERT-flow (notebook 05) go further on.",
    "ex02_9": "With bert-base-uncased, expect the published trends: norms fall as words get more frequent and k-NN "
              "distances grow with rank. Expect the numbers to be close but not identical: wordfreq's blended corpus "
              "ranks words differently from BERT-flow's Wikipedia counts, most of all in the rare buckets, and in quick "
              "mode the k-NN means use a sample of the queries.",
    "ex02_10": "Counted over a few thousand STS-B and SNLI sentences, most of the vocabulary never occurs and becomes "
               "unranked, so the rare bucket shrinks and changes most; the top buckets change less (function words "
               "are frequent in any corpus) but pick up the topics of these data sets (people, photos, dogs). Frequency "
               "is a property of a corpus: the bucket a token falls into depends on which one you count.",
    "ex02_11": "In our quick run with the embedded all-MiniLM-L6-v2 (its un-tuned views and its trained mean pooling), "
               "sentences of rarer words sit further from the mean in every view: the ρ between mean log-frequency "
               "and the raw distance is negative throughout. Whitening does not remove it: in the word_embeddings and "
               "static views the ρ with the whitened distance is stronger than with the raw one, in cls and the "
               "trained mean pooling weaker, most of all in mean. Whitening makes every direction count equally, so "
               "whatever carries frequency counts as much as the rest, and under the fitted Gaussian the rare-word "
               "sentences become the low-density ones: BERT-flow's 'sparse regions', now at the sentence level. That "
               "need not hurt similarity: cosine after whitening compares directions, and what whitening (and the "
               "flow) takes away is the common direction and the unequal scales that dominated the angle, not the "
               "fact that a sentence is made of rare words. A Gaussian target does not erase frequency from the "
               "space; it stops frequency and the cone from deciding the cosine. Check it on bert-base-uncased, "
               "where BERT-flow's Table 1 trends hold, and compare the length columns before crediting frequency.",
}
