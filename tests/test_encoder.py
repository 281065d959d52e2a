"""Our encoder against sentence-transformers' encode on the same model, and the headline figure."""
from __future__ import annotations

import pytest
import torch

from sbert_workbook import load_sts
from sbert_workbook.evaluation.sts import evaluate_sts

LONG_SENTENCE = " ".join(["the workbook explains why raw embeddings fail"] * 60)
#: Both backends must give sentence-transformers' vectors and the published figure.
BACKEND_ENCODERS = ["encoder", "onnx_encoder"]


@pytest.fixture(scope="module")
def sentences(shared_data):
    stsb = load_sts("stsb", "test")
    return stsb.sentences1[:150] + stsb.sentences2[:150] + [LONG_SENTENCE, "Short.", "", "東京は日本の首都です 🙂"]


@pytest.mark.filterwarnings("ignore:1 of .* sentences are longer:UserWarning")  # LONG_SENTENCE, on purpose
@pytest.mark.parametrize("backend_encoder", BACKEND_ENCODERS)
def test_mean_pooling_equals_sentence_transformers_encode(backend_encoder, st_model, sentences, request):
    ours = request.getfixturevalue(backend_encoder).encode(sentences, pooling="mean", batch_size=32, normalize=True)
    theirs = st_model.encode(sentences, batch_size=32, convert_to_tensor=True, normalize_embeddings=True).cpu()
    assert ours.shape == theirs.shape == (len(sentences), 384)
    assert (ours - theirs).abs().max().item() <= 1e-5


@pytest.mark.filterwarnings("ignore:1 of .* sentences are longer:UserWarning")
def test_batch_size_and_order_do_not_change_embeddings(encoder, sentences):
    subset = sentences[:40] + [LONG_SENTENCE]
    reference = encoder.encode(subset, batch_size=7)
    assert torch.allclose(reference, encoder.encode(subset, batch_size=64), atol=1e-5)
    reversed_ = encoder.encode(subset[::-1], batch_size=7)
    assert torch.allclose(reference, reversed_.flip(0), atol=1e-5)


@pytest.mark.filterwarnings("ignore:1 of .* sentences are longer:UserWarning")
def test_batching_in_input_order_gives_the_same_vectors_as_smart_batching(encoder, sentences):
    subset = sentences[:40] + [LONG_SENTENCE] + sentences[:3]  # mixed lengths, and repeats
    smart = encoder.encode(subset, batch_size=8)
    unsorted = encoder.encode(subset, batch_size=8, sort_by_length=False)
    assert torch.allclose(smart, unsorted, atol=1e-5)


def test_each_pooling_matches_the_hidden_states(encoder):
    batch = ["A man plays a guitar.", "Two dogs run through a field of tall grass."]
    states, mask = encoder.hidden_states(batch)
    assert len(states) == encoder.num_hidden_states == 7
    lengths = mask.sum(1)
    last = states[-1]
    expected = {
        "cls": last[:, 0],
        "mean": torch.stack([last[i, :lengths[i]].mean(0) for i in range(2)]),
        "max": torch.stack([last[i, :lengths[i]].max(0).values for i in range(2)]),
        "static": torch.stack([states[0][i, :lengths[i]].mean(0) for i in range(2)]),
        "first_last_avg": torch.stack([(states[1][i, :lengths[i]].mean(0) + last[i, :lengths[i]].mean(0)) / 2 for i in range(2)]),
        "last2_avg": torch.stack([(states[-2][i, :lengths[i]].mean(0) + last[i, :lengths[i]].mean(0)) / 2 for i in range(2)]),
    }
    for pooling, vectors in expected.items():
        assert torch.allclose(encoder.encode(batch, pooling=pooling), vectors, atol=1e-5), pooling
    assert torch.allclose(encoder.encode(batch, layers=[2, 4]),
                          (encoder.encode(batch, layers=[2]) + encoder.encode(batch, layers=[4])) / 2, atol=1e-5)


def test_word_embeddings_pooling_is_the_mean_of_embedding_matrix_rows_and_static_adds_positions(encoder):
    """word_embeddings averages rows W[x_t] of the input matrix ([CLS]/[SEP] included); static is
    hidden_states[0] = LayerNorm(W[x_t] + P[t] + T[0]), by hand from the model's own matrices."""
    batch = ["A man plays a guitar.", "Two dogs run through a field of tall grass."]
    embeddings = encoder.model.embeddings
    W, P, T = (m.weight.detach() for m in (embeddings.word_embeddings, embeddings.position_embeddings,
                                           embeddings.token_type_embeddings))
    ids = [torch.tensor(i) for i in encoder.tokenizer(batch)["input_ids"]]
    by_hand = torch.stack([W[i].mean(0) for i in ids])
    assert torch.allclose(encoder.encode(batch, pooling="word_embeddings"), by_hand, atol=1e-6)
    norm = embeddings.LayerNorm
    layer0 = [torch.nn.functional.layer_norm(W[i] + P[:len(i)] + T[0], norm.normalized_shape, norm.weight, norm.bias,
                                             norm.eps) for i in ids]
    torch.testing.assert_close(encoder.encode(batch, pooling="static"), torch.stack([h.mean(0) for h in layer0]),
                               atol=1e-5, rtol=0)


@pytest.mark.parametrize("backend_encoder", BACKEND_ENCODERS)
def test_long_sentences_are_truncated_like_sentence_transformers_with_a_warning(backend_encoder, st_model, request):
    encoder = request.getfixturevalue(backend_encoder)
    with pytest.warns(UserWarning, match="1 of 2 sentences are longer than max_length=256"):
        ours = encoder.encode([LONG_SENTENCE, "Short."], normalize=True)
    theirs = st_model.encode([LONG_SENTENCE, "Short."], convert_to_tensor=True, normalize_embeddings=True).cpu()
    assert (ours - theirs).abs().max().item() <= 1e-5


@pytest.mark.parametrize("backend_encoder", BACKEND_ENCODERS)
def test_acceptance_figure_all_minilm_stsb_test_spearman(backend_encoder, shared_data, request):
    """Published: all-MiniLM-L6-v2, mean pooling, cosine, STS-B test: Spearman x 100 = 82.03 (±0.05)."""
    table = evaluate_sts(request.getfixturevalue(backend_encoder), ["stsb"], pooling="mean")
    assert table.loc["stsb", "spearman"] == pytest.approx(82.03, abs=0.05)
    assert table.loc["stsb", "pairs"] == 1379


def test_batches_go_back_to_input_order_one_at_a_time():
    """_in_input_order writes each batch into place and lets it go: the result is what concatenating every batch and
    indexing gave, with repeated sentences (rows pointing twice at one vector) and without."""
    from sbert_workbook.encoding.encoder import _in_input_order

    batches = [torch.arange(6.0).reshape(3, 2), torch.arange(6.0, 10.0).reshape(2, 2)]
    order = [4, 0, 2, 1, 3]  # the distinct sentences as batched (longest first)
    expected = torch.empty(5, 2)
    expected[order] = torch.cat(batches)
    for rows in ([0, 1, 2, 3, 4], [3, 0, 3, 4, 1, 2]):
        per_batch = [batch.clone() for batch in batches]
        assert torch.equal(_in_input_order(per_batch, order, rows), expected[rows])
        assert per_batch == [], "every batch was let go once written"
    assert _in_input_order([["a", "b"], ["c"]], [2, 0, 1], [0, 1, 2, 1]) == ["b", "c", "a", "c"]
