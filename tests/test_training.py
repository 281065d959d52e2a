"""fit: resumes an interrupted run to the same weights, backs off on out-of-memory, follows the paper's schedule."""
from __future__ import annotations

import os

import pytest
import torch

import sbert_workbook as sbw
from sbert_workbook.training import fitting
from sbert_workbook.evaluation.sts import evaluate_sts_data
from sbert_workbook.training.examples import nli_pairs, nli_positive_pairs
from sbert_workbook.training.siamese import SiameseModel
from sbert_workbook.training.fitting import TrainingConfig, batch_plan, fit, load_best, mixed_precision_for

TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}


class Interrupted(Exception):
    pass


def tiny_model(dropout: bool = True) -> SiameseModel:
    extra = {} if dropout else {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
    model = SiameseModel.from_scratch(device="cpu", seed=0, **TINY, **extra)
    model.add_classifier(num_labels=3)
    return model


@pytest.fixture(scope="module")
def examples(shared_data):
    return nli_pairs(sbw.load_nli("snli", data_dir=shared_data).first(64))


def config(**overrides) -> TrainingConfig:
    return TrainingConfig(**{"batch_size": 8, "learning_rate": 1e-3, "progress": False, "device": "cpu", **overrides})


def same_weights(a: SiameseModel, b: SiameseModel) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def test_interrupted_run_resumes_to_the_same_weights(examples, tmp_path):
    settings = config(checkpoint_every=2)  # 8 steps, dropout on: the random state must be restored too
    uninterrupted = tiny_model()
    fit(uninterrupted, examples, "softmax", settings, output_dir=tmp_path / "straight")

    def crash_after_step_5(event, history):
        if event["step"] == 5:
            raise Interrupted

    interrupted = tiny_model()
    with pytest.raises(Interrupted):
        fit(interrupted, examples, "softmax", settings, output_dir=tmp_path / "resumed", callback=crash_after_step_5)
    assert not same_weights(interrupted, uninterrupted)
    resumed = tiny_model()  # a fresh process would start from scratch like this
    result = fit(resumed, examples, "softmax", settings, output_dir=tmp_path / "resumed")
    assert result.resumed_from == 4 and result.steps == 8
    assert same_weights(resumed, uninterrupted)
    assert len(result.history["loss"]) == 8


def test_a_checkpoint_of_another_run_is_not_resumed(examples, tmp_path):
    fit(tiny_model(), examples, "softmax", config(max_steps=2), output_dir=tmp_path)
    with pytest.raises(ValueError, match="different run"):
        fit(tiny_model(), examples, "softmax", config(max_steps=2, learning_rate=5e-4), output_dir=tmp_path)


def test_out_of_memory_halves_the_micro_batch_and_keeps_going(examples, tmp_path, monkeypatch, capsys):
    real_step = fitting._forward_backward

    def step_that_only_fits_4(run, columns, labels):
        if len(columns[0]) > 4:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        return real_step(run, columns, labels)

    direct = tiny_model()
    fit(direct, examples, "softmax", config(max_steps=3, micro_batch_size=4), output_dir=tmp_path / "direct")
    monkeypatch.setattr(fitting, "_forward_backward", step_that_only_fits_4)
    backed_off = tiny_model()
    result = fit(backed_off, examples, "softmax", config(max_steps=3), output_dir=tmp_path / "oom")
    said = capsys.readouterr().out
    assert result.micro_batch_size == 4 and result.steps == 3
    assert "micro-batches of 4" in said and "effective batch stays 8" in said
    assert same_weights(backed_off, direct)


def test_out_of_memory_at_micro_batch_1_gives_up_with_advice(examples, tmp_path, monkeypatch):
    def always_out_of_memory(run, columns, labels):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")

    monkeypatch.setattr(fitting, "_forward_backward", always_out_of_memory)
    with pytest.raises(torch.cuda.OutOfMemoryError, match="micro-batches of 1"):
        fit(tiny_model(), examples, "softmax", config(max_steps=1), output_dir=tmp_path)


def test_gradient_accumulation_matches_the_full_batch(examples, tmp_path):
    # float64: the two runs are equal math but not equal float32 rounding. One word-embedding entry
    # has a near-cancelling gradient (-2.7e-8 vs -2.7e-8 ± 3 %), as small as AdamW's eps (1e-8), so
    # AdamW's g / (|g| + eps) turns that rounding into a 1.1e-5 weight difference. In float64 it is 5e-15.
    full, accumulated = tiny_model(dropout=False).double(), tiny_model(dropout=False).double()
    fit(full, examples, "softmax", config(max_steps=3), output_dir=tmp_path / "full")
    fit(accumulated, examples, "softmax", config(max_steps=3, micro_batch_size=2), output_dir=tmp_path / "acc")
    a, b = full.state_dict(), accumulated.state_dict()
    assert not same_weights(full, tiny_model(dropout=False).double())  # training did move the weights
    assert all(torch.allclose(a[k], b[k], atol=1e-5) for k in a)


def test_matryoshka_training_through_the_gradient_cache_matches_the_full_batch(shared_data, tmp_path):
    """The matryoshka objective (08) trains like mnrl: whole batch or micro-batches through the gradient cache, the
    same weights; and it does move them."""
    pairs = nli_positive_pairs(sbw.load_nli("snli", data_dir=shared_data).first(64))
    settings = dict(max_steps=2, matryoshka_dimensions=(32, 16), save_checkpoints=False)
    full, cached = tiny_model(dropout=False).double(), tiny_model(dropout=False).double()
    fit(full, pairs, "matryoshka", config(**settings), output_dir=tmp_path / "full")
    fit(cached, pairs, "matryoshka", config(micro_batch_size=2, **settings), output_dir=tmp_path / "cached")
    assert not same_weights(full, tiny_model(dropout=False).double())
    a, b = full.state_dict(), cached.state_dict()
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)


