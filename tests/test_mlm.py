"""The tiny MLM: BERT's masking rule, the logit read-out, training, the fit table and the MLM-head check."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from sbert_workbook.mlm.tiny import (
    FIRST_WORD_ID, IGNORE_LABEL, MASK_ID, TinyMlm, fit_correlations, logit_fit, mask_tokens,
)
from sbert_workbook.mlm.head import MissingMlmHeadError, load_mlm_head, top_k_table, top_predictions
from sbert_workbook.mlm.toy_language import toy_language


@pytest.fixture(scope="module")
def language():
    return toy_language()


@pytest.fixture(scope="module")
def tiny(language):
    return TinyMlm(language, hidden_size=32, num_layers=1, num_heads=2, length=6, seed=0)


def test_masking_follows_the_80_10_10_rule(language):
    vocab = FIRST_WORD_ID + language.vocab_size
    words = torch.as_tensor(language.sample(5000, 8, np.random.default_rng(0))) + FIRST_WORD_ID
    ids = torch.cat([torch.full((5000, 1), 2), words, torch.full((5000, 1), 3)], dim=1)  # [CLS] ... [SEP]
    inputs, labels = mask_tokens(ids, vocab, generator=torch.Generator().manual_seed(0))
    picked = labels != IGNORE_LABEL
    n_words, n_picked = words.numel(), int(picked.sum())
    assert abs(n_picked / n_words - 0.15) < 4 * math.sqrt(0.15 * 0.85 / n_words)
    assert not picked[:, [0, -1]].any() and (inputs[:, [0, -1]] == ids[:, [0, -1]]).all()  # specials untouched
    assert (labels[picked] == ids[picked]).all() and (inputs[~picked] == ids[~picked]).all()
    # Of the picked: 80 % [MASK]; 10 % random word (equal to the original with chance 1/V); 10 % kept.
    v = language.vocab_size
    expected = {"mask": 0.8, "same": 0.1 + 0.1 / v, "other": 0.1 * (1 - 1 / v)}
    observed = {"mask": (inputs[picked] == MASK_ID).float().mean().item(),
                "same": (inputs[picked] == ids[picked]).float().mean().item(),
                "other": ((inputs[picked] != MASK_ID) & (inputs[picked] != ids[picked])).float().mean().item()}
    for name, p in expected.items():
        assert abs(observed[name] - p) < 4 * math.sqrt(p * (1 - p) / n_picked), (name, observed[name], p)
    assert (inputs[picked] >= FIRST_WORD_ID).logical_or(inputs[picked] == MASK_ID).all()  # random = real words only


def test_masking_is_reproducible_with_a_seed(language):
    ids = torch.as_tensor(language.sample(50, 8, np.random.default_rng(1))) + FIRST_WORD_ID
    first = mask_tokens(ids, 27, generator=torch.Generator().manual_seed(5))
    second = mask_tokens(ids, 27, generator=torch.Generator().manual_seed(5))
    assert all(torch.equal(a, b) for a, b in zip(first, second))


def test_logit_parts_reproduce_the_model_logits(tiny, language):
    words = language.sample(4, tiny.length, np.random.default_rng(2))
    words[:, 1] = -1
    ids = tiny.token_ids(words)
    positions = torch.full((4,), 2)
    _, h_c, weight, bias = tiny.logit_parts(ids, positions)
    with torch.no_grad():
        logits = tiny.model(input_ids=ids).logits[torch.arange(4), positions]
    torch.testing.assert_close(h_c @ weight.T + bias, logits)
    assert weight.data_ptr() == tiny.model.get_input_embeddings().weight.data_ptr()  # tied: w_x is the input embedding


def test_short_training_reduces_the_loss(language):
    model = TinyMlm(language, hidden_size=32, num_layers=1, num_heads=2, length=6, seed=3)
    words = language.sample(512, 6, np.random.default_rng(7))
    inputs, labels = mask_tokens(model.token_ids(words), model.config.vocab_size, generator=torch.Generator().manual_seed(7))

    def held_out_loss() -> float:
        with torch.no_grad():
            return model.model(input_ids=inputs, labels=labels).loss.item()

    before = held_out_loss()
    history = model.train(60, batch_size=64, learning_rate=3e-3, track_every=30, progress=False)
    after = held_out_loss()
    assert after < before - 0.3, (before, after)
    assert list(history["step"]) == [0, 30, 60]
    assert history["kl_to_truth"].iloc[-1] < history["kl_to_truth"].iloc[0]
    assert not model.model.training


def test_top_k_of_the_tiny_model(tiny, language):
    table = tiny.top_k("the cat [MASK] fish", k=4)
    assert list(table["rank"]) == [1, 2, 3, 4] and (table["position"] == 2).all()
    words = np.array([language.encode("the cat [MASK] fish")])
    logits = tiny.word_logits(tiny.token_ids(words), torch.tensor([3]))[0]
    probabilities = torch.softmax(torch.as_tensor(logits, dtype=torch.float64), dim=0).numpy()
    for row in table.itertuples():
        index = language.index(row.token)
        assert row.logit == pytest.approx(logits[index], rel=1e-5)
        assert row.probability == pytest.approx(probabilities[index], rel=1e-5)
        assert row.exact_probability == pytest.approx(language.conditional(words)[0, 2, index])
    with pytest.raises(ValueError, match=r"no \[MASK\]"):
        tiny.top_k("the cat eats fish")
    with pytest.raises(ValueError, match="at most 6 words"):
        tiny.top_k("the cat eats the big [MASK] fish")


def test_top_k_table_by_hand():
    table = top_k_table(np.log([[1.0, 2.0, 7.0]]), ["x", "y", "z"], k=2, mask_positions=[4])
    assert list(table["token"]) == ["z", "y"]
    assert list(table["probability"]) == pytest.approx([0.7, 0.2])
    with pytest.raises(ValueError, match="k must be"):
        top_k_table(np.zeros((1, 3)), ["x", "y", "z"], k=0, mask_positions=[0])


def test_fit_correlations_ignore_a_constant_per_context():
    rng = np.random.default_rng(0)
    target = rng.normal(size=(30, 5))
    log_p = np.tile(rng.normal(size=5), (30, 1))
    shifted = target + rng.normal(scale=10, size=(30, 1))  # a different constant in every context
    table = pd.DataFrame({"context": np.repeat(np.arange(30), 5), "logit": shifted.ravel(),
                          "pmi": (target - log_p).ravel(), "log_p": log_p.ravel(), "pmi_plus_log_p": target.ravel()})
    for column in ("logit", "pmi", "log_p", "pmi_plus_log_p"):
        table[f"{column}_centered"] = table[column] - table.groupby("context")[column].transform("mean")
    correlations = fit_correlations(table)
    assert correlations.loc["PMI(x, c) + log p(x)"].tolist() == pytest.approx([1.0, 1.0])
    assert np.corrcoef(table["logit"], table["pmi_plus_log_p"])[0, 1] < 0.5  # uncentered, the constants would hide it


def test_logit_fit_table(tiny, language):
    table = logit_fit(tiny, n_contexts=20, seed=1)
    assert len(table) == 20 * language.vocab_size
    np.testing.assert_allclose(table["pmi_plus_log_p"], table["pmi"] + table["log_p"])
    exact = np.exp(table["pmi_plus_log_p"]).groupby(table["context"]).sum()
    np.testing.assert_allclose(exact, 1.0)  # pmi + log p = log p(x|c): a distribution per context
    assert table.groupby("context")["logit_centered"].mean().abs().max() < 1e-5


def test_embedded_model_has_no_mlm_head_and_is_refused():
    with pytest.raises(MissingMlmHeadError, match=r"no trained MLM head.*cls\.predictions"):
        load_mlm_head("embedded")


@pytest.fixture(scope="module")
def tokenizer_folder(tmp_path_factory, encoder):
    folder = tmp_path_factory.mktemp("tokenizer")
    encoder.tokenizer.save_pretrained(folder)
    return folder


def _tiny_bert(folder, tokenizer_folder, with_head: bool):
    import shutil

    from transformers import BertConfig, BertForMaskedLM, BertModel

    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
    torch.manual_seed(0)
    (BertForMaskedLM if with_head else BertModel)(config).save_pretrained(folder)
    for item in tokenizer_folder.iterdir():
        shutil.copy(item, folder / item.name)
    return folder


def test_a_checkpoint_with_a_head_loads_and_predicts(tmp_path, tokenizer_folder):
    folder = _tiny_bert(tmp_path / "with_head", tokenizer_folder, with_head=True)
    head = load_mlm_head(str(folder), device="cpu")
    table = top_predictions(head, "the cat [MASK] on the mat.", k=3)
    batch = head.tokenizer("the cat [MASK] on the mat.", return_tensors="pt")
    with torch.no_grad():
        logits = head.model(**batch).logits[0, 3]
    top = torch.topk(torch.softmax(logits, dim=0), 3)
    assert list(table["token"]) == head.tokenizer.convert_ids_to_tokens(top.indices.tolist())
    assert table["probability"].tolist() == pytest.approx(top.values.tolist(), rel=1e-4)
    with pytest.raises(ValueError, match=r"no \[MASK\]"):
        top_predictions(head, "no mask here")


def test_a_checkpoint_without_a_head_is_refused(tmp_path, tokenizer_folder):
    folder = _tiny_bert(tmp_path / "no_head", tokenizer_folder, with_head=False)
    with pytest.raises(MissingMlmHeadError, match="would be random"):
        load_mlm_head(str(folder), device="cpu")


def test_figures_plot_the_tables(tiny):
    from sbert_workbook.mlm import plots as mlm_plots
    from sbert_workbook.mlm.tiny import context_similarity

    history = pd.DataFrame({"step": [0, 10], "loss": [np.nan, 2.0], "kl_to_truth": [1.5, 0.5],
                            "context_mean_cosine": [0.7, 0.2], "sentence_mean_cosine": [0.9, 0.6],
                            "norm_logfreq_pearson": [-0.2, 0.8], "bias_logfreq_pearson": [np.nan, 0.9]})
    training = mlm_plots.mlm_training_figure(history)
    assert list(training.data[1].y) == [1.5, 0.5]
    geometry = mlm_plots.anisotropy_figure(history)
    assert {trace.name: list(trace.y)[-1] for trace in geometry.data} == {
        "[MASK] contexts (last layer)": 0.2, "mean-pooled sentences (last layer)": 0.6,
        "word-embedding norm ‖w_x‖": 0.8, "output bias b_x": 0.9}
    table = logit_fit(tiny, n_contexts=10, seed=2)
    correlations = fit_correlations(table)
    scatter = mlm_plots.logit_scatter_figure(table, correlations)
    points = sum(len(trace.x) for trace in scatter.data if trace.mode == "markers")
    assert points == len(table)
    bars = mlm_plots.correlation_figure(correlations)
    assert list(bars.data[0].y) == pytest.approx(correlations["pearson"].tolist())
    pairs = context_similarity(tiny, n_contexts=8, seed=3)
    assert len(pairs) == 8 * 7 // 2 and pairs["exact_profile_cosine"].between(-1, 1).all()
    assert len(mlm_plots.context_similarity_figure(pairs).data[0].x) == len(pairs)
    top = tiny.top_k("the cat [MASK] fish", k=3)
    figure = mlm_plots.top_k_figure(top)
    assert list(figure.data[0].x) == top["probability"].tolist()[::-1]
    assert list(figure.data[1].x) == top["exact_probability"].tolist()[::-1]


def test_context_similarity_matches_a_direct_computation(tiny, language):
    from sbert_workbook.mlm.tiny import context_similarity

    pairs = context_similarity(tiny, n_contexts=3, seed=4)
    words = [language.encode(pairs["context_a"].iloc[0]), language.encode(pairs["context_b"].iloc[0])]  # contexts 0 and 1
    positions = [w.index(-1) for w in words]
    hidden = tiny.logit_parts(tiny.token_ids(np.array(words)), torch.tensor(positions) + 1)[0]
    expected = torch.nn.functional.cosine_similarity(hidden[0], hidden[1], dim=0).item()
    assert pairs["model_cosine"].iloc[0] == pytest.approx(expected, abs=1e-5)


def test_a_legacy_bert_checkpoint_with_a_head_is_accepted(tmp_path, tokenizer_folder):
    """bert-base-uncased's checkpoint style: LayerNorm.gamma/beta names, an NSP head, the decoder stored too."""
    import shutil

    from safetensors.torch import save_file
    from transformers import BertConfig, BertForPreTraining

    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                        architectures=["BertForMaskedLM"])
    torch.manual_seed(0)
    model = BertForPreTraining(config)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_()  # no weight left at its initial value, so a skipped load would show
    state = {key.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): value.clone()
             for key, value in model.state_dict().items()}
    assert "cls.predictions.decoder.weight" in state and "cls.seq_relationship.weight" in state
    folder = tmp_path / "legacy"
    folder.mkdir()
    save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
    config.save_pretrained(folder)
    for item in tokenizer_folder.iterdir():
        shutil.copy(item, folder / item.name)
    head = load_mlm_head(str(folder), device="cpu")
    torch.testing.assert_close(head.model.cls.predictions.transform.LayerNorm.weight,
                               model.cls.predictions.transform.LayerNorm.weight)
    torch.testing.assert_close(head.model.cls.predictions.bias, model.cls.predictions.bias)
