"""07's diagnosis checked against independent truth: IsoScore against the authors' ``isoscore`` package (and its
(k − 1)/(d − 1) reading worked by hand), rogue-dimension shares summing to the expected cosine (and to the brute-force
mean over pairs), the informativity test against scipy's Spearman, every rung of the ladder (05's calibrators) against
scipy's z-scores and NumPy's SVD written out here, the plane's moves and the ladder's runner-up against hand-made
cases, and a ladder that finds the fix a planted rogue dimension calls for."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbert_workbook.data.records import StsData
from sbert_workbook.diagnosis import cone, fixes, rogue
from sbert_workbook.diagnosis.ladder import Ladder, PairVectors, climb
from sbert_workbook.evaluation.uncertainty import Interval

RNG = np.random.default_rng(0)


def isotropic(n=20_000, d=10):
    return RNG.standard_normal((n, d))


def on_a_line(n=2_000, d=10):
    return np.outer(RNG.standard_normal(n), RNG.standard_normal(d)) + 1e-6 * RNG.standard_normal((n, d))


def mixed(n=5_000, d=10):
    return RNG.standard_normal((n, d)) * np.linspace(0.1, 3.0, d) + 5.0  # unequal variances, off the origin


def reference_isoscore(points) -> float:
    from IsoScore import IsoScore

    return float(IsoScore.IsoScore(np.asarray(points, dtype=np.float64)))


@pytest.mark.parametrize(("case", "expected"), [(isotropic, 1.0), (on_a_line, 0.0), (mixed, None)],
                         ids=["isotropic", "one-dimensional", "mixed"])
def test_isoscore_equals_the_authors_package(case, expected):
    points = case()
    ours, theirs = cone.isoscore(points), reference_isoscore(points)
    assert ours == pytest.approx(theirs, abs=1e-6)
    if expected is not None:
        assert ours == pytest.approx(expected, abs=0.01)
    else:
        assert 0.2 < ours < 0.9, "unequal variances score between a line and a ball"


def test_isoscore_is_blind_to_a_shift_the_mean_cosine_is_not():
    """Rudman et al.'s point: moving an isotropic cloud off the origin makes the mean cosine rise, not its isotropy."""
    points = isotropic(5_000, 10)
    shifted = points + 4.0
    assert cone.isoscore(shifted) == pytest.approx(cone.isoscore(points), abs=1e-9)
    assert cone.mean_random_pair_cosine(shifted) > 0.5 > abs(cone.mean_random_pair_cosine(points))


def test_effective_rank_counts_equal_directions_and_top_share_matches_pca():
    from sklearn.decomposition import PCA

    q, _ = np.linalg.qr(RNG.standard_normal((50, 50)))
    three_equal = RNG.choice([-1.0, 1.0], size=(200, 3)) @ q[:, :3].T  # three equal singular values
    assert cone.effective_rank(three_equal) == pytest.approx(3.0, abs=0.05)
    points = mixed()
    assert cone.top_direction_share(points) == pytest.approx(PCA().fit(points).explained_variance_ratio_[0], rel=1e-6)


def test_rogue_shares_sum_to_the_expected_cosine_of_random_pairs():
    points = mixed(300, 10)
    contributions = rogue.cosine_contributions(points)
    assert contributions.sum() == pytest.approx(cone.mean_random_pair_cosine(points), abs=1e-9)
    unit = points / np.linalg.norm(points, axis=1, keepdims=True)
    i, j = np.where(~np.eye(len(points), dtype=bool))
    brute_force = (unit[i] * unit[j]).mean(axis=0)  # E over every pair i ≠ j, dimension by dimension
    np.testing.assert_allclose(contributions, brute_force, atol=1e-12)
    table = rogue.rogue_dimensions(points, top=3)
    assert list(table.index) == list(np.argsort(-np.abs(contributions))[:3])
    assert rogue.top_share(points, 10) == pytest.approx(1.0)


def test_a_planted_rogue_dimension_is_found_and_dominates():
    points = RNG.standard_normal((400, 20))
    points[:, 7] += 30.0
    assert rogue.rogue_dimensions(points, top=1).index[0] == 7
    assert rogue.top_share(points, 1) > 0.9


