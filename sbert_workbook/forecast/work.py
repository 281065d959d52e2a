"""A lesson's work, declared from its sizes: the long steps a run takes, each in units a probe turns into seconds.

Three kinds of unit, one per kind of work a lesson does:

- ``encode``: tokens through a model's forward pass without gradients (sentences × tokens each);
- ``train``: tokens through a forward and a backward pass and an optimiser step (steps × examples × sentences per
  example × tokens each);
- ``cpu``: seconds of the reference CPU (the 2-core machine the workbook is measured on) for work that does not go
  through the lesson's model: flows, bootstraps, UMAP, a tiny MLM or a small random-init student, loading data.

``encode`` and ``train`` steps say which model runs them: ``"lesson"`` (what ``MODEL`` resolves to) or
``"embedded"`` (all-MiniLM-L6-v2, which some sections use whatever ``MODEL`` is). Each lesson's manifest has a
``work(sizes, plan)`` function that lists its steps for a mode's sizes (:class:`Plan` says which model and device);
the constants it uses (tokens per sentence of each data set, reference seconds per unit of CPU work) live in
:mod:`sbert_workbook.forecast.reference`. Introduced in ``00_start_here.ipynb``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

KINDS = ("encode", "train", "cpu")
MODELS = ("lesson", "embedded")


@dataclass(frozen=True)
class Step:
    """One long step of a lesson: where it runs, what it does, and how much."""

    section: str  # the notebook's section number, as its heading gives it ("7", "6.1")
    call: str  # the lesson function that runs it; that function prints the prediction and the time (forecast.timed)
    what: str
    kind: str  # one of KINDS
    units: float  # tokens (encode, train) or reference-CPU seconds (cpu)
    model: str = "lesson"  # which model's rates price it (encode and train): one of MODELS
    #: For CPU work priced by a measured rate: (the rate's key, how many of its units), so a calibration can re-fit it.
    per: tuple[str, float] | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"Step kind {self.kind!r} is not one of {KINDS}.")
        if self.model not in MODELS:
            raise ValueError(f"Step model {self.model!r} is not one of {MODELS}.")
        if not self.units >= 0:
            raise ValueError(f"Step {self.what!r} has {self.units!r} units; work is a number >= 0.")


@dataclass(frozen=True)
class ModelShape:
    """The sizes that set a transformer's cost: layers, width, feed-forward width, and what it is called."""

    name: str
    layers: int
    hidden: int
    intermediate: int
    vocabulary: int = 30522
    positions: int = 512

    @property
    def parameters(self) -> int:
        """Weights outside the embeddings (each layer: Q, K, V and the output projection, 4 h², and the feed-forward
        block's two matrices, 2 h i): the ones every token multiplies, 2 FLOPs each per token forward."""
        return self.layers * (4 * self.hidden ** 2 + 2 * self.hidden * self.intermediate)

    @property
    def weights(self) -> int:
        """Every weight matrix, the word embeddings included: what loading the model reads."""
        return self.parameters + self.vocabulary * self.hidden

    @property
    def parameters_with_embeddings(self) -> int:
        """Every weight matrix, the word and position embeddings included: a BERT-like encoder's parameter count
        within 1 % (all-MiniLM-L6-v2, bert-base-uncased), which ``environment.memory`` scales its peaks by."""
        return self.weights + self.positions * self.hidden

    @classmethod
    def of_folder(cls, folder: str | Path, name: str) -> ModelShape:
        """The shape in a transformer folder's config.json (BERT-like keys)."""
        config = json.loads((Path(folder) / "config.json").read_text(encoding="utf-8"))
        hidden = int(config.get("hidden_size", config.get("dim", 768)))
        return cls(name, int(config.get("num_hidden_layers", config.get("n_layers", 12))), hidden,
                   int(config.get("intermediate_size", config.get("hidden_dim", 4 * hidden))),
                   int(config.get("vocab_size", 30522)), int(config.get("max_position_embeddings", 512)))


@dataclass(frozen=True)
class Plan:
    """What a lesson's ``work`` needs besides its sizes: the mode, the model ``MODEL`` resolves to, the device."""

    mode: str
    model: ModelShape
    device: str  # "cpu", "cuda" or "mps"
    embedded: bool  # whether MODEL is the embedded all-MiniLM-L6-v2
    asked: str = "auto"  # MODEL as the parameters cell gave it

#: all-MiniLM-L6-v2, which some sections run whatever MODEL is (its config.json).
EMBEDDED = ModelShape("all-MiniLM-L6-v2", 6, 384, 1536)
#: bert-base-uncased, what MODEL = "auto" loads online or from a filled cache (its config.json).
BERT_BASE = ModelShape("bert-base-uncased", 12, 768, 3072)


def encode(section: str, call: str, what: str, sentences: float, tokens_each: float, model: str = "lesson") -> Step:
    """Sentences through a model's forward pass, no gradients."""
    return Step(section, call, what, "encode", float(sentences) * float(tokens_each), model)


def train(section: str, call: str, what: str, steps: float, examples: float, tokens_each_example: float,
          model: str = "lesson") -> Step:
    """``steps`` optimiser steps of ``examples`` examples each, every example ``tokens_each_example`` tokens in all
    (a pair of sentences: both sentences' tokens)."""
    return Step(section, call, what, "train", float(steps) * float(examples) * float(tokens_each_example), model)


def cpu(section: str, call: str, what: str, seconds: float) -> Step:
    """Work the lesson's model does not do, in seconds of the reference CPU."""
    return Step(section, call, what, "cpu", float(seconds))


def measured_cpu(section: str, call: str, what: str, key: str, units: float = 1.0) -> Step:
    """CPU work priced by a rate measured on the reference machine: ``units`` × the seconds per unit stored under
    ``key`` in :data:`sbert_workbook.forecast.reference.CPU_SECONDS` (``tools/forecast_check.py --calibrate``)."""
    from sbert_workbook.forecast.reference import cpu_seconds_per_unit

    return Step(section, call, what, "cpu", cpu_seconds_per_unit(key) * float(units), per=(key, float(units)))


def load(section: str, call: str, shape: ModelShape, times: int = 1) -> Step:
    """Loading a model's weights ``times`` times (reading and building it), priced per weight on the reference CPU."""
    return measured_cpu(section, call, f"load {shape.name}" + (f" × {times}" if times > 1 else ""), "load per Mweight",
                        times * shape.weights / 1e6)
