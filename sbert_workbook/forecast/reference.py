"""The figures the forecast is built on: the reference machine, the data's sentence lengths, stated GPU throughputs.

The reference machine is the one every time in docs/measurements.md was measured on (2 CPU cores, 24 GB); its
calibration (:func:`calibration`) holds what the probe's CPU workload took there, and each lesson's ``cpu`` steps are
in its seconds. :data:`TOKENS_PER_SENTENCE` is measured from the data (``tools/forecast_check.py
--tokens``; ``tests/test_forecast.py`` recounts a sample). :data:`STATED_GPUS` are datasheet peaks and a stated share
of them, each with its source, until a lent GPU measures them. Introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

#: Set by ``tools/forecast_check.py --calibrate``: a CPU rate not measured yet prices its work at 0 s meanwhile.
CALIBRATING_ENV_VAR = "SBERT_WORKBOOK_FORECAST_CALIBRATING"
#: WordPiece tokens per sentence, [CLS] and [SEP] included, with the uncased vocabulary all-MiniLM-L6-v2 and
#: bert-base-uncased share: the mean over up to 2,000 distinct sentences of each split (the seven sets: over every
#: distinct sentence of the test pairs; nli: SNLI and MultiNLI dev's distinct sentences).
TOKENS_PER_SENTENCE = {
    "stsb test": 14.47, "stsb dev": 16.38, "stsb train": 14.86, "seven sets": 14.2, "sick": 12.23, "nli": 14.85,
}
#: Tokens per example as a training batch holds them (padded to the longest sentence of a random batch): NLI pairs at
#: 16 pairs a batch, STS-B train pairs at 16, a cross-encoder's STS-B pair (both sentences in one input) at 16,
#: SimCSE's inputs cut at 32 tokens, 08's Matryoshka NLI pairs at 32.
TOKENS_PER_EXAMPLE = {
    "nli pair": 2 * 53.4, "stsb pair": 2 * 33.7, "cross pair": 61.6, "simcse sentence": 30.5, "matryoshka pair": 2 * 65.7,
}
#: Distinct sentences of the seven STS test sets when each gives ``PAIRS_PER_SET`` pairs (seed 0; None: every pair).
SEVEN_SET_SENTENCES = {60: 827, 150: 2022, 200: 2708, 250: 3342, 300: 3990, 500: 6477, 1000: 12228, None: 27947}


def seven_set_sentences(pairs_per_set: int | None) -> float:
    """Distinct sentences of the seven test sets at ``pairs_per_set`` pairs each (linear between the counted sizes)."""
    if pairs_per_set is None:
        return SEVEN_SET_SENTENCES[None]
    counted = sorted(p for p in SEVEN_SET_SENTENCES if p is not None)
    if pairs_per_set <= counted[0]:
        return SEVEN_SET_SENTENCES[counted[0]] * pairs_per_set / counted[0]
    for low, high in zip(counted, counted[1:]):
        if pairs_per_set <= high:
            share = (pairs_per_set - low) / (high - low)
            return SEVEN_SET_SENTENCES[low] + share * (SEVEN_SET_SENTENCES[high] - SEVEN_SET_SENTENCES[low])
    return min(SEVEN_SET_SENTENCES[None], SEVEN_SET_SENTENCES[counted[-1]] * pairs_per_set / counted[-1])


@lru_cache(maxsize=1)
def calibration() -> dict:
    """What ``tools/forecast_check.py --calibrate`` measured on the reference machine (``forecast/cpu_seconds.json``):
    ``cpu workload s`` (the probe's CPU workload there), ``efficiency`` (a lesson's real encodes and training steps
    over the probe's per-token rates) and ``rates`` (``{key: {"seconds": per unit, "unit": what a unit is}}``)."""
    text = resources.files("sbert_workbook.forecast").joinpath("cpu_seconds.json").read_text(encoding="utf-8")
    return json.loads(text)


def cpu_seconds() -> dict[str, dict]:
    """The reference CPU's seconds per unit of each kind of CPU work the lessons declare."""
    return calibration()["rates"]


def cpu_seconds_per_unit(key: str) -> float:
    """The reference CPU's seconds per unit of the CPU work ``key`` names."""
    rates = cpu_seconds()
    if key not in rates and os.environ.get(CALIBRATING_ENV_VAR):
        return 0.0
    if key not in rates:
        raise KeyError(f"No reference rate {key!r} in forecast/cpu_seconds.json: run tools/forecast_check.py "
                       f"--calibrate on the reference machine. Known: {', '.join(sorted(rates))}.")
    return float(rates[key]["seconds"])


def lesson_encode_factor() -> float:
    """How much longer a lesson's own encodes take than the calibration's encode benchmark predicts (a notebook
    tokenizes, pads, keeps every layer's states, pools and stores): measured on the embedded model's quick runs by
    ``tools/forecast_check.py --refit`` and checked on the bert-base-shaped stand-in's (docs/measurements.md); 1
    before it is measured. The probe and the reference rates multiply their encode rate by it."""
    return float(calibration().get("lesson encode factor", {}).get("factor", 1.0))


@dataclass(frozen=True)
class GpuThroughput:
    """A GPU's stated training throughput and where each figure comes from."""

    name: str
    peak_tflops: float  # the datasheet's dense half-precision tensor peak
    share_of_peak: float  # the share BERT-sized training reaches, as stated by the source
    host_cpu_factor: float  # the host CPU's seconds per reference-CPU second (assumed)
    source: str

    @property
    def effective_flops(self) -> float:
        return self.peak_tflops * 1e12 * self.share_of_peak


STATED_GPUS = {
    "T4": GpuThroughput(
        "NVIDIA T4", 65.0, 0.2, 1.0,
        "stated, not measured: 65 TFLOPS fp16 tensor peak (NVIDIA T4 datasheet); about a fifth of it, 12-13 TFLOPS, "
        "training a BERT-base-sized model in fp16 (inferred from public figures, 6 × parameters × tokens per step); "
        "Colab's host CPU taken as the reference 2 cores (assumed)"),
    "A100": GpuThroughput(
        "NVIDIA A100", 312.0, 0.2, 1.0,
        "stated, not measured: 312 TFLOPS bf16 tensor peak (NVIDIA A100 datasheet), at the same fifth of the peak as "
        "the T4 figure (inferred); the host CPU taken as the reference 2 cores (assumed)"),
}
