"""06's cone start (a model's word embeddings, averaged) and the alignment–uniformity plane of section 5."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import sbert_workbook as sbw
from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.geometry import uniformity
from sbert_workbook.training import contrastive, contrastive_plots, isotropy
from sbert_workbook.training.bag_of_words import BAG_OF_WORDS_POOLING, bag_of_words_of, trainable_parameters
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.siamese import SiameseModel

TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
SENTENCES = ["A man plays a guitar.", "A woman is slicing an onion.", "Two dogs run in the snow.", "The cat sleeps.",
             "Children are playing football outside.", "A plane is taking off.", "Someone is cooking pasta.",
             "The sun sets over the sea.", "A boy rides a red bicycle.", "People are dancing at a party."]


@pytest.fixture()
def tiny():
    return SiameseModel.from_scratch(device="cpu", seed=0, max_length=32, **TINY)


def test_the_cone_is_the_mean_of_the_word_rows_and_keeps_no_layer(tiny):
    cone = bag_of_words_of(tiny).eval()
    assert cone.transformer.config.num_hidden_layers == 0 and tiny.transformer.config.num_hidden_layers == 2
    assert cone.pooling == BAG_OF_WORDS_POOLING and "bag of words" in cone.resolved.model_id
    features = cone.tokenize(SENTENCES[:3])
    rows = tiny.transformer.get_input_embeddings().weight.detach()
    by_hand = torch.stack([rows[ids[mask.bool()]].mean(0) for ids, mask in zip(features["input_ids"], features["attention_mask"])])
    with torch.no_grad():
        assert torch.allclose(cone(**features), by_hand, atol=1e-6)
    assert trainable_parameters(cone) == rows.numel()


def test_embedding_dropout_is_the_noise_in_training_only(tiny):
    cone = bag_of_words_of(tiny)
    features = cone.tokenize(SENTENCES[:4])
    contrastive.set_dropout(cone, 0.3)
    cone.train()
    with torch.no_grad():
        assert not torch.allclose(cone(**features), cone(**features)), "two views of one sentence differ under dropout"
        contrastive.set_dropout(cone, 0.0)
        assert torch.equal(cone(**features), cone(**features)), "p = 0: the two views are one vector"
        contrastive.set_dropout(cone, 0.3)
        cone.eval()
        assert torch.equal(cone(**features), cone(**features))


def test_simcse_from_the_cone_moves_only_the_word_vectors_and_spreads_them(tiny):
    cone = bag_of_words_of(tiny)
    with torch.no_grad():  # a cone: every word vector shares one large direction
        weight = cone.transformer.get_input_embeddings().weight
        weight.add_(0.05 * torch.ones(weight.shape[1]))
    before = {name: p.detach().clone() for name, p in cone.named_parameters()}
    uniform_before = uniformity(isotropy.model_row(cone)(SENTENCES))
    sentences = SENTENCES * 4
    config = TrainingConfig(batch_size=8, learning_rate=1e-2, max_steps=30, epochs=10, warmup_ratio=0.0, scale=20,
                            progress=False, device="cpu", save_checkpoints=False)
    fit(cone, contrastive.unsupervised_pairs(sentences), "simcse", config)
    changed = {name for name, p in cone.named_parameters() if not torch.equal(p.detach(), before[name])}
    assert changed == {"transformer.embeddings.word_embeddings.weight"}
    assert uniformity(isotropy.model_row(cone)(SENTENCES)) < uniform_before - 0.05


def test_a_row_reads_past_the_training_length(encoder):
    model = SiameseModel(encoder.model, encoder.tokenizer, encoder.resolved, "mean", max_length=8)
    long = ["A man in a red shirt is playing an old wooden guitar on the corner of a very busy street today."]
    row = isotropy.model_row(model)(long)
    assert torch.allclose(row, encoder.encode(long, pooling="mean", max_length=512), atol=1e-5)
    assert not torch.allclose(row, encoder.encode(long, pooling="mean", max_length=8), atol=1e-3)


def test_positives_are_pairs_scored_above_4_as_simcse_says():
    data = StsData("toy", "test", ["a", "b", "c", "d"], ["A", "B", "C", "D"], np.array([4.0, 4.5, 3.0, 5.0]), ["x"] * 4)
    assert isotropy.positive_pairs(data) == (["b", "d"], ["B", "D"])
    with pytest.raises(ValueError, match="score above 4"):
        isotropy.positive_pairs(StsData("toy", "test", ["a", "b"], ["A", "B"], np.array([4.0, 5.0]), ["x"] * 2))


def test_plane_moves_reads_each_row_against_raw_by_hand():
    frame = pd.DataFrame({"alignment": [0.2, 0.3, 0.15], "uniformity": [-1.5, -3.0, -1.4], "avg (all)": [50.0, 60.0, 52.0]},
                         index=["raw", "+ whitening", "trained"])
    moves = isotropy.plane_moves(frame)
    assert list(moves.index) == ["+ whitening", "trained"]
    assert moves.loc["+ whitening", "Δ uniformity"] == pytest.approx(-1.5) and moves.loc["trained", "Δ alignment"] == pytest.approx(-0.05)
    assert list(moves.columns) == ["Δ uniformity", "Δ alignment", "Δ STS (avg (all))"]  # verdicts come from intervals
    assert moves.loc["trained", "Δ STS (avg (all))"] == pytest.approx(2.0)
    with pytest.raises(ValueError, match="uniformity"):
        isotropy.plane_moves(frame.drop(columns="uniformity"))


def test_a_frozen_row_looks_its_vectors_up_and_names_a_sentence_it_was_not_given():
    calls = []

    def embed(sentences):
        calls.append(list(sentences))
        return torch.arange(len(sentences), dtype=torch.float32)[:, None].repeat(1, 3)
    row = isotropy.frozen_row(embed, ["a", "b", "a", "c"], name="the cone's raw row")
    assert calls == [["a", "b", "c"]]
    assert row(["c", "a"]).tolist() == [[2.0] * 3, [0.0] * 3] and len(calls) == 1
    with pytest.raises(KeyError, match="the cone's raw row was computed for 3 sentences.*'d'"):
        row(["a", "d"])


def test_the_plane_draws_every_row_and_one_arrow_per_path():
    frame = pd.DataFrame({"alignment": [0.2, 0.3], "uniformity": [-1.5, -3.0]}, index=["raw", "+ flow"])
    paths = {"unsup": {"alignment": [0.2, 0.25, 0.3], "uniformity": [-1.5, -2.0, -2.5]}}
    figure = contrastive_plots.alignment_uniformity_plane_figure(frame, paths)
    points = [trace for trace in figure.data if trace.mode == "markers+text"][0]
    assert list(points.text) == ["raw", "+ flow"] and list(points.x) == [-1.5, -3.0]
    arrows = [a for a in figure.layout.annotations if a.showarrow]
    assert len(arrows) == 1 and (arrows[0].x, arrows[0].ax) == (-2.5, -2.0)


def test_a_bag_of_words_row_is_the_encoders_word_embeddings_pooling_as_one_sparse_product(tiny):
    from sbert_workbook.training.bag_of_words import TokenIds, bag_of_words_row

    cone = bag_of_words_of(tiny)
    ids = TokenIds(cone.tokenizer)
    fast = bag_of_words_row(cone, ids)
    assert torch.allclose(fast(SENTENCES), isotropy.model_row(cone)(SENTENCES), atol=1e-6)
    with torch.no_grad():
        cone.transformer.get_input_embeddings().weight.mul_(2)  # the row reads the weights as they are now
    assert torch.allclose(fast(SENTENCES[:2]), isotropy.model_row(cone)(SENTENCES[:2]), atol=1e-6)
    assert len(ids._ids) == len(SENTENCES)
