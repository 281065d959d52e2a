"""Lesson 04's pieces that are not the notebook run (sbert_workbook/lessons/nb04, checks/nb04): the checks' hidden
references against independent truth, the regression report against sentence-transformers' own classes and
docstrings, each interval over seeds against scipy by hand, the weights' fingerprint, and the manifest's sizes."""
from __future__ import annotations

import math
import types

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from sbert_workbook.checks import nb04 as checks
from sbert_workbook.lessons.manifest import manifest
from sbert_workbook.lessons.nb04 import ablation, objectives, resume, stages
from sbert_workbook.published.sbert_recipe import SBERT_STSB_RECIPE
from sbert_workbook.solutions import nb04 as solutions
from sbert_workbook.training import losses


def test_exercise_1s_hidden_reference_counts_every_unordered_pair_once():
    assert checks.ex04_pairs() == (math.comb(1000, 2), 1000) == solutions.ex04_pairs()
    assert all(wrong() != checks.ex04_pairs() for wrong in solutions.ex04_pairs.wrong_answers.values())


def test_exercise_2s_hidden_reference_is_the_classification_objective_and_rejects_every_wrong_answer():
    u, v, labels, weight, bias = checks.softmax_batch(3)
    head = losses.ClassifierHead(4, 3)
    with torch.no_grad():
        head.linear.weight.copy_(weight)
        head.linear.bias.copy_(bias)
    expected = checks.ex04_softmax(3)
    assert torch.allclose(expected, losses.classification_loss(u, v, labels, head))
    measure = checks.on_softmax_batch(3)
    assert torch.allclose(measure(solutions.ex04_softmax()), expected)
    for name, wrong in solutions.ex04_softmax.wrong_answers.items():
        assert not torch.allclose(measure(wrong()), expected, atol=1e-6), name


def test_the_regression_report_tells_cosine_similarity_loss_from_mse_loss():
    report = objectives.regression_beside_sentence_transformers(types.SimpleNamespace(seed=0))
    table = report.table
    ours, cosine, mse = table["loss on the same tensors"]
    assert ours == pytest.approx(cosine, abs=1e-6) and abs(mse - cosine) > 1e-3
    said = table["what the class says it does"]
    assert "cosine" in said.iloc[1].lower() and "target embedding" in said.iloc[2].lower(), said.tolist()
    assert "the same loss" in report.text


def test_the_first_sentence_of_a_docstring_skips_torchs_module_docstring():
    class Documented(torch.nn.Module):
        def __init__(self):
            """Computes something useful. More detail follows."""
            super().__init__()

    class Bare(torch.nn.Module):
        pass

    assert objectives.first_sentence_of_docstring(Documented) == "Computes something useful."
    assert objectives.first_sentence_of_docstring(Bare) == "(no docstring)"


def fake_stages(before, after_nli, after_both) -> stages.Stages:
    per_seed = {seed: {stages.BEFORE: pd.Series({"stsb": b, "avg": b}), stages.AFTER_NLI: pd.Series({"stsb": n, "avg": n}),
                       stages.AFTER_BOTH: pd.Series({"stsb": a, "avg": a})}
                for seed, (b, n, a) in enumerate(zip(before, after_nli, after_both))}
    return stages.Stages({}, per_seed, None, None)


def test_a_stage_move_is_the_t_interval_of_the_seed_by_seed_differences():
    before, after_nli, after_both = [40.0, 38.0, 36.0], [37.0, 34.0, 35.0], [53.0, 47.0, 45.0]
    move = fake_stages(before, after_nli, after_both).move(stages.AFTER_BOTH, stages.BEFORE, "stsb")
    differences = np.subtract(after_both, before)
    half = stats.t.ppf(0.975, 2) * differences.std(ddof=1) / math.sqrt(3)
    assert move.difference == pytest.approx(differences.mean())
    assert (move.low, move.high) == pytest.approx((differences.mean() - half, differences.mean() + half))
    assert move.direction == "higher"
    assert fake_stages(before, after_nli, after_both).move(stages.AFTER_NLI, stages.BEFORE, "avg").direction in ("lower", "tie")


def test_every_recorded_stage_verdict_is_a_move_the_report_computes():
    labels = set(stages.moves(fake_stages([1.0, 2.0, 3.0], [1.5, 2.0, 3.5], [4.0, 6.0, 5.0])))
    assert set(stages.VERDICTS) <= labels


def test_ablation_readings_leave_the_default_out_and_read_one_run_against_the_seeds():
    table = pd.DataFrame({"pooling": ["mean", "max", "mean"], "concatenation": ["(u, v, |u-v|)", "(u, v, |u-v|)", "(u, v)"],
                          "steps": [5, 5, 5], "dev_spearman": [50.0, 49.0, 30.0]})
    seeds = pd.Series([50.0, 51.0, 49.0, 50.5])
    found = ablation.readings(table, seeds)
    assert list(found) == ["max pooling, (u, v, |u-v|)", "mean pooling, (u, v)"]
    half = stats.t.ppf(0.975, 3) * seeds.std(ddof=1) * math.sqrt(1 + 1 / 4)
    assert found["mean pooling, (u, v)"].difference == pytest.approx(30.0 - seeds.mean())
    assert found["mean pooling, (u, v)"].high == pytest.approx(30.0 - seeds.mean() + half)
    assert found["mean pooling, (u, v)"].direction == "lower" and found["max pooling, (u, v, |u-v|)"].direction == "tie"
    assert set(ablation.VERDICTS) <= {ablation.label(pooling, parts) for pooling, parts in
                                      [("mean", ("u", "v")), ("max", ("u", "v", "|u-v|")), ("cls", ("u", "v", "|u-v|")),
                                       ("mean", ("|u-v|",)), ("mean", ("u", "v", "|u-v|", "u*v"))]}


