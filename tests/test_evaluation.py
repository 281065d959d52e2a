"""STS evaluation against scipy and hand-made cases."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from sbert_workbook.data.loaders import StsData
from sbert_workbook.evaluation.provenance import table_caption
from sbert_workbook.evaluation.sts import aggregate, correlations, evaluate_sts, evaluate_sts_data


def _data(scores, subsets=None, s1=None, s2=None):
    n = len(scores)
    return StsData("toy", "test", s1 or [f"a{i}" for i in range(n)], s2 or [f"b{i}" for i in range(n)],
                   np.asarray(scores, dtype=float), subsets or ["x"] * n)


def test_correlations_equal_scipy():
    rng = np.random.default_rng(0)
    predicted, gold = rng.normal(size=50), rng.uniform(0, 5, size=50)
    result = correlations(predicted, gold)
    assert result["spearman"] == pytest.approx(100 * spearmanr(predicted, gold).statistic)
    assert result["pearson"] == pytest.approx(100 * pearsonr(predicted, gold).statistic)


def test_a_perfect_ranking_scores_100_and_a_reversed_one_minus_100():
    gold = np.array([0.0, 1.2, 2.5, 4.0, 5.0])
    assert correlations(gold ** 3, gold)["spearman"] == pytest.approx(100)
    assert correlations(-gold, gold)["spearman"] == pytest.approx(-100)


def test_wmean_weights_subset_correlations_by_size_and_all_pools_pairs():
    predicted = np.array([1, 2, 3, 4, 3, 2, 1.0])
    data = _data([1, 2, 3, 4, 1, 2, 3], ["a"] * 4 + ["b"] * 3)
    # subset a is perfectly ranked (100), subset b perfectly reversed (-100): weights 4/7 and 3/7
    assert aggregate(predicted, data, "wmean")["spearman"] == pytest.approx(100 * (4 - 3) / 7)
    assert aggregate(predicted, data, "all")["spearman"] == pytest.approx(100 * spearmanr(predicted, data.scores).statistic)


def test_evaluate_sts_data_embeds_each_distinct_sentence_once():
    seen = []
    vectors = {"same": [1.0, 0.0], "close": [1.0, 0.1], "far": [0.0, 1.0], "mid": [1.0, 1.0]}

    def embed(sentences):
        seen.append(list(sentences))
        return np.array([vectors[s] for s in sentences])

    data = _data([5.0, 0.0, 2.5], s1=["same", "same", "same"], s2=["close", "far", "mid"])
    metrics = evaluate_sts_data(embed, data)
    assert metrics["spearman_cosine"] == pytest.approx(100)
    assert len(seen) == 1 and sorted(seen[0]) == ["close", "far", "mid", "same"]


def test_nan_embeddings_are_refused():
    data = _data([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="NaN"):
        evaluate_sts_data(lambda s: np.full((len(s), 2), np.nan), data)


def test_evaluate_sts_table_names_what_produced_it(shared_data):
    rng = np.random.default_rng(0)
    table = evaluate_sts(lambda s: rng.normal(size=(len(s), 8)), ["stsb", "sts16"], aggregation="wmean", limit=50)
    assert list(table.index) == ["stsb", "sts16", "avg"]
    assert table.loc["avg", "spearman"] == pytest.approx(table.loc[["stsb", "sts16"], "spearman"].mean())
    caption = table_caption(table)
    assert "aggregation: wmean" in caption and "split: test" in caption and "50 pairs" in caption


def test_a_constant_side_gives_nan_and_says_what_to_do_instead_of_scipys_warning():
    import warnings

    from scipy.stats import spearmanr

    from sbert_workbook.evaluation.sts import correlations

    with warnings.catch_warnings(record=True) as scipy_says:
        warnings.simplefilter("always")
        assert np.isnan(spearmanr([0.5, 0.5, 0.5], [1.0, 2.0, 3.0]).statistic)  # the truth: undefined
    with pytest.warns(UserWarning, match=r"the gold scores are equal over all 3 pairs.*Score more pairs") as ours:
        result = correlations([0.1, 0.2, 0.3], [4.0, 4.0, 4.0])
    assert np.isnan(result["spearman"]) and np.isnan(result["pearson"])
    assert all(w.category is UserWarning for w in ours) and scipy_says  # scipy's own warning does not reach the student
    with pytest.warns(UserWarning, match="the predicted similarities are equal"):
        correlations([0.7, 0.7], [1.0, 2.0])
