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


@pytest.fixture(scope="module")
def sentence_transformers_subfolder(tmp_path_factory) -> Path:
    """The embedded model as an older sentence-transformers folder keeps it: the transformer in ``0_Transformer/``,
    ``modules.json`` and the pooling beside it (its Normalize has no folder), no config.json at the top."""
    import json
    import shutil

    from sbert_workbook.encoding.resolve import resolve_model

    embedded = resolve_model("embedded").path
    folder = tmp_path_factory.mktemp("st_folder")
    shutil.copytree(embedded / "1_Pooling", folder / "1_Pooling")
    inner = folder / "0_Transformer"
    inner.mkdir()
    for file in embedded.iterdir():
        if file.is_file() and file.name not in {"modules.json", "README.md", "config_sentence_transformers.json"}:
            shutil.copy(file, inner / file.name)
    modules = json.loads((embedded / "modules.json").read_text())  # the same modules, the transformer moved
    modules[0]["path"] = "0_Transformer"
    (folder / "modules.json").write_text(json.dumps(modules))
    return folder


def test_every_loader_finds_the_transformer_a_sentence_transformers_folder_keeps_in_a_subfolder(
        sentence_transformers_subfolder):
    """One rule for every loader (transformer_folder): the tokenizer, the encoder, the Siamese and cross-encoder
    starts and the static model's distillation read 0_Transformer/; an MLM head's absence is said as such."""
    import numpy as np

    from sbert_workbook.encoding.encoder import load_encoder
    from sbert_workbook.encoding.quiet_loading import load_tokenizer, transformer_folder
    from sbert_workbook.encoding.resolve import resolve_model
    from sbert_workbook.mlm.head import MissingMlmHeadError, load_mlm_head
    from sbert_workbook.training.cross_encoder import CrossEncoder
    from sbert_workbook.training.siamese import SiameseModel

    folder = sentence_transformers_subfolder
    assert transformer_folder(folder) == folder / "0_Transformer"
    assert transformer_folder(folder / "0_Transformer") == folder / "0_Transformer"  # a transformer folder is its own
    flat = resolve_model("embedded").path
    assert load_tokenizer(folder)("a cat sat")["input_ids"] == load_tokenizer(flat)("a cat sat")["input_ids"]
    sentences = ["A cat sits on the mat.", "Stocks fell sharply today."]
    vectors = load_encoder(str(folder)).encode(sentences)
    assert np.allclose(vectors, load_encoder(str(flat)).encode(sentences), atol=1e-5)
    siamese = SiameseModel.from_pretrained(str(folder), announce=False)
    assert siamese.transformer.config.hidden_size == 384
    cross = CrossEncoder.from_pretrained(str(folder))
    assert cross.predict([("a cat", "a cat")]).shape == (1,)
    with pytest.raises(MissingMlmHeadError, match="no trained MLM head"):
        load_mlm_head(str(folder))
