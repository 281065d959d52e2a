"""Similarities and the array/tensor coercion against scipy, sklearn and hand-made cases."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy.spatial.distance import cdist, pdist
from sklearn.metrics.pairwise import cosine_similarity as sklearn_cosine

from sbert_workbook.evaluation.arrays import as_array, as_tensor
from sbert_workbook.evaluation.similarity import (SIMILARITIES, all_pair_cosines, cosine_matrix, cosine_similarity,
                                                  dot_similarity, mean_cosine, negative_euclidean, negative_manhattan)


@pytest.fixture
def pairs():
    rng = np.random.default_rng(0)
    return rng.normal(size=(20, 7)), rng.normal(size=(20, 7))


# ----------------------------------------------------------------------------- row by row
def test_similarities_by_hand():
    u, v = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[0.0, 2.0], [2.0, 2.0]])
    assert np.allclose(cosine_similarity(u, v), [0.0, 1.0])
    assert np.allclose(negative_euclidean(u, v), [-np.sqrt(5), -np.sqrt(2)])
    assert np.allclose(negative_manhattan(u, v), [-3.0, -2.0])


def test_row_by_row_similarities_match_scipy_and_sklearn(pairs):
    u, v = pairs
    np.testing.assert_allclose(cosine_similarity(u, v), np.diag(sklearn_cosine(u, v)), atol=1e-12)
    np.testing.assert_allclose(cosine_similarity(u, v), 1 - np.diag(cdist(u, v, "cosine")), atol=1e-12)
    np.testing.assert_allclose(dot_similarity(u, v), np.einsum("ij,ij->i", u, v), atol=1e-12)
    np.testing.assert_allclose(negative_euclidean(u, v), -np.diag(cdist(u, v, "euclidean")), atol=1e-12)
    np.testing.assert_allclose(negative_manhattan(u, v), -np.diag(cdist(u, v, "cityblock")), atol=1e-12)


def test_similarities_accept_tensors_and_are_named_as_in_metric_keys(pairs):
    u, v = pairs
    for name, similarity in SIMILARITIES.items():
        from_tensors = similarity(torch.tensor(u, dtype=torch.float32, requires_grad=True), torch.tensor(v, dtype=torch.float32))
        np.testing.assert_allclose(from_tensors, similarity(u, v), atol=1e-5, err_msg=name)
    assert list(SIMILARITIES) == ["cosine", "dot", "euclidean", "manhattan"]


# ----------------------------------------------------------------------------- matrices and all pairs
def test_cosine_helpers_match_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 8)), rng.normal(size=(3, 8))
    np.testing.assert_allclose(cosine_matrix(a, b), 1 - cdist(a, b, "cosine"), atol=1e-12)
    np.testing.assert_allclose(all_pair_cosines(a), 1 - pdist(a, "cosine"), atol=1e-12)


def test_cosine_matrix_of_tensors_matches_sklearn_and_keeps_gradients():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(6, 4)), rng.normal(size=(9, 4))
    a_tensor = torch.tensor(a, requires_grad=True)
    scores = cosine_matrix(a_tensor, torch.tensor(b))
    assert isinstance(scores, torch.Tensor) and scores.shape == (6, 9)
    np.testing.assert_allclose(scores.detach().numpy(), sklearn_cosine(a, b), atol=1e-12)
    scores.sum().backward()
    assert a_tensor.grad is not None and torch.isfinite(a_tensor.grad).all()


def test_zero_rows_have_cosine_zero_instead_of_nan():
    assert np.allclose(cosine_matrix(np.zeros((1, 3)), np.ones((2, 3))), 0)
    assert np.allclose(cosine_similarity(np.zeros((1, 3)), np.ones((1, 3))), 0)


def test_mean_cosine_equals_brute_force_over_all_distinct_pairs():
    x = np.random.default_rng(0).normal(size=(40, 6)) + 0.5
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cos = unit @ unit.T
    brute = cos[~np.eye(len(x), dtype=bool)].mean()
    assert mean_cosine(x) == pytest.approx(brute, abs=1e-12)
    assert mean_cosine(x) == pytest.approx(np.mean(1 - pdist(x, "cosine")), abs=1e-12)


def test_mean_cosine_by_hand():
    vectors = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert mean_cosine(vectors) == pytest.approx((0 + 2 / math.sqrt(2)) / 3)
    with pytest.raises(ValueError, match="at least 2"):
        mean_cosine(vectors[:1])


def test_matrix_of_one_vector_is_rejected_with_a_clear_message():
    with pytest.raises(ValueError, match="at least 2 vectors"):
        mean_cosine(np.ones((1, 3)))


# ----------------------------------------------------------------------------- coercion (arrays.py)
def test_as_array_detaches_tensors_and_gives_float64():
    array = as_array(torch.full((2, 3), 0.5, dtype=torch.float16))
    assert isinstance(array, np.ndarray) and array.dtype == np.float64 and np.allclose(array, 0.5)
    assert as_array([[1, 2], [3, 4]]).dtype == np.float64
    assert np.allclose(as_array(torch.ones(2, 2, requires_grad=True)), 1)


def test_as_tensor_gives_a_detached_matrix_of_the_dtype_asked_for():
    source = torch.ones(3, 2, requires_grad=True)
    x = as_tensor(source)
    assert x.dtype == torch.float64 and not x.requires_grad and x.device.type == "cpu"
    assert as_tensor(np.ones((1, 4), dtype=np.float32), torch.float32).dtype == torch.float32
    with pytest.raises(ValueError, match=r"at least 1 vector, shape \(n, dim\); got shape \(4,\)"):
        as_tensor(np.ones(4))
    with pytest.raises(ValueError, match="at least 2 vectors"):
        as_tensor(np.ones((1, 4)), min_rows=2)


def test_as_tensor_rejects_nan_only_when_asked():
    bad = np.array([[1.0, np.nan], [0.0, 1.0]])
    assert torch.isnan(as_tensor(bad)).any()
    with pytest.raises(ValueError, match="NaN or infinite"):
        as_tensor(bad, finite=True)
