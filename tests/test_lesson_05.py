"""Lesson 05's own pieces against independent truth: the checks' references (out of the cell's sight), the aggregation
choice, the §6.4 flow sizes and the §12.2 reading of BERT-flow §3.1, on hand-made inputs (the notebook's run is in
tests/test_notebooks.py and tests/test_exercises.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.stats import norm

from sbert_workbook.calibration.calibrators import NullTopDirections
from sbert_workbook.checks import nb05 as truth
from sbert_workbook.data.records import StsData
from sbert_workbook.lessons.nb05 import flow_steps, frequency, seven_sets
from sbert_workbook.solutions import nb05 as solutions


@pytest.fixture
def cloud() -> torch.Tensor:
    generator = torch.Generator().manual_seed(0)
    return torch.randn(200, 12, generator=generator) * torch.linspace(3, 0.2, 12) + 1.5


def test_the_natsv_reference_is_the_energy_natsv_removes_and_no_typed_zero(cloud):
    natsv = NullTopDirections(k=truth.NATSV_K).fit(cloud)
    removed = float(((cloud - natsv.transform(cloud)).double() ** 2).sum() / (cloud.double() ** 2).sum())
    assert truth.ex05_natsv(cloud) == pytest.approx(removed, rel=1e-4)  # two routes: singular values, the transform
    assert solutions.ex05_natsv(cloud, natsv) == pytest.approx(truth.ex05_natsv(cloud), rel=1e-4)
    assert 0.1 < truth.ex05_natsv(cloud) < 0.99  # not the 0 a student could type
    one = NullTopDirections(k=1).fit(cloud)
    assert truth.ex05_natsv(cloud) != pytest.approx(solutions.ex05_natsv(cloud, one), rel=1e-3)  # a planted break shows


def test_the_density_reference_is_the_cdf_slope_and_the_solution_is_the_change_of_variables():
    z, slope = 1.7, 3.3  # f(1) = 1 + 0.3 + 0.4, f'(1) = 3 + 0.3
    assert truth.ex05_cov() == pytest.approx(norm.pdf(z) * slope, rel=1e-6)
    assert solutions.ex05_cov() == pytest.approx(truth.ex05_cov(), rel=1e-6)


def test_the_round_trip_reference_is_the_hidden_sentences_embeddings_not_their_codes():
    class Bank:
        def get(self, view, sentences):
            return torch.tensor([[float(len(s)), 1.0] for s in sentences])

    class Lesson:
        bank, results = Bank(), {"hidden sentences": ["ab", "abcd"]}

    expected = truth.ex05_roundtrip(Lesson())
    assert torch.equal(expected, torch.tensor([[2.0, 1.0], [4.0, 1.0]]))
    identity = solutions.ex05_roundtrip.wrong_answers["z_hidden itself: the identity, which any round-trip check would pass"]
    assert not torch.equal(identity(expected + 1), expected)


def test_the_aggregation_reads_the_smallest_subset():
    data = StsData("toy", "test", ["a"] * 7, ["b"] * 7, np.arange(7.0), ["x"] * 5 + ["y"] * 2)
    other = StsData("one", "test", ["a"] * 4, ["b"] * 4, np.arange(4.0), ["z"] * 4)
    assert seven_sets.smallest_subset({"toy": data, "one": other}) == ("toy/y", 2)


def test_flow_size_counts_the_steps_and_the_parameters_of_the_built_glow():
    paper, ours = flow_steps.flow_size(16, 2, 3, 8), flow_steps.flow_size(16, 3, 3, 8)
    assert paper["steps (actnorm, permutation, coupling)"] == 6 and ours["steps (actnorm, permutation, coupling)"] == 9
    assert ours["trainable parameters"] > paper["trainable parameters"] > 0


def test_the_section_3_1_reading_counts_the_views_where_the_flow_lowers_each_number():
    rows = {("a", "raw"): (0.9, 0.6), ("a", "flow"): (0.2, 0.7), ("b", "raw"): (0.5, 0.4), ("b", "flow"): (0.6, 0.1)}
    table = pd.DataFrame(rows, index=[frequency.SHARE, frequency.LINK]).T
    line = frequency.claim_line(table, ["a", "b"])
    assert "share of the energy on 1 of 2 views" in line and "word frequency on 1 of 2" in line
    assert "a 0.90 → 0.20 (share), 0.60 → 0.70 (|Spearman|)" in line
