"""Lesson 06's pieces that run without training: exercise 1's out-of-sight truth, a scored row's STS table, §5's
verdict words (the notebook's runs are in tests/notebook_runs.py)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from sbert_workbook.checks import nb06 as checks
from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.sts import score_pairs
from sbert_workbook.evaluation.uncertainty import Interval
from sbert_workbook.lessons.nb06 import plane
from sbert_workbook.lessons.nb06.rows import ScoredRow, kind_of
from sbert_workbook.solutions import nb06 as solutions
from sbert_workbook.training import contrastive, isotropy


def test_exercise_1s_truth_is_the_packages_infonce_and_rejects_each_wrong_answer():
    anchors, positives, tau = checks.infonce_inputs()
    truth = checks.ex06_infonce()
    assert truth == pytest.approx(float(contrastive.info_nce_loss(anchors, positives, temperature=tau)), rel=1e-6)
    assert float(checks.infonce_trial(solutions.ex06_infonce())) == pytest.approx(truth, rel=1e-6)
    for description, wrong in solutions.ex06_infonce.wrong_answers.items():
        assert float(checks.infonce_trial(wrong())) != pytest.approx(truth, rel=1e-3), description


def test_the_inputs_are_not_unit_length_so_a_forgotten_normalisation_shows():
    anchors, positives, _ = checks.infonce_inputs()
    assert not torch.allclose(anchors.norm(dim=1), torch.ones(len(anchors)), atol=0.1)


def test_a_scored_rows_sts_table_is_isotropys_for_the_same_vectors():
    generator = torch.Generator().manual_seed(0)
    sentences = [f"sentence {i}" for i in range(12)]
    vectors = dict(zip(sentences, torch.randn(12, 4, generator=generator)))
    embed = lambda batch: torch.stack([vectors[s] for s in batch])  # noqa: E731
    sets = {"a": StsData("a", "test", sentences[:6], sentences[6:], np.array([0.5, 1, 2, 3, 4, 5.0]), ["x", "x", "x", "y", "y", "y"]),
            "b": StsData("b", "test", sentences[:5], sentences[7:], np.array([5, 1, 3, 2, 4.0]), ["z"] * 5)}
    row = ScoredRow("raw", "cone", {name: score_pairs(embed, data) for name, data in sets.items()}, torch.zeros(2, 4),
                    (torch.zeros(2, 4), torch.ones(2, 4)), {}, 0.0)
    assert row.sts_scores(sets) == pytest.approx(isotropy.sts_scores(embed, sets), nan_ok=True)


def test_the_verdict_words_follow_the_interval_not_the_sign():
    lower, tie, higher = Interval(-0.2, -0.3, -0.1, "m"), Interval(-0.2, -0.5, 0.1, "m"), Interval(0.1, 0.05, 0.2, "m")
    assert [plane.UNIFORMITY_WORD[i.direction] for i in (lower, tie, higher)] == ["gains", "tie", "loses"]
    assert [plane.ALIGNMENT_WORD[i.direction] for i in (lower, tie, higher)] == ["gains", "tie", "loses"]


def test_rows_are_sorted_into_kinds_and_the_best_of_each_is_read_from_the_average():
    frame = pd.DataFrame({"avg (all)": [40.0, 55.0, 53.0, 44.0, 41.0]},
                         index=["raw", "+ whitening (NLI)", "+ flow (NLI)", "unsup SimCSE", "sup SimCSE"])
    assert [kind_of(name) for name in frame.index] == ["raw", "calibrated", "calibrated", "trained", "trained"]
    assert plane.best_of(frame, "calibrated") == "+ whitening (NLI)" and plane.best_of(frame, "trained") == "unsup SimCSE"
    assert plane.flatness(np.ones(8)) == 1 and plane.flatness(np.array([1.0, 0, 0, 0])) == 0.25
