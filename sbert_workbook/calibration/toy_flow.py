"""A 2-D flow you can see: a banana-shaped cloud mapped to a standard Gaussian (``05_bert_flow.ipynb``).

The cloud stands in for sentence embeddings: off-centre (like 02's cone) and curved, with a
low-density "hole" inside its bulk (like 02's sparse regions). The package's
:class:`~sbert_workbook.calibration.flow.Glow`, fitted with
:func:`~sbert_workbook.calibration.flow_fit.fit_flow`, maps it to N(0, I): round, centred, no holes,
and its L2-normalised points spread evenly over the circle, so cosine compares directions fairly.
"""
from __future__ import annotations

import numpy as np
import torch
from scipy.stats import norm

from sbert_workbook.calibration.flow import Glow, standard_normal_log_prob
from sbert_workbook.calibration.flow_fit import FlowTrainingResult, fit_flow
from sbert_workbook.evaluation.similarity import unit_rows


def banana_cloud(n: int = 400, seed: int = 0, bend: float = 0.6, noise: float = 0.25,
                 offset: tuple[float, float] = (0.0, 2.0)) -> np.ndarray:
    """(n, 2) points: x ~ N(0, 1.2²), y = bend·x² + noise·N(0, 1), shifted by ``offset`` (a bent, off-centre cloud)."""
    if n < 2:
        raise ValueError(f"Need at least 2 points, got n={n}.")
    rng = np.random.default_rng(seed)
    x = 1.2 * rng.normal(size=n)
    y = bend * x ** 2 + noise * rng.normal(size=n)
    return np.stack([x, y], axis=1) + np.asarray(offset, dtype=float)


def toy_flow(seed: int = 0, depth: int = 4, width: int = 32) -> Glow:
    """A one-level 2-D Glow; "reverse" permutations alternate which coordinate each additive coupling shifts.

    Its initial weights come from ``seed`` alone (torch's global random state is left as it was).
    """
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return Glow(2, levels=1, depth=depth, coupling="additive", permutation="reverse", width=width, seed=seed)


def fit_toy_flow(flow: Glow, points, epochs: float = 20, learning_rate: float = 1e-2, batch_size: int = 100,
                 seed: int = 0) -> FlowTrainingResult:
    """Maximum likelihood on the cloud with :func:`~sbert_workbook.calibration.flow_fit.fit_flow` (a second or so)."""
    return fit_flow(flow, torch.as_tensor(points, dtype=torch.float32), epochs=epochs, learning_rate=learning_rate,
                    batch_size=batch_size, seed=seed, progress=False)


def negative_log_likelihood(flow: Glow, points) -> float:
    """−mean log p(u) of ``points`` under the flow (nats per point; lower is a better model)."""
    with torch.no_grad():
        return float(-flow.log_prob(torch.as_tensor(points, dtype=torch.float32)).mean())


def diagonal_gaussian_nll(train, test) -> float:
    """−mean log p(u) of ``test`` under the axis-aligned Gaussian fitted to ``train`` (what actnorm alone learns)."""
    train, test = np.asarray(train, dtype=float), np.asarray(test, dtype=float)
    return float(-norm.logpdf(test, train.mean(0), train.std(0)).sum(axis=1).mean())


def to_latent(flow: Glow, points) -> np.ndarray:
    """z = f(u) for every point."""
    with torch.no_grad():
        return flow(torch.as_tensor(points, dtype=torch.float32))[0].numpy()


def flow_samples(flow: Glow, n: int = 400, seed: int = 0) -> np.ndarray:
    """New points u = f⁻¹(z), z ~ N(0, I): the flow used as a generator."""
    z = torch.randn(n, flow.dim, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        return flow.inverse(z).numpy()


def density_grid(flow: Glow | None, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """p(u) on the grid (len(y), len(x)): the flow's density, or N(0, I)'s when ``flow`` is None."""
    xx, yy = np.meshgrid(x, y)
    grid = torch.as_tensor(np.stack([xx.ravel(), yy.ravel()], axis=1), dtype=torch.float32)
    with torch.no_grad():
        log_p = standard_normal_log_prob(grid) if flow is None else flow.log_prob(grid)
    return torch.exp(log_p).numpy().reshape(len(y), len(x))


def density_at_mean(flow: Glow | None, points, x: np.ndarray, y: np.ndarray) -> float:
    """p(mean of the points) / the largest p on the grid: near 0 when the mean falls in a hole, 1 at a Gaussian's centre."""
    mean = torch.as_tensor(np.asarray(points, dtype=float).mean(0)[None], dtype=torch.float32)
    with torch.no_grad():
        log_p = standard_normal_log_prob(mean) if flow is None else flow.log_prob(mean)
    return float(torch.exp(log_p)) / float(density_grid(flow, x, y).max())


def circle_angles(points) -> np.ndarray:
    """The angle (radians, in (−π, π]) of each point after L2 normalisation: where on the unit circle it lands."""
    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"Expected (n, 2) points, got shape {points.shape}.")
    unit = unit_rows(points, np.float64)
    return np.arctan2(unit[:, 1], unit[:, 0])
