"""The cross-encoder of 04 §1: it learns STS-B, survives a safetensors round trip, reads one pair per row."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

import sbert_workbook as sbw
from sbert_workbook.training.cross_encoder import CrossEncoder, evaluate_cross_encoder
from sbert_workbook.training.examples import Examples, sts_pairs
from sbert_workbook.training.fitting import TrainingConfig, fit

TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 128}
PAIRS = [("A man is playing a guitar.", "Someone plays an instrument."), ("A cat sleeps.", "The stock market fell sharply today."),
         ("Two dogs run along the beach.", "Dogs are running on sand."), ("A woman slices an onion.", "A woman is cutting an onion."),
         ("Kids are playing in the park.", "A man plays the guitar on stage."), ("It rains.", "It is raining.")]


def tiny_cross_encoder(**extra) -> CrossEncoder:
    return CrossEncoder.from_scratch(device="cpu", seed=0, max_length=64, **TINY, **extra)


@pytest.fixture(scope="module")
def stsb(shared_data):
    return (sts_pairs(sbw.load_sts("stsb", "train", data_dir=shared_data)),
            sbw.load_sts("stsb", "dev", data_dir=shared_data).sample(300, seed=0))


def test_a_trained_cross_encoder_beats_its_untrained_self_on_stsb_dev(stsb):
    train, dev = stsb
    model = tiny_cross_encoder()
    before = evaluate_cross_encoder(model, dev)["spearman"]
    config = TrainingConfig(batch_size=16, learning_rate=1e-3, max_steps=60, progress=False, device="cpu")
    run = fit(model, train, "cross_regression", config)
    after = evaluate_cross_encoder(model, dev)
    scores = model.predict(list(zip(dev.sentences1, dev.sentences2)))
    assert after["spearman"] == pytest.approx(100 * spearmanr(scores, dev.scores).statistic)  # independent truth: scipy
    assert run.steps == 60 and run.examples_seen == 60 * 16 and len(run.history["loss"]) == 60
    assert np.mean(run.history["loss"][-10:]) < np.mean(run.history["loss"][:10])
    assert after["spearman"] > max(before + 10, 0), (before, after)  # seeded: -10.2 before, 8.2 after


def test_save_and_load_give_the_same_predictions_from_safetensors(tmp_path):
    model = tiny_cross_encoder()
    folder = model.save(tmp_path / "cross")
    assert (folder / "model.safetensors").is_file() and not list(folder.glob("*.bin"))
    loaded = CrossEncoder.load(folder, max_length=64, device="cpu")
    saved, restored = model.model.state_dict(), loaded.model.state_dict()
    assert saved.keys() == restored.keys()
    assert all(torch.equal(saved[name], restored[name]) for name in saved)  # the round trip is bit-exact
    # Predictions from the same weights may differ in the last bits (CPU kernels need not be deterministic
    # across calls: CI saw 1 ulp), so they are compared at float32 precision, far below any real difference.
    np.testing.assert_allclose(loaded.predict(PAIRS), model.predict(PAIRS), rtol=1e-5, atol=1e-7)
    with pytest.raises(FileNotFoundError, match="safetensors"):
        CrossEncoder.load(tmp_path / "nothing here")


def test_each_pair_is_one_row_of_one_joint_pass_and_batching_changes_nothing():
    model = tiny_cross_encoder(hidden_dropout_prob=0.0)
    counting, rows = copy.deepcopy(model), []
    counting.model.register_forward_hook(lambda module, args, kwargs, output: rows.append(kwargs["input_ids"].shape[0]),
                                         with_kwargs=True)
    batched = counting.predict(PAIRS, batch_size=4)
    assert rows == [4, 2] and batched.shape == (len(PAIRS),)  # n pairs: n rows, one pass each
    assert batched == pytest.approx(model.predict(PAIRS, batch_size=1), abs=1e-5)  # padding never leaks into a score
    first = model.tokenize(PAIRS[:1])
    ids = first["input_ids"][0].tolist()
    assert ids[0] == model.tokenizer.cls_token_id and ids.count(model.tokenizer.sep_token_id) == 2  # [CLS] a [SEP] b [SEP]
    assert set(first["token_type_ids"][0].tolist()) == {0, 1}


def test_bad_inputs_say_what_to_pass():
    model = tiny_cross_encoder()
    with pytest.raises(ValueError, match="pairs"):
        model.predict([])
    with pytest.raises(ValueError, match="needs 2 sentence columns and labels"):
        fit(model, Examples({"anchor": ["x"], "positive": ["y"], "negative": ["z"]}, None, "triplets"), "cross_regression")
    with pytest.raises(ValueError, match="trains a SiameseModel"):
        fit(model, Examples({"anchor": ["x"], "positive": ["y"]}, None, "pairs"), "mnrl")
