"""Loading a data set's public copy from the Hugging Face hub, or from the ``datasets`` cache offline.

Introduced in ``03_pooling_and_sts.ipynb``; ``python -m sbert_workbook predownload`` fills the
cache once while online, and ``00_start_here.ipynb``'s doctor reports what it holds.
"""
from __future__ import annotations

import contextlib

import numpy as np

from sbert_workbook import settings
from sbert_workbook.data.records import DataFormatError, NliData, StsData
from sbert_workbook.data.registry import NLI_LABELS, SCORE_RANGES, DataSource, source


def sts_from_hub(entry: DataSource, split: str) -> StsData | None:
    """``entry``'s STS pairs from the hub (STS-B rescaled to 0-5), or None when neither hub nor cache has them."""
    rows = _hub_rows(entry, split)
    if rows is None:
        return None
    scale = 5.0 if entry.name == "stsb" else 1.0  # sentence-transformers/stsb stores scores / 5
    scores = np.array([float(score) * scale for score in rows["score"]])
    low, high = SCORE_RANGES[entry.layout]
    if len(scores) and (scores.min() < low - 1e-6 or scores.max() > high + 1e-6):
        raise DataFormatError(f"{entry.hub_id}: scores span [{scores.min()}, {scores.max()}], outside [{low}, {high}].")
    return StsData(entry.name, split, list(rows["sentence1"]), list(rows["sentence2"]), scores,
                   [entry.name] * len(scores), f"hub:{entry.hub_id}", (low, high))


def nli_from_hub(entry: DataSource, split: str) -> NliData | None:
    """``entry``'s NLI pairs from the hub (label ids turned into words), or None when neither hub nor cache has them."""
    rows = _hub_rows(entry, split)
    if rows is None:
        return None
    labels = [NLI_LABELS[label] if isinstance(label, int) else label for label in rows["label"]]
    return NliData(entry.name, split, list(rows["premise"]), list(rows["hypothesis"]), labels,
                   f"hub:{entry.hub_id}/{entry.hub_config} (SNLI+MultiNLI)")


def hub_copy_is_cached(name: str) -> bool:
    """Whether the hub copy of data set ``name`` loads from the ``datasets`` cache with no network (``00_start_here.ipynb``)."""
    entry = source(name)
    return entry.hub_id is not None and _cached_hub_rows(entry, entry.splits[-1]) is not None


def _hub_rows(entry: DataSource, split: str):
    """Rows of a hub data set: downloaded when the hub answers, else from the ``datasets`` cache
    (filled by ``python -m sbert_workbook predownload``) without touching the network; None when unavailable."""
    if entry.hub_id is None:
        return None
    if settings.hub_is_reachable():
        import datasets as hf_datasets

        return hf_datasets.load_dataset(entry.hub_id, entry.hub_config, split=_hub_split(entry, split))
    return _cached_hub_rows(entry, split)


def _hub_split(entry: DataSource, split: str) -> str:
    """The hub's name for ``split``: sentence-transformers/stsb calls dev "validation"."""
    return {"dev": "validation"}.get(split, split) if entry.name == "stsb" else split


def _cached_hub_rows(entry: DataSource, split: str):
    """Rows from the ``datasets`` cache with the network switched off, or None when not cached."""
    import datasets as hf_datasets

    with _hub_offline_mode():
        try:
            return hf_datasets.load_dataset(entry.hub_id, entry.hub_config, split=_hub_split(entry, split))
        except (OSError, ValueError):  # not in the cache (datasets' not-found errors are OSErrors)
            return None


@contextlib.contextmanager
def _hub_offline_mode():
    """Tell huggingface_hub and datasets not to try the network for the duration (they read the flag at import)."""
    import datasets.config
    from huggingface_hub import constants

    saved = constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE
    constants.HF_HUB_OFFLINE = datasets.config.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE = saved
