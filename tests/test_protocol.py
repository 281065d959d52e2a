"""The protocol measures of calibration/protocol.py against scipy, on hand-made pairs."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from sbert_workbook.calibration import calibrators as cal
from sbert_workbook.calibration import protocol
from sbert_workbook.data.records import StsData


@pytest.fixture
def two_subsets():
    generator = np.random.default_rng(0)
    sentences = [f"s{i}" for i in range(24)]
    vectors = {s: torch.as_tensor(generator.normal(size=4) + 2.0) for s in sentences}
    data = StsData("toy", "test", sentences[:12], sentences[12:], generator.uniform(0, 5, 12), ["a"] * 8 + ["b"] * 4)
    return data, (lambda batch: torch.stack([vectors[s] for s in batch]))


def test_all_and_wmean_by_hand(two_subsets):
    data, embed = two_subsets
    u, v = embed(data.sentences1).numpy(), embed(data.sentences2).numpy()
    cosine = (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
    pooled = 100 * spearmanr(cosine, data.scores).statistic
    weighted = 100 * (8 * spearmanr(cosine[:8], data.scores[:8]).statistic
                      + 4 * spearmanr(cosine[8:], data.scores[8:]).statistic) / 12
    gap = protocol.aggregation_gap(embed, {"toy": data}, lambda name: None)
    assert gap["toy"] == pytest.approx(pooled - weighted, abs=1e-9)


def test_a_calibrator_per_set_is_applied(two_subsets):
    data, embed = two_subsets
    sn = cal.StandardNormalization().fit(embed(data.sentences1 + data.sentences2))
    scores = protocol.seven_set_scores(embed, {"toy": data}, lambda name: sn)
    u, v = (sn.transform(embed(s)).numpy() for s in (data.sentences1, data.sentences2))
    cosine = (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
    assert scores["toy"] == pytest.approx(100 * spearmanr(cosine, data.scores).statistic, abs=1e-6)


def test_wmean_is_undefined_on_a_subset_of_two_pairs(two_subsets):
    data, embed = two_subsets
    data.subsets = ["a"] * 10 + ["b"] * 2
    assert not protocol.wmean_is_defined(data)
    assert math.isnan(protocol.seven_set_scores(embed, {"toy": data}, lambda name: None, "wmean")["toy"])


def test_difference_interval_is_the_seven_set_gap_with_its_bootstrap(two_subsets):
    data, embed = two_subsets
    sn = cal.StandardNormalization().fit(embed(data.sentences1 + data.sentences2))
    calibrated = protocol.seven_set_scores(embed, {"toy": data}, lambda name: sn)["toy"]
    raw = protocol.seven_set_scores(embed, {"toy": data}, lambda name: None)["toy"]
    interval = protocol.difference_interval(embed, {"toy": data}, lambda name: sn, lambda name: None)
    assert interval.difference == pytest.approx(calibrated - raw, abs=1e-9) and interval.low <= interval.difference <= interval.high
    weighted = protocol.difference_interval(embed, {"toy": data}, lambda name: sn, lambda name: None, "wmean")
    expected = (protocol.seven_set_scores(embed, {"toy": data}, lambda name: sn, "wmean")["toy"]
                - protocol.seven_set_scores(embed, {"toy": data}, lambda name: None, "wmean")["toy"])
    assert weighted.difference == pytest.approx(expected, abs=1e-9)


def test_an_interval_from_similarities_computed_elsewhere_is_the_calibrated_one(two_subsets):
    """05 §11 compares two encoders: the same interval, given each pair's similarity instead of a calibrator."""
    data, embed = two_subsets
    sn = cal.StandardNormalization().fit(embed(data.sentences1 + data.sentences2))
    sims = {"sn": {"toy": protocol.pair_similarities(embed, data, sn)}, "raw": {"toy": protocol.pair_similarities(embed, data)}}
    for aggregation in ("all", "wmean"):
        given = protocol.similarities_difference_interval({"toy": data}, sims["sn"], sims["raw"], aggregation)
        assert given == protocol.difference_interval(embed, {"toy": data}, lambda name: sn, lambda name: None, aggregation)
    forward = protocol.similarities_difference_interval({"toy": data}, sims["sn"], sims["raw"])
    backward = protocol.similarities_difference_interval({"toy": data}, sims["raw"], sims["sn"])
    assert backward.difference == pytest.approx(-forward.difference, abs=1e-9)
    with pytest.raises(ValueError, match="Unknown aggregation"):
        protocol.similarities_difference_interval({"toy": data}, sims["sn"], sims["raw"], "mean")


def test_the_aggregation_gap_interval_holds_the_gap(two_subsets):
    data, embed = two_subsets
    interval = protocol.aggregation_gap_interval(embed, {"toy": data}, lambda name: None)
    assert interval.difference == pytest.approx(protocol.aggregation_gap(embed, {"toy": data}, lambda name: None)["toy"], abs=1e-9)
