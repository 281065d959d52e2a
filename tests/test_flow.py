"""The Glow-style flow keeps its contract (tested as zuko tests its transforms), and its training behaves."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from scipy.stats import multivariate_normal

from sbert_workbook.calibration.flow import COUPLINGS, PERMUTATIONS, Glow, level_dimensions, standard_normal_log_prob
from sbert_workbook.calibration.flow_fit import FlowTrainingError, fit_flow, flow_embed

ARCHITECTURES = list(itertools.product(COUPLINGS, PERMUTATIONS))


def perturbed_flow(dim=7, coupling="additive", permutation="random", levels=2, depth=2, seed=0) -> Glow:
    """A float64 flow whose parameters are all moved away from their (identity) initial values."""
    torch.manual_seed(seed)
    flow = Glow(dim, levels=levels, depth=depth, coupling=coupling, permutation=permutation, width=8, seed=seed).double()
    with torch.no_grad():
        for parameter in flow.parameters():
            parameter.add_(0.2 * torch.randn_like(parameter))
    return flow


@pytest.mark.parametrize("coupling,permutation", ARCHITECTURES)
def test_inverse_undoes_forward(coupling, permutation):
    flow = perturbed_flow(coupling=coupling, permutation=permutation)
    u = torch.randn(16, 7, dtype=torch.float64)
    z, _ = flow(u)
    assert not torch.allclose(z, u), "the perturbed flow should not be the identity"
    torch.testing.assert_close(flow.inverse(z), u, atol=1e-10, rtol=1e-10)
    torch.testing.assert_close(flow(flow.inverse(z))[0], z, atol=1e-10, rtol=1e-10)


@pytest.mark.parametrize("coupling,permutation", ARCHITECTURES)
def test_logdet_equals_slogdet_of_the_autograd_jacobian(coupling, permutation):
    flow = perturbed_flow(dim=6, coupling=coupling, permutation=permutation, levels=2, depth=3)
    u = torch.randn(4, 6, dtype=torch.float64)
    _, logdet = flow(u)
    for row in range(len(u)):
        jacobian = torch.autograd.functional.jacobian(lambda x: flow(x[None])[0][0], u[row])
        sign, log_abs_det = torch.linalg.slogdet(jacobian)
        assert sign != 0
        assert logdet[row].item() == pytest.approx(log_abs_det.item(), abs=1e-9)


@pytest.mark.parametrize("coupling,permutation", ARCHITECTURES)
def test_gradients_reach_every_parameter(coupling, permutation):
    flow = perturbed_flow(coupling=coupling, permutation=permutation)
    loss = -flow.log_prob(torch.randn(32, 7, dtype=torch.float64)).mean()
    loss.backward()
    names = [name for name, p in flow.named_parameters() if p.grad is None or not torch.any(p.grad != 0)]
    assert not names, f"no gradient reached {names}"


@pytest.mark.parametrize("permutation", PERMUTATIONS)
def test_identity_initialised_flow_gives_the_analytic_gaussian_log_likelihood(permutation):
    flow = Glow(10, levels=3, depth=2, coupling="additive", permutation=permutation).double()
    u = torch.randn(50, 10, dtype=torch.float64)
    expected = multivariate_normal(mean=np.zeros(10), cov=np.eye(10)).logpdf(u.numpy())
    np.testing.assert_allclose(flow.log_prob(u).detach().numpy(), expected, atol=1e-10)
    assert standard_normal_log_prob(torch.zeros(1, 10)).item() == pytest.approx(-5 * math.log(2 * math.pi))


def correlated_gaussian(n=4000, dim=8, seed=0):
    generator = np.random.default_rng(seed)
    mixing = generator.normal(size=(dim, dim)) * np.linspace(3.0, 0.2, dim)
    covariance = mixing @ mixing.T
    return generator.multivariate_normal(np.full(dim, 2.0), covariance, size=n), covariance


def condition_number(x: np.ndarray) -> float:
    eigenvalues = np.linalg.eigvalsh(np.cov(x.T))
    return eigenvalues.max() / eigenvalues.min()


def test_fitting_a_correlated_gaussian_drives_it_towards_isotropy():
    data, covariance = correlated_gaussian()
    u = torch.tensor(data, dtype=torch.float32)
    flow = Glow(8, levels=2, depth=3, seed=0)
    fit = fit_flow(flow, u, epochs=8, learning_rate=1e-3, batch_size=64, progress=False)
    z = flow_embed(flow, u).numpy()
    true_log_likelihood = multivariate_normal(np.full(8, 2.0), covariance).logpdf(data).mean()
    fitted_log_likelihood = flow.log_prob(u).mean().item()
    assert condition_number(data) > 100
    assert condition_number(z) < 3, f"cov(z) is still far from isotropic: condition number {condition_number(z):.1f}"
    np.testing.assert_allclose(z.mean(axis=0), 0, atol=0.2)
    assert fitted_log_likelihood == pytest.approx(true_log_likelihood, abs=0.3)
    assert fit.log_likelihood[-1] > fit.log_likelihood[0]


def test_nan_loss_stops_training_naming_the_step():
    class BreaksAtStepThree(Glow):
        calls = 0

        def log_prob(self, u):
            type(self).calls += 1
            result = super().log_prob(u)
            return result * float("nan") if self.calls == 3 else result

    flow = BreaksAtStepThree(4, levels=1, depth=1)
    with pytest.raises(FlowTrainingError, match=r"step 3 .*lower learning rate, e\.g\. learning_rate=0\.0001"):
        fit_flow(flow, torch.randn(200, 4), batch_size=10, progress=False)


def test_near_constant_dimensions_do_not_blow_up_the_fit(encoder):
    # all-MiniLM-L6-v2's last layer has dimensions with a spread of ~1e-33 and ~1e-9 across sentences; an
    # actnorm init dividing by that spread multiplied them by ~1e6 per step and overflowed at the second step
    from sbert_workbook import load_sts

    data = load_sts("stsb", "test", limit=60)
    u = encoder.encode(data.sentences1 + data.sentences2, pooling="cls")
    assert u.std(dim=0).min() < 1e-6 * u.std(dim=0).max(), "the model no longer has near-constant dimensions"
    torch.manual_seed(0)
    flow = Glow(u.shape[1])
    fit = fit_flow(flow, u, epochs=2, progress=False)
    assert all(math.isfinite(value) for value in fit.log_likelihood)
    assert torch.isfinite(flow_embed(flow, u)).all()


def test_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="fewer than 2 coordinates"):
        Glow(4, levels=3)
    with pytest.raises(ValueError, match="Unknown coupling"):
        Glow(8, coupling="spline")
    with pytest.raises(ValueError, match=r"shape \(n, 8\)"):
        fit_flow(Glow(8, levels=1), torch.randn(10, 5), progress=False)
    assert level_dimensions(384, 3) == [384, 192, 96]
    assert level_dimensions(7, 2) == [7, 4]


def test_fit_is_reproducible_with_a_seed_and_restores_threads():
    threads = torch.get_num_threads()
    u = torch.randn(300, 6)
    outputs = []
    for _ in range(2):
        torch.manual_seed(0)
        flow = Glow(6, levels=2, depth=2)
        fit_flow(flow, u, seed=1, progress=False)
        outputs.append(flow_embed(flow, u))
    torch.testing.assert_close(outputs[0], outputs[1], atol=0, rtol=0)
    assert torch.get_num_threads() == threads


def test_fit_flow_calls_back_like_fit_does():
    """The flow's live-plot hook has fit's shape: callback(event, history), event with step and total_steps."""
    torch.manual_seed(0)
    flow = Glow(4, levels=1, depth=1, width=8)
    seen = []
    fit = fit_flow(flow, torch.randn(64, 4), epochs=1, learning_rate=1e-3, batch_size=16, progress=False,
                   callback=lambda event, history: seen.append((dict(event), list(history["log_likelihood"]))))
    assert [event["step"] for event, _ in seen] == [1, 2, 3, 4] and {event["total_steps"] for event, _ in seen} == {4}
    assert seen[-1][1] == fit.log_likelihood and seen[-1][0]["log_likelihood"] == fit.log_likelihood[-1]
    assert [len(curve) for _, curve in seen] == [1, 2, 3, 4]
