"""Embeddings projected to 2-D or 3-D for pictures (``02_anisotropy.ipynb``).

One function, :func:`project`, draws the clouds of ``02_anisotropy.ipynb``, the before/after
panels of ``05_bert_flow.ipynb`` and the classroom's embedding explorer.
"""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.evaluation.arrays import as_tensor

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
        directions = principal_axes(x, n_components, centre=method == "pca")
        points = x if keep_origin or method == "svd" else x - x.mean(dim=0)
        return (points @ directions.T).numpy()
    if method == "umap":
        if keep_origin:
            raise ValueError("keep_origin applies to the linear projections 'svd' and 'pca'; UMAP has no origin to keep.")
        import umap

        reducer = umap.UMAP(n_components=n_components, random_state=seed, n_neighbors=min(15, len(x) - 1), n_jobs=1)
        return reducer.fit_transform(x.float().numpy())
    raise ValueError(f"Unknown projection {method!r}: choose one of {', '.join(PROJECTIONS)}.")


def principal_axes(x: torch.Tensor, n_components: int, centre: bool) -> torch.Tensor:
    """The top ``n_components`` right singular vectors of x (of x − mean with ``centre``), rows, each with its largest entry positive."""
    if x.shape[1] < n_components:
        raise ValueError(f"Cannot project {x.shape[1]}-dimensional embeddings onto {n_components} axes: "
                         f"ask for at most {x.shape[1]} components.")
    if centre:
        x = x - x.mean(dim=0)
    _, _, vh = torch.linalg.svd(x, full_matrices=False)
    directions = vh[:n_components]
    largest = directions.gather(1, directions.abs().argmax(dim=1, keepdim=True))
    return directions * torch.where(largest < 0, -1.0, 1.0).to(directions.dtype)  # a fixed sign convention