def test_the_weights_fingerprint_tells_apart_weights_one_float_step_away():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    same = torch.nn.Linear(3, 2)
    same.load_state_dict(model.state_dict())
    assert resume.weights_fingerprint(model) == resume.weights_fingerprint(same)
    with torch.no_grad():
        same.weight[0, 0] = torch.nextafter(same.weight[0, 0], torch.tensor(float("inf")))
    assert resume.weights_fingerprint(model) != resume.weights_fingerprint(same)


def test_the_manifest_reads_the_papers_seeds_and_epochs_from_published():
    sizes = manifest("04").sizes
    assert sizes["SEED_RUNS"].full == SBERT_STSB_RECIPE.settings["seeds"]
    assert sizes["STSB_EPOCHS"].full == SBERT_STSB_RECIPE.settings["epochs"]
    assert sizes["CROSS_LEARNING_RATE"].full == SBERT_STSB_RECIPE.settings["learning rate"]
    capped = [name for name, size in sizes.items() if size.value("full_on_cpu") != size.value("full")]
    assert capped and all("full_on_cpu" in sizes[name].what for name in capped), "say what full_on_cpu caps in the size's what"
    assert manifest("04").story_in_full_mode  # tools/story_check.py runs it at those caps (docs/story.json)


# ----------------------------------------------------------------------------- which student quick mode trains
@pytest.mark.parametrize("model, device, fine_tune, kept", [
    ("auto", "cpu", False, False),  # quick mode on a CPU: bert-base gives way to the small student, with the reason
    ("bert-base-uncased", "cpu", False, True),  # asked for by name: fine-tuned anyway
    ("auto", "cpu", True, True),  # SIZES = {"FINE_TUNE_ON_CPU": True} (the suite's stand-in run, full mode)
    ("auto", "cuda", False, True),  # a GPU fine-tunes it
])
def test_auto_sets_a_pretrained_student_aside_only_on_a_cpu_unless_asked(monkeypatch, capsys, model, device, fine_tune, kept):
    from pathlib import Path

    import torch

    from sbert_workbook.encoding.resolve import ResolvedModel, resolve_model
    from sbert_workbook.lessons.nb04 import lesson as set_up

    reference = resolve_model("embedded")
    found = ResolvedModel(model, Path("/hub/bert-base-uncased"), "hub cache", "bert-base-uncased", "main", "found in the cache")
    monkeypatch.setattr(set_up, "resolve_model", lambda name: found)
    source, why = set_up.student_source(model, reference, torch.device(device), fine_tune)
    assert (source is found) == kept and (source is reference) != kept
    assert bool(why) != kept
    if not kept:
        assert 'MODEL = "bert-base-uncased"' in why and "FINE_TUNE_ON_CPU" in why and why in capsys.readouterr().out


def test_the_embedded_model_is_never_set_aside():
    import torch

    from sbert_workbook.encoding.resolve import resolve_model
    from sbert_workbook.lessons.nb04 import lesson as set_up

    reference = resolve_model("embedded")
    source, why = set_up.student_source("embedded", reference, torch.device("cpu"), False)
    assert source.model_id == reference.model_id and why == ""


def test_a_pretrained_student_learns_at_the_papers_rate_and_a_random_one_at_its_modes_student_lr():
    from types import SimpleNamespace

    from sbert_workbook.lessons.nb04 import lesson as set_up
    from sbert_workbook.published.sbert_recipe import SBERT_NLI_RECIPE

    student_lr = set_up.Lesson04.student_lr.fget
    for mode in ("quick", "full"):
        sizes = SimpleNamespace(**manifest("04").sizes_for(mode))
        assert student_lr(SimpleNamespace(pretrained_student=True, sizes=sizes)) == 2e-5 == SBERT_NLI_RECIPE.settings["learning rate"]
        assert student_lr(SimpleNamespace(pretrained_student=False, sizes=sizes)) == sizes.STUDENT_LR
    # full mode's larger student (tools/student_lr_probe.py) collapses at quick mode's rate: its own is smaller
    assert manifest("04").sizes["STUDENT_LR"].full < manifest("04").sizes["STUDENT_LR"].quick


def test_the_ablation_verdict_asks_whether_the_run_orders_a_variant_as_table6_does(monkeypatch):
    from sbert_workbook.lessons.nb04 import ablation

    assert ablation.paper_direction("mean pooling, (u, v)") == "lower"  # Table 6, NLI column: 66.04 against 80.78
    printed = ablation.table6().copy()
    printed.loc["(u, v)", "nli"] = 90.0
    monkeypatch.setattr(ablation, "table6", lambda: printed)
    assert ablation.paper_direction("mean pooling, (u, v)") == "higher"
