"""The optimizer every training loop of the workbook uses (01's tiny BERT, 04 and 06's ``fit``): AdamW, fused where
the device allows."""
from __future__ import annotations

import torch

#: Devices whose fused AdamW kernel this project has run (CPU from torch 2.4, CUDA); elsewhere (MPS, …) the loop.
FUSED_DEVICES = ("cpu", "cuda")


def adamw(parameters, learning_rate: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with torch's fused kernel when every parameter is a real float tensor on a CPU or CUDA device.

    Same update as torch's reference loop (tested), one kernel per step instead of a loop over every tensor:
    on one CPU thread a bert-base-sized step takes about a fifth of the time (``benchmarks/optimizer_step.py``).
    """
    parameters = list(parameters)
    return torch.optim.AdamW(parameters, lr=learning_rate, weight_decay=weight_decay, fused=fused_kernel_runs(parameters))


def fused_kernel_runs(parameters: list[torch.Tensor]) -> bool:
    """Whether torch's fused AdamW can step these parameters (it checks only at the first step, and then fails)."""
    cpu_kernel = tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 4)
    devices = {p.device.type for p in parameters}
    return (bool(parameters) and all(p.is_floating_point() for p in parameters) and devices <= set(FUSED_DEVICES)
            and (cpu_kernel or "cpu" not in devices))
