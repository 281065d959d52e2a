"""Seconds for one epoch of BERT-flow fitting on as many embeddings as STS-B has sentences.

STS-B's train + dev + test splits hold 8,628 pairs, i.e. 17,256 sentences (15,487 distinct):
BERT-flow's "target" training set. The flow (3 levels × 3 steps, additive coupling, width 32,
Adam lr 1e-3, batch 32) is fitted for one epoch on 17,256 embeddings of 384 dimensions
(all-MiniLM-L6-v2's size) and of 768 (BERT-base's). The fit time does not depend on the
values, so by default the embeddings are synthetic and anisotropic (a shared offset and
unequal variances, like raw BERT's); ``--real`` encodes the STS-B sentences with the embedded
model first (384 dims only; encoding is not timed). Target: under 60 s for 384 dims on 2 CPU cores.

    python benchmarks/flow_fit_time.py [--dims 384 768] [--threads 1] [--real]
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from sbert_workbook.calibration.flow import Glow  # noqa: E402
from sbert_workbook.calibration.flow_fit import fit_flow  # noqa: E402

STSB_SENTENCES = 17256


def synthetic_embeddings(n: int, dim: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    scales = torch.linspace(2.0, 0.05, dim)
    mixing = torch.randn(dim, dim, generator=generator) / dim ** 0.5
    return (torch.randn(n, dim, generator=generator) * scales) @ mixing + 3 * torch.randn(dim, generator=generator)


def stsb_embeddings() -> torch.Tensor:
    from sbert_workbook import load_encoder, load_sts

    encoder = load_encoder("embedded", device="cpu")
    sentences = []
    for split in ("train", "dev", "test"):
        data = load_sts("stsb", split)
        sentences += data.sentences1 + data.sentences2
    return encoder.encode(sentences, pooling="mean", batch_size=64, progress=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dims", type=int, nargs="+", default=[384, 768])
    parser.add_argument("--threads", type=int, default=1, help="torch threads while fitting (1 is fastest for this tiny net)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--real", action="store_true", help="use the embedded model's STS-B embeddings (384 dims)")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {os.cpu_count()} CPUs visible, fitting with {args.threads} thread(s)")
    print(f"{'dims':>5} {'source':>22} {'embeddings':>10} {'steps':>6} {'seconds':>8} {'ms/step':>8} {'loglik/dim':>10}")
    for dim in args.dims:
        if args.real and dim == 384:
            embeddings, source = stsb_embeddings(), "STS-B, MiniLM mean"
        else:
            embeddings, source = synthetic_embeddings(STSB_SENTENCES, dim), "synthetic anisotropic"
        torch.manual_seed(0)
        flow = Glow(dim, levels=3, depth=3, coupling="additive")
        fit = fit_flow(flow, embeddings, epochs=1, learning_rate=1e-3, batch_size=args.batch_size, progress=False, threads=args.threads)
        print(f"{dim:>5} {source:>22} {len(embeddings):>10} {fit.steps:>6} {fit.seconds:>8.1f} "
              f"{1000 * fit.seconds / fit.steps:>8.1f} {fit.log_likelihood[-1]:>10.3f}", flush=True)


if __name__ == "__main__":
    main()
