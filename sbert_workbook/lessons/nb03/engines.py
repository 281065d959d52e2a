"""Lesson 03 §7 and §8: the same vectors from another engine (ONNX Runtime), from sentence-transformers' own
``encode``, and with or without smart batching, each timed on this machine now (``03_pooling_and_sts.ipynb``).

The ONNX encoder is built over MODEL's own weights (no second copy in memory); its session is made the first time it
encodes and freed after the timing (exercise 7 makes it again when it asks). Whether the vectors agree is printed
here and held by the tests (tests/test_onnx_backend.py, tests/test_encoder.py), not asserted in the lesson.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from importlib.util import find_spec

import pandas as pd

from sbert_workbook.data.loaders import load_sts
from sbert_workbook.encoding.encoder import Encoder
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb03.lesson import Lesson03
from sbert_workbook.lessons.report import Report
from sbert_workbook.published import SBERT_TABLE7

BATCH = 32  # sentences per batch in §8's timing
SMART, INPUT_ORDER = "sorted by length (smart batching)", "input order"


@dataclass
class Engines:
    """§7: the sentences timed, the ONNX encoder over MODEL's weights, and what each backend took."""

    sample: list[str]
    fast_encoder: Encoder | None
    seconds: dict[str, float]
    difference: float | None
    why_not: str = ""  # why ONNX did not run, when it did not


def onnx_encoder(lesson: Lesson03) -> Encoder:
    """MODEL's weights run by ONNX Runtime for the last-layer poolings (cls, mean, max); other poolings by PyTorch."""
    encoder = lesson.encoder
    return Encoder(encoder.model, encoder.tokenizer, encoder.resolved, encoder.device, encoder.max_length, backend="onnx")


def compare_engines(lesson: Lesson03, corpus: list[str]) -> Engines:
    """§7's experiment: the first ENGINE_SENTENCES sentences of ``corpus`` through PyTorch and ONNX Runtime, mean pooling."""
    sample = list(corpus[:lesson.sizes.ENGINE_SENTENCES])
    if lesson.device.type != "cpu":
        return Engines(sample, None, {}, None, f"On {lesson.device}, PyTorch is already fast: backend='onnx' is for CPUs.")
    if find_spec("onnx") is None or find_spec("onnxruntime") is None:
        return Engines(sample, None, {}, None, "backend='onnx' needs onnx and onnxruntime, which the core install (Colab's "
                       "setup cell) leaves out: `pip install 'sbert-workbook[onnx]'` (./workbook installs them), then rerun.")
    fast, vectors, seconds = onnx_encoder(lesson), {}, {}
    for backend, model in (("torch", lesson.encoder), ("onnx", fast)):
        model.encode(sample[:8])  # warm-up; the ONNX encoder exports its graph here, once
        started = time.perf_counter()
        vectors[backend] = model.encode(sample, pooling="mean", normalize=True)
        seconds[backend] = time.perf_counter() - started
    fast._onnx._session = None  # the session holds a copy of the weights; exercise 7 makes it again if it asks
    return Engines(sample, fast, seconds, (vectors["torch"] - vectors["onnx"]).abs().max().item())


def engines_report(lesson: Lesson03, engines: Engines) -> Report:
    """§7: sentences per second of each backend, and the largest difference between their vectors."""
    if engines.fast_encoder is None:
        return Report(engines.why_not)
    table = pd.DataFrame({"sentences/s": {b: len(engines.sample) / s for b, s in engines.seconds.items()},
                          "seconds": engines.seconds}).rename_axis("backend")
    table = with_provenance(table.round(2), model=lesson.encoder, pooling="mean",
                            aggregation="one timed run per backend, on this machine now (other programs may slow it down)",
                            split=f"the first {len(engines.sample)} sentences of the search corpus")
    return Report(table, f"Largest difference between the two backends' vectors (normalised): {engines.difference:.1e}; "
                         f"ONNX Runtime took {engines.seconds['onnx'] / engines.seconds['torch']:.0%} of PyTorch's time.")


def sentence_transformers_report(lesson: Lesson03) -> Report:
    """§8: the modules sentence-transformers runs for the model trained for similarity, and how far its vectors are
    from the encoder's (its pooling, L2-normalised) on 32 STS-B test sentences."""
    from sentence_transformers import SentenceTransformer

    model, pooling = lesson.trained()
    st_model = SentenceTransformer(str(model.resolved.path), device=str(lesson.device))
    sentences = timing_sentences(lesson)[:32]
    theirs = st_model.encode(sentences, batch_size=32, convert_to_tensor=True, normalize_embeddings=True).cpu()
    ours = model.encode(sentences, pooling=pooling, normalize=True)
    runs = " → ".join(type(module).__name__ for module in st_model)
    del st_model
    precision = "" if lesson.device.type == "cpu" else " (on a GPU the encoder runs in half precision, sentence-transformers in float32)"
    return Report(f"SentenceTransformer({model.resolved.path.name!r}) runs: {runs}",
                  f"max |sbw {pooling} pooling (normalised) − SentenceTransformer.encode| over {len(sentences)} STS-B test "
                  f"sentences: {(ours - theirs).abs().max().item():.1e}{precision}")


def timing_sentences(lesson: Lesson03) -> list[str]:
    """§8: the distinct sentences of TIMING_PAIRS random STS-B test pairs."""
    pairs = load_sts("stsb", "test").sample(lesson.sizes.TIMING_PAIRS, seed=lesson.seed)
    return list(dict.fromkeys(pairs.sentences1 + pairs.sentences2))


def smart_batching_report(lesson: Lesson03, sentences: list[str]) -> Report:
    """§8: the same sentences encoded in batches of 32 sorted by length and in input order, timed in the same run
    (alternating, the fastest of TIMING_ROUNDS each), beside SBERT Table 7's factor."""
    encoder, rounds = lesson.encoder, lesson.sizes.TIMING_ROUNDS
    encoder.encode(sentences, batch_size=BATCH, sort_by_length=False)  # warm-up on every batch shape
    seconds, vectors = {True: [], False: []}, {}
    for _ in range(rounds):
        for sort_by_length in seconds:
            started = time.perf_counter()
            vectors[sort_by_length] = encoder.encode(sentences, batch_size=BATCH, sort_by_length=sort_by_length)
            seconds[sort_by_length].append(time.perf_counter() - started)
    table = pd.DataFrame({"seconds": {SMART: min(seconds[True]), INPUT_ORDER: min(seconds[False])}})
    table["sentences/s"] = len(sentences) / table["seconds"]
    table = with_provenance(table.rename_axis("batching").round(3), model=encoder, pooling="mean",
                            aggregation=f"fastest of {rounds} timed run(s) per setting, batch size {BATCH}, on this machine now",
                            split=f"{len(sentences)} distinct sentences of {lesson.sizes.TIMING_PAIRS} STS-B test pairs")
    smart, plain = SBERT_TABLE7["SBERT-base - smart batching"], SBERT_TABLE7["SBERT-base"]
    return Report(table, f"Smart batching here: {min(seconds[False]) / min(seconds[True]):.2f}× the sentences per second of "
                         f"input-order batching ({lesson.device.type}, {lesson.short_name}); the largest difference between "
                         f"the two settings' vectors: {(vectors[True] - vectors[False]).abs().max().item():.1e}.",
                  f"SBERT Table 7 (SBERT-base, sentences/s): CPU {smart[0]} / {plain[0]} = {smart[0] / plain[0]:.2f}×, GPU "
                  f"{smart[1]} / {plain[1]} = {smart[1] / plain[1]:.2f}× (i7-5820K CPU, V100 GPU).")
