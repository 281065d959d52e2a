"""The workbook's AdamW: torch's fused kernel gives the reference loop's update; without the kernel, the loop."""
from __future__ import annotations

import torch

from sbert_workbook.optimizer import adamw


def _steps(optimizer, parameters, gradients) -> list[torch.Tensor]:
    for step_gradients in gradients:
        for parameter, gradient in zip(parameters, step_gradients):
            parameter.grad = gradient.clone()
        optimizer.step()
    return [p.detach().clone() for p in parameters]


def test_fused_adamw_takes_the_reference_loops_steps():
    generator = torch.Generator().manual_seed(0)
    shapes = [(30, 16), (16,), (16, 4)]
    start = [torch.randn(shape, generator=generator) for shape in shapes]
    gradients = [[torch.randn(shape, generator=generator) for shape in shapes] for _ in range(5)]
    fused = [torch.nn.Parameter(t.clone()) for t in start]
    loop = [torch.nn.Parameter(t.clone()) for t in start]
    optimizer = adamw(fused, 1e-2, 0.01)
    assert optimizer.defaults["fused"] is True  # on CPU the fast kernel is the one used
    reference = torch.optim.AdamW(loop, lr=1e-2, weight_decay=0.01, foreach=False)  # torch's for-loop reference
    for ours, theirs in zip(_steps(optimizer, fused, gradients), _steps(reference, loop, gradients)):
        assert not torch.equal(ours, theirs.new_zeros(theirs.shape))
        torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-6)


def test_parameters_without_a_fused_kernel_get_the_reference_loop():
    complex_parameter = torch.nn.Parameter(torch.zeros(3, dtype=torch.complex64))  # the fused kernels take real floats only
    optimizer = adamw([complex_parameter], 1e-3, 0.0)
    assert not optimizer.defaults["fused"]  # the fused one would fail at this first step
    complex_parameter.grad = torch.ones(3, dtype=torch.complex64)
    optimizer.step()
    assert torch.all(complex_parameter.real < 0)
