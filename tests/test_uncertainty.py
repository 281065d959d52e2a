"""The intervals behind every "tie" and "apart", against scipy and hand-made cases."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from sbert_workbook.evaluation import comparison, uncertainty

#: The rule the intervals replace: a difference under the papers' largest seed spread was a tie, whatever the sample.
OLD_TIE_THRESHOLD = 1.76


def _correlated(n: int, noise_a: float, noise_b: float, seed: int = 0):
    """Gold scores and two similarity lists sharing most of their noise (as two poolings of one model do)."""
    rng = np.random.default_rng(seed)
    gold = rng.uniform(0, 5, n)
    shared = rng.normal(0, 1.5, n)
    return gold, gold + shared + rng.normal(0, noise_a, n), gold + shared + rng.normal(0, noise_b, n)


def test_spearman_rows_is_scipys_spearman_row_by_row():
    rng = np.random.default_rng(1)
    similarities, gold = rng.normal(size=(4, 30)), np.round(rng.uniform(0, 5, size=(4, 30)))  # rounded gold: ties
    expected = [100 * stats.spearmanr(s, g).statistic for s, g in zip(similarities, gold)]
    np.testing.assert_allclose(uncertainty.spearman_rows(similarities, gold), expected, rtol=1e-12)


def test_resampled_ranks_are_scipys_average_ranks_of_each_resample():
    rng = np.random.default_rng(2)
    values = np.round(rng.normal(size=60), 1)  # rounded: ties within and across resamples
    picks = rng.integers(0, 60, size=(50, 60))
    np.testing.assert_array_equal(uncertainty.resampled_ranks(values, picks), stats.rankdata(values[picks], axis=-1))


def test_the_paired_bootstrap_agrees_with_scipys():
    gold, a, b = _correlated(300, 0.4, 0.8)
    ours = uncertainty.paired_bootstrap(gold, a, b, resamples=4000, seed=0)
    difference = lambda g, x, y: 100 * (stats.spearmanr(x, g).statistic - stats.spearmanr(y, g).statistic)  # noqa: E731
    theirs = stats.bootstrap((gold, a, b), difference, paired=True, vectorized=False, n_resamples=4000,
                             method="percentile", random_state=np.random.default_rng(1)).confidence_interval
    assert ours.difference == pytest.approx(difference(gold, a, b), abs=1e-9)
    assert ours.low == pytest.approx(theirs.low, abs=0.35) and ours.high == pytest.approx(theirs.high, abs=0.35)


def test_a_big_gap_on_forty_pairs_was_apart_under_the_old_rule_and_is_a_tie():
    gold, a, b = _correlated(40, 0.9, 1.3, seed=3)
    interval = uncertainty.paired_bootstrap(gold, a, b, seed=0)
    assert abs(interval.difference) >= OLD_TIE_THRESHOLD, "the old rule calls this apart"
    assert not interval.apart and interval.low < 0 < interval.high


def test_a_small_gap_on_many_pairs_was_a_tie_under_the_old_rule_and_is_apart():
    gold, a, b = _correlated(3000, 0.20, 0.40, seed=4)
    interval = uncertainty.paired_bootstrap(gold, a, b, seed=0)
    assert 0 < interval.difference < OLD_TIE_THRESHOLD, "the old rule calls this a tie"
    assert interval.apart and interval.low > 0


def test_several_sets_resample_each_set_and_average_their_differences():
    sets = {name: _correlated(n, 0.4, 0.7, seed=seed) for name, n, seed in (("one", 200, 5), ("two", 80, 6))}
    interval = uncertainty.paired_bootstrap(*({name: arrays[k] for name, arrays in sets.items()} for k in range(3)))
    singles = [uncertainty.paired_bootstrap(*arrays).difference for arrays in sets.values()]
    assert interval.difference == pytest.approx(np.mean(singles))
    assert "280 pairs of 2 sets" in interval.method


def test_identical_views_differ_by_exactly_zero_and_tie():
    gold, a, _ = _correlated(50, 0.5, 0.5)
    interval = uncertainty.paired_bootstrap(gold, a, a)
    assert interval.difference == interval.low == interval.high == 0 and interval.verdict == "tie"


def test_seed_interval_is_students_t_over_the_per_seed_differences():
    differences = [1.2, 0.4, 0.9, 1.5, 0.7]
    interval = uncertainty.seed_interval(differences)
    half = stats.t.ppf(0.975, 4) * np.std(differences, ddof=1) / np.sqrt(5)
    assert (interval.low, interval.high) == pytest.approx((np.mean(differences) - half, np.mean(differences) + half))
    assert interval.apart and "5 seeds" in interval.method
    with pytest.raises(ValueError, match="at least 2 seeds"):
        uncertainty.seed_interval([0.3])


def test_published_means_over_ten_seeds_have_standard_error_sigma_over_root_ten():
    # two means 1.0 apart, each ± 1.5 over 10 seeds: half-width 1.96 * sqrt(2 * 1.5² / 10) = 1.3148
    interval = uncertainty.published_interval(75.0, 1.5, 10, 74.0, 1.5, 10)
    assert interval.high - interval.difference == pytest.approx(1.959964 * np.sqrt(2 * 1.5 ** 2 / 10), rel=1e-6)
    assert not interval.apart, "1.0 apart is a tie at σ = 1.5 over 10 seeds"
    assert uncertainty.published_interval(75.0, 1.5, 100, 74.0, 1.5, 100).apart, "the same gap is apart over 100 seeds"


def test_bad_input_says_what_was_wrong():
    with pytest.raises(ValueError, match="at least 3"):
        uncertainty.paired_bootstrap([1, 2], [1, 2], [2, 1])
    with pytest.raises(ValueError, match="as long as each other"):
        uncertainty.paired_bootstrap([1, 2, 3, 4], [1, 2, 3], [1, 2, 3, 4])


def test_a_verdict_names_its_interval():
    interval = uncertainty.Interval(0.84, 0.21, 1.47, "paired bootstrap over 1379 pairs, 2000 resamples")
    assert interval.direction == "higher" and uncertainty.Interval(-0.5, -0.9, -0.1, "").direction == "lower"
    assert uncertainty.Interval(0.5, -0.1, 1.1, "").direction == "tie"
    assert interval.described() == "+0.84 [+0.21, +1.47]: apart (95 % paired bootstrap over 1379 pairs, 2000 resamples)"


def test_our_score_against_a_published_number_varies_only_with_our_pairs():
    gold, a, _ = _correlated(400, 0.5, 0.5, seed=7)
    ours = 100 * stats.spearmanr(a, gold).statistic
    interval = uncertainty.score_interval(gold, a, reference=ours - 15.0)
    assert interval.difference == pytest.approx(15.0) and interval.apart and "bootstrap of our score" in interval.method
    assert uncertainty.score_interval(gold, a, reference=ours).verdict == "tie"


def test_ranked_neighbours_orders_rows_and_reads_each_gap_with_its_interval():
    sets = {"one": _correlated(1500, 0.2, 0.4, seed=8), "two": _correlated(1500, 0.2, 0.4, seed=9)}
    gold = {name: arrays[0] for name, arrays in sets.items()}
    rows = {"sharp": {n: arrays[1] for n, arrays in sets.items()}, "blurred": {n: arrays[2] for n, arrays in sets.items()},
            "sharp again": {n: arrays[1] for n, arrays in sets.items()}}
    table = comparison.ranked_neighbours(rows, gold)
    assert list(table.index)[-1] == "blurred" and table.loc["blurred", "verdict"] == ""
    first, second = table.index[:2]
    assert {first, second} == {"sharp", "sharp again"} and table.loc[first, "verdict"] == "tie"
    assert table.loc[second, "verdict"] == "apart", "sharp vs blurred: 0.2 against 0.4 of noise on 3000 pairs"
    drawn = table.attrs["intervals"]  # what a forest plot draws: one interval per gap, the table's own
    assert list(drawn) == [f"{first} − {second}", f"{second} − blurred"]
    assert drawn[f"{second} − blurred"].verdict == "apart" and drawn[f"{second} − blurred"].difference == table.loc[second, "difference"]


def test_wmean_strata_weighs_each_subset_by_its_share_of_its_set():
    gold = {"a": np.arange(6.0), "b": np.arange(4.0)}
    subsets = {"a": ["x", "x", "x", "x", "y", "y"], "b": ["z"] * 4}
    weights, split_gold, split_sims = uncertainty.wmean_strata(gold, subsets, gold)
    assert weights == pytest.approx({"a/x": 4 / 6 / 2, "a/y": 2 / 6 / 2, "b/z": 1 / 2})
    assert list(split_gold["a/y"]) == [4.0, 5.0] and list(split_sims["b/z"]) == [0, 1, 2, 3]


def test_a_weighted_bootstrap_gives_the_weighted_mean_of_the_differences():
    sets = {name: _correlated(300, 0.3, 0.6, seed=seed) for name, seed in (("one", 10), ("two", 11))}
    gold, a, b = ({name: arrays[k] for name, arrays in sets.items()} for k in range(3))
    weighted = uncertainty.paired_bootstrap(gold, a, b, weights={"one": 0.75, "two": 0.25})
    singles = {name: uncertainty.paired_bootstrap(gold[name], a[name], b[name]).difference for name in sets}
    assert weighted.difference == pytest.approx(0.75 * singles["one"] + 0.25 * singles["two"])


def test_one_run_against_the_mean_of_n_seeds_widens_by_root_one_plus_one_over_n():
    seeds = [50.0, 52.0, 51.0, 53.0, 49.0]  # sd 1.5811
    interval = uncertainty.single_run_interval(57.0, seeds)
    half = stats.t.ppf(0.975, 4) * np.std(seeds, ddof=1) * np.sqrt(1 + 1 / 5)
    assert interval.difference == pytest.approx(6.0) and interval.high - interval.difference == pytest.approx(half)
    assert interval.apart and not uncertainty.single_run_interval(52.5, seeds).apart


def test_the_aggregation_gap_is_all_minus_wmean_of_the_same_similarities():
    from sbert_workbook.data.records import StsData
    from sbert_workbook.evaluation.sts import aggregate

    gold, a, _ = _correlated(300, 0.5, 0.5, seed=12)
    a = a + np.repeat([0.0, 2.0, -1.0], 100)  # the subsets shifted apart: 'all' is punished, 'wmean' not
    subsets = np.repeat(["x", "y", "z"], 100).tolist()
    data = StsData("toy", "test", ["s"] * 300, ["t"] * 300, gold, subsets, "hand-made", (0.0, 5.0))
    expected = aggregate(a, data, "all")["spearman"] - aggregate(a, data, "wmean")["spearman"]
    interval = uncertainty.aggregation_gap_interval({"toy": gold}, {"toy": a}, {"toy": subsets})
    assert interval.difference == pytest.approx(expected) and interval.low < expected < interval.high
    assert interval.apart and expected < 0


def test_a_statistic_of_the_row_means_resamples_as_the_paired_bootstrap_does():
    """A difference of two rows' averages, given as a statistic, is the paired bootstrap's interval (same draws)."""
    sets = {name: _correlated(80, 0.4, 0.9, seed=seed) for seed, name in enumerate(("x", "y"))}
    gold = {name: g for name, (g, _, _) in sets.items()}
    rows = {"a": {name: a for name, (_, a, _) in sets.items()}, "b": {name: b for name, (_, _, b) in sets.items()}}
    shared = uncertainty.row_means_interval(gold, rows, lambda means: means["a"] - means["b"], resamples=500, seed=3)
    paired = uncertainty.paired_bootstrap(gold, rows["a"], rows["b"], resamples=500, seed=3)
    assert shared.difference == pytest.approx(paired.difference) and shared.low == pytest.approx(paired.low)
    assert shared.high == pytest.approx(paired.high) and shared.low < shared.difference < shared.high


def test_a_share_of_a_gap_reads_the_rows_averages():
    gold, a, b = _correlated(200, 0.4, 1.2)
    means = {row: uncertainty.spearman_rows(values, gold).item() for row, values in (("a", a), ("b", b))}
    share = uncertainty.row_means_interval({"": gold}, {"a": {"": a}, "b": {"": b}},
                                           lambda m: (m["a"] - m["b"]) / (100 - m["b"]), resamples=300)
    assert share.difference == pytest.approx((means["a"] - means["b"]) / (100 - means["b"]))


def test_a_paired_mean_interval_against_a_hand_case_and_scipy():
    same = uncertainty.paired_mean_interval([1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0])
    assert same.difference == pytest.approx(0.5) and 0 <= same.low <= same.high <= 1
    constant = uncertainty.paired_mean_interval([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    assert (constant.low, constant.difference, constant.high) == pytest.approx((1, 1, 1)) and constant.verdict == "apart"
    rng = np.random.default_rng(4)
    a, b = rng.normal(0.2, 1, 150), rng.normal(0, 1, 150)
    ours = uncertainty.paired_mean_interval(a, b, resamples=4000)
    theirs = stats.bootstrap((a - b,), np.mean, n_resamples=4000, method="percentile", random_state=0).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=0.03) and ours.high == pytest.approx(theirs.high, abs=0.03)
    with pytest.raises(ValueError, match="one number for each of the same queries"):
        uncertainty.paired_mean_interval([1.0, 2.0], [1.0])


def test_every_percentile_bootstrap_draws_and_reads_its_interval_one_way():
    picks = uncertainty.bootstrap_picks(5, 3, seed=7)
    assert picks.shape == (3, 5) and np.array_equal(picks, np.random.default_rng(7).integers(0, 5, size=(3, 5)))
    stream, reference = np.random.default_rng(1), np.random.default_rng(1)  # a Generator goes on drawing from its stream
    first, second = uncertainty.bootstrap_picks(4, 2, stream), uncertainty.bootstrap_picks(4, 2, stream)
    assert np.array_equal(second, (reference.integers(0, 4, size=(2, 4)), reference.integers(0, 4, size=(2, 4)))[1])
    assert not np.array_equal(first, second)
    values = np.array([np.nan, 3.0, 1.0, 2.0, np.nan, 5.0, 4.0])
    assert uncertainty.percentile_interval(values, 0.5) == tuple(np.nanquantile(values, [0.25, 0.75]))
    assert np.isnan(uncertainty.percentile_interval([np.nan, np.nan])).all()  # no resample defined it: said, not guessed
