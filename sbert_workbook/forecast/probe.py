"""This machine's speed, probed in a few seconds with the model that will run, or stated for a GPU nobody has timed.

:func:`probe_rates` builds each model from its config with random weights (the same shapes, hence the same
arithmetic, as the trained weights; nothing is read from disk but config.json), then times a forward pass without
gradients and a forward and backward pass at a lesson's batch shape on ``device``, each scaled by how far a lesson's
real encodes and training steps ran from the probe on the reference machine (``efficiency``), and a fixed piece of
CPU work against the same piece on the reference machine. :func:`stated_gpu_rates` prices a GPU from its datasheet's peak and
the share of it BERT-sized training is said to reach, each figure with its source: used where no GPU is at hand (a
mocked T4 in the tests, the session sizes chosen for a T4) until a lent GPU measures it
(``benchmarks/gpu_fit_check.py``). Introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from sbert_workbook.forecast.reference import STATED_GPUS, GpuThroughput, calibration, lesson_encode_factor
from sbert_workbook.forecast.work import ModelShape

#: The probe's batch shapes: (sentences, tokens) for the forward pass and for the forward and backward pass.
ENCODE_SHAPE, TRAIN_SHAPE = (16, 24), (8, 24)
#: Each timing repeats its call until this many seconds have passed (at least once after a warm-up call), so a small
#: model's per-call overhead is averaged out and a large model's probe stays short.
MIN_TIMED_S = 0.25


@dataclass(frozen=True)
class Rates:
    """Seconds per unit of work on one device: per token through each model, and per second of reference-CPU work."""

    where: str  # "CPU, 2 cores" or "NVIDIA T4 (stated, not measured)"
    encode_s_per_token: dict[str, float]  # by Step.model: "lesson", "embedded"
    train_s_per_token: dict[str, float]
    cpu_factor: float  # this CPU's seconds per second of the reference CPU's
    source: str  # how the figures were had: "probed here in 2.3 s" or the stated figures' sources
    probe_s: float = 0.0
    models: dict[str, str] = field(default_factory=dict)  # Step.model -> the model's name

    def seconds(self, kind: str, units: float, model: str = "lesson") -> float:
        if kind == "cpu":
            return units * self.cpu_factor
        per_token = self.encode_s_per_token if kind == "encode" else self.train_s_per_token
        return units * per_token[model]


def device_words(device: torch.device) -> str:
    """'CPU, 2 cores', 'CUDA GPU (Tesla T4)' or 'Apple MPS GPU'."""
    if device.type == "cuda":
        return f"CUDA GPU ({torch.cuda.get_device_name(device)})"
    if device.type == "mps":
        return "Apple MPS GPU"
    return f"CPU, {torch.get_num_threads()} threads" if torch.get_num_threads() != (os.cpu_count() or 1) \
        else f"CPU, {os.cpu_count() or 1} cores"


def cpu_workload() -> float:
    """A fixed piece of the CPU work lessons do besides their model (NumPy linear algebra, sorting, a Python loop);
    returns its seconds here (the reference machine's are its calibration's ``cpu workload s``)."""
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    matrix = rng.standard_normal((300, 300))
    np.linalg.eigh(matrix @ matrix.T)
    np.sort(rng.standard_normal(400_000))
    total = 0.0
    for i in range(150_000):
        total += i % 7
    return time.perf_counter() - started


def _synchronise(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def _seconds_per_call(call, device: torch.device) -> float:
    call()  # warm-up: allocations, kernels chosen
    _synchronise(device)
    calls, started = 0, time.perf_counter()
    while True:
        call()
        calls += 1
        _synchronise(device)
        elapsed = time.perf_counter() - started
        if elapsed >= MIN_TIMED_S or calls >= 50:
            return elapsed / calls


def time_model(folder: str | Path, device: torch.device) -> tuple[float, float]:
    """(seconds per token forward without gradients, seconds per token forward and backward) of the transformer whose
    config.json is in ``folder``, built with random weights on ``device``."""
    from transformers import AutoConfig, AutoModel

    from sbert_workbook.devices import half_precision_dtype

    config = AutoConfig.from_pretrained(folder)
    model = AutoModel.from_config(config).to(device)
    vocabulary = int(getattr(config, "vocab_size", 30522))
    generator = torch.Generator().manual_seed(0)

    def batch(shape):
        ids = torch.randint(1000, vocabulary, shape, generator=generator).to(device)
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}

    encode_batch, train_batch = batch(ENCODE_SHAPE), batch(TRAIN_SHAPE)
    model.eval()

    def forward():
        with torch.inference_mode():
            model(**encode_batch)

    dtype = half_precision_dtype(device)

    def forward_backward():
        with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            loss = model(**train_batch).last_hidden_state.float().pow(2).mean()
        loss.backward()
        model.zero_grad(set_to_none=True)

    encode_s = _seconds_per_call(forward, device) / (ENCODE_SHAPE[0] * ENCODE_SHAPE[1])
    model.train()
    train_s = _seconds_per_call(forward_backward, device) / (TRAIN_SHAPE[0] * TRAIN_SHAPE[1])
    return encode_s, train_s


def probe_rates(folders: dict[str, tuple[str, str | Path]], device: torch.device) -> Rates:
    """Rates on ``device`` for each model of ``folders`` (``{Step.model: (name, transformer folder)}``), and this CPU's
    factor; a model whose folder another already names is timed once."""
    started = time.perf_counter()
    encode_s, train_s, timed = {}, {}, {}
    for role, (name, folder) in folders.items():
        key = str(Path(folder).resolve())
        if key not in timed:
            timed[key] = time_model(folder, device)
        encode_s[role], train_s[role] = timed[key]
    measured = calibration()
    efficiency = measured.get("efficiency", {"encode": 1.0, "train": 1.0})
    encode_s = {role: s * efficiency["encode"] * lesson_encode_factor() for role, s in encode_s.items()}
    train_s = {role: s * efficiency["train"] for role, s in train_s.items()}
    factor = min(cpu_workload() for _ in range(2)) / measured.get("cpu workload s", 0.1)
    seconds = time.perf_counter() - started
    return Rates(device_words(device), encode_s, train_s, factor, f"probed here in {seconds:.1f} s", seconds,
                 {role: name for role, (name, _) in folders.items()})


def stated_gpu_rates(gpu: str, shapes: dict[str, ModelShape]) -> Rates:
    """Rates of a GPU from its stated throughput (:data:`sbert_workbook.forecast.reference.STATED_GPUS`): 2 FLOPs a
    weight a token forward, 6 forward and backward, at the share of the peak its source states; the host CPU as the
    reference's. Not a measurement: the rates say so."""
    if gpu not in STATED_GPUS:
        raise KeyError(f"No stated throughput for {gpu!r}: known GPUs are {', '.join(STATED_GPUS)}.")
    stated: GpuThroughput = STATED_GPUS[gpu]
    encode_s = {role: 2 * shape.parameters / stated.effective_flops for role, shape in shapes.items()}
    train_s = {role: 6 * shape.parameters / stated.effective_flops for role, shape in shapes.items()}
    return Rates(f"{stated.name} (stated, not measured)", encode_s, train_s, stated.host_cpu_factor, stated.source,
                 0.0, {role: shape.name for role, shape in shapes.items()})
