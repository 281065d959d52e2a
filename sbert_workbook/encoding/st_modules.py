"""The modules a sentence-transformers model may run besides its transformer and pooling: Dense, Normalize and
WeightedLayerPooling, read from their folders without running any of the folder's code (``07_your_model.ipynb``).

Each matches sentence-transformers' own module (``sentence_transformers.base.modules.dense.Dense``, ``normalize.Normalize``,
``sentence_transformer.modules.weighted_layer_pooling.WeightedLayerPooling``): the tests compare the vectors with
``SentenceTransformer(folder).encode``. Weights are read from ``model.safetensors`` only: a folder holding them only as
``pytorch_model.bin`` (a pickle, which can run code when read) is refused with the one-line conversion to do where the
file is trusted. A Dense activation is one of ``torch.nn``'s own classes, named in ``config.json``, as
sentence-transformers itself requires without ``trust_remote_code``.
"""
from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F


class UnreadableModuleError(ValueError):
    """A module folder whose weights or settings the workbook will not read; the message says what to do."""


@dataclass(frozen=True)
class DenseLayer:
    """u ↦ activation(W u + b) (+ the input, or R u, with ``use_residual``): sentence-transformers' ``Dense``."""

    weight: torch.Tensor  # (out_features, in_features)
    bias: torch.Tensor | None
    activation: str  # e.g. "torch.nn.modules.activation.Tanh"
    residual: torch.Tensor | None = None  # R when use_residual and the sizes differ; the identity when they match
    use_residual: bool = False

    def __call__(self, u: torch.Tensor) -> torch.Tensor:
        out = _activation(self.activation)(F.linear(u, self.weight, self.bias))
        if self.use_residual:
            out = out + (u if self.residual is None else F.linear(u, self.residual))
        return out

    def describe(self) -> str:
        return f"Dense {self.weight.shape[1]}→{self.weight.shape[0]} ({self.activation.rsplit('.', 1)[-1]})"


class Normalize:
    """u ↦ u / ‖u‖₂: sentence-transformers' ``Normalize`` (cosine then equals the dot product)."""

    def __call__(self, u: torch.Tensor) -> torch.Tensor:
        return F.normalize(u, p=2, dim=-1)

    def describe(self) -> str:
        return "Normalize"


@dataclass(frozen=True)
class WeightedLayers:
    """Token vectors as a weighted mean of hidden states ``layer_start`` … last: ``WeightedLayerPooling``."""

    layer_start: int
    weights: torch.Tensor  # one weight per hidden state from layer_start on

    def __call__(self, hidden_states) -> torch.Tensor:
        stacked = torch.stack(tuple(hidden_states)[self.layer_start:])
        if len(stacked) != len(self.weights):
            raise UnreadableModuleError(f"WeightedLayerPooling has {len(self.weights)} weights for {len(stacked)} hidden "
                                        f"states from layer {self.layer_start}: it belongs to a model of another depth.")
        weights = self.weights.to(stacked.dtype).view(-1, 1, 1, 1)
        return (weights * stacked).sum(dim=0) / self.weights.sum()

    def describe(self) -> str:
        used = [self.layer_start + i for i, weight in enumerate(self.weights.tolist()) if weight]
        return f"hidden states {used} (WeightedLayerPooling)"


def read_safetensors(folder: Path) -> dict[str, torch.Tensor]:
    """The tensors of ``folder/model.safetensors``; a pickle-only folder is refused with the conversion to do."""
    from safetensors.torch import load_file

    if (folder / "model.safetensors").is_file():
        return load_file(str(folder / "model.safetensors"))
    if (folder / "pytorch_model.bin").is_file():
        raise UnreadableModuleError(
            f"{folder} holds its weights only as pytorch_model.bin, a pickle, which the workbook never loads (reading a "
            "pickle can run code). Where you trust the file, convert it once: "
            "SentenceTransformer(model_folder).save(new_folder) writes model.safetensors; then load new_folder.")
    raise UnreadableModuleError(f"{folder} has no model.safetensors: the module's weights are missing.")


def load_dense(folder: Path) -> DenseLayer:
    """A ``Dense`` module from its folder (``config.json`` + ``model.safetensors``)."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    tensors = read_safetensors(folder)
    activation = config.get("activation_function") or "torch.nn.modules.linear.Identity"
    _activation(activation)  # refuse an unknown activation now, not at the first encode
    return DenseLayer(tensors["linear.weight"].float(), tensors["linear.bias"].float() if config.get("bias", True) else None,
                      activation, tensors["residual.weight"].float() if "residual.weight" in tensors else None,
                      bool(config.get("use_residual", False)))


def load_weighted_layers(folder: Path) -> WeightedLayers:
    """A ``WeightedLayerPooling`` module from its folder (``config.json`` + ``model.safetensors``)."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return WeightedLayers(int(config.get("layer_start", 4)), read_safetensors(folder)["layer_weights"].float())


def _activation(path: str) -> torch.nn.Module:
    """An instance of the ``torch.nn`` module class ``path`` names (only torch.nn's own classes: no foreign code)."""
    module_name, _, class_name = path.rpartition(".")
    activation = None
    if module_name.startswith("torch.nn"):
        activation = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(activation, type) and issubclass(activation, torch.nn.Module)):
        raise UnreadableModuleError(f"The Dense activation {path!r} is not one of torch.nn's module classes; the workbook "
                                    "runs only those (e.g. torch.nn.modules.activation.Tanh), as sentence-transformers "
                                    "does without trust_remote_code.")
    return activation()
