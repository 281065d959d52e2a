"""The one projection behind the 2-D/3-D pictures, against sklearn's PCA and cases with known answers."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.decomposition import PCA

from sbert_workbook.evaluation.geometry import singular_directions
from sbert_workbook.evaluation.projection import PROJECTIONS, project, signed_rows


def test_svd_projection_keeps_the_cone_on_one_side_of_the_origin():
    x = np.random.default_rng(8).normal(size=(200, 10)) + 3
    points = project(x, "svd")
    assert points.shape == (200, 3)
    assert (np.abs(points[:, 0]) > 0).all() and len(set(np.sign(points[:, 0]))) == 1


def test_pca_projection_matches_sklearn_up_to_sign():
    x = np.random.default_rng(9).normal(size=(100, 6)) @ np.diag([4, 3, 2, 1, 1, 1])
    expected = PCA(n_components=3).fit_transform(x)
    assert np.allclose(np.abs(project(x, "pca")), np.abs(expected), atol=1e-8)


def test_two_dimensional_pca_of_an_anisotropic_cloud_matches_sklearn():
    generator = np.random.default_rng(0)
    x = generator.normal(size=(600, 12)) * np.linspace(4, 0.1, 12) @ generator.normal(size=(12, 12))
    x = x + 5 * generator.normal(size=12)
    np.testing.assert_allclose(np.abs(project(x, "pca", n_components=2)), np.abs(PCA(2).fit_transform(x)), atol=1e-8)


def test_keep_origin_puts_the_uncentred_points_on_the_centred_axes():
    x = np.random.default_rng(11).normal(size=(80, 5)) * [3, 2, 1, 1, 1] + 4
    pca = PCA(2).fit(x)
    kept = project(x, "pca", n_components=2, keep_origin=True)
    np.testing.assert_allclose(np.abs(kept), np.abs(x @ pca.components_.T), atol=1e-8)
    np.testing.assert_allclose(kept - project(x, "pca", n_components=2), np.tile(kept.mean(0), (80, 1)), atol=1e-8)
    assert np.abs(kept.mean(0)).max() > 1  # the cloud's offset from 0 is still visible


def test_the_sign_of_each_axis_is_fixed_so_mirrored_data_gives_mirrored_points():
    x = torch.tensor(np.random.default_rng(12).normal(size=(50, 4)))
    axes = signed_rows(singular_directions(x, 3, centre=True))
    assert axes.shape == (3, 4)
    assert (axes.gather(1, axes.abs().argmax(dim=1, keepdim=True)) > 0).all()
    np.testing.assert_allclose(project(-x, "pca"), -project(x, "pca"), atol=1e-8)


def test_umap_projection_gives_finite_coordinates():
    points = project(np.random.default_rng(10).normal(size=(40, 5)), "umap", seed=0)
    assert points.shape == (40, 3) and np.isfinite(points).all()


def test_bad_requests_name_what_to_do():
    with pytest.raises(ValueError, match="svd, pca, umap"):
        project(np.eye(4), "tsne")
    with pytest.raises(ValueError, match="at most 4 components"):
        project(np.eye(4), "pca", n_components=5)
    with pytest.raises(ValueError, match="at least 2 vectors"):
        project(np.ones((1, 4)), "svd")
    with pytest.raises(ValueError, match="keep_origin"):
        project(np.eye(4), "umap", keep_origin=True)
    assert list(PROJECTIONS) == ["svd", "pca", "umap"]
