"""Notebook 03's own code, held to independent truth: its equation cells (cosine, Spearman's ρ, mean pooling) against
scipy and the encoder, the references its checks compute out of sight against scipy and scikit-learn, and the lesson
module's verdicts on hand-made cases. These were self-check cells in the notebook; a lesson teaches, a test asserts."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.spatial.distance import cosine as cosine_distance

from sbert_workbook.checks import nb03 as checks
from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.uncertainty import Interval
from sbert_workbook.lessons.nb03 import glove_rows, sts_basics
from sbert_workbook.solutions import nb03 as solutions

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "03_pooling_and_sts.ipynb"


def notebook_definitions(name: str) -> dict:
    """The functions defined in the notebook's code cell that defines ``name`` (only its imports and ``def`` statements run)."""
    import ast

    import pandas as pd

    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    source = next("".join(c["source"]) for c in cells if c["cell_type"] == "code" and f"def {name}(" in "".join(c["source"]))
    functions = [node for node in ast.parse(source).body if isinstance(node, (ast.FunctionDef, ast.Import, ast.ImportFrom))]
    namespace = {"np": np, "pd": pd, "torch": torch}
    exec(compile(ast.Module(functions, type_ignores=[]), str(NOTEBOOK), "exec"), namespace)  # noqa: S102 - the notebook's own cell
    return namespace


def test_the_notebooks_spearman_is_scipys_and_ignores_an_increasing_transformation():
    spearman = notebook_definitions("spearman")["spearman"]
    rng = np.random.default_rng(0)
    predicted, gold = rng.uniform(0.3, 1.0, 120), np.round(rng.uniform(0, 5, 120))  # rounded gold: ties
    assert spearman(predicted, gold) == pytest.approx(stats.spearmanr(predicted, gold).statistic, abs=1e-12)
    assert spearman(predicted ** 9, gold) == pytest.approx(spearman(predicted, gold), abs=1e-12)
    assert spearman(predicted ** 9, gold) != pytest.approx(stats.pearsonr(predicted ** 9, gold)[0], abs=1e-3)


def test_the_notebooks_cosine_is_one_minus_scipys_cosine_distance_row_by_row():
    cosine = notebook_definitions("cosine")["cosine"]
    rng = np.random.default_rng(1)
    u, v = rng.normal(size=(5, 7)), rng.normal(size=(5, 7))
    np.testing.assert_allclose(cosine(u, v), [1 - cosine_distance(a, b) for a, b in zip(u, v)], rtol=1e-12)


def test_the_notebooks_mean_pooling_is_the_encoders(encoder):
    my_mean_pooling = notebook_definitions("my_mean_pooling")["my_mean_pooling"]
    pair = ["A man is playing a guitar.", "Two dogs run along the beach, barking loudly."]  # different lengths: padding
    states, mask = encoder.hidden_states(pair)
    torch.testing.assert_close(my_mean_pooling(states[-1], mask), encoder.encode(pair, pooling="mean"), atol=1e-5, rtol=0)


# ----------------------------------------------------------------------------- the checks' references, out of sight
def _demo(n: int = 40, seed: int = 0) -> StsData:
    rng = np.random.default_rng(seed)
    return StsData("demo", "all", [f"a{i}" for i in range(n)], [f"b{i}" for i in range(n)], np.round(rng.uniform(0, 5, n)),
                   ["x"] * n, "hand-made", (0.0, 5.0))


def test_exercise_1s_brute_force_tau_is_scipys_tau_b_and_rejects_tau_a():
    demo = _demo()
    cosines = np.random.default_rng(1).uniform(0.2, 1.0, len(demo))
    expected = [stats.kendalltau(c, demo.scores).statistic for c in (cosines, cosines ** 9)]
    np.testing.assert_allclose(checks.ex03_1(cosines, demo), expected, rtol=1e-12)
    wrong = solutions.ex03_1.wrong_answers["τ-a: the ties among the gold scores not corrected for"](cosines, demo)
    assert not np.allclose(wrong, expected, atol=1e-9)


def test_exercise_4s_reference_is_the_size_weighted_mean_of_subset_spearmans():
    rng = np.random.default_rng(2)
    subsets = ["s1"] * 10 + ["s2"] * 30
    sts12 = StsData("sts12", "test", [f"a{i}" for i in range(40)], [f"b{i}" for i in range(40)], rng.uniform(0, 5, 40),
                    subsets, "hand-made", (0.0, 5.0))
    cosines = sts12.scores + rng.normal(0, 1, 40)
    by_hand = 100 * (10 / 40 * stats.spearmanr(cosines[:10], sts12.scores[:10]).statistic
                     + 30 / 40 * stats.spearmanr(cosines[10:], sts12.scores[10:]).statistic)
    assert checks.ex03_4(sts12, cosines) == pytest.approx(by_hand) == pytest.approx(solutions.ex03_4(sts12, cosines))


def test_exercise_8s_reference_agrees_with_the_solution_and_not_with_its_wrong_answers():
    rng = np.random.default_rng(3)
    labels = np.array(["entailment", "neutral", "contradiction"])

    class Pairs:
        def __init__(self, n):
            self.labels = list(labels[rng.integers(0, 3, n)])

    train, test = Pairs(90), Pairs(60)
    views = {"mean": tuple(rng.normal(size=(n, 6)).astype(np.float32) for n in (90, 90, 60, 60))}
    reference = checks.ex03_8(views, train, test)
    assert reference == pytest.approx(solutions.ex03_8(views, train, test), abs=100 / 60 + 1e-9)
    on_train = solutions.ex03_8.wrong_answers["accuracy on the training pairs, not the test pairs"](views, train, test)
    assert on_train != pytest.approx(reference, abs=1e-9)


# ----------------------------------------------------------------------------- the lesson's verdicts
@pytest.mark.parametrize(("low", "high", "said"), [(0.55, 0.9, "more than half"), (0.1, 0.45, "less than half"),
                                                   (0.4, 0.7, "not told apart from half")])
def test_the_share_of_the_glove_gap_is_more_than_half_only_when_its_interval_says_so(low, high, said):
    assert glove_rows.share_verdict(Interval((low + high) / 2, low, high, "hand-made")) == said


def test_the_demo_verdict_names_the_correlation_cos9_moved():
    demo = _demo(60, seed=5)
    cosines = np.clip(demo.scores / 5 + np.random.default_rng(6).normal(0, 0.2, 60), 0.01, 1)
    said = sts_basics.changed_by(demo, cosines, cosines ** 9)
    assert said["Spearman"] == "unchanged" and said["Pearson"] in ("rises", "falls")
    assert sts_basics.changed_by(demo, cosines, 2 * cosines + 1) == {"Pearson": "unchanged", "Spearman": "unchanged"}
