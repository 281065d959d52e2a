"""Writing a model folder sentence-transformers reads as the workbook trained it: models that travel (``07_your_model``).

A model the workbook trains (04's Siamese models, 06's SimCSE runs) is a transformer plus a pooling. Beside the
transformer's own files, :func:`write_sentence_transformers_files` writes what ``SentenceTransformer(folder)`` reads:
``modules.json``, ``sentence_bert_config.json``, ``config_sentence_transformers.json`` and the pooling's folder, in
the legacy keys every sentence-transformers release from 2 to 6 reads. CLS, mean and max are ``Pooling`` modes. A
layer average (``first_last_avg``, ``last2_avg``, ``static`` or explicit ``layers``) has no pooling mode, but
sentence-transformers' own ``WeightedLayerPooling`` (weight 1 on the averaged hidden states, 0 elsewhere) followed by
mean pooling computes exactly it, so that is what is written: no custom module, nothing that runs code when loaded.
The transformer must then hand over every hidden state (``output_hidden_states`` in its config.json), which
:func:`needs_all_hidden_states` tells the caller. 06's ``word_embeddings`` pooling (a mean of input word vectors) has
no sentence-transformers equivalent over the transformer's own tokenizer and is refused.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import torch

from sbert_workbook.encoding.pooling import LAYER_COMBINATIONS, TOKEN_POOLINGS
from sbert_workbook.encoding.st_folder import LEGACY_POOLING_KEYS


class NotSaveableError(ValueError):
    """A pooling sentence-transformers cannot reproduce; the message says what to do instead."""


def averaged_layers(pooling: str, layers: Sequence[int] | None, hidden_states: int) -> list[int] | None:
    """The hidden states (0 … hidden_states − 1) a layer-average pooling averages, or None for a token pooling."""
    if layers is None and pooling in TOKEN_POOLINGS:
        return None
    if layers is None and pooling not in LAYER_COMBINATIONS:
        raise NotSaveableError(
            f"Pooling {pooling!r} cannot be saved in sentence-transformers' format: it averages the input word vectors "
            "without the transformer, and sentence-transformers has no module that does so with this tokenizer. Train "
            "with cls, mean, max or a layer average to save a model that travels.")
    return [layer % hidden_states for layer in (layers if layers is not None else LAYER_COMBINATIONS[pooling])]


def needs_all_hidden_states(pooling: str, layers: Sequence[int] | None) -> bool:
    """Whether the saved transformer must return every hidden state (a layer average read by WeightedLayerPooling)."""
    return layers is not None or pooling in LAYER_COMBINATIONS


def write_sentence_transformers_files(folder: str | Path, pooling: str, layers: Sequence[int] | None, hidden_size: int,
                                      hidden_states: int, max_length: int) -> Path:
    """Write modules.json and the module folders that make ``SentenceTransformer(folder)`` pool as the workbook does."""
    folder = Path(folder)
    averaged = averaged_layers(pooling, layers, hidden_states)
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}]
    if averaged is not None:
        _write_weighted_layers(folder / "1_WeightedLayerPooling", averaged, hidden_size, hidden_states)
        modules.append({"idx": 1, "name": "1", "path": "1_WeightedLayerPooling",
                        "type": "sentence_transformers.models.WeightedLayerPooling"})
    pooling_folder = f"{len(modules)}_Pooling"
    _write_json(folder / pooling_folder / "config.json", pooling_config("mean" if averaged is not None else pooling, hidden_size))
    modules.append({"idx": len(modules), "name": str(len(modules)), "path": pooling_folder,
                    "type": "sentence_transformers.models.Pooling"})
    _write_json(folder / "modules.json", modules)
    _write_json(folder / "sentence_bert_config.json", {"max_seq_length": int(max_length), "do_lower_case": False})
    _write_json(folder / "config_sentence_transformers.json",
                {"__version__": _versions(), "prompts": {}, "default_prompt_name": None, "similarity_fn_name": "cosine"})
    return folder


def pooling_config(mode: str, hidden_size: int) -> dict:
    """``1_Pooling/config.json`` in the legacy keys: one boolean per mode, ``mode`` the only one set."""
    config = {"word_embedding_dimension": int(hidden_size)}
    config.update({key: name == mode for key, name in LEGACY_POOLING_KEYS.items()})
    return {**config, "include_prompt": True}


def _write_weighted_layers(folder: Path, averaged: list[int], hidden_size: int, hidden_states: int) -> None:
    from safetensors.torch import save_file

    start = min(averaged)
    weights = torch.zeros(hidden_states - start)
    for layer in averaged:
        weights[layer - start] += 1.0
    _write_json(folder / "config.json", {"word_embedding_dimension": int(hidden_size), "layer_start": start,
                                         "num_hidden_layers": hidden_states - 1})
    save_file({"layer_weights": weights}, str(folder / "model.safetensors"))


def _write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for package in ("sentence-transformers", "transformers", "torch"):
        try:
            found[package.replace("-", "_")] = version(package)
        except PackageNotFoundError:
            pass
    found["pytorch"] = found.pop("torch", "")
    return found