def test_learning_rate_warms_up_over_10_percent_then_decays_linearly(examples, tmp_path):
    result = fit(tiny_model(), examples, "softmax", config(batch_size=2, learning_rate=1e-3), output_dir=tmp_path)
    total, warmup = 32, 3  # 64 examples / batch 2; int(0.1 * 32)
    expected = [1e-3 * (s / warmup if s < warmup else (total - s) / (total - warmup)) for s in range(1, total + 1)]
    assert result.history["lr"] == pytest.approx(expected)


def test_best_checkpoint_holds_the_best_dev_score(examples, tmp_path, shared_data):
    dev = sbw.load_sts("stsb", "dev", data_dir=shared_data, limit=60)
    model = tiny_model()
    result = fit(model, examples, "softmax", config(eval_every=2), dev=dev, output_dir=tmp_path)
    assert result.best_spearman == max(result.history["dev_spearman"]) and len(result.history["dev_spearman"]) == 4
    info = load_best(model, tmp_path)
    encoder = model.encoder()
    rescored = evaluate_sts_data(lambda s: encoder.encode(s, pooling="mean"), dev)["spearman_cosine"]
    assert info["step"] == result.best_step and rescored == pytest.approx(result.best_spearman, abs=1e-6)


def test_ranking_batches_have_no_repeated_sentences(shared_data):
    from sbert_workbook.training.examples import duplicates_in_batch, nli_positive_pairs

    pairs = nli_positive_pairs(sbw.load_nli("snli", data_dir=shared_data).first(300))
    plan = batch_plan(pairs, "mnrl", TrainingConfig(batch_size=16))
    assert all(duplicates_in_batch(pairs, batch) == 0 for batch in plan)
    assert sorted(i for batch in plan for i in batch) == list(range(len(pairs)))


def test_precision_choice():
    assert mixed_precision_for(torch.device("cpu")) == "no"
    assert mixed_precision_for(torch.device("cpu"), "bf16") == "bf16"


def test_wrong_inputs_are_explained(examples):
    no_head = SiameseModel.from_scratch(device="cpu", **TINY)
    with pytest.raises(ValueError, match="add_classifier"):
        fit(no_head, examples, "softmax", config())
    with pytest.raises(ValueError, match="3 sentence columns"):
        fit(no_head, examples, "triplet", config())
    with pytest.raises(ValueError, match="Unknown objective"):
        fit(no_head, examples, "contrastive", config())


def test_checkpoints_can_be_switched_off(examples, tmp_path):
    result = fit(tiny_model(), examples, "softmax", config(max_steps=2, save_checkpoints=False), output_dir=tmp_path)
    assert result.steps == 2 and result.precision == "fp32"
    assert not (tmp_path / "checkpoint").exists()


KILLED_RUN = """
import os, signal, sys
import sbert_workbook as sbw
from sbert_workbook.training.examples import nli_pairs, nli_positive_pairs
from sbert_workbook.training.siamese import SiameseModel
from sbert_workbook.training.fitting import TrainingConfig, fit

def kill_after_step_5(event, history):
    if event["step"] == 5:
        os.kill(os.getpid(), signal.SIGKILL)  # no exception, no clean-up: like a lost Colab runtime

model = SiameseModel.from_scratch(device="cpu", seed=0, **{tiny})
model.add_classifier(num_labels=3)
examples = nli_pairs(sbw.load_nli("snli", data_dir=sys.argv[2]).first(64))
config = TrainingConfig(batch_size=8, learning_rate=1e-3, progress=False, device="cpu", checkpoint_every=2)
fit(model, examples, "softmax", config, output_dir=sys.argv[1], callback=kill_after_step_5)
"""


def test_a_killed_process_resumes_to_the_same_weights(examples, tmp_path, shared_data):
    import signal
    import subprocess
    import sys

    script = tmp_path / "killed_run.py"
    script.write_text(KILLED_RUN.replace("{tiny}", repr(TINY)), encoding="utf-8")
    same_threads = {**os.environ, "OMP_NUM_THREADS": str(torch.get_num_threads())}  # bit-equal sums need equal thread counts
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "run"), str(shared_data)], capture_output=True, text=True,
                          env=same_threads)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    resumed = tiny_model()
    result = fit(resumed, examples, "softmax", config(checkpoint_every=2), output_dir=tmp_path / "run")
    uninterrupted = tiny_model()
    fit(uninterrupted, examples, "softmax", config(checkpoint_every=2), output_dir=tmp_path / "straight")
    assert result.resumed_from == 4 and same_weights(resumed, uninterrupted)