# ----------------------------------------------------------------------------- every rung against an independent truth
CORPUS = mixed(600, 24)
OTHER = mixed(50, 24)


def numpy_top_directions(corpus, d):
    """The top d principal directions of the corpus, as rows: NumPy's SVD of the centred rows, not 05's eigh."""
    return np.linalg.svd(corpus - corpus.mean(axis=0), full_matrices=False)[2][:d]


def test_centre_and_standardise_equal_numpy_and_scipy():
    from scipy import stats

    np.testing.assert_allclose(fixes.centre(CORPUS)(OTHER), OTHER - CORPUS.mean(axis=0), atol=1e-5)
    fitted_on_itself = fixes.standardise(CORPUS)(CORPUS)
    np.testing.assert_allclose(fitted_on_itself, stats.zscore(CORPUS, axis=0), atol=1e-5)
    np.testing.assert_allclose(fixes.standardise(CORPUS)(OTHER), (OTHER - CORPUS.mean(axis=0)) / CORPUS.std(axis=0), atol=1e-5)


def test_all_but_the_top_removes_numpys_top_directions_from_the_centred_vectors():
    top = numpy_top_directions(CORPUS, 3)
    centred = OTHER - CORPUS.mean(axis=0)
    by_hand = centred - (centred @ top.T) @ top  # Mu & Viswanath's Algorithm 1, on the centred vector
    ours = fixes.all_but_the_top(CORPUS, 3)(OTHER)
    np.testing.assert_allclose(ours, by_hand, atol=1e-4)
    assert np.abs(ours @ top.T).max() < 1e-4, "nothing is left along the removed directions"


@pytest.mark.parametrize("k", [None, 8])
def test_whitening_makes_the_covariance_the_identity_and_is_numpys_formula_up_to_signs(k):
    eigenvalues, eigenvectors = np.linalg.eigh(np.cov(CORPUS, rowvar=False, bias=True))
    order = np.argsort(-eigenvalues)[:k or 24]
    by_hand = (OTHER - CORPUS.mean(axis=0)) @ (eigenvectors[:, order] / np.sqrt(eigenvalues[order]))
    ours = fixes.whiten(CORPUS, k)(OTHER)
    np.testing.assert_allclose(ours @ ours.T, by_hand @ by_hand.T, rtol=1e-4, atol=1e-4)  # the Gram matrix ignores signs
    assert np.allclose(np.cov(fixes.whiten(CORPUS, k)(CORPUS), rowvar=False, bias=True), np.eye(k or 24), atol=1e-5)


def test_the_flow_maps_its_corpus_closer_to_a_standard_gaussian():
    """The flow's truth is its objective: fitted by maximum likelihood, its codes of the corpus are nearer mean 0 and
    variance 1 than the vectors were (here they sit at mean 5)."""
    codes = fixes.flow(CORPUS, seed=3)(CORPUS)
    assert np.abs(codes.mean(axis=0)).mean() < np.abs(CORPUS.mean(axis=0)).mean()
    assert codes.shape == CORPUS.shape and np.isfinite(codes).all()


def test_per_cluster_all_but_the_top_is_all_but_the_top_within_each_cluster():
    np.testing.assert_allclose(fixes.per_cluster_all_but_the_top(CORPUS, 1, 3)(OTHER), fixes.all_but_the_top(CORPUS, 3)(OTHER),
                               atol=1e-9)
    two_clouds = np.vstack([mixed(300, 24), mixed(300, 24) - 20.0])
    fixed = fixes.per_cluster_all_but_the_top(two_clouds, 2, 2)(two_clouds)
    for half in (slice(0, 300), slice(300, 600)):  # k-means finds the two clouds; each loses its own mean and top 2
        members = two_clouds[half]
        top, centred = numpy_top_directions(members, 2), members - members.mean(axis=0)
        np.testing.assert_allclose(fixed[half], centred - (centred @ top.T) @ top, atol=1e-4)


def test_a_cluster_of_one_vector_is_only_centred():
    from sbert_workbook.calibration.all_but_the_top import PerClusterAllButTheTop

    points = np.vstack([mixed(40, 6), np.full((1, 6), 500.0)])  # one far outlier: a cluster of its own
    calibrator = PerClusterAllButTheTop(2, 2).fit(points)
    assert torch.allclose(calibrator.transform(points[-1:]), torch.zeros(1, 6))


