"""Models that travel (issue 41, item 3): a model the workbook trains saves in sentence-transformers' format, and
``SentenceTransformer(folder).encode`` and ``load_encoder(folder).encode`` both give the workbook's own vectors.

The model is a small BERT trained a few steps with 04's regression objective (a SiameseModel, as 04's and 06's runs
are), saved with each pooling; the reference is sentence-transformers itself, reading what ``SiameseModel.save`` wrote.
"""
from __future__ import annotations

import json

import pytest
import torch

import sbert_workbook as sbw
from sbert_workbook.encoding.st_save import NotSaveableError
from sbert_workbook.training.examples import sts_pairs
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.siamese import SiameseModel

SENTENCES = ["A man is playing a guitar.", "Someone plays an instrument on a stage, loudly and for a long time.",
             "The cat sleeps.", "Two dogs run through a field of tall grass near the old farmhouse."]
TOLERANCE = 1e-5
TINY = dict(hidden_size=32, num_hidden_layers=3, num_attention_heads=2, intermediate_size=64)
#: (pooling, layers): every token pooling, every named layer average and an explicit layer list.
SAVED = [("cls", None), ("mean", None), ("max", None), ("first_last_avg", None), ("last2_avg", None), ("static", None),
         ("mean", (2, -1))]


@pytest.fixture(scope="module")
def trained_transformer() -> SiameseModel:
    """A small BERT trained 3 steps on STS pairs (04's regression objective, mean pooling), in eval mode."""
    model = SiameseModel.from_scratch("embedded", pooling="mean", device="cpu", seed=1, **TINY)
    before = next(model.transformer.parameters()).detach().clone()
    fit(model, sts_pairs(sbw.load_sts("demo", "all")), "regression",
        TrainingConfig(batch_size=8, learning_rate=1e-3, max_steps=3, save_checkpoints=False, progress=False, device="cpu"))
    assert not torch.equal(before, next(model.transformer.parameters()).detach()), "training changed the weights"
    return model.eval()


@pytest.fixture
def trained(trained_transformer):
    """``trained(pooling, layers)``: the trained weights as a SiameseModel with that pooling (the weights shared)."""
    def with_pooling(pooling: str, layers=None) -> SiameseModel:
        t = trained_transformer
        return SiameseModel(t.transformer, t.tokenizer, t.resolved, pooling, t.max_length, layers).eval()
    return with_pooling


def workbook_vectors(model: SiameseModel) -> torch.Tensor:
    return model.encoder().encode(SENTENCES, pooling=model.pooling, layers=model.layers)


@pytest.mark.parametrize(("pooling", "layers"), SAVED, ids=lambda v: str(v) if v is not None else "")
def test_a_saved_model_encodes_alike_in_sentence_transformers_and_back_in_the_workbook(trained, pooling, layers, tmp_path):
    from sentence_transformers import SentenceTransformer

    model = trained(pooling, layers)
    ours = workbook_vectors(model)
    folder = model.save(tmp_path / "model")
    theirs = torch.as_tensor(SentenceTransformer(str(folder), device="cpu").encode(SENTENCES))
    assert (ours - theirs).abs().max() <= TOLERANCE, f"sentence-transformers reads the {pooling} model otherwise"
    back = sbw.load_encoder(str(folder), device="cpu").encode(SENTENCES)
    assert (ours - back).abs().max() <= TOLERANCE, f"load_encoder reads the {pooling} model otherwise"
    assert not model.transformer.config.output_hidden_states, "saving leaves the model's own config as it was"


def test_the_comparison_can_fail_a_folder_read_with_another_pooling_differs(trained, tmp_path):
    from sentence_transformers import SentenceTransformer

    model = trained("cls")
    folder = model.save(tmp_path / "model")
    config = folder / "1_Pooling" / "config.json"
    settings = json.loads(config.read_text())
    config.write_text(json.dumps({**settings, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True}))
    theirs = torch.as_tensor(SentenceTransformer(str(folder), device="cpu").encode(SENTENCES))
    assert (workbook_vectors(model) - theirs).abs().max() > 1e-3


def test_a_layer_average_is_saved_as_sentence_transformers_own_weighted_layer_pooling(trained, tmp_path):
    folder = trained("first_last_avg").save(tmp_path / "model")
    listed = [entry["type"].rsplit(".", 1)[-1] for entry in json.loads((folder / "modules.json").read_text())]
    assert listed == ["Transformer", "WeightedLayerPooling", "Pooling"]
    assert json.loads((folder / "config.json").read_text())["output_hidden_states"] is True


def test_word_embeddings_pooling_is_refused_before_anything_is_written(tmp_path):
    model = SiameseModel.from_scratch("embedded", pooling="word_embeddings", device="cpu", **TINY)
    with pytest.raises(NotSaveableError, match="no module that does so"):
        model.save(tmp_path / "model")
    assert not (tmp_path / "model").exists()
