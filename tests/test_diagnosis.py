"""07's diagnosis checked against independent truth (issue 41, item 4): IsoScore against the authors' ``isoscore``
package, rogue-dimension shares summing to the expected cosine (and to the brute-force mean over pairs), every fix
against the implementation 05 tests (:mod:`sbert_workbook.calibration.calibrators`), and a ladder that finds the fix a
planted rogue dimension calls for."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from sbert_workbook.calibration import calibrators, word_vectors
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


# ----------------------------------------------------------------------------- every fix against 05's
CORPUS = mixed(600, 24)
OTHER = mixed(50, 24)


def test_centre_and_standardise_equal_05s_standard_normalisation():
    sn = calibrators.StandardNormalization().fit(CORPUS)
    np.testing.assert_allclose(fixes.standardise(CORPUS)(OTHER), sn.transform(OTHER).double().numpy(), atol=1e-5)
    np.testing.assert_allclose(fixes.centre(CORPUS)(OTHER), OTHER - sn.mean_.numpy(), atol=1e-9)


def test_all_but_the_top_equals_05s_word_vector_version_and_natsv_on_centred_vectors():
    mean, directions = word_vectors.principal_directions(CORPUS, 3)
    ours = fixes.all_but_the_top(CORPUS, 3)(OTHER)
    np.testing.assert_allclose(ours, word_vectors.all_but_the_top(OTHER, mean, directions), atol=1e-9)
    natsv = calibrators.NullTopDirections(3).fit(CORPUS - CORPUS.mean(axis=0))
    np.testing.assert_allclose(ours, natsv.transform(OTHER - CORPUS.mean(axis=0)).double().numpy(), atol=1e-4)


@pytest.mark.parametrize("k", [None, 8])
def test_whitening_equals_05s_up_to_the_sign_of_each_direction(k):
    ours = fixes.whiten(CORPUS, k)(OTHER)
    theirs = calibrators.Whitening(k).fit(CORPUS).transform(OTHER).double().numpy()
    np.testing.assert_allclose(ours @ ours.T, theirs @ theirs.T, rtol=1e-4, atol=1e-4)  # the Gram matrix ignores signs
    assert np.allclose(np.cov(fixes.whiten(CORPUS)(CORPUS), rowvar=False, bias=True), np.eye(24), atol=1e-8)


def test_the_flow_is_05s_flow():
    ours = fixes.flow(CORPUS, seed=3)(OTHER)
    theirs = calibrators.FlowCalibrator(seed=3, progress=False).fit(CORPUS.astype(np.float32)).transform(OTHER)
    np.testing.assert_allclose(ours, theirs.double().numpy(), atol=1e-6)


def test_per_cluster_all_but_the_top_is_all_but_the_top_within_each_cluster():
    np.testing.assert_allclose(fixes.per_cluster_all_but_the_top(CORPUS, 1, 3)(OTHER), fixes.all_but_the_top(CORPUS, 3)(OTHER),
                               atol=1e-9)
    two_clouds = np.vstack([mixed(300, 24), mixed(300, 24) - 20.0])
    fixed = fixes.per_cluster_all_but_the_top(two_clouds, 2, 2)(two_clouds)
    for half in (slice(0, 300), slice(300, 600)):  # k-means finds the two clouds; each loses its own mean and top 2
        members = two_clouds[half]
        natsv = calibrators.NullTopDirections(2).fit(members - members.mean(axis=0))
        np.testing.assert_allclose(fixed[half], natsv.transform(members - members.mean(axis=0)).double().numpy(), atol=1e-4)


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


def test_the_verdict_is_no_fix_when_no_interval_lies_above_zero():
    ties = {"centre": Interval(0.4, -0.2, 1.0, "x"), "SN": Interval(-2.0, -3.0, -1.0, "x")}
    assert Ladder(None, ties, {}).verdict() == "needs no fix" and Ladder(None, ties, {}).best == "centre"
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
