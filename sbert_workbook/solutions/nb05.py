"""Reference solutions for ``05_bert_flow.ipynb`` (see :mod:`sbert_workbook.exercises` for the pattern)."""
from __future__ import annotations

import torch

from sbert_workbook.calibration.change_of_variables import cubic_map, standard_normal_pdf
from sbert_workbook.exercises import solution


def _at_one():
    z, slope = cubic_map(1.0)
    return float(standard_normal_pdf(z)), float(slope)


@solution(wrong={
    "no Jacobian term: p_Z(f(1)) alone": lambda: _at_one()[0],
    "divided by |f′(1)| instead of multiplied": lambda: _at_one()[0] / _at_one()[1],
    "p_Z evaluated at u = 1 instead of at f(1)": lambda: float(standard_normal_pdf(1.0)) * _at_one()[1],
})
def ex05_cov():
    """p_U(1) = p_Z(f(1)) · |f′(1)| with f(u) = u³ + 0.3u + 0.4: N(1.7) · 3.3."""
    density, slope = _at_one()
    return density * slope


def _top_direction(information_natsv, rank: int = 0) -> torch.Tensor:
    return information_natsv.directions_[:, rank].float()


@solution(wrong={
    "u itself: the same point, not a second one": lambda information_u, information_natsv: information_u[0].clone(),
    "u scaled by 2: NATSV is linear, so it maps 2u to 2P(u)": lambda information_u, information_natsv: 2 * information_u[0],
    "moved along a random direction that NATSV keeps": lambda information_u, information_natsv: information_u[0]
    + information_u[0].norm() * torch.nn.functional.normalize(torch.randn(information_u.shape[1],
                                                                           generator=torch.Generator().manual_seed(0)), dim=0),
})
def ex05_twin(information_u, information_natsv):
    """u + c·v₁ for any c ≠ 0: the removed direction v₁ is all that changes, and NATSV removes it."""
    return information_u[0] + 0.5 * information_u[0].norm() * _top_direction(information_natsv)
