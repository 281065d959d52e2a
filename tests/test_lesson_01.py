"""Lesson 01's calls (``01_mlm_to_similarity.ipynb``) on hand-made inputs: exercise 2's PMI measure and 01's check
references against PMI and Pearson's r computed by hand, and the final claims' ticks on made-up fits."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

from sbert_workbook.checks import nb01 as checks
from sbert_workbook.lessons import nb01
from sbert_workbook.mlm.toy_language import toy_language

LANGUAGE = toy_language(seed=0)


def pmi_by_hand(language, before: str | None, after: str) -> np.ndarray:
    """PMI(x, c) of the hidden word between ``before`` and ``after`` in a first-order Markov chain:
    p(x | a, b) ∝ T[a, x] T[x, b] (π(x) T[x, b] at the start), divided by the stationary p(x)."""
    T, prior = language.transition, language.unigram()
    left = prior if before is None else T[language.index(before)]
    joint = left * T[:, language.index(after)]
    return np.log(joint / joint.sum()) - np.log(prior)


@pytest.mark.parametrize("context, before, after", [("the [MASK] runs", "the", "runs"), ("[MASK] eats", None, "eats"),
                                                    ("a big [MASK] sleeps", "big", "sleeps")])
def test_exercise_2s_measure_is_the_pmi_of_fox_computed_by_hand(context, before, after):
    assert nb01.fox_pmi_in(LANGUAGE)(context) == pytest.approx(pmi_by_hand(LANGUAGE, before, after)[LANGUAGE.index("fox")])


def test_the_check_of_exercise_2_is_the_largest_pmi_of_fox_over_every_context():
    by_hand = max(pmi_by_hand(LANGUAGE, before, after)[LANGUAGE.index("fox")] for before in LANGUAGE.words
                  for after in LANGUAGE.words)
    assert checks.ex01_2(LANGUAGE) == pytest.approx(by_hand)


def test_the_check_of_exercise_5_is_pearsons_r():
    rng = np.random.default_rng(0)
    fit = pd.DataFrame({"logit": rng.normal(size=50), "pmi_plus_log_p": rng.normal(size=50)})
    fit["logit"] += fit["pmi_plus_log_p"]
    assert checks.ex01_5(fit) == pytest.approx(pearsonr(fit["logit"], fit["pmi_plus_log_p"])[0])


def made_up_fit(logit_follows: str, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    fit = pd.DataFrame({name: rng.normal(size=200) for name in ("pmi_centered", "log_p_centered")})
    fit["pmi_plus_log_p_centered"] = fit["pmi_centered"] + fit["log_p_centered"]
    fit["logit_centered"] = fit[logit_follows] + 0.1 * rng.normal(size=200)
    return fit


@pytest.mark.parametrize("follows, ticks", [("pmi_plus_log_p_centered", ["✓", "✓"]), ("pmi_centered", ["✗", "✗"])])
def test_the_claims_are_ticked_from_the_fit(follows, ticks):
    lesson = SimpleNamespace(sizes=SimpleNamespace(TRAIN_STEPS=5))
    lines = nb01.claims_report(lesson, made_up_fit(follows)).text.splitlines()
    assert [line[0] for line in lines] == ticks
