"""Each objective checked by hand on tiny vectors and against sentence-transformers' loss on the same embeddings."""
from __future__ import annotations

import math
import types

import numpy as np
import pytest
import torch

from sbert_workbook.data import NliData
from sbert_workbook.training.losses import (ClassifierHead, classification_loss, cosine_regression_loss, matryoshka_loss,
                                           multiple_negatives_ranking_loss,
                                   pair_features, scale_scores, triplet_loss)
from sbert_workbook.training.examples import Examples, duplicates_in_batch, no_duplicate_batches, nli_positive_pairs, nli_triplets

st_losses = pytest.importorskip("sentence_transformers.sentence_transformer.losses")


def t(rows):
    return torch.tensor(rows, dtype=torch.float32)


def random_embeddings(n=8, dim=6, columns=3, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(n, dim, generator=generator) for _ in range(columns)]


# ----------------------------------------------------------------------------- hand computations
def test_pair_features_order_and_values():
    u, v = t([[1.0, -2.0]]), t([[3.0, 1.0]])
    assert pair_features(u, v).tolist() == [[1.0, -2.0, 3.0, 1.0, 2.0, 3.0]]
    assert pair_features(u, v, ("|u-v|", "u*v")).tolist() == [[2.0, 3.0, 3.0, -2.0]]
    with pytest.raises(ValueError, match="u\\+v"):
        pair_features(u, v, ("u+v",))


def test_classification_loss_by_hand():
    head = ClassifierHead(dim=2, num_labels=3)
    with torch.no_grad():  # logits: label 0 reads u_0, label 1 reads |u-v|_1, label 2 is constant 0.5
        head.linear.weight.zero_()
        head.linear.bias.copy_(t([0.0, 0.0, 0.5]))
        head.linear.weight[0, 0] = 1.0
        head.linear.weight[1, 5] = 2.0
    u, v = t([[1.0, 0.0]]), t([[0.0, 1.0]])  # features (1, 0, 0, 1, 1, 1) -> logits (1, 2, 0.5)
    logits = [1.0, 2.0, 0.5]
    expected = -math.log(math.exp(logits[1]) / sum(math.exp(x) for x in logits))
    assert classification_loss(u, v, torch.tensor([1]), head).item() == pytest.approx(expected, rel=1e-6)


def test_cosine_regression_loss_by_hand():
    u, v = t([[1.0, 0.0], [1.0, 0.0]]), t([[1.0, 1.0], [0.0, 2.0]])  # cosines 1/sqrt(2) and 0
    expected = ((1 / math.sqrt(2) - 0.5) ** 2 + (0.0 - 0.2) ** 2) / 2
    assert cosine_regression_loss(u, v, t([0.5, 0.2])).item() == pytest.approx(expected, rel=1e-6)


def test_triplet_loss_by_hand():
    anchor = t([[0.0, 0.0], [0.0, 0.0]])
    positive, negative = t([[3.0, 4.0], [1.0, 0.0]]), t([[6.0, 8.0], [0.0, 1.0]])
    # distances (5, 10): max(5 - 10 + 1, 0) = 0;  (1, 1): max(1 - 1 + 1, 0) = 1
    assert triplet_loss(anchor, positive, negative).item() == pytest.approx(0.5)
    assert triplet_loss(anchor, positive, negative, margin=6.0).item() == pytest.approx((1.0 + 6.0) / 2)


def test_multiple_negatives_ranking_loss_by_hand():
    anchors, positives = t([[1.0, 0.0], [0.0, 1.0]]), t([[1.0, 0.0], [1.0, 1.0]])
    c = 1 / math.sqrt(2)  # cos(a1,p1)=1, cos(a1,p2)=c, cos(a2,p1)=0, cos(a2,p2)=c
    loss1 = -math.log(math.exp(20) / (math.exp(20) + math.exp(20 * c)))
    loss2 = -math.log(math.exp(20 * c) / (math.exp(0) + math.exp(20 * c)))
    assert multiple_negatives_ranking_loss(anchors, positives).item() == pytest.approx((loss1 + loss2) / 2, rel=1e-5)


