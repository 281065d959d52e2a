"""The linear algebra every fix shares (evaluation/geometry.py) against NumPy and scikit-learn on made-up clouds."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.decomposition import PCA

from sbert_workbook.evaluation import geometry


@pytest.fixture(scope="module")
def cloud():
    generator = np.random.default_rng(0)
    x = generator.normal(size=(400, 7)) * np.linspace(3, 0.2, 7) @ generator.normal(size=(7, 7))
    return x + 4 * generator.normal(size=7)


def same_axes(a, b, atol=1e-8):
    """Columns equal up to the sign of each."""
    return np.allclose(np.abs((np.asarray(a) * np.asarray(b)).sum(axis=0)), 1.0, atol=atol)


def test_covariance_axes_are_the_eigenvalues_and_eigenvectors_of_the_maximum_likelihood_covariance(cloud):
    mean, eigenvalues, axes = geometry.covariance_axes(cloud)
    covariance = np.cov(cloud, rowvar=False, bias=True)
    np.testing.assert_allclose(mean.numpy(), cloud.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(eigenvalues.numpy(), np.linalg.eigvalsh(covariance)[::-1], rtol=1e-10)
    np.testing.assert_allclose((axes * eigenvalues) @ axes.T, covariance, atol=1e-10)
    assert same_axes(axes.numpy(), PCA().fit(cloud).components_.T)


def test_the_svd_route_gives_the_same_axes_and_only_as_many_as_there_are_rows(cloud):
    mean, eigenvalues, axes = geometry.covariance_axes(cloud, method="svd")
    _, by_eigh, eigh_axes = geometry.covariance_axes(cloud)
    np.testing.assert_allclose(eigenvalues.numpy(), by_eigh.numpy(), rtol=1e-10)
    assert same_axes(axes.numpy(), eigh_axes.numpy())
    _, few, few_axes = geometry.covariance_axes(cloud[:5], method="svd")
    assert few.shape == (5,) and few_axes.shape == (7, 5)


def test_a_chunked_scatter_reads_float32_rows_in_pieces_and_gives_the_whole_fit():
    vectors = (np.random.default_rng(3).normal(size=(1001, 5)) * [5.0, 3.0, 2.0, 1.0, 0.5] + 4.0).astype(np.float32)
    mean, eigenvalues, axes = geometry.covariance_axes(vectors, chunk=100)  # ten full chunks and a last row alone
    whole = vectors.astype(np.float64)
    np.testing.assert_allclose(mean.numpy(), whole.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(eigenvalues.numpy(), np.linalg.eigvalsh(np.cov(whole, rowvar=False, bias=True))[::-1],
                               rtol=1e-10)
    assert same_axes(axes.numpy(), np.linalg.svd(whole - whole.mean(axis=0), full_matrices=False)[2].T)


def test_the_whitening_kernel_gives_identity_covariance_on_the_top_k_axes(cloud):
    mean, eigenvalues, axes = geometry.covariance_axes(cloud)
    for k in (7, 3):
        white = ((torch.as_tensor(cloud) - mean) @ geometry.whitening_kernel(eigenvalues, axes, k)).numpy()
        np.testing.assert_allclose(np.cov(white, rowvar=False, bias=True), np.eye(k), atol=1e-10)
    with pytest.raises(ValueError, match="between 1 and the number of axes 7"):
        geometry.whitening_kernel(eigenvalues, axes, 8)


def test_singular_directions_and_values_are_numpys_svd(cloud):
    _, singular, vh = np.linalg.svd(cloud, full_matrices=False)
    directions = geometry.singular_directions(cloud, 3)
    assert directions.shape == (7, 3) and same_axes(directions.numpy(), vh[:3].T)
    np.testing.assert_allclose(geometry.singular_values(cloud, centre=False).numpy(), singular, rtol=1e-10)
    centred = cloud - cloud.mean(axis=0)
    assert same_axes(geometry.singular_directions(cloud, 2, centre=True).numpy(), PCA(2).fit(cloud).components_.T)
    np.testing.assert_allclose(geometry.singular_values(cloud).numpy(), np.linalg.svd(centred, compute_uv=False),
                               rtol=1e-10)


def test_supported_dimensions_leave_out_a_direction_without_variance_and_stop_at_half_the_rows():
    rng = np.random.default_rng(1)
    flat = np.hstack([rng.normal(size=(60, 4)), np.full((60, 1), 2.0)])  # the last coordinate never varies
    assert geometry.supported_dimensions(flat) == 4
    assert geometry.supported_dimensions(rng.normal(size=(9, 5))) == 4  # 9 < 2·5 rows: at most 9 // 2
    assert geometry.supported_dimensions(rng.normal(size=(10, 5))) == 5


def test_an_unknown_method_says_which_exist(cloud):
    with pytest.raises(ValueError, match="'eigh' or 'svd'"):
        geometry.covariance_axes(cloud, method="qr")
    with pytest.raises(ValueError, match="'eigh' or 'svd'"):
        geometry.covariance_axes(cloud, method="svd", chunk=10)
