"""Choosing where to compute and in which precision (``00_start_here.ipynb``)."""
from __future__ import annotations

import torch


def pick_device(requested: str | torch.device | None = None) -> torch.device:
    """Return ``requested`` if given, else CUDA when present, then Apple MPS, then CPU."""
    if requested is not None:
        device = torch.device(requested)
        if device.type == "cuda" and not torch.cuda.is_available():
            raise RuntimeError(
                f"Device {requested!r} was requested but PyTorch sees no CUDA GPU. "
                "Pass device='cpu', or install a CUDA build of torch (see docs/colab-and-gpu.md)."
            )
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def half_precision_dtype(device: torch.device) -> torch.dtype | None:
    """The reduced precision to autocast to on ``device``, or None for plain fp32.

    bf16 needs compute capability >= 8 (Ampere and newer); older GPUs get fp16.
    CPU and MPS stay in fp32, where half precision is slower or inexact.
    """
    if device.type != "cuda":
        return None
    major, _minor = torch.cuda.get_device_capability(device)
    return torch.bfloat16 if major >= 8 else torch.float16


def precision_name(device: torch.device) -> str:
    """Human-readable name of the precision :func:`half_precision_dtype` picks."""
    dtype = half_precision_dtype(device)
    return {None: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]