# ----------------------------------------------------------------------------- figures and tables of notebook 04
def test_training_figure_shows_loss_and_dev_curves():
    from sbert_workbook.training.plots import training_figure

    history = {"step": [1, 2, 3], "loss": [1.0, 0.8, 0.7], "lr": [0, 0, 0], "eval_step": [3], "dev_spearman": [42.0]}
    figure = training_figure(history)
    assert [list(trace.y) for trace in figure.data] == [[1.0, 0.8, 0.7], [42.0]]
    assert figure.data[1].yaxis == "y2"


def test_ablation_tables_put_the_papers_numbers_beside_ours():
    import pandas as pd

    from sbert_workbook.training.ablations import beside_paper

    rows = [("mean", "(u, v, |u-v|)", 50.0), ("cls", "(u, v, |u-v|)", 40.0), ("mean", "(u, v)", 30.0)]
    table = pd.DataFrame([{"pooling": p, "concatenation": c, "steps": 5, "dev_spearman": s} for p, c, s in rows])
    pooling = beside_paper(table, "pooling")
    assert pooling.loc["cls", "paper: NLI, classification"] == 79.80 and pooling.loc["cls", "ours: dev Spearman"] == 40.0
    assert pooling.loc["max", "paper: STS-B, regression"] == 69.92 and pd.isna(pooling.loc["max", "ours: dev Spearman"])
    concatenation = beside_paper(table, "concatenation")
    assert concatenation.loc["(u, v)", "paper: NLI, classification"] == 66.04 and "cls" not in concatenation.index
    # all seven of Table 6's concatenation rows, in its order, even those this run did not train
    assert concatenation.index.tolist() == ["(u, v)", "(|u-v|)", "(u*v)", "(|u-v|, u*v)", "(u, v, u*v)", "(u, v, |u-v|)",
                                            "(u, v, |u-v|, u*v)"]
    assert concatenation.loc["(u*v)", "paper: NLI, classification"] == 70.54
    assert concatenation.loc["(u, v, |u-v|)", "ours: dev Spearman"] == 50.0 and pd.isna(concatenation.loc["(u*v)", "steps"])


def test_before_after_table_keeps_one_row_per_model_in_order():
    import pandas as pd

    from sbert_workbook.training.plots import before_after_table

    def table(value):
        t = pd.DataFrame({"pairs": [10, 10], "spearman": [value, value + 1]}, index=pd.Index(["stsb", "avg"], name="dataset"))
        t.attrs["provenance"] = {"model": "m", "pooling": "mean"}
        return t

    combined = before_after_table({"before": table(10.0), "after": table(20.0)})
    assert combined.index.tolist() == ["before", "after"] and combined.loc["after", "avg"] == 21.0
    assert combined.attrs["provenance"]["pooling"] == "mean"


def test_each_training_stage_is_read_beside_its_own_published_row():
    import pandas as pd

    from sbert_workbook.training.plots import paper_stages_table

    table = paper_stages_table()
    # SBERT Table 1: SBERT-NLI-base after NLI; Table 2: SBERT-NLI-STSb-base 85.35 ± 0.17 after NLI then STS-B
    assert table.loc["+ NLI (softmax)", "stsb"] == 77.03 and table.loc["+ NLI (softmax)", "avg"] == 74.89
    assert table.loc["+ NLI + STS-B (regression)", "stsb"] == 85.35 and table.loc["+ NLI + STS-B (regression)", "±"] == 0.17
    assert pd.isna(table.loc["+ NLI + STS-B (regression)", "sickr"])  # Table 2 reports STS-B only
    assert "Table 2" in table.attrs["provenance"]["source"] and table.attrs["provenance"]["pooling"]


@pytest.mark.parametrize("pooling, layers", [("first_last_avg", None), ("last2_avg", None), ("static", None),
                                             ("word_embeddings", None), ("max", None), ("mean", [0, 2])])
def test_the_siamese_model_pools_like_the_encoder_for_every_pooling(pooling, layers):
    sentences = ["A man is playing a guitar.", "Short.", "Two dogs run along the beach together."]
    model = SiameseModel.from_scratch(device="cpu", seed=0, pooling=pooling, layers=layers, **TINY).eval()
    with torch.no_grad():
        ours = torch.cat(model.embed_columns([sentences]))
    theirs = model.encoder().encode(sentences, pooling=pooling, layers=layers)  # the Encoder, independently
    torch.testing.assert_close(ours, theirs, atol=1e-5, rtol=0)


def test_the_siamese_model_rejects_unknown_poolings_and_layers():
    with pytest.raises(ValueError, match="Unknown pooling"):
        SiameseModel.from_scratch(device="cpu", seed=0, pooling="median", **TINY)
    with pytest.raises(ValueError, match="hidden states"):
        SiameseModel.from_scratch(device="cpu", seed=0, layers=[99], **TINY)
