"""All-but-the-top as a calibrator, whole and per cluster (``05_bert_flow.ipynb`` teaches it on word vectors; ``07_your_model``
climbs it as two rungs of the fix ladder).

* **All-but-the-top** (Mu & Viswanath, ICLR 2018): x ↦ x̃ − Σ_{i ≤ D} (u_iᵀ x̃) u_i with x̃ = x − μ and u_i the top D
  principal directions of the centred corpus. With D = 0 it is centring alone, x ↦ x − μ.
* **Per-cluster all-but-the-top** (Rajaee & Pilehvar, "A Cluster-based Approach for Improving Isotropy in Contextual
  Embedding Space", ACL 2021, arXiv 2106.01183): k-means clusters the corpus, each cluster gets its own μ and top D
  directions, and a vector is fixed by its nearest cluster's.

Both differ from NATSV (:class:`~sbert_workbook.calibration.calibrators.NullTopDirections`) only in centring first;
the nulling is the same :func:`~sbert_workbook.calibration.calibrators.null_directions`.
"""
from __future__ import annotations

import torch

from sbert_workbook.calibration.calibrators import Calibrator, null_directions
from sbert_workbook.evaluation.geometry import covariance_axes


class AllButTheTop(Calibrator):
    """x ↦ x̃ − x̃ U_D U_Dᵀ, x̃ = x − μ, U_D the top D principal directions (D = 0: centring)."""

    name = "all-but-the-top"

    def __init__(self, d: int = 1):
        super().__init__()
        self.d = int(d)

    def _fit(self, u):
        if not 0 <= self.d < u.shape[1]:
            raise ValueError(f"all-but-the-top D={self.d} must be between 0 and dim-1={u.shape[1] - 1}.")
        self.mean_, _, eigenvectors = covariance_axes(u)
        self.directions_ = eigenvectors[:, :self.d]  # (dim, D)

    @classmethod
    def of_axes(cls, mean, directions) -> AllButTheTop:
        """The fitted calibrator for μ (dim,) and the top D principal directions as the columns of ``directions``
        (dim, D): for axes computed elsewhere, e.g. a vocabulary's :func:`~sbert_workbook.evaluation.geometry.covariance_axes`
        read in chunks (``05``'s 400K GloVe words, too many for :meth:`fit`)."""
        mean, directions = (torch.as_tensor(a, dtype=torch.float64) for a in (mean, directions))
        if mean.ndim != 1 or directions.ndim != 2 or directions.shape[0] != len(mean):
            raise ValueError(f"of_axes needs a mean of shape (dim,) and directions of shape (dim, D); got "
                             f"{tuple(mean.shape)} and {tuple(directions.shape)}.")
        fix = cls(directions.shape[1])
        fix.dim_, fix.mean_, fix.directions_ = len(mean), mean, directions
        return fix

    def _transform(self, u):
        return null_directions(u - self.mean_, self.directions_)

    def settings(self):
        return {"d": self.d}

    def tensors(self):
        return {"mean_": self.mean_, "directions_": self.directions_}


class PerClusterAllButTheTop(Calibrator, saved=False):  # its k-means and per-cluster fits are not saved
    """k-means with ``clusters`` clusters (fitted by scikit-learn, seeded); each vector fixed by :class:`AllButTheTop`
    of its nearest cluster centre's members."""

    name = "per-cluster all-but-the-top"

    def __init__(self, clusters: int = 2, d: int = 1, seed: int = 0):
        super().__init__()
        self.clusters, self.d, self.seed = int(clusters), int(d), seed

    def _fit(self, u):
        from sklearn.cluster import KMeans
        from threadpoolctl import threadpool_limits

        if not 1 <= self.clusters <= len(u):
            raise ValueError(f"per-cluster all-but-the-top needs 1 to {len(u)} clusters for {len(u)} vectors, got {self.clusters}.")
        with threadpool_limits(1):  # small: one thread beats several spinning on a busy laptop
            kmeans = KMeans(n_clusters=self.clusters, n_init=1, random_state=self.seed).fit(u.numpy())
        self.centres_ = torch.as_tensor(kmeans.cluster_centers_, dtype=u.dtype)
        labels = torch.as_tensor(kmeans.labels_)
        self.per_cluster_ = [_fitted(u[labels == c], self.d) for c in range(self.clusters)]

    def nearest(self, u: torch.Tensor) -> torch.Tensor:
        """Each row's cluster: the nearest centre in Euclidean distance (what k-means' predict does)."""
        return torch.cdist(u, self.centres_).argmin(dim=1)

    def _transform(self, u):
        labels, out = self.nearest(u), torch.empty_like(u)
        for c, fix in enumerate(self.per_cluster_):
            chosen = labels == c
            if chosen.any():
                out[chosen] = null_directions(u[chosen] - fix.mean_, fix.directions_)
        return out

    def settings(self):
        return {"clusters": self.clusters, "d": self.d, "seed": self.seed}


def _fitted(members: torch.Tensor, d: int) -> AllButTheTop:
    """:class:`AllButTheTop` of one cluster's members; a cluster of one member is only centred (it has no directions)."""
    if len(members) >= 2:
        return AllButTheTop(min(d, len(members) - 1, members.shape[1] - 1)).fit(members)
    return AllButTheTop.of_axes(members[0], members.new_zeros((members.shape[1], 0)))
