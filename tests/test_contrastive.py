"""InfoNCE / SimCSE (training/contrastive.py) and gradient caching (training/gradient_cache.py), notebook 06."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

import sbert_workbook as sbw
from sbert_workbook.training import contrastive, fitting as training
from sbert_workbook.training.examples import nli_triplets
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.gradient_cache import cached_loss_backward, micro_batches
from sbert_workbook.training.losses import multiple_negatives_ranking_loss
from sbert_workbook.training.objectives import OBJECTIVES
from sbert_workbook.training.siamese import SiameseModel

TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
SENTENCES = ["A man plays a guitar.", "A woman is slicing an onion.", "Two dogs run in the snow.", "The cat sleeps.",
             "Children are playing football outside.", "A plane is taking off.", "Someone is cooking pasta.",
             "The sun sets over the sea.", "A boy rides a red bicycle.", "People are dancing at a party."]


def tiny_model(dropout: bool = True, seed: int = 0) -> SiameseModel:
    extra = {} if dropout else {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
    return SiameseModel.from_scratch(device="cpu", seed=seed, **TINY, **extra)


def hand_info_nce(a: np.ndarray, c: np.ndarray, tau: float) -> float:
    """−log softmax at the diagonal, one row at a time, in float64 with plain numpy."""
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    c = c / np.linalg.norm(c, axis=1, keepdims=True)
    total = 0.0
    for i in range(len(a)):
        logits = [float(a[i] @ c[j]) / tau for j in range(len(c))]
        total += -(logits[i] - math.log(sum(math.exp(x) for x in logits)))
    return total / len(a)


def test_info_nce_matches_the_hand_computed_loss_with_hard_negatives():
    g = torch.Generator().manual_seed(0)
    a, p, n = (torch.randn(5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    expected = hand_info_nce(a.numpy(), torch.cat([p, n]).numpy(), 0.05)
    assert contrastive.info_nce_loss(a, p, n, temperature=0.05).item() == pytest.approx(expected, rel=1e-9)


def test_in_batch_negatives_at_scale_20_are_info_nce_at_temperature_005():
    g = torch.Generator().manual_seed(1)
    a, p = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g)
    assert torch.allclose(multiple_negatives_ranking_loss(a, p, scale=20.0), contrastive.info_nce_loss(a, p, temperature=0.05))
    assert not torch.allclose(contrastive.info_nce_loss(a, p, temperature=1.0), contrastive.info_nce_loss(a, p, temperature=0.05))


def test_info_nce_rejects_a_non_positive_temperature():
    with pytest.raises(ValueError, match="temperature"):
        contrastive.info_nce_loss(torch.ones(2, 2), torch.ones(2, 2), temperature=0)


def test_simcse_objective_passes_through_the_mlp_and_refuses_a_classifier():
    g = torch.Generator().manual_seed(2)
    a, p = torch.randn(4, 6, generator=g), torch.randn(4, 6, generator=g)
    head = contrastive.ProjectionHead(6)
    expected = contrastive.info_nce_loss(torch.tanh(head.dense(a)), torch.tanh(head.dense(p)), temperature=0.05)
    from types import SimpleNamespace

    from sbert_workbook.training.fitting import TrainingConfig
    from sbert_workbook.training.losses import ClassifierHead
    simcse = OBJECTIVES["simcse"].on_embeddings
    assert torch.allclose(simcse(SimpleNamespace(head=head), [a, p], TrainingConfig(scale=20.0)), expected)
    with pytest.raises(ValueError, match="add_projection_head"):
        simcse(SimpleNamespace(head=ClassifierHead(6)), [a, p], TrainingConfig(scale=20.0))


def test_set_dropout_reaches_every_dropout_layer_and_checks_p():
    model = tiny_model()
    changed = contrastive.set_dropout(model, 0.0)
    assert changed > 0 and all(m.p == 0.0 for m in model.modules() if isinstance(m, torch.nn.Dropout))
    model.train()
    first, second = model.embed_columns([SENTENCES[:3], SENTENCES[:3]])
    assert torch.allclose(first, second, atol=1e-6)  # p = 0: the two "views" are the same vector
    contrastive.set_dropout(model, 0.1)
    first, second = model.embed_columns([SENTENCES[:3], SENTENCES[:3]])
    assert not torch.allclose(first, second, atol=1e-4)  # two dropout masks, two different vectors
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        contrastive.set_dropout(model, 1.0)


def test_unsupervised_pairs_and_one_word_deletion():
    pairs = contrastive.unsupervised_pairs(SENTENCES + SENTENCES[:2])
    assert len(pairs) == len(SENTENCES) and pairs.columns["sentence"] == pairs.columns["same sentence"]
    deleted = contrastive.delete_one_word_pairs(SENTENCES, seed=0)
    for original, shorter in zip(*deleted.columns.values()):
        words, kept = original.split(), shorter.split()
        assert len(kept) == len(words) - 1 and any(words[:i] + words[i + 1:] == kept for i in range(len(words)))
    assert contrastive.delete_one_word("Hello", random.Random(0)) == "Hello"
    with pytest.raises(ValueError, match="two distinct"):
        contrastive.unsupervised_pairs(["same", "same"])


def full_batch_gradients(model, columns, loss_of):
    model.zero_grad()
    loss = loss_of(model.embed_columns(columns))
    loss.backward()
    return loss.detach(), {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}


def embed_with(model):
    def embed(sentences):
        features = model.tokenize(sentences)
        return model(**features)
    return embed


@pytest.mark.parametrize("micro_batch_size", [1, 3, 7])
def test_cached_micro_batches_give_the_full_batch_loss_and_gradients(micro_batch_size):
    model = tiny_model(dropout=False).double()
    contrastive.add_projection_head(model)
    model.head.double()
    columns = [SENTENCES[:5], SENTENCES[5:], SENTENCES[2:7]]  # anchors, positives, hard negatives
    loss_of = lambda embeddings: contrastive.simcse_loss(embeddings, model.head)  # noqa: E731
    full_loss, full_gradients = full_batch_gradients(model, columns, loss_of)
    model.zero_grad()
    cached = cached_loss_backward(embed_with(model), columns, loss_of, micro_batch_size)
    assert cached.item() == pytest.approx(full_loss.item(), abs=1e-5)
    cached_gradients = {name: p.grad for name, p in model.named_parameters() if p.grad is not None}
    assert cached_gradients.keys() == full_gradients.keys() and any(g.abs().max() > 0 for g in full_gradients.values())
    for name, gradient in full_gradients.items():
        assert torch.allclose(cached_gradients[name], gradient, atol=1e-5, rtol=0), name


def test_cached_step_replays_each_micro_batch_dropout_masks():
    columns, size = [SENTENCES, SENTENCES], 4  # unsupervised SimCSE: the same sentences twice
    loss_of = lambda embeddings: contrastive.info_nce_loss(*embeddings)  # noqa: E731
    reference = tiny_model(dropout=True).double().train()  # micro-batches embedded with graphs, one after the other
    torch.manual_seed(5)
    pieces = [embed_with(reference)(piece) for piece in micro_batches([s for c in columns for s in c], size)]
    embeddings = torch.cat(pieces)
    reference_loss = loss_of(list(torch.split(embeddings, [len(c) for c in columns])))
    reference_loss.backward()
    cached_model = tiny_model(dropout=True).double().train()
    torch.manual_seed(5)
    cached = cached_loss_backward(embed_with(cached_model), columns, loss_of, size)
    assert cached.item() == pytest.approx(reference_loss.item(), abs=1e-5)
    for (name, p), (_, q) in zip(reference.named_parameters(), cached_model.named_parameters()):
        if p.grad is not None:
            assert torch.allclose(p.grad, q.grad, atol=1e-5, rtol=0), name


@pytest.fixture(scope="module")
def triplets(shared_data):
    return nli_triplets(sbw.load_nli("snli", data_dir=shared_data).first(200))  # consecutive rows share premises


def settings(**overrides) -> TrainingConfig:
    return TrainingConfig(**{"batch_size": 8, "learning_rate": 1e-3, "progress": False, "device": "cpu",
                             "save_checkpoints": False, **overrides})


def test_out_of_memory_keeps_every_in_batch_negative(triplets, tmp_path, monkeypatch, capsys):
    # float64 and no dropout: the full batch and the cached micro-batches are the same computation
    direct = tiny_model(dropout=False).double()
    initial = {k: v.clone() for k, v in direct.state_dict().items()}
    direct_run = fit(direct, triplets, "simcse", settings(max_steps=2), output_dir=tmp_path / "direct")
    real_step = training._forward_backward

    def step_that_only_fits_4(run, columns, labels):
        if len(columns[0]) > 4:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        return real_step(run, columns, labels)

    monkeypatch.setattr(training, "_forward_backward", step_that_only_fits_4)
    backed_off = tiny_model(dropout=False).double()
    result = fit(backed_off, triplets, "simcse", settings(max_steps=2), output_dir=tmp_path / "oom")
    assert result.micro_batch_size == 4 and "keeps all 7 in-batch negatives" in capsys.readouterr().out
    a, b = direct.state_dict(), backed_off.state_dict()
    assert not all(torch.equal(a[k], initial[k]) for k in a)  # it trained
    assert all(torch.allclose(a[k], b[k], atol=1e-5) for k in a)
    assert result.history["loss"] == pytest.approx(direct_run.history["loss"], abs=1e-6)


def test_plain_accumulation_would_have_changed_the_in_batch_loss():
    # Why fit caches gradients: two halves of a batch see half the negatives, a different (smaller) loss.
    g = torch.Generator().manual_seed(3)
    a, p = torch.randn(8, 6, generator=g), torch.randn(8, 6, generator=g)
    halves = (contrastive.info_nce_loss(a[:4], p[:4]) + contrastive.info_nce_loss(a[4:], p[4:])) / 2
    assert not torch.allclose(halves, contrastive.info_nce_loss(a, p))


# ----------------------------------------------------------------------------- isotropy.py: the rows of section 5
from sbert_workbook.training import isotropy  # noqa: E402


def test_mean_unrelated_cosine_counts_every_ordered_pair_once():
    vectors = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    by_hand = np.mean([unit[i] @ unit[j] for i in range(3) for j in range(3) if i != j])
    assert isotropy.mean_unrelated_cosine(vectors) == pytest.approx(by_hand, abs=1e-6)
    with pytest.raises(ValueError, match="two sentences"):
        isotropy.mean_unrelated_cosine(vectors[:1])


def test_spectrum_is_flat_for_an_isotropic_cloud_and_steep_for_a_cone():
    rng = np.random.default_rng(0)
    isotropic = rng.normal(size=(2000, 8))
    cone = isotropic * np.array([10.0, 1, 1, 1, 0.1, 0.1, 0.1, 0.1]) + np.array([20.0, 0, 0, 0, 0, 0, 0, 0])
    flat, steep = isotropy.singular_spectrum(isotropic), isotropy.singular_spectrum(cone)
    assert flat[0] == steep[0] == pytest.approx(1.0) and flat[-1] > 0.8 and steep[-1] < 0.1
    assert isotropy.energy_share_of_top_direction(isotropic) == pytest.approx(1 / 8, abs=0.03)
    assert isotropy.energy_share_of_top_direction(cone) > 0.9


def test_sts_scores_agree_with_scipy_on_each_set(shared_data):
    from scipy.stats import spearmanr

    data = sbw.load_sts("stsb", "test", data_dir=shared_data, limit=30)
    rng = np.random.default_rng(0)
    table = {s: rng.normal(size=8) for s in set(data.sentences1 + data.sentences2)}
    embed = lambda sentences: torch.tensor(np.stack([table[s] for s in sentences]))  # noqa: E731
    cosines = [float(table[a] @ table[b] / np.linalg.norm(table[a]) / np.linalg.norm(table[b]))
               for a, b in zip(data.sentences1, data.sentences2)]
    scores = isotropy.sts_scores(embed, {"stsb": data})
    assert scores["stsb"] == pytest.approx(100 * spearmanr(cosines, data.scores).statistic, abs=1e-6)
    assert scores["avg (all)"] == scores["stsb"] == pytest.approx(scores["avg (wmean)"])  # one subset: all = wmean


def test_measure_callback_records_at_the_start_and_every_few_steps(triplets, tmp_path):
    model = tiny_model()
    calls = isotropy.measure_callback(model, {"norm": lambda embed: float(embed(SENTENCES[:3]).norm())}, every=2)
    fit(model, triplets, "simcse", settings(max_steps=3), output_dir=tmp_path, callback=calls)
    assert calls.trajectory["step"] == [0, 2, 3] and len(calls.trajectory["norm"]) == 3
    assert calls.trajectory["norm"][0] != calls.trajectory["norm"][-1]  # training moved the vectors


def test_a_row_encodes_each_sentence_once_and_gives_the_same_vectors():
    table = {s: torch.randn(4, generator=torch.Generator().manual_seed(i)) for i, s in enumerate(SENTENCES)}
    asked = []

    def embed(sentences):
        asked.extend(sentences)
        return torch.stack([table[s] for s in sentences])

    row = isotropy.remembering(embed)
    first = row(SENTENCES[:3] + SENTENCES[:1])
    again = row(SENTENCES[1:4])
    assert torch.equal(first, torch.stack([table[s] for s in SENTENCES[:3] + SENTENCES[:1]]))
    assert torch.equal(again, torch.stack([table[s] for s in SENTENCES[1:4]]))
    assert sorted(asked) == sorted(SENTENCES[:4]), "each distinct sentence reaches the model once"
