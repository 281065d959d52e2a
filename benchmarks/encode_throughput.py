"""Sentences per second: our Encoder.encode vs sentence-transformers' encode, in one run.

Same model (the embedded all-MiniLM-L6-v2), same device, batch size and sentences (both
sides of STS-B test). Ours runs twice: with the PyTorch backend and with the ONNX Runtime
backend (``load_encoder(..., backend="onnx")``). Each encoder runs ``--repeats`` times,
alternating, every other round in the reverse order, after one warm-up (which also exports the
ONNX graph); the best time of each is compared. Both sort by length; ours also batches short
sentences together within the first batch's padded tokens (``batch_limits.sentences_in_batch``). Prints each ratio and the largest difference from sentence-transformers'
L2-normalised embeddings, then the tokens each side's transformer was given (counted at its word-embedding lookup, padding
included): both run the same float32 arithmetic per token, so their ratio bounds what the torch backend can gain.

    python benchmarks/encode_throughput.py [--batch-size 32] [--repeats 3] [--threads N]
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from sbert_workbook import load_encoder, load_sts  # noqa: E402


def seconds(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


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
    ours = {backend: load_encoder("embedded", device="cpu", backend=backend) for backend in ("torch", "onnx")}
    theirs = SentenceTransformer(str(ours["torch"].resolved.path), device="cpu")

    def encode_theirs():
        return theirs.encode(sentences, batch_size=args.batch_size, convert_to_tensor=True, normalize_embeddings=True)

    encoders = {f"sbert_workbook Encoder.encode, {backend} backend": _encode_function(encoder, sentences, args.batch_size)
                for backend, encoder in ours.items()}
    encoders["sentence-transformers encode"] = encode_theirs
    reference = encode_theirs().cpu()  # also the warm-up
    differences = {name: (encode().cpu() - reference).abs().max().item() for name, encode in encoders.items()}
    best = dict.fromkeys(encoders, float("inf"))
    for repeat in range(args.repeats):  # alternate, in both orders, so all see the same machine load
        for name, encode in (list(encoders.items()) if repeat % 2 == 0 else list(encoders.items())[::-1]):
            best[name] = min(best[name], seconds(encode))
    theirs_s = best["sentence-transformers encode"]
    print(f"sentences: {len(sentences)} (STS-B test, both sides), batch size {args.batch_size}, "
          f"device cpu, torch threads {torch.get_num_threads()}, best of {args.repeats}")
    for name, best_s in best.items():
        print(f"{name:<46}: {len(sentences) / best_s:7.1f} sentences/s ({best_s:.2f} s), "
              f"{theirs_s / best_s:.2f}x, max |difference| {differences[name]:.1e}")
    ours_tokens = tokens_given(ours["torch"].model, encoders["sbert_workbook Encoder.encode, torch backend"])
    theirs_tokens = tokens_given(theirs[0].auto_model, encode_theirs)
    print(f"tokens through the transformer, padding included: ours {ours_tokens:,}, sentence-transformers "
          f"{theirs_tokens:,} ({theirs_tokens / ours_tokens:.2f}x ours)")


def tokens_given(transformer, encode) -> int:
    """The token positions (padding included) that ``encode()`` hands ``transformer``, counted where each is looked up
    in its word-embedding table."""
    counted = []
    hook = transformer.get_input_embeddings().register_forward_pre_hook(lambda module, args: counted.append(args[0].numel()))
    try:
        encode()
    finally:
        hook.remove()
    return sum(counted)


def _encode_function(encoder, sentences, batch_size):
    return lambda: encoder.encode(sentences, batch_size=batch_size, normalize=True, progress=False)


if __name__ == "__main__":
    main()
