"""Encode once, pool many ways: the views equal Encoder.encode, come from one pass per batch, and back off on OOM."""
from __future__ import annotations

import pytest
import torch

from sbert_workbook.encoding.pooling import POOLINGS
from sbert_workbook.encoding.views import encode_views, layer_vectors

SENTENCES = ["A man is playing a guitar.", "Dogs run.", "The weather today is sunny and warm in the city centre.",
             "Dogs run.", "", "x", "Nobody came to the party, which was sad, so we went home early."]


def _counting_forward(monkeypatch, encoder, fits: int | None = None) -> list[int]:
    """Count the model's forward passes (their batch sizes); with ``fits``, larger batches raise CUDA OOM."""
    model_class = type(encoder.model)
    real, sizes = model_class.forward, []

    def forward(self, *args, **kwargs):
        sizes.append(len(kwargs["input_ids"]))
        if fits is not None and sizes[-1] > fits:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(model_class, "forward", forward)
    return sizes


def test_every_view_equals_encoder_encode_in_input_order_with_duplicates(encoder):
    views = encode_views(encoder, SENTENCES, POOLINGS, batch_size=3)
    assert list(views) == list(POOLINGS)
    for pooling, vectors in views.items():
        assert vectors.shape == (len(SENTENCES), encoder.hidden_size) and vectors.dtype == torch.float32
        torch.testing.assert_close(vectors, encoder.encode(SENTENCES, pooling=pooling, batch_size=3), atol=1e-6, rtol=0)
    torch.testing.assert_close(views["mean"][1], views["mean"][3], atol=0, rtol=0)


def test_views_match_pooling_by_hand_one_sentence_at_a_time(encoder):
    sentences = SENTENCES[:3]
    views = encode_views(encoder, sentences, ("cls", "mean", "max", "static"), batch_size=2)
    for i, sentence in enumerate(sentences):
        states, _ = encoder.hidden_states([sentence])  # a batch of one: no padding at all
        expected = {"cls": states[-1][0, 0], "mean": states[-1][0].mean(0), "max": states[-1][0].max(0).values,
                    "static": states[0][0].mean(0)}
        for pooling, vector in expected.items():
            torch.testing.assert_close(views[pooling][i], vector, atol=1e-5, rtol=0, msg=f"{pooling}, sentence {i}")


def test_all_poolings_share_one_forward_pass_per_batch(encoder, monkeypatch):
    sizes = _counting_forward(monkeypatch, encoder)
    encode_views(encoder, SENTENCES, POOLINGS, batch_size=4)
    assert sizes == [4, 2]  # 6 distinct sentences, longest first; the duplicate is encoded once


def test_each_batch_keeps_only_its_pooled_rows_not_the_hidden_states(encoder, monkeypatch):
    """Until the last batch, every batch's views wait in a list: a `cls` view of the last hidden state would keep all
    (batch × tokens × dim) of it alive, over every batch (05 §1 encodes 20,000 sentences this way)."""
    from sbert_workbook.encoding import encoder as encoder_module

    kept, gather = [], encoder_module._in_input_order
    monkeypatch.setattr(encoder_module, "_in_input_order", lambda per_batch, *rest: kept.extend(per_batch) or gather(per_batch, *rest))
    encode_views(encoder, ["A man is playing a guitar on the stage tonight.", "Short one.", "Another sentence here."],
                 ["cls", "mean", "first_last_avg"], batch_size=2)
    assert kept and all(t.untyped_storage().nbytes() == t.numel() * t.element_size() for t in kept)


def test_out_of_memory_halves_the_batch_and_gives_the_same_views(encoder, monkeypatch):
    sentences = [f"Sentence number {i} is about {'cats' if i % 2 else 'dogs'}." for i in range(10)]
    direct = encode_views(encoder, sentences, ("mean", "cls"), batch_size=8)
    sizes = _counting_forward(monkeypatch, encoder, fits=3)
    with pytest.warns(UserWarning) as caught:
        backed_off = encode_views(encoder, sentences, ("mean", "cls"), batch_size=8)
    assert [str(w.message).split(":")[0] for w in caught] == ["CUDA ran out of memory with batch_size=8",
                                                              "CUDA ran out of memory with batch_size=4"]
    assert sizes == [8, 4, 2, 2, 2, 2, 2]
    for pooling in ("mean", "cls"):
        torch.testing.assert_close(backed_off[pooling], direct[pooling], atol=1e-5, rtol=0)
    with pytest.warns(UserWarning) as caught:
        layers = layer_vectors(encoder, sentences, ("mean", "tokens"), batch_size=8)
    assert len(caught) == 2 and sizes[7:] == [8, 4, 2, 2, 2, 2, 2]
    torch.testing.assert_close(layers["mean"][-1], direct["mean"], atol=1e-5, rtol=0)


