"""Why a flow must be invertible: the change of variables, and what a projection loses (``05_bert_flow.ipynb``).

In this workbook's direction, a flow maps an embedding to the latent, z = f(u), and

    p_U(u) = p_Z(f(u)) · |det ∂f/∂u|        (1-D: p_Z(f(u)) · |f′(u)|)

(BERT-flow §3 writes the same map the other way round, u = f_φ(z), so its f_φ⁻¹ is our f.)
:func:`change_of_variables_1d` evaluates both factors on a grid for the figure; :func:`round_trip_error`
and :func:`nulled_share` measure the paper's claim that an invertible map keeps all the information
(``f⁻¹(f(u)) = u``) while a projection such as NATSV throws some of it away for good.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from scipy.integrate import trapezoid

from sbert_workbook.calibration.flow import Glow
from sbert_workbook.settings import torch_threads


def standard_normal_pdf(z) -> np.ndarray:
    """N(z; 0, 1), elementwise."""
    z = np.asarray(z, dtype=float)
    return np.exp(-0.5 * z ** 2) / math.sqrt(2 * math.pi)


def cubic_map(u, shift: float = 0.4, slope: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    """z = u³ + slope·u + shift and dz/du = 3u² + slope: monotone for slope > 0, flat near 0, steep far out."""
    if slope <= 0:
        raise ValueError(f"slope must be > 0 for the map to be monotone (invertible), got {slope}.")
    u = np.asarray(u, dtype=float)
    return u ** 3 + slope * u + shift, 3 * u ** 2 + slope


@dataclass
class ChangeOfVariables1D:
    """The pieces of p_U(u) = p_Z(f(u))·|f′(u)| on a grid of u: the latent density at f(u), the stretch, their product."""

    u: np.ndarray
    z: np.ndarray  # f(u)
    stretch: np.ndarray  # |f′(u)|, the 1-D |det ∂f/∂u|
    latent_density: np.ndarray  # p_Z(f(u))
    density: np.ndarray  # p_U(u)

    def total_mass(self) -> float:
        """∫ p_U(u) du over the grid (trapezoid rule): ≈ 1 when the grid covers the mass."""
        return float(trapezoid(self.density, self.u))


def change_of_variables_1d(u=None, transform: Callable = cubic_map,
                           latent_pdf: Callable = standard_normal_pdf) -> ChangeOfVariables1D:
    """p_U(u) = p_Z(f(u))·|f′(u)| on ``u`` (default: 2001 points on [−3, 3]); ``transform(u)`` returns (f(u), f′(u))."""
    u = np.linspace(-3.0, 3.0, 2001) if u is None else np.asarray(u, dtype=float)
    z, derivative = transform(u)
    if np.any(np.diff(z) * np.sign(z[-1] - z[0]) <= 0):
        raise ValueError("The map is not strictly monotone on this grid, so it is not invertible and the change of "
                         "variables does not apply; use a map whose derivative keeps one sign.")
    stretch, latent_density = np.abs(derivative), latent_pdf(z)
    return ChangeOfVariables1D(u, z, stretch, latent_density, latent_density * stretch)


# ----------------------------------------------------------------------------- information kept or lost
def scrambled_flow(embeddings: torch.Tensor, levels: int = 2, depth: int = 2, scale: float = 0.1, seed: int = 0) -> Glow:
    """A Glow with its actnorms initialised on ``embeddings`` and every coupling moved away from the identity.

    Invertibility is a property of the layers, not of training: whatever the weights, f⁻¹(f(u)) = u.
    ``scale`` is the standard deviation of the random output weights (0 would leave the identity).
    """
    generator = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng():  # weights from ``seed`` alone; torch's global random state is left as it was
        torch.manual_seed(seed)
        flow = Glow(embeddings.shape[1], levels=levels, depth=depth, seed=seed)
    with torch_threads(1):  # tiny matrices: one thread is fastest (see flow_fit)
        flow.initialize_from(embeddings.float())
    with torch.no_grad():
        for module in flow.modules():
            if hasattr(module, "net"):
                out = module.net.out.weight
                out.copy_(scale * torch.randn(out.shape, generator=generator))
    return flow.eval()


def round_trip_error(flow: Glow, embeddings: torch.Tensor) -> dict[str, float]:
    """How far f⁻¹(f(u)) is from u: the largest absolute error and the largest error relative to ‖u‖."""
    u = torch.as_tensor(embeddings, dtype=torch.float32)
    with torch.no_grad(), torch_threads(1):
        z, _ = flow(u)
        back = flow.inverse(z)
    error = (back - u).abs()
    moved = float((z - u).norm(dim=1).max())
    return {"largest |f⁻¹(f(u)) − u|": float(error.max()),
            "largest ‖f⁻¹(f(u)) − u‖ / ‖u‖": float(((back - u).norm(dim=1) / u.norm(dim=1)).max()),
            "largest ‖f(u) − u‖ (how far the flow moved u)": moved}


def nulled_share(calibrator, embeddings: torch.Tensor) -> np.ndarray:
    """‖u − P(u)‖ / ‖u‖ per row: the share of each embedding a projection P (e.g. NATSV) removes and cannot give back."""
    u = torch.as_tensor(embeddings, dtype=torch.float32)
    removed = u - torch.as_tensor(calibrator.transform(u), dtype=torch.float32)
    return (removed.norm(dim=1) / u.norm(dim=1).clamp(min=1e-12)).numpy()
