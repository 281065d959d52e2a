"""One AdamW step: torch's fused kernel (what ``sbert_workbook.optimizer.adamw`` picks on CPU and CUDA) against the
reference for-loop and the multi-tensor ``foreach`` variant, on the parameters of the two models the workbook trains.

Gradients are fixed random tensors; each variant takes ``--warmup`` steps (state allocated), then ``--steps`` timed
ones, alternating variants ``--repeats`` times; the best of each is printed with its ratio against the loop, measured
in the same run, and the largest parameter difference from the loop after the same steps.

    HF_HUB_OFFLINE=1 python benchmarks/optimizer_step.py --threads 1
"""
from __future__ import annotations

import argparse
import time

import torch
from transformers import BertConfig, BertModel

import sbert_workbook as sbw
from sbert_workbook.optimizer import fused_kernel_runs

VARIANTS = {"loop (torch's CPU default)": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}


def models() -> dict[str, torch.nn.Module]:
    torch.manual_seed(0)
    return {"bert-base-uncased shape (110M)": BertModel(BertConfig()),
            "all-MiniLM-L6-v2 (22M)": sbw.load_encoder("embedded", device="cpu").model}


def time_steps(model: torch.nn.Module, options: dict, warmup: int, steps: int) -> tuple[float, list[torch.Tensor]]:
    parameters = [torch.nn.Parameter(p.detach().clone()) for p in model.parameters()]
    generator = torch.Generator().manual_seed(1)
    for p in parameters:
        p.grad = torch.randn(p.shape, generator=generator) * 1e-3
    optimizer = torch.optim.AdamW(parameters, lr=2e-5, weight_decay=0.01, **options)
    for _ in range(warmup):
        optimizer.step()
    started = time.perf_counter()
    for _ in range(steps):
        optimizer.step()
    return (time.perf_counter() - started) / steps, [p.detach() for p in parameters]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} CPU thread(s), best of {args.repeats}, {args.steps} steps each")
    for name, model in models().items():
        assert fused_kernel_runs(list(model.parameters()))
        best, final = {}, {}
        for _ in range(args.repeats):
            for variant, options in VARIANTS.items():
                seconds, final[variant] = time_steps(model, options, args.warmup, args.steps)
                best[variant] = min(best.get(variant, float("inf")), seconds)
        loop = next(iter(VARIANTS))
        print(name)
        for variant in VARIANTS:
            difference = max(float((a - b).abs().max()) for a, b in zip(final[variant], final[loop]))
            print(f"  {variant:28s} {1000 * best[variant]:8.1f} ms/step  {best[loop] / best[variant]:5.2f}× the loop  "
                  f"max |Δ| from the loop {difference:.1e}")


if __name__ == "__main__":
    main()