def test_layer_vectors_per_hidden_state(encoder):
    vectors = layer_vectors(encoder, SENTENCES, ("mean", "cls", "tokens"), batch_size=3)
    layers = encoder.num_hidden_states
    assert vectors["mean"].shape == vectors["cls"].shape == (layers, len(SENTENCES), encoder.hidden_size)
    same_batches = {"sentences": SENTENCES, "batch_size": 3}
    for got, how in ((vectors["mean"][-1], {"pooling": "mean"}), (vectors["mean"][0], {"pooling": "static"}),
                     (vectors["cls"][-1], {"pooling": "cls"}), (vectors["mean"][2], {"layers": [2]})):
        torch.testing.assert_close(got, encoder.encode(**same_batches, **how), atol=1e-6, rtol=0, msg=str(how))
    inner = encoder.tokenizer(SENTENCES, add_special_tokens=False)["input_ids"]
    assert [t.shape for t in vectors["tokens"]] == [(layers, len(ids), encoder.hidden_size) for ids in inner]
    states, _ = encoder.hidden_states([SENTENCES[0]])
    torch.testing.assert_close(vectors["tokens"][0], torch.stack([h[0, 1:-1] for h in states]), atol=1e-5, rtol=0)


def test_chosen_tokens_are_the_columns_of_every_token_concatenated(encoder):
    """choose_tokens keeps only some tokens during the pass; the result is what keeping them all, concatenating them
    in input order and indexing did (a repeated sentence, a truncated one and an unsorted choice included)."""
    sentences = ["A man plays a guitar on the street corner.", "Dogs run.", "A man plays a guitar on the street corner.",
                 "The weather today is sunny and warm in the city centre, say the forecasters.", "Hi."]
    every = layer_vectors(encoder, sentences, ("mean", "tokens"), batch_size=2, max_length=12)
    concatenated = torch.cat(every["tokens"], dim=1)
    totals = []

    def choose(total):
        totals.append(total)
        return [total - 1, 0, 7, 3, 8, 21, 22]

    chosen = layer_vectors(encoder, sentences, ("mean", "tokens"), batch_size=2, max_length=12, choose_tokens=choose)
    assert totals == [concatenated.shape[1]]
    assert torch.equal(chosen["tokens"], concatenated[:, [totals[0] - 1, 0, 7, 3, 8, 21, 22]])
    assert torch.equal(chosen["mean"], every["mean"])
    assert layer_vectors(encoder, sentences, ("tokens",), choose_tokens=lambda total: [])["tokens"].shape == (
        encoder.num_hidden_states, 0, encoder.hidden_size)


def test_a_token_count_the_pass_disagrees_with_is_refused(encoder, monkeypatch):
    from sbert_workbook.encoding import views

    planned = views._TokenPlan.__init__

    def off_by_one(self, *args):  # as if the pass padded or truncated differently from what the plan read
        planned(self, *args)
        self.inner = [count + 1 for count in self.inner]

    monkeypatch.setattr(views._TokenPlan, "__init__", off_by_one)
    with pytest.raises(RuntimeError, match="token counts differ"):
        layer_vectors(encoder, ["Dogs run."], ("tokens",), choose_tokens=lambda total: [0])


def test_unknown_names_say_what_to_choose(encoder):
    with pytest.raises(ValueError, match="Unknown poolings \\['avg'\\]; choose from cls, mean, max"):
        encode_views(encoder, SENTENCES, ["mean", "avg"])
    with pytest.raises(ValueError, match="No pooling was named"):
        encode_views(encoder, SENTENCES, [])
    with pytest.raises(ValueError, match="Unknown layer vector kinds \\['max'\\]; choose from mean, cls, tokens"):
        layer_vectors(encoder, SENTENCES, ["max"])
