"""Loading bert-base-uncased as an encoder: no LOAD REPORT, one line that says which weights were not used and why."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest

from sbert_workbook.encoding.quiet_loading import unused_weights_note

ENCODER_ONLY = "an encoder needs only the transformer"


@pytest.fixture
def standin_hub_cache(bert_base_standin, monkeypatch) -> Path:
    """The stand-in's hub cache as the one this process searches (huggingface_hub read HF_HOME at import)."""
    from huggingface_hub import constants

    cache = Path(bert_base_standin["HF_HOME"]) / "hub"
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


@pytest.fixture
def transformers_records():
    """Every record transformers' loggers let through while the test runs (they do not propagate to caplog)."""
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    root = logging.getLogger("transformers")
    root.addHandler(handler)
    yield records
    root.removeHandler(handler)


def _checkpoint_keys(cache: Path) -> list[str]:
    from safetensors import safe_open

    (weights,) = cache.glob("models--bert-base-uncased/snapshots/*/model.safetensors")
    with safe_open(str(weights), "pt") as checkpoint:
        return list(checkpoint.keys())


def test_loading_bert_base_prints_what_loaded_which_pooling_and_no_load_report(standin_hub_cache, capfd, transformers_records):
    from transformers import BertConfig, BertModel

    from sbert_workbook import load_encoder

    keys = _checkpoint_keys(standin_hub_cache)
    head = sum(key.startswith("cls.predictions.") for key in keys)
    pooler = sum(name.startswith("pooler.") and f"bert.{name}" not in keys for name in BertModel(BertConfig()).state_dict())
    assert (head, pooler) == (5, 2), "the stand-in is BertForMaskedLM: MLM head, no pooler"
    capfd.readouterr()
    encoder = load_encoder("auto", device="cpu")
    out, err = capfd.readouterr()
    assert encoder.name == "bert-base-uncased" and encoder.hidden_size == 768 and encoder.num_hidden_states == 13
    expected = (f"bert-base-uncased: {head} MLM-head weights (cls.predictions.*) not used: {ENCODER_ONLY}; "
                f"{pooler} pooler weights (pooler.*) not in the checkpoint, left at random: "
                "no pooling in the workbook reads the pooler")
    pooling = "pooling: mean, the workbook's default for a raw transformer (no modules.json)"
    assert out.splitlines() == [f"Model: {encoder.resolved.describe()}", pooling, expected]
    assert "LOAD REPORT" not in err and "UNEXPECTED" not in err and "Loading weights" not in err, err
    assert not [record for record in transformers_records if "LOAD REPORT" in record.getMessage()]


def test_the_siamese_model_loads_bert_base_just_as_quietly(standin_hub_cache, capfd):
    from sbert_workbook.training.siamese import SiameseModel

    capfd.readouterr()
    SiameseModel.from_pretrained("bert-base-uncased", device="cpu")
    out, err = capfd.readouterr()
    assert len(out.splitlines()) == 2 and "MLM-head weights (cls.predictions.*) not used" in out.splitlines()[1]
    assert "LOAD REPORT" not in err and "Loading weights" not in err, err


def test_the_real_checkpoints_heads_are_named_and_a_fitting_checkpoint_says_nothing():
    real = {"unexpected_keys": {"cls.predictions.bias", "cls.predictions.transform.dense.weight",
                                "cls.seq_relationship.weight", "cls.seq_relationship.bias"}, "missing_keys": set()}
    assert unused_weights_note("bert-base-uncased", real) == (
        f"bert-base-uncased: 2 MLM-head weights (cls.predictions.*) not used: {ENCODER_ONLY}; "
        f"2 next-sentence-head weights (cls.seq_relationship.*) not used: {ENCODER_ONLY}")
    assert unused_weights_note("x", {"missing_keys": set(), "unexpected_keys": set(), "mismatched_keys": set()}) is None


def test_weights_that_are_really_missing_are_called_random():
    note = unused_weights_note("broken", {"missing_keys": {"encoder.layer.0.output.dense.weight"}, "unexpected_keys": set(),
                                          "mismatched_keys": {("embeddings.word_embeddings.weight", (10, 4), (20, 4))}})
    assert note.startswith("broken: 2 weights missing or of the wrong shape, left at random (embeddings.word_embeddings")
    assert "not the trained checkpoint's" in note
