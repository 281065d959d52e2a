"""SBERT Table 1 as data, and the one-pass pooled views against the foundation and sentence-transformers."""
from __future__ import annotations

import numpy as np
import pytest

import sbert_workbook as sbw
from sbert_workbook.published import SBERT_TABLE1
from sbert_workbook.evaluation.baselines import (
    TABLE1_ROWS, baseline_table, beside_published, pair_cosine_per_encoder, published_table1,
    per_subset_sample, sentence_transformers_pooling,
)
from sbert_workbook.encoding.pooled_views import PooledViews

SENTENCES = ["A man is playing a guitar.", "The dog bit the man.", "Nobody came to the party, which was sad.", "x"]


def test_published_averages_are_the_means_of_their_rows():
    for row, values in TABLE1_ROWS.items():
        assert np.mean(values[:7]) == pytest.approx(values[7], abs=0.05), row  # the paper rounds per cell


def test_published_rows_the_issue_quotes():
    table = published_table1()
    assert table.loc["Avg. GloVe embeddings", "avg"] == 61.32
    assert table.loc["Avg. BERT embeddings", "avg"] == 54.81
    assert table.loc["BERT CLS-vector", "avg"] == 29.19
    assert table.loc["SBERT-NLI-base", "avg"] == 74.89
    assert list(table.columns) == [*sbw.SEVEN_STS_SETS, "avg"]
    with pytest.raises(KeyError, match="Known|known"):
        published_table1(["No such row"])


def test_every_pooling_matches_the_encoder_and_mean_matches_sentence_transformers(encoder, st_model):
    multi = PooledViews(encoder, ("static", "cls", "mean", "first_last_avg"), batch_size=3)
    for pooling in multi.poolings:
        expected = encoder.encode(SENTENCES, pooling=pooling)
        assert np.allclose(multi.encode(SENTENCES, pooling).numpy(), expected.numpy(), atol=1e-5), pooling
    reference = st_model.encode(SENTENCES, convert_to_numpy=True)  # the model ends in a Normalize module
    ours = multi.encode(SENTENCES, "mean").numpy()
    assert np.allclose(ours / np.linalg.norm(ours, axis=1, keepdims=True), reference, atol=1e-5)


def test_later_poolings_reuse_the_first_forward_pass(encoder, monkeypatch):
    multi = PooledViews(encoder, ("cls", "mean"))
    calls, model_class = [], type(encoder.model)
    original = model_class.forward
    monkeypatch.setattr(model_class, "forward",
                        lambda self, **batch: calls.append(len(batch["input_ids"])) or original(self, **batch))
    multi.encode(SENTENCES, "cls")
    multi.encode(SENTENCES[::-1], "mean")
    assert calls == [len(SENTENCES)]
    with pytest.raises(ValueError, match="was not prepared"):
        multi.encode(SENTENCES, "max")


def test_the_embedded_model_declares_mean_pooling_like_sentence_transformers_reads_it(encoder, st_model):
    assert sentence_transformers_pooling(encoder) == st_model[1].pooling_mode == "mean"


def test_baseline_table_equals_evaluate_sts_per_pooling(encoder):
    multi = PooledViews(encoder, ("cls", "mean"))
    table = baseline_table(multi, ("cls", "mean"), ("stsb", "sickr"), limit=25)
    for pooling in ("cls", "mean"):
        reference = sbw.evaluate_sts(encoder, ("stsb", "sickr"), pooling, limit=25)["spearman"]
        assert table.loc[pooling].to_numpy() == pytest.approx(reference.to_numpy(), abs=1e-3)
    assert list(table.columns) == ["stsb", "sickr", "avg"]
    assert "all-MiniLM-L6-v2" in table.attrs["provenance"]["model"] and "25" in table.attrs["provenance"]["split"]


def test_trained_row_stands_beside_sbert_nli_base():
    import pandas as pd

    recomputed = pd.DataFrame({"stsb": [50.0, 80.0]}, index=["cls", "mean"])
    table = beside_published(recomputed, "m", trained_pooling="mean")
    assert list(table.index) == ["cls (m)", "BERT CLS-vector", "mean (m, trained for similarity)", "SBERT-NLI-base",
                                 "Avg. GloVe embeddings"]
    assert table.loc["SBERT-NLI-base", "stsb"] == 77.03
    two_models = beside_published(pd.DataFrame({"stsb": [50.0, 80.0]}, index=["cls", "trained"]), "bert", row_models={"trained": "sbert"})
    assert list(two_models.index) == ["cls (bert)", "BERT CLS-vector", "trained (sbert)", "SBERT-NLI-base", "Avg. GloVe embeddings"]
    untrained = beside_published(recomputed, "m")
    assert "Avg. BERT embeddings" in untrained.index and "SBERT-NLI-base" not in untrained.index


def test_static_and_word_embeddings_stand_alone_and_glove_is_published_only():
    import pandas as pd

    recomputed = pd.DataFrame({"stsb": [40.0, 45.0, 50.0, 55.0]}, index=["word_embeddings", "static", "first_last_avg", "last2_avg"])
    table = beside_published(recomputed, "bert")
    assert list(table.index) == ["word_embeddings (bert)", "static (bert)", "first_last_avg (bert)", "last2_avg (bert)",
                                 "Avg. GloVe embeddings"]
    assert table.loc["Avg. GloVe embeddings", "source"].startswith("published only")
    assert table.loc["Avg. GloVe embeddings", "stsb"] == 58.02
    assert TABLE1_ROWS is SBERT_TABLE1.rows  # one copy of the paper's numbers


def test_pair_cosine_per_encoder_matches_sentence_transformers(encoder, st_model):
    multi = PooledViews(encoder, ("mean", "cls"))
    cosines = pair_cosine_per_encoder({"mean": (multi, "mean"), "cls": (multi, "cls")}, SENTENCES[0], SENTENCES[1])
    u, v = st_model.encode(SENTENCES[:2], convert_to_numpy=True)
    assert cosines["mean"] == pytest.approx(float(u @ v / np.linalg.norm(u) / np.linalg.norm(v)), abs=1e-5)
    with pytest.raises(ValueError, match="both boxes"):
        pair_cosine_per_encoder({"mean": (multi, "mean")}, "  ", "a sentence")


def test_per_subset_sample_keeps_every_subset_and_only_real_pairs(shared_data):
    from collections import Counter

    full = sbw.load_sts("sts13", data_dir=shared_data)
    sample = per_subset_sample(full, 10, seed=1)
    sizes = Counter(full.subsets)
    assert Counter(sample.subsets) == {name: min(10, size) for name, size in sizes.items()}
    originals = set(zip(full.sentences1, full.sentences2, full.scores, full.subsets))
    assert set(zip(sample.sentences1, sample.sentences2, sample.scores, sample.subsets)) <= originals
    assert per_subset_sample(full, None) is full
    with pytest.raises(ValueError, match="at least 2"):
        per_subset_sample(full, 1)
