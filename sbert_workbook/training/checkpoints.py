"""Checkpoints that survive an interruption (``04_siamese_finetuning.ipynb``).

A checkpoint is a folder: ``model.safetensors`` (weights, no pickle), ``training_state.pt``
(optimizer, scheduler and random-number state: plain tensors and numbers, read back with
``torch.load(weights_only=True)``) and ``trainer_state.json`` (step, history, settings).
Every file is written to a temporary name and renamed, and a new folder replaces the old
one only when it is complete, so a run killed while saving leaves the previous checkpoint.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

WEIGHTS, STATE, INFO = "model.safetensors", "training_state.pt", "trainer_state.json"


def _replace_file(path: Path, write) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    write(temporary)
    os.replace(temporary, path)


def save_weights(folder: Path, state_dict: dict[str, torch.Tensor], info: dict) -> Path:
    """Weights as safetensors plus a JSON description, each written atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {name: tensor.detach().to("cpu").contiguous() for name, tensor in state_dict.items()}
    _replace_file(folder / WEIGHTS, lambda p: save_file(tensors, str(p)))
    _replace_file(folder / INFO, lambda p: p.write_text(json.dumps(info, indent=1), encoding="utf-8"))
    return folder


def save_checkpoint(folder: Path, state_dict: dict[str, torch.Tensor], training_state: dict, info: dict) -> Path:
    """Write a complete checkpoint next to ``folder``, then swap it in place of the old one."""
    folder = Path(folder)
    fresh, old = folder.with_name(folder.name + ".new"), folder.with_name(folder.name + ".old")
    shutil.rmtree(fresh, ignore_errors=True)
    save_weights(fresh, state_dict, info)
    _replace_file(fresh / STATE, lambda p: torch.save(training_state, p))
    if folder.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(folder, old)
    os.replace(fresh, folder)
    shutil.rmtree(old, ignore_errors=True)
    return folder


def load_checkpoint(folder: Path) -> tuple[dict[str, torch.Tensor], dict, dict] | None:
    """(weights, training state, info) of the newest complete checkpoint at ``folder``, or None."""
    folder = Path(folder)
    for candidate in (folder, folder.with_name(folder.name + ".old")):  # .old: killed between the two renames
        if all((candidate / name).is_file() for name in (WEIGHTS, STATE, INFO)):
            info = json.loads((candidate / INFO).read_text(encoding="utf-8"))
            state = torch.load(candidate / STATE, map_location="cpu", weights_only=True)
            return load_file(str(candidate / WEIGHTS)), state, info
    return None


def load_weights(folder: Path) -> tuple[dict[str, torch.Tensor], dict]:
    """(weights, info) saved by :func:`save_weights`, e.g. the best checkpoint of a run."""
    folder = Path(folder)
    if not (folder / WEIGHTS).is_file():
        raise FileNotFoundError(f"No {WEIGHTS} in {folder}: was the run evaluated on a dev set (best checkpoints need one)?")
    return load_file(str(folder / WEIGHTS)), json.loads((folder / INFO).read_text(encoding="utf-8"))


def random_state() -> dict:
    """torch's CPU (and CUDA) generator states: what dropout draws from."""
    state = {"torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.stack(torch.cuda.get_rng_state_all())
    return state


def restore_random_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(list(state["cuda"]))