# ----------------------------------------------------------------------------- informativity, shares, the plane, IsoScore's k
def test_informativity_is_scipys_spearman_of_the_cosines_with_and_without_the_dimensions():
    from scipy import stats

    u, v = RNG.standard_normal((200, 12)), RNG.standard_normal((200, 12))
    found = rogue.informativity(u, v, [0, 5], resamples=300)
    cos = lambda a, b: (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)  # noqa: E731
    keep = [i for i in range(12) if i not in (0, 5)]
    assert found.value == pytest.approx(stats.spearmanr(cos(u, v), cos(u[:, keep], v[:, keep])).statistic, abs=1e-9)
    assert found.low <= found.value <= found.high


def test_a_constant_rogue_dimension_sets_the_level_of_cosine_but_keeps_the_order():
    """Timkey & van Schijndel's point: a dimension the same in every vector dominates E cos and changes no ranking,
    while one that varies wildly reorders the pairs (rows of equal length, so the constant moves no norm)."""
    u, v = (x / np.linalg.norm(x, axis=1, keepdims=True) for x in RNG.standard_normal((2, 300, 10)))
    constant_u, constant_v = np.c_[np.full(300, 20.0), u], np.c_[np.full(300, 20.0), v]
    assert rogue.top_share(np.vstack([constant_u, constant_v]), 1) > 0.9
    kept = rogue.informativity(constant_u, constant_v, [0], resamples=300)
    assert kept.value > 0.95 and rogue.order_verdict(kept) == "keeps the order"
    wild_u, wild_v = np.c_[20 * RNG.standard_normal(300), u], np.c_[20 * RNG.standard_normal(300), v]
    assert rogue.order_verdict(rogue.informativity(wild_u, wild_v, [0], resamples=300)) == "reorders the pairs"


def test_a_share_is_undefined_when_the_expected_cosine_is_near_zero():
    assert not rogue.share_is_defined(rogue.cosine_contributions(isotropic(2000, 10)))
    assert rogue.share_is_defined(rogue.cosine_contributions(mixed(300, 10)))
    assert not rogue.share_is_defined(np.array([0.5, -0.4, 0.0]))  # E cos 0.1, but a share of 5 and one of −4


def test_k_equally_used_directions_score_k_minus_one_over_d_minus_one():
    d, k = 12, 4
    q, _ = np.linalg.qr(RNG.standard_normal((d, d)))
    points = RNG.choice([-1.0, 1.0], size=(4000, k)) @ q[:, :k].T  # k directions, equal variance; none in the rest
    score = cone.isoscore(points)
    assert score == pytest.approx((k - 1) / (d - 1), abs=0.01)
    assert cone.dimensions_used(score, d) == pytest.approx(k, abs=0.1)


def test_the_plane_reads_each_move_from_its_two_intervals():
    from sbert_workbook.diagnosis.plane import move_words, simcse_pattern

    lower, higher, tie = Interval(-0.1, -0.2, -0.05, "x"), Interval(0.1, 0.05, 0.2, "x"), Interval(0.0, -0.1, 0.1, "x")
    simcse = {"uniformity": lower, "alignment": higher}
    assert move_words(simcse) == "more uniform, less aligned" and simcse_pattern(simcse) == "yes"
    assert move_words({"uniformity": lower, "alignment": tie}) == "more uniform, alignment tied"
    assert simcse_pattern({"uniformity": lower, "alignment": tie}) == "no"
    assert move_words({"uniformity": tie, "alignment": lower}) == "uniformity tied, more aligned"


def test_diagnosis_sizes_come_from_07s_manifest():
    from sbert_workbook.diagnosis.run import default_sizes
    from sbert_workbook.lessons.manifests.nb07 import MANIFEST

    assert default_sizes()["pairs_per_set"] == MANIFEST.sizes["PAIRS_PER_SET"].quick
    assert default_sizes("full")["uniformity_sentences"] == MANIFEST.sizes["UNIFORMITY_SENTENCES"].full


