"""Finding a data set's local files: the data roots, in order, and where we looked when nothing is there.

Introduced in ``00_start_here.ipynb`` (the registry table); ``03_pooling_and_sts.ipynb``
loads through it. The roots are an explicit path, ``$SBERT_WORKBOOK_DATA``, the
repository's ``data/`` and ``../shared/data`` beside the repository (both only in a checkout),
and last the files the package itself ships (the demo pairs), which every install has.
"""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from sbert_workbook.data.records import DataNotFoundError
from sbert_workbook.data.registry import DataSource, source

DATA_ENV_VAR = "SBERT_WORKBOOK_DATA"


def repo_root() -> Path | None:
    """The workbook checkout this package runs from (or the cwd is inside), if any (``00_start_here.ipynb``)."""
    here = Path(__file__).resolve().parents[2]  # sbert_workbook/data/finding.py -> the checkout
    for candidate in (here, Path.cwd(), *Path.cwd().parents):
        if (candidate / "pyproject.toml").is_file() and (candidate / "sbert_workbook").is_dir():
            return candidate
    return None


def data_roots(data_dir: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """Where local data is looked for, in order, each with a label for messages (``03_pooling_and_sts.ipynb``)."""
    roots = []
    if data_dir is not None and not Path(data_dir).expanduser().exists():
        raise DataNotFoundError(f"data_dir {str(data_dir)!r} does not exist. Pass the folder that holds the data "
                                "(e.g. one with sts/STSBenchmark inside), or leave data_dir out to use the defaults.")
    if data_dir is not None:
        roots.append(("the path you passed", Path(data_dir).expanduser()))
    if os.environ.get(DATA_ENV_VAR):
        roots.append((f"${DATA_ENV_VAR}", Path(os.environ[DATA_ENV_VAR]).expanduser()))
    repo = repo_root()
    if repo is not None:
        roots.append(("the repository's data/", repo / "data"))
        roots.append(("../shared/data beside the repository", repo.parent / "shared" / "data"))
    roots.append(("the workbook package's own files", shipped_root()))
    return roots


def shipped_root() -> Path:
    """The data files inside the installed package, ``sbert_workbook/data/shipped/`` (package data in pyproject.toml):
    the demo pairs, which a notebook must find wherever the package is installed (``03_pooling_and_sts.ipynb``)."""
    return Path(str(resources.files(__package__) / "shipped"))


def find_local(name: str, data_dir: str | os.PathLike | None = None) -> Path | None:
    """The local file or folder holding data set ``name``, or None (``00_start_here.ipynb``)."""
    return local_copy(source(name), data_dir)


def local_copy(entry: DataSource, data_dir: str | os.PathLike | None = None) -> Path | None:
    """The local file or folder holding registry ``entry``, or None (``03_pooling_and_sts.ipynb``)."""
    for _label, root in data_roots(data_dir):
        if (root / entry.local_path).exists():
            return root / entry.local_path
        if root.name == Path(entry.local_path).name and root.exists():  # the data set's own path was passed
            return root
    return None


def not_found_message(entry: DataSource, data_dir) -> str:
    """Where ``entry`` was looked for and how to supply it (``03_pooling_and_sts.ipynb``)."""
    looked = "\n".join(f"  - {label}: {root / entry.local_path}" for label, root in data_roots(data_dir))
    hub = f"the hub copy {entry.hub_id!r} (offline or unreachable, and not in the datasets cache)" if entry.hub_id else "no hub copy is registered"
    return (
        f"Data set {entry.name!r} ({entry.description}) was not found. Looked in:\n{looked or '  (no local roots)'}\n"
        f"  - {hub}\n"
        f"To fix: set {DATA_ENV_VAR} to the folder that holds '{entry.local_path}', pass data_dir=..., "
        "or run `python -m sbert_workbook predownload` once while online."
    )
