"""Embeddings projected to 2-D or 3-D for pictures (``02_anisotropy.ipynb``).

One function, :func:`project`, draws the clouds of ``02_anisotropy.ipynb``, the before/after
panels of ``05_bert_flow.ipynb`` and the classroom's embedding explorer.
"""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.evaluation.arrays import as_tensor
from sbert_workbook.evaluation.geometry import singular_directions

PROJECTIONS = {
    "svd": "uncentred PCA: top singular directions, origin kept (shows the cone)",
    "pca": "PCA: centred, the cone's common direction removed",
    "umap": "UMAP: neighbourhoods, not distances to the origin",
}


def project(embeddings, method: str = "svd", n_components: int = 3, seed: int = 0, keep_origin: bool = False) -> np.ndarray:
    """Coordinates of each row in ``n_components`` dimensions by one of :data:`PROJECTIONS`.

    'svd' keeps the origin at 0, so a cone stays a cone; 'pca' centres first; 'umap'
    (umap-learn; its first call compiles with numba: ~30-50 s on 2 busy CPU cores) keeps neighbourhoods.
    ``keep_origin`` (for 'pca') puts the points *as they are*, not centred, on the centred
    principal axes, so a cloud far from 0 stays far from the origin (``05_bert_flow.ipynb``).
    """
    x = as_tensor(embeddings, min_rows=2)
    if method in ("svd", "pca"):
        if x.shape[1] < n_components:
            raise ValueError(f"Cannot project {x.shape[1]}-dimensional embeddings onto {n_components} axes: "
                             f"ask for at most {x.shape[1]} components.")
        directions = signed_rows(singular_directions(x, n_components, centre=method == "pca"))
        points = x if keep_origin or method == "svd" else x - x.mean(dim=0)
        return (points @ directions.T).numpy()
    if method == "umap":
        if keep_origin:
            raise ValueError("keep_origin applies to the linear projections 'svd' and 'pca'; UMAP has no origin to keep.")
        import umap

        reducer = umap.UMAP(n_components=n_components, random_state=seed, n_neighbors=min(15, len(x) - 1), n_jobs=1)
        return reducer.fit_transform(x.float().numpy())
    raise ValueError(f"Unknown projection {method!r}: choose one of {', '.join(PROJECTIONS)}.")


def signed_rows(directions: torch.Tensor) -> torch.Tensor:
    """The (dim, k) columns of ``directions`` as k rows, each with its largest entry positive (a fixed sign convention,
    so mirrored data gives mirrored points)."""
    rows = directions.T
    largest = rows.gather(1, rows.abs().argmax(dim=1, keepdim=True))
    return rows * torch.where(largest < 0, -1.0, 1.0).to(rows.dtype)