# ----------------------------------------------------------------------------- the ladder and its verdict
def planted_sts(n_pairs=300, d=16, seed=0):
    """Pairs whose similarity lives in 15 dimensions, plus one rogue dimension of huge size and random sign in each
    sentence: cosine reads the rogue dimension (about ±1 at random) and ranks badly, until standardising shrinks it to
    the size of the others. Centring cannot help: its mean is already 0."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n_pairs, d))
    gold = rng.uniform(0, 5, n_pairs)
    noise = rng.standard_normal((n_pairs, d)) * (5 - gold)[:, None] / 2
    u, v = base.copy(), base + noise
    u[:, 0], v[:, 0] = 50 * rng.choice([-1.0, 1.0], n_pairs), 50 * rng.choice([-1.0, 1.0], n_pairs)
    sentences1, sentences2 = [f"a{i}" for i in range(n_pairs)], [f"b{i}" for i in range(n_pairs)]
    sets = {"planted": StsData("planted", "test", sentences1, sentences2, gold, ["x"] * n_pairs, "planted", (0.0, 5.0))}
    return PairVectors(sets, sentences1 + sentences2, np.vstack([u, v]))


def test_the_ladder_finds_the_fix_a_planted_rogue_dimension_calls_for():
    ladder = climb({"centre": fixes.centre, "SN": fixes.standardise}, planted_sts(), resamples=300)
    assert ladder.intervals["SN"].direction == "higher" and ladder.intervals["centre"].direction == "tie"
    assert ladder.needed == "SN" and ladder.verdict() == "needs SN"
    assert ladder.table.loc["SN", "avg"] > ladder.table.loc["no fix", "avg"] + 10
    assert ladder.runner_up == "centre"
    gap = ladder.change("SN", "centre", resamples=300)  # the same pairs: SN's change minus centre's, by the bootstrap
    assert gap.difference == pytest.approx(ladder.table.loc["SN", "avg"] - ladder.table.loc["centre", "avg"], abs=1e-9)
    assert gap.direction == "higher"


def test_the_verdict_is_no_fix_when_no_interval_lies_above_zero():
    ties = {"centre": Interval(0.4, -0.2, 1.0, "x"), "SN": Interval(-2.0, -3.0, -1.0, "x")}
    assert Ladder(None, ties, {}).verdict() == "needs no fix" and Ladder(None, ties, {}).best == "centre"
    assert Ladder(None, ties, {}).runner_up == "SN"
    small = {**ties, "whitening": Interval(0.9, 0.1, 1.7, "x")}  # sure, but under a point: not needed
    assert Ladder(None, small, {}).verdict() == "needs no fix" and Ladder(None, small, {}).best == "whitening"
    helps = {**small, "flow": Interval(1.5, 0.5, 2.5, "x"), "SN": Interval(2.5, -0.5, 5.5, "x")}
    assert Ladder(None, helps, {}).verdict() == "needs flow", "the largest sure gain, not the largest gain"


def test_fixes_refuse_too_few_vectors():
    with pytest.raises(ValueError, match="at least 2 vectors"):
        fixes.standardise(np.ones((1, 4)))
    with pytest.raises(ValueError, match="at least 3 vectors"):
        cone.isoscore(torch.ones(2, 4))


def test_the_plane_says_when_the_sample_holds_too_few_positive_pairs():
    from sbert_workbook.diagnosis.plane import TooFewPositivesError, plane_points

    pairs = planted_sts(n_pairs=20)
    data = pairs.sets["planted"]
    one_positive = StsData("stsb", "test", data.sentences1, data.sentences2, np.r_[4.5, np.zeros(19)], data.subsets,
                           "planted", (0.0, 5.0))
    with pytest.raises(TooFewPositivesError, match="at least 2 positive pairs: Only 1 pairs of stsb"):
        plane_points(pairs, one_positive, {})
    two = StsData("stsb", "test", data.sentences1, data.sentences2, np.r_[4.5, 4.8, np.zeros(18)], data.subsets, "planted", (0.0, 5.0))
    table = plane_points(pairs, two, {"SN": fixes.standardise(pairs.vectors)})
    assert list(table.index) == ["no fix", "SN"] and table.attrs["positives"] == "2 stsb test pairs scored above 4"
