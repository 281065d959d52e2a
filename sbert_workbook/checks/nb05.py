"""References of notebook 05's checks that would give the answer away if typed into the check cell
(``05_bert_flow.ipynb``).

Each is computed by another route than the exercise asks for: the NATSV energy from the singular values alone, the
density from the slope of the cumulative probability, the log-determinant from autograd's full Jacobian, the
embeddings behind exercise 6.4's latent codes from the frozen bank (their sentences are not shown on the page).
"""
from __future__ import annotations

import torch
from scipy.stats import norm

from sbert_workbook.calibration import calibrators, word_vectors
from sbert_workbook.calibration.change_of_variables import cubic_map
from sbert_workbook.calibration.lexical import edit_distance

#: The NATSV exercise removes this many directions.
NATSV_K = 3
#: The central difference's half-width for the slope of the cumulative probability (exercise 6.1).
CDF_STEP = 1e-5


def ex05_snmean(lesson):
    """The mean StandardNormalization fits on the NLI sentences' static embeddings."""
    return calibrators.StandardNormalization().fit(lesson.bank.get("static", lesson.fit_sentences["nli"])).mean_


def ex05_natsv(natsv_u):
    """Σ_{i≤k} s_i² / Σ s_i²: the energy of the top k singular directions (Eckart-Young), from the singular values alone."""
    energy = torch.linalg.svdvals(torch.as_tensor(natsv_u, dtype=torch.float64)) ** 2
    return float(energy[:NATSV_K].sum() / energy.sum())


def ex05_cov():
    """dP(U ≤ u)/du at u = 1, with P(U ≤ u) = Φ(f(u)): a central difference of scipy's normal CDF (no change of variables)."""
    return float((norm.cdf(cubic_map(1 + CDF_STEP)[0]) - norm.cdf(cubic_map(1 - CDF_STEP)[0])) / (2 * CDF_STEP))


def lands_on_first(information_u, information_natsv):
    """Exercise 6.3's property: a twin differs from u = information_u[0] by at least 1 % of ‖u‖, yet NATSV maps both
    to the same point (within 0.1 % of ‖u‖)."""
    def lands(twin) -> bool:
        u0, twin = information_u[0], torch.as_tensor(twin, dtype=torch.float32).reshape(-1)
        same = (information_natsv.transform(twin[None]) - information_natsv.transform(u0[None])).norm() <= 1e-3 * u0.norm()
        return bool((twin - u0).norm() > 0.01 * u0.norm() and same)

    return lands


def ex05_roundtrip(lesson):
    """The static embeddings of the sentences behind exercise 6.4's latent codes, read from the frozen bank."""
    return lesson.bank.get("static", lesson.results["hidden sentences"])


def ex05_logdet(flow, u_check):
    """log|det ∂f/∂u| at u_check[0] from the full Jacobian torch.autograd builds (what Glow's layers avoid)."""
    jacobian = torch.autograd.functional.jacobian(lambda v: flow(v[None])[0][0], u_check[0], vectorize=True)
    return torch.linalg.slogdet(jacobian.double()).logabsdet


def ex05_edit():
    """The word-level Levenshtein distance of the exercise's two sentences (section 8's dynamic programme)."""
    return edit_distance("the cat sat on the mat", "the dog sat on a mat")


def ex05_sif(sif_probabilities):
    """SIF's weights a / (a + p(w)) with a = 1e-4, as the package computes them (word_vector_fixes_table)."""
    return word_vectors.sif_weights(sif_probabilities, a=1e-4)
