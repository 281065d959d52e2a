"""Seed spread of notebook 04 §6.1 (sbert_workbook/training/seeds.py), against the statistics module by hand; its intervals are tested in test_uncertainty.py."""
from __future__ import annotations

import math

import pytest

from sbert_workbook.training.seeds import scores_over_seeds, seed_spread


def test_spread_is_the_mean_and_the_sample_standard_deviation():
    spread = seed_spread([70.0, 72.0, 74.0])  # mean 72; squared deviations 4 + 0 + 4 = 8, / (3 − 1) = 4, sd 2
    assert (spread.mean, spread.sd, spread.n) == (72.0, 2.0, 3)
    assert str(spread) == "72.00 ± 2.00 (mean ± sd over 3 seeds)"
    uneven = seed_spread([1.0, 2.0, 4.0, 9.0])  # mean 4; 9 + 4 + 0 + 25 = 38, / 3
    assert math.isclose(uneven.sd, math.sqrt(38 / 3))


def test_one_seed_has_no_spread():
    with pytest.raises(ValueError, match="at least 2 seeds"):
        seed_spread([80.0])


def test_scores_over_seeds_runs_each_seed_once():
    called = []
    scores = scores_over_seeds(lambda seed: called.append(seed) or 10.0 * seed, [3, 1, 2])
    assert called == [3, 1, 2] and scores.to_dict() == {3: 30.0, 1: 10.0, 2: 20.0} and scores.index.name == "seed"
    with pytest.raises(ValueError, match="differ"):
        scores_over_seeds(float, [1, 1])
