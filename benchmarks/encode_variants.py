"""What else might make the default encode path faster, each against sentence-transformers' encode in one run.

The variants docs/measurements.md reports as probed, on both sides of STS-B test, batch size 32, CPU:

- ``growth N``: ``batch_limits.MOST_BATCH_GROWTH = N`` (how far short sentences' batches may grow);
- ``mkldnn``: every ``nn.Linear`` replaced by oneDNN's prepacked ``torch.utils.mkldnn.MkldnnLinear``;
- ``2 threads × 1``: the sentences split over two Python threads with one torch thread each (against one process on
  all torch threads).

Each runs ``--repeats`` times, alternating in both orders, after one warm-up; the best time of each is compared.

    python benchmarks/encode_variants.py [--repeats 4] [--growth 1 2 4 8 16 32 64]
"""
from __future__ import annotations

import argparse
import os
import threading
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from sbert_workbook import load_encoder, load_sts  # noqa: E402
from sbert_workbook.encoding import batch_limits  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--growth", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32, 64])
    args = parser.parse_args()
    from sentence_transformers import SentenceTransformer
    from torch.utils.mkldnn import MkldnnLinear

    stsb = load_sts("stsb", "test")
    sentences = stsb.sentences1 + stsb.sentences2
    ours, prepacked = load_encoder("embedded", device="cpu"), load_encoder("embedded", device="cpu")
    _replace_linear_layers(prepacked.model, lambda linear: MkldnnLinear(linear, torch.float))
    theirs = SentenceTransformer(str(ours.resolved.path), device="cpu")
    shipped_growth, threads = batch_limits.MOST_BATCH_GROWTH, torch.get_num_threads()

    def encode(encoder, texts, growth=shipped_growth):
        batch_limits.MOST_BATCH_GROWTH = growth
        return encoder.encode(texts, batch_size=32, normalize=True, progress=False)

    def two_threads_of_one():
        torch.set_num_threads(1)
        workers = [threading.Thread(target=encode, args=(ours, sentences[half::2])) for half in (0, 1)]
        try:
            [worker.start() for worker in workers]
            [worker.join() for worker in workers]
        finally:
            torch.set_num_threads(threads)

    variants = {f"growth {growth}": (lambda growth=growth: encode(ours, sentences, growth)) for growth in args.growth}
    variants["mkldnn"] = lambda: encode(prepacked, sentences)
    variants["2 threads × 1"] = two_threads_of_one
    variants["sentence-transformers"] = lambda: theirs.encode(sentences, batch_size=32, convert_to_tensor=True,
                                                              normalize_embeddings=True)
    difference = (encode(prepacked, sentences) - encode(ours, sentences)).abs().max().item()
    best = dict.fromkeys(variants, float("inf"))
    for function in variants.values():  # warm-up
        function()
    for repeat in range(args.repeats):
        for name, function in (list(variants.items()) if repeat % 2 == 0 else list(variants.items())[::-1]):
            started = time.perf_counter()
            function()
            best[name] = min(best[name], time.perf_counter() - started)
    print(f"sentences: {len(sentences)}, torch threads {threads}, best of {args.repeats}; "
          f"mkldnn's max |difference| from ours: {difference:.1e}")
    for name, seconds in best.items():
        print(f"{name:<22}: {len(sentences) / seconds:7.1f} sentences/s, {best['sentence-transformers'] / seconds:.2f}x")


def _replace_linear_layers(module: torch.nn.Module, replacement) -> None:
    for name, child in module.named_children():
        if isinstance(child, torch.nn.Linear):
            setattr(module, name, replacement(child))
        else:
            _replace_linear_layers(child, replacement)


if __name__ == "__main__":
    main()
