"""Fill the Hugging Face caches once, online, so a classroom of laptops can work offline.

``python -m sbert_workbook predownload`` (``00_start_here.ipynb``) downloads a list of
models and the registry's hub data sets into ``HF_HOME``. Copy that folder to each laptop
(or point ``HF_HOME`` at a shared drive) and set ``HF_HUB_OFFLINE=1``.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sbert_workbook import settings
from sbert_workbook.data.registry import REGISTRY, DataSource
from sbert_workbook.encoding.resolve import HUB_FILE_PATTERNS

#: Models the notebooks use: raw BERT, the SBERT paper's NLI model, and the small trained model.
DEFAULT_MODELS = ("bert-base-uncased", "sentence-transformers/bert-base-nli-mean-tokens", "sentence-transformers/all-MiniLM-L6-v2")


class NeedsNetworkError(RuntimeError):
    """Predownloading was asked for while the hub cannot be reached."""


@dataclass
class Fetched:
    kind: str  # "model" or "data set"
    name: str
    where: str


def hub_data_sources(names: Sequence[str] | None = None) -> list[DataSource]:
    """Registry entries with a hub copy, one per (hub id, config): SNLI and MultiNLI share all-nli."""
    entries = [REGISTRY[n] for n in (names or REGISTRY)]
    unique = {(e.hub_id, e.hub_config): e for e in entries if e.hub_id}
    return list(unique.values())


def predownload(
    models: Sequence[str] = DEFAULT_MODELS,
    datasets: Sequence[str] | None = None,
    log: Callable[[str], None] = print,
) -> list[Fetched]:
    """Download ``models`` and the hub data sets of ``datasets`` (all registry names by default) into the caches.

    Raises :class:`NeedsNetworkError`, saying what to do instead, when offline.
    """
    if not settings.hub_is_reachable():
        raise NeedsNetworkError(_offline_message())
    from huggingface_hub import constants, snapshot_download

    fetched = []
    for model in models:
        log(f"model {model} ...")
        folder = snapshot_download(model, allow_patterns=HUB_FILE_PATTERNS)
        fetched.append(Fetched("model", model, str(folder)))
    for entry in hub_data_sources(datasets):
        import datasets as hf_datasets

        log(f"data set {entry.hub_id}{f' ({entry.hub_config})' if entry.hub_config else ''} for {entry.name} ...")
        hf_datasets.load_dataset(entry.hub_id, entry.hub_config)
        fetched.append(Fetched("data set", entry.hub_id, os.environ.get("HF_DATASETS_CACHE", f"{constants.HF_HOME}/datasets")))
    log(f"Done. Everything is under HF_HOME={constants.HF_HOME}. For a classroom: copy that folder to each laptop "
        "(or export HF_HOME=/shared/folder), then export HF_HUB_OFFLINE=1 and run `python -m sbert_workbook doctor`.")
    return fetched


def _offline_message() -> str:
    if settings.hub_offline_flag():
        name = "HF_HUB_OFFLINE" if os.environ.get("HF_HUB_OFFLINE") else "TRANSFORMERS_OFFLINE"  # huggingface_hub's order
        why = f"{name}={os.environ[name]} is set"
    else:
        why = "the Hugging Face hub cannot be reached"
    return (f"predownload needs the network, but {why}. Run it on a machine with internet access "
            "(unset HF_HUB_OFFLINE there), then copy its HF_HOME folder to the offline machines. "
            "Offline, the workbook still runs with MODEL='embedded' and local data (see `python -m sbert_workbook doctor`).")