def test_hard_negatives_enter_the_denominator():
    anchors, positives, negatives = t([[1.0, 0.0]]), t([[1.0, 0.0]]), t([[0.0, 1.0]])
    expected = -math.log(math.exp(2) / (math.exp(2) + math.exp(0)))  # scale 2: cosines 1 and 0 become logits 2 and 0
    assert multiple_negatives_ranking_loss(anchors, positives, negatives, scale=2.0).item() == pytest.approx(expected, rel=1e-6)
    assert multiple_negatives_ranking_loss(anchors, positives, scale=2.0).item() == pytest.approx(0.0, abs=1e-7)


def test_scale_scores_maps_the_range_to_unit_interval():
    assert scale_scores([0.0, 2.5, 5.0], 0, 5).tolist() == [0.0, 0.5, 1.0]
    assert scale_scores([1.0, 5.0], 1, 5).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="empty"):
        scale_scores([1.0], 5, 5)


# ----------------------------------------------------------------------------- sentence-transformers on identical embeddings
@pytest.mark.parametrize("parts", [("u", "v", "|u-v|"), ("u", "v", "|u-v|", "u*v")])
def test_classification_matches_sentence_transformers(monkeypatch, parts):
    import sentence_transformers.sentence_transformer.losses.softmax as st_softmax

    u, v, _ = random_embeddings()
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 2, 1])
    ours = ClassifierHead(6, 3, parts)
    theirs = st_softmax.SoftmaxLoss(types.SimpleNamespace(device=torch.device("cpu")), 6, 3,
                                    concatenation_sent_multiplication="u*v" in parts)
    theirs.classifier.load_state_dict(ours.linear.state_dict())
    monkeypatch.setattr(st_softmax, "embed_columns", lambda model, features: [u, v])
    assert classification_loss(u, v, labels, ours).item() == pytest.approx(theirs([{}, {}], labels).item(), rel=1e-6)


def test_regression_matches_sentence_transformers():
    u, v, _ = random_embeddings()
    gold = torch.linspace(0, 1, 8)
    theirs = st_losses.CosineSimilarityLoss(model=None).compute_loss_from_embeddings([u, v], gold)
    assert cosine_regression_loss(u, v, gold).item() == pytest.approx(theirs.item(), rel=1e-6)


@pytest.mark.parametrize("margin", [1.0, 5.0])
def test_triplet_matches_sentence_transformers(margin):
    a, p, n = random_embeddings()
    theirs = st_losses.TripletLoss(model=None, triplet_margin=margin).compute_loss_from_embeddings([a, p, n], None)
    assert triplet_loss(a, p, n, margin=margin).item() == pytest.approx(theirs.item(), rel=1e-6)
    assert theirs.item() > 0  # the random triplets do violate the margin: the comparison is not 0 == 0


@pytest.mark.parametrize("with_negatives", [False, True])
def test_ranking_matches_sentence_transformers(with_negatives):
    a, p, n = random_embeddings()
    columns = [a, p, n] if with_negatives else [a, p]
    theirs = st_losses.MultipleNegativesRankingLoss(model=None, scale=20.0).compute_loss_from_embeddings(columns, None)
    ours = multiple_negatives_ranking_loss(a, p, n if with_negatives else None, scale=20.0)
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-5)


@pytest.mark.parametrize("weights", [None, (1.0, 0.5, 2.0)])
def test_matryoshka_matches_sentence_transformers(weights):
    """Their MatryoshkaLoss wraps their MNRL and cuts the model's output; a model that returns fixed vectors lets both
    see the very same embeddings."""
    class FixedVectors(torch.nn.Module):
        def forward(self, features):
            return {"sentence_embedding": features["vectors"].clone()}

        def get_embedding_dimension(self):
            return 6

        _get_untruncated_embedding_dimension = get_embedding_dimension  # what newer versions ask

    columns, model = random_embeddings(), FixedVectors()
    theirs = st_losses.MatryoshkaLoss(model, st_losses.MultipleNegativesRankingLoss(model, scale=20.0), [6, 4, 2],
                                      list(weights) if weights else None)([{"vectors": c} for c in columns], None)
    assert matryoshka_loss(columns, [6, 4, 2], weights=weights).item() == pytest.approx(theirs.item(), rel=1e-5)


