"""A sentence-transformers folder read as its authors meant it: which modules run after the transformer (``07_your_model``).

A folder saved by sentence-transformers lists its modules in ``modules.json``: a ``Transformer`` (the weights a Hugging
Face ``AutoModel`` reads), then a ``Pooling`` (``1_Pooling/config.json`` names the mode: cls, mean, max, lasttoken,
weightedmean, mean_sqrt_len_tokens, or several concatenated), optionally a ``WeightedLayerPooling`` before it, ``Dense``
layers (``nn.Linear`` + activation, weights in ``model.safetensors``) and ``Normalize``; ``config_sentence_transformers.json``
may add prompts ("query: ") prepended to every text. :func:`read_model_modules` turns that into
:class:`ModelModules`, which :class:`~sbert_workbook.encoding.encoder.Encoder` runs when ``encode`` is called without a
pooling, so the vectors are ``SentenceTransformer(folder).encode``'s. A folder without ``modules.json`` (a raw
transformer such as ``bert-base-uncased``) gets the workbook's default: mean pooling, nothing after it.
Every reading of ``1_Pooling/config.json`` in the workbook goes through :func:`pooling_modes`. Nothing is unpickled and
no code from the folder runs: a module the workbook does not know is refused with what to do instead.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import torch

from sbert_workbook.encoding.st_modules import DenseLayer, Normalize, WeightedLayers, load_dense, load_weighted_layers

#: sentence-transformers' pooling modes, in the order its legacy config keys concatenate them.
LEGACY_POOLING_KEYS = {"pooling_mode_cls_token": "cls", "pooling_mode_max_tokens": "max",
                       "pooling_mode_mean_tokens": "mean", "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
                       "pooling_mode_weightedmean_tokens": "weightedmean", "pooling_mode_lasttoken": "lasttoken"}
POOLING_MODES = tuple(LEGACY_POOLING_KEYS.values())
#: The short names the newer single-key form (``"pooling_mode": "mean_tokens"``) may use.
POOLING_ALIASES = {"mean_tokens": "mean", "cls_token": "cls", "max_tokens": "max", "mean_sqrt_len": "mean_sqrt_len_tokens",
                   "weightedmean_tokens": "weightedmean"}
#: Modules the workbook runs, by the class name ending modules.json's ``type``; Dropout does nothing at inference.
KNOWN_MODULES = ("Transformer", "Pooling", "WeightedLayerPooling", "Dense", "Normalize", "Dropout")
WORKBOOK_DEFAULT = "the workbook's default for a raw transformer (no modules.json)"


class UnsupportedModelError(ValueError):
    """A sentence-transformers folder the workbook cannot run as its authors meant; the message says what to do."""


@dataclass(frozen=True)
class ModelModules:
    """What runs after the transformer, and why: the pooling (with where it came from), then Dense / Normalize steps."""

    pooling: tuple[str, ...] = ("mean",)
    reason: str = WORKBOOK_DEFAULT
    include_prompt: bool = True
    layers: WeightedLayers | None = None
    steps: tuple = ()  # DenseLayer and Normalize, in modules.json's order
    prompts: dict[str, str] = field(default_factory=dict)
    default_prompt_name: str | None = None
    do_lower_case: bool = False
    max_seq_length: int | None = None
    transformer_path: str = ""
    listed: tuple[str, ...] = ()  # modules.json's class names, in order

    @property
    def from_model(self) -> bool:
        """True when the folder says how to pool (a sentence-transformers model), False for the workbook's default."""
        return bool(self.listed)

    @property
    def pooling_name(self) -> str:
        """'mean', or 'cls+mean' when several modes are concatenated."""
        return "+".join(self.pooling)

    def prompt(self, prompt_name: str | None = None) -> str:
        """The text prepended to every sentence: ``prompt_name``'s prompt, else the default prompt's, else none."""
        name = prompt_name if prompt_name is not None else self.default_prompt_name
        if name is None:
            return ""
        if name not in self.prompts:
            raise KeyError(f"This model has no prompt {name!r}; its prompts: {', '.join(self.prompts) or 'none'}.")
        return self.prompts[name]

    def describe(self) -> str:
        """'pooling: mean, from the model's 1_Pooling/config.json; then Normalize' (one line: what ran and why)."""
        layers = f" over {self.layers.describe()}" if self.layers is not None else ""
        after = "; then " + ", then ".join(step.describe() for step in self.steps) if self.steps else ""
        prompt = f"; prompt {self.prompt()!r} ({self.default_prompt_name})" if self.default_prompt_name else ""
        return f"pooling: {self.pooling_name}{layers}, {self.reason}{after}{prompt}"

    def finish(self, pooled: torch.Tensor) -> torch.Tensor:
        """The pooled vectors through every step after the pooling (Dense layers, Normalize), in order."""
        for step in self.steps:
            pooled = step(pooled)
        return pooled


