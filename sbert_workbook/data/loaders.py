"""The public loaders: an STS or NLI data set by registry name, from local files or the hub.

Introduced in ``03_pooling_and_sts.ipynb``. Data flows one way: the registry names the set,
:mod:`~sbert_workbook.data.finding` finds its local files and :mod:`~sbert_workbook.data.readers`
reads them; without local files :mod:`~sbert_workbook.data.hub` loads the hub copy.
"""
from __future__ import annotations

import os
from pathlib import Path

from sbert_workbook.data.finding import local_copy, not_found_message
from sbert_workbook.data.hub import nli_from_hub, sts_from_hub
from sbert_workbook.data.readers import read_demo, read_nli_jsonl, read_senteval, read_sick_nli, read_sick_relatedness, read_stsb
from sbert_workbook.data.records import DataFormatError, DataNotFoundError, NliData, StsData
from sbert_workbook.data.registry import DataSource, source


def load_sts(name: str, split: str = "test", data_dir: str | os.PathLike | None = None, limit: int | None = None) -> StsData:
    """Load an STS data set by registry name (``stsb``, ``sts12``…``sts16``, ``sickr``, ``demo``).

    ``limit``, as in every loader: at most that many pairs, a random sample (seed 0) kept in file order
    (:meth:`~sbert_workbook.data.records.StsData.sample`); ``.first(n)`` on the result takes the first n instead.
    """
    entry = source(name)
    if entry.kind != "sts":
        raise ValueError(f"{name!r} is an NLI data set; use load_nli({name!r}).")
    _check_split(entry, split)
    path = local_copy(entry, data_dir)
    data = _read_local_sts(entry, path, split) if path is not None else sts_from_hub(entry, split)
    _check_found(data, entry, data_dir)
    _check_not_empty(data, split)
    return data.sample(limit)


def load_nli(name: str, split: str | None = None, data_dir: str | os.PathLike | None = None, limit: int | None = None) -> NliData:
    """Load an NLI data set by registry name (``snli``, ``mnli``, ``sick_nli``).

    ``limit``, as in :func:`load_sts`: at most that many pairs, a random sample (seed 0) kept in file order;
    ``.first(n)`` on the result takes the first n instead.
    """
    entry = source(name)
    if entry.kind != "nli":
        raise ValueError(f"{name!r} is an STS data set; use load_sts({name!r}).")
    split = split or entry.splits[0]
    _check_split(entry, split)
    path = local_copy(entry, data_dir)
    if path is not None:
        data = read_sick_nli(path, split) if entry.layout == "sick" else read_nli_jsonl(path, name, split)
    else:
        data = nli_from_hub(entry, split)
    _check_found(data, entry, data_dir)
    _check_not_empty(data, split)
    return data.sample(limit)


def _check_found(data: StsData | NliData | None, entry: DataSource, data_dir) -> None:
    if data is None:
        raise DataNotFoundError(not_found_message(entry, data_dir))


def _check_not_empty(data: StsData | NliData, split: str) -> None:
    if len(data) == 0:
        raise DataFormatError(f"{data.origin} holds no pairs for the split {split!r}: is it the right file, and not empty?")


def _check_split(entry: DataSource, split: str) -> None:
    if split not in entry.splits:
        raise ValueError(f"{entry.name!r} has no split {split!r}; it has {', '.join(entry.splits)}.")


def _read_local_sts(entry: DataSource, path: Path, split: str) -> StsData:
    if entry.layout == "stsb":
        return read_stsb(path / f"sts-{split}.csv" if path.is_dir() else path, split)
    if entry.layout == "senteval":
        return read_senteval(path, entry.name)
    if entry.layout == "sick":
        return read_sick_relatedness(path, split)
    return read_demo(path)