def test_matryoshka_is_the_sum_of_the_prefixes_losses_by_hand():
    a, p = t([[1.0, 0.0, 3.0]]), t([[1.0, 0.0, -3.0]])  # alike in the first two dimensions, opposite in the third
    two = multiple_negatives_ranking_loss(t([[1.0, 0.0], [0.0, 1.0]]), t([[1.0, 0.0], [0.0, 1.0]]))
    columns = [torch.cat([a, t([[0.0, 1.0, 0.0]])]), torch.cat([p, t([[0.0, 1.0, 0.0]])])]
    assert matryoshka_loss(columns, [2]).item() == pytest.approx(two.item(), rel=1e-6)
    full = multiple_negatives_ranking_loss(*columns)
    assert matryoshka_loss(columns, [3, 2]).item() == pytest.approx(full.item() + two.item(), rel=1e-6)
    assert full.item() > two.item()  # the third dimension pulls the pair apart: only the prefix sees them alike
    with pytest.raises(ValueError, match="between 1 and the vectors' width 3"):
        matryoshka_loss(columns, [4])
    with pytest.raises(ValueError, match="one weight per dimension"):
        matryoshka_loss(columns, [3, 2], weights=[1.0])


def test_matryoshka_nests_powers_of_two_down_to_32():
    from sbert_workbook.training.fitting import TrainingConfig
    from sbert_workbook.training.objectives import matryoshka_dimensions

    assert matryoshka_dimensions(384, TrainingConfig()) == (384, 256, 128, 64, 32)
    assert matryoshka_dimensions(768, TrainingConfig()) == (768, 512, 256, 128, 64, 32)
    assert matryoshka_dimensions(384, TrainingConfig(matryoshka_dimensions=(384, 48))) == (384, 48)


def test_gradients_reach_embeddings_and_classifier():
    u, v, _ = (x.requires_grad_() for x in random_embeddings())
    head = ClassifierHead(6, 3)
    classification_loss(u, v, torch.zeros(8, dtype=torch.long), head).backward()
    assert u.grad.abs().sum() > 0 and v.grad.abs().sum() > 0 and head.linear.weight.grad.abs().sum() > 0


# ----------------------------------------------------------------------------- NLI examples and batches
NLI = NliData("toy", "dev", ["p1", "p1", "p1", "p2", "p2", "p3"], ["e1", "n1", "c1", "e2", "n2", "c3"],
              ["entailment", "neutral", "contradiction", "entailment", "neutral", "contradiction"])


def test_triplets_pair_each_premise_with_its_entailment_and_contradiction():
    triplets = nli_triplets(NLI)
    assert triplets.columns == {"anchor": ["p1"], "positive": ["e1"], "negative": ["c1"]}
    assert nli_positive_pairs(NLI).columns == {"anchor": ["p1", "p2"], "positive": ["e1", "e2"]}


def test_no_duplicate_batches_cover_everything_once_without_repeats():
    rng = np.random.default_rng(1)
    anchors = [f"premise {i}" for i in rng.integers(0, 15, size=60)]  # many repeated premises
    examples = Examples({"anchor": anchors, "positive": [f"hyp {i}" for i in range(60)]}, None, "toy")
    plain = [list(range(s, min(s + 8, 60))) for s in range(0, 60, 8)]
    assert sum(duplicates_in_batch(examples, b) for b in plain) > 0  # the naive batching does repeat sentences
    batches = no_duplicate_batches(examples, 8, seed=0)
    assert sorted(i for b in batches for i in b) == list(range(60))
    assert all(len(b) <= 8 and duplicates_in_batch(examples, b) == 0 for b in batches)
    assert batches == no_duplicate_batches(examples, 8, seed=0) != no_duplicate_batches(examples, 8, seed=1)