def pooling_modes(config: dict) -> tuple[str, ...]:
    """The pooling modes a ``1_Pooling/config.json`` names, in the order sentence-transformers concatenates them.

    Reads both forms: the legacy booleans (``pooling_mode_mean_tokens: true``, what sentence-transformers 2–5 write)
    and the newer ``pooling_mode`` (a name or a list). No mode set means mean, as sentence-transformers reads it.
    """
    if "pooling_mode" in config:
        named = config["pooling_mode"]
        modes = tuple(POOLING_ALIASES.get(mode, mode) for mode in ([named] if isinstance(named, str) else named))
    else:
        modes = tuple(mode for key, mode in LEGACY_POOLING_KEYS.items() if config.get(key)) or ("mean",)
    unknown = [mode for mode in modes if mode not in POOLING_MODES]
    if unknown:
        raise UnsupportedModelError(f"1_Pooling/config.json names the pooling mode(s) {unknown}, which sentence-transformers "
                                    f"does not have; known: {', '.join(POOLING_MODES)}.")
    return modes


def read_model_modules(folder: str | Path) -> ModelModules:
    """The :class:`ModelModules` a model folder asks for (its ``modules.json``), or the workbook's default without one."""
    folder = Path(folder)
    if not (folder / "modules.json").is_file():
        return ModelModules()
    listed = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    names = tuple(_class_name(entry) for entry in listed)
    found = {"pooling": ("mean",), "reason": "sentence-transformers' default (modules.json lists no Pooling)",
             "include_prompt": True, "layers": None, "steps": [], "transformer_path": ""}
    for entry, name in zip(listed, names):
        _read_module(folder / entry.get("path", ""), entry.get("path", ""), name, found)
    transformer = _read_json(folder / found["transformer_path"] / "sentence_bert_config.json")
    settings = _read_json(folder / "config_sentence_transformers.json")
    return ModelModules(found["pooling"], found["reason"], found["include_prompt"], found["layers"], tuple(found["steps"]),
                        dict(settings.get("prompts") or {}), settings.get("default_prompt_name"),
                        bool(transformer.get("do_lower_case", False)), transformer.get("max_seq_length"),
                        found["transformer_path"], names)


def _read_module(path: Path, relative: str, name: str, found: dict) -> None:
    """Fill ``found`` with what one module of modules.json contributes."""
    if name == "Transformer":
        found["transformer_path"] = relative
    elif name == "Pooling":
        config = _read_json(path / "config.json")
        found["pooling"], found["include_prompt"] = pooling_modes(config), bool(config.get("include_prompt", True))
        found["reason"] = f"from the model's {relative or '.'}/config.json"
    elif name == "WeightedLayerPooling":
        found["layers"] = load_weighted_layers(path)
    elif name == "Dense":
        found["steps"].append(load_dense(path))
    elif name == "Normalize":
        found["steps"].append(Normalize())


def _class_name(entry: dict) -> str:
    """The class name of one modules.json entry, after checking it is one of sentence-transformers' own that the workbook runs."""
    kind = str(entry.get("type", ""))
    name = kind.rsplit(".", 1)[-1]
    if not kind.startswith("sentence_transformers.") or name not in KNOWN_MODULES:
        raise UnsupportedModelError(
            f"modules.json lists the module {kind!r}, which the workbook does not run (it runs sentence-transformers' own "
            f"{', '.join(KNOWN_MODULES)}, and never code shipped with a model). To study this model, embed with "
            "SentenceTransformer(folder).encode and pass that function where the workbook takes an embed function.")
    return name


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


__all__ = ["DenseLayer", "ModelModules", "Normalize", "UnsupportedModelError", "pooling_modes", "read_model_modules"]
