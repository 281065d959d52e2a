"""Which workbook this is and where it lives: its version, its repository, and every link built from the two.

Both live once, in ``pyproject.toml``: ``version`` under ``[project]`` and ``Repository`` under ``[project.urls]``.
An installed copy (a wheel on Colab, a release) reads them from its metadata (``importlib.metadata``); a checkout
reads ``pyproject.toml`` itself, which an editable install's metadata can lag behind. Everything that points at the
workbook is made here from those two: the git ref a release is tagged with (``v`` and the version), the Colab badge
and the setup cell's install (``tools/notebook_cells.py``), Binder and nbgitpuller links (docs/jupyterhub.md), and
``python -m sbert_workbook --version`` and ``links``. ``tests/test_about.py`` holds every copy in the repository equal
to what this module makes. Introduced in ``00_start_here.ipynb`` (its map's badges).
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

DISTRIBUTION = "sbert-workbook"
#: The ``[project.urls]`` key holding the repository's address.
REPOSITORY_KEY = "Repository"
COLAB_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"


@lru_cache(maxsize=1)
def _checkout_project() -> dict | None:
    """``[project]`` of the checkout this package runs from (its ``pyproject.toml`` names it), else None."""
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        return None
    text = pyproject.read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: the two keys read by pattern
        project = {key: value for key, value in re.findall(r'(?m)^(name|version) = "([^"]*)"', text)}
        urls = dict(re.findall(r'(?m)^(\w+) = "(https?://[^"]*)"', text.partition("[project.urls]")[2]))
        project["urls"] = urls
    else:
        project = tomllib.loads(text).get("project", {})
    return project if project.get("name") == DISTRIBUTION else None


@lru_cache(maxsize=1)
def _installed_metadata():
    import importlib.metadata

    try:
        return importlib.metadata.metadata(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


def version() -> str:
    """The workbook's version, e.g. ``0.1.0`` (``python -m sbert_workbook --version``)."""
    project = _checkout_project()
    if project is not None:
        return project["version"]
    metadata = _installed_metadata()
    if metadata is None:
        raise RuntimeError(f"No version found: this copy of sbert_workbook is neither installed ({DISTRIBUTION} has "
                           "no metadata) nor in a checkout with its pyproject.toml. Install it with pip.")
    return metadata["Version"]


def repository() -> str:
    """The repository's address, ``[project.urls] Repository`` in pyproject.toml (no trailing slash)."""
    project = _checkout_project()
    if project is not None:
        address = project.get("urls", {}).get(REPOSITORY_KEY)
    else:
        metadata = _installed_metadata()
        entries = (metadata.get_all("Project-URL") or []) if metadata is not None else []
        address = next((url.strip() for label, _, url in (e.partition(",") for e in entries)
                        if label.strip() == REPOSITORY_KEY), None)
    if not address:
        raise RuntimeError(f"pyproject.toml's [project.urls] has no {REPOSITORY_KEY} = \"https://github.com/OWNER/NAME\": "
                           "add it; every badge, setup cell and Binder link is made from it.")
    return address.rstrip("/")


def git_ref(for_version: str | None = None) -> str:
    """The tag a release is published under, ``v`` + the version (``v0.1.0``): what the setup cell installs."""
    return f"v{for_version or version()}"


def github_slug(address: str | None = None) -> str:
    """``OWNER/NAME`` of the repository (or of ``address``) on GitHub (Colab and Binder address it so)."""
    address = (address or repository()).rstrip("/")
    match = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?", address)
    if match is None:
        raise ValueError(f"The repository {address!r} is not a https://github.com/OWNER/NAME address, which the "
                         "Colab badges and Binder links need.")
    return match.group(1)


def pip_requirement() -> str:
    """What the Colab setup cell installs: the workbook at this version's tag, from the repository."""
    return f"{DISTRIBUTION} @ git+{repository()}@{git_ref()}"


def colab_url(notebook: str) -> str:
    """Colab's address for ``notebook`` (its path in the repository, e.g. ``notebooks/00_start_here.ipynb``), at the tag."""
    return f"https://colab.research.google.com/github/{github_slug()}/blob/{git_ref()}/{notebook}"


def colab_badge(notebook: str) -> str:
    """Markdown for an "Open in Colab" badge of ``notebook`` (a path in the repository)."""
    return f"[![Open In Colab]({COLAB_BADGE_IMAGE})]({colab_url(notebook)})"


def binder_url(path: str, app: str = "lab", repo: str | None = None, ref: str | None = None) -> str:
    """mybinder.org's address for ``path`` in the repository (or ``repo``, a course repository holding a release) at
    the tag (or ``ref``): ``app`` ``lab`` opens it in JupyterLab, ``voila`` renders it without code (the explorers)."""
    urlpath = {"lab": "lab/tree", "voila": "voila/render"}[app]
    slug = github_slug(repo) if repo else github_slug()
    return f"https://mybinder.org/v2/gh/{slug}/{ref or git_ref()}?urlpath={urlpath}/{path}"


def nbgitpuller_url(hub: str, path: str, app: str = "lab", repo: str | None = None, branch: str | None = None) -> str:
    """An nbgitpuller link on the JupyterHub at ``hub``: it clones ``repo`` (this repository by default) at ``branch``
    (the tag by default) into the student's home folder, then opens ``path`` in it (``app`` as in :func:`binder_url`)."""
    repo = (repo or repository()).rstrip("/")
    folder = repo.rsplit("/", 1)[-1].removesuffix(".git")
    urlpath = {"lab": "lab/tree", "voila": "voila/render"}[app] + f"/{folder}/{path}"
    return (f"{hub.rstrip('/')}/hub/user-redirect/git-pull?repo={quote(repo, safe='')}&branch={branch or git_ref()}"
            f"&urlpath={quote(urlpath, safe='')}")
