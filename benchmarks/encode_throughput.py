"""Sentences per second: our Encoder.encode vs sentence-transformers' encode, in one run.

Same model (the embedded all-MiniLM-L6-v2), same device, batch size and sentences (both
sides of STS-B test). Each encoder runs ``--repeats`` times, alternating, after one
warm-up; the best time of each is compared. Prints the ratio and the largest difference
between the two sets of L2-normalised embeddings.

    python benchmarks/encode_throughput.py [--batch-size 32] [--repeats 3] [--threads N]
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from sbert_workbook import load_encoder, load_sts  # noqa: E402


def best_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    from sentence_transformers import SentenceTransformer

    stsb = load_sts("stsb", "test")
    sentences = stsb.sentences1 + stsb.sentences2
    ours = load_encoder("embedded", device="cpu")
    theirs = SentenceTransformer(str(ours.resolved.path), device="cpu")

    def encode_ours():
        return ours.encode(sentences, batch_size=args.batch_size, normalize=True, show_progress=False)

    def encode_theirs():
        return theirs.encode(sentences, batch_size=args.batch_size, convert_to_tensor=True, normalize_embeddings=True)

    difference = (encode_ours() - encode_theirs().cpu()).abs().max().item()  # also the warm-up
    ours_s = theirs_s = 0.0
    for _ in range(args.repeats):  # alternate so both see the same machine load
        ours_s = min(ours_s or float("inf"), best_time(encode_ours, 1))
        theirs_s = min(theirs_s or float("inf"), best_time(encode_theirs, 1))
    print(f"sentences: {len(sentences)} (STS-B test, both sides), batch size {args.batch_size}, "
          f"device cpu, torch threads {torch.get_num_threads()}")
    print(f"sbert_workbook Encoder.encode : {len(sentences) / ours_s:8.1f} sentences/s ({ours_s:.2f} s)")
    print(f"sentence-transformers encode  : {len(sentences) / theirs_s:8.1f} sentences/s ({theirs_s:.2f} s)")
    print(f"ratio (ours / theirs)         : {theirs_s / ours_s:8.2f}x")
    print(f"max |difference| of normalised embeddings: {difference:.2e}")


if __name__ == "__main__":
    main()
