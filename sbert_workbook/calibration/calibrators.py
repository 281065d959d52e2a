"""Post-hoc calibrators of sentence embeddings with one sklearn-like interface (``05_bert_flow.ipynb``).

``fit(embeddings)`` learns from unlabeled embeddings, ``transform(embeddings)`` maps any
embeddings of the same size. Calibrators: standard normalisation (SN), nulling away the
top-k singular directions (NATSV), whitening (Su et al., 2021; optionally to k dims), the
flow (Li et al., 2020), and :class:`Chain` to compose them (SN + NATSV). Each one saves to
a folder as ``calibrator.safetensors`` (tensors) + ``calibrator.json`` (class and settings).

Calibrators compute on the CPU with one thread: their matrices are small (n × dim), and
more threads mostly add synchronisation (10-30× slower on a busy 2-core machine).
"""
from __future__ import annotations

import importlib
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import torch

from sbert_workbook.evaluation.arrays import as_tensor
from sbert_workbook.evaluation.geometry import covariance_axes, singular_directions, whitening_kernel
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.evaluation.sts import correlations
from sbert_workbook.settings import torch_threads


#: Every calibrator class :func:`load_calibrator` can rebuild, by class name: each subclass of :class:`Calibrator`
#: enters it when it is defined, unless it says ``saved=False`` (``class Chain(Calibrator, saved=False)``).
CALIBRATORS: dict[str, type[Calibrator]] = {}
#: The modules outside this one that define calibrators; :func:`load_calibrator` imports them so that their classes are known.
CALIBRATOR_MODULES = ("sbert_workbook.calibration.all_but_the_top", "sbert_workbook.calibration.dimensions")
#: Su et al. (2021) whiten to k = d/3 dimensions (256 of bert-base's 768): the dimension over this share (:func:`su_k`).
SU_K_SHARE = 3
#: A covariance, Gaussian or flow in d dimensions wants at least this many sentences per dimension to be fitted well.
SENTENCES_PER_DIMENSION = 4


def su_k(dim: int) -> int:
    """Su et al.'s whitening-k for ``dim`` dimensions: d/3 rounded down, at least 1 (``05_bert_flow.ipynb``, and the
    fix ladder of ``07_your_model.ipynb``)."""
    return max(1, dim // SU_K_SHARE)


class Calibrator:
    """Base class: subclasses implement ``_fit`` and ``_transform`` on float64 tensors."""

    name = "calibrator"

    def __init_subclass__(cls, saved: bool = True, **kwargs):
        super().__init_subclass__(**kwargs)
        if saved:
            CALIBRATORS[cls.__name__] = cls

    def __init__(self):
        self.dim_: int | None = None

    def fit(self, embeddings) -> Calibrator:
        """Learn the calibration from ``embeddings`` (n, dim); returns self."""
        u = as_tensor(embeddings, finite=True)
        if len(u) < 2:
            raise ValueError(f"{self.name} needs at least 2 embeddings to fit, got {len(u)}.")
        self.dim_ = u.shape[1]
        with torch_threads(1):
            self._fit(u)
        return self

    def transform(self, embeddings) -> torch.Tensor:
        """The calibrated embeddings, float32; the input must have the fitted size."""
        if self.dim_ is None:
            raise RuntimeError(f"{self.name} is not fitted yet: call .fit(embeddings) first.")
        u = as_tensor(embeddings, finite=True)
        if u.shape[1] != self.dim_:
            raise ValueError(f"{self.name} was fitted on {self.dim_}-dimensional embeddings but got {u.shape[1]}-dimensional "
                             "ones. Fit it on embeddings from the same model and pooling, or refit.")
        with torch_threads(1):
            out = self._transform(u).float()
        if not torch.isfinite(out).all():
            raise ValueError(f"{self.name} produced NaN or infinite values; refit it (see the notebook's troubleshooting).")
        return out

    def fit_transform(self, embeddings) -> torch.Tensor:
        return self.fit(embeddings).transform(embeddings)

    def settings(self) -> dict:
        return {}

    def tensors(self) -> dict[str, torch.Tensor]:
        return {}

    def _load(self, tensors: dict[str, torch.Tensor]) -> None:
        for key, value in tensors.items():
            setattr(self, key, value)

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in self.settings().items())
        return f"{type(self).__name__}({settings})"


class StandardNormalization(Calibrator):
    """SN: u ↦ (u − μ) / σ, per dimension."""

    name = "SN"

    def _fit(self, u):
        self.mean_, self.std_ = u.mean(dim=0), u.std(dim=0, unbiased=False).clamp(min=1e-12)

    def _transform(self, u):
        return (u - self.mean_) / self.std_

    def tensors(self):
        return {"mean_": self.mean_, "std_": self.std_}


def null_directions(u: torch.Tensor, directions: torch.Tensor) -> torch.Tensor:
    """u ↦ u − u V Vᵀ: each row without its components along the orthonormal columns V of ``directions``.

    With V = :func:`~sbert_workbook.evaluation.geometry.singular_directions` this is NATSV (BERT-whitening's baseline) and SIF's
    "remove the first principal component" (:mod:`sbert_workbook.calibration.word_vectors`, uncentred, k = 1).
    """
    return u - (u @ directions) @ directions.T


class NullTopDirections(Calibrator):
    """NATSV: u ↦ u − u V_k V_kᵀ, removing the top-k right singular vectors V_k of the (uncentred) matrix."""

    name = "NATSV"

    def __init__(self, k: int = 10):
        super().__init__()
        self.k = int(k)

    def _fit(self, u):
        if not 0 <= self.k < u.shape[1]:
            raise ValueError(f"NATSV k={self.k} must be between 0 and dim-1={u.shape[1] - 1}.")
        self.directions_ = singular_directions(u, self.k)  # (dim, k), uncentred

    def _transform(self, u):
        return null_directions(u, self.directions_)

    def settings(self):
        return {"k": self.k}

    def tensors(self):
        return {"directions_": self.directions_}


class Whitening(Calibrator):
    """Whitening (Su et al.): u ↦ (u − μ) W, W = U Λ^{-1/2} from Σ = U Λ Uᵀ; the first k columns only if k is set."""

    name = "whitening"

    def __init__(self, k: int | None = None):
        super().__init__()
        self.k = k

    def _fit(self, u):
        k = self.k or u.shape[1]
        if not 1 <= k <= u.shape[1]:
            raise ValueError(f"whitening k={k} must be between 1 and the embedding size {u.shape[1]}.")
        if len(u) <= k:  # n centred embeddings vary along at most n − 1 directions
            warnings.warn("Whitening was fitted on no more embeddings than the dimensions it keeps: the covariance is "
                          "singular and the smallest directions get blown up. Fit on more sentences, or whiten to k < n "
                          "dims.", stacklevel=3)
        self.mean_, eigenvalues, eigenvectors = covariance_axes(u)
        self.kernel_ = whitening_kernel(eigenvalues, eigenvectors, k)

    def _transform(self, u):
        return (u - self.mean_) @ self.kernel_

    def settings(self):
        return {"k": self.k}

    def tensors(self):
        return {"mean_": self.mean_, "kernel_": self.kernel_}


class FlowCalibrator(Calibrator):
    """BERT-flow: fit a :class:`~sbert_workbook.calibration.flow.Glow` by maximum likelihood, map u ↦ z = f(u)."""

    name = "flow"

    def __init__(self, levels: int = 3, depth: int = 3, coupling: str = "additive", permutation: str = "random",
                 width: int = 32, epochs: float = 1.0, learning_rate: float = 1e-3, batch_size: int = 32,
                 seed: int = 0, callback=None, progress: bool = True):
        super().__init__()
        self.architecture = {"levels": levels, "depth": depth, "coupling": coupling, "permutation": permutation,
                             "width": width, "seed": seed}
        self.training = {"epochs": epochs, "learning_rate": learning_rate, "batch_size": batch_size, "seed": seed}
        self.callback, self.progress = callback, progress
        self.flow_, self.fit_ = None, None

    def _build(self, dim: int):
        from sbert_workbook.calibration.flow import Glow

        with torch.random.fork_rng(devices=[]):  # seeded flow, the caller's random stream untouched
            torch.manual_seed(self.architecture["seed"])
            self.flow_ = Glow(dim, **self.architecture)

    def _fit(self, u):
        from sbert_workbook.calibration.flow_fit import fit_flow

        self._build(u.shape[1])
        self.fit_ = fit_flow(self.flow_, u.float(), callback=self.callback, progress=self.progress, **self.training)

    def _transform(self, u):
        from sbert_workbook.calibration.flow_fit import flow_embed

        return flow_embed(self.flow_, u.float())

    def settings(self):
        return {**self.architecture, **self.training}

    def tensors(self):
        return {f"flow.{key}": value for key, value in self.flow_.state_dict().items()}

    def _load(self, tensors):
        self._build(self.dim_)
        self.flow_.load_state_dict({key[len("flow."):]: value.float() for key, value in tensors.items()})
        self.flow_.eval()


class Chain(Calibrator, saved=False):
    """Calibrators applied one after another, each fitted on the previous one's output (e.g. SN then NATSV)."""

    def __init__(self, steps: Sequence[Calibrator]):
        super().__init__()
        self.steps = list(steps)
        self.name = "+".join(step.name for step in self.steps)

    def _fit(self, u):
        for step in self.steps:
            u = step.fit(u).transform(u).double()

    def _transform(self, u):
        for step in self.steps:
            u = step.transform(u).double()
        return u


def save_calibrator(calibrator: Calibrator, folder) -> Path:
    """Write ``calibrator.safetensors`` and ``calibrator.json`` into ``folder``; returns the folder."""
    from safetensors.torch import save_file

    if isinstance(calibrator, Chain):
        raise TypeError("Save the steps of a Chain one by one (save_calibrator(step, folder / str(i))).")
    if type(calibrator).__name__ not in CALIBRATORS:
        raise TypeError(f"{calibrator.name} has no saved form: refit it on the same embeddings instead.")
    if calibrator.dim_ is None:
        raise RuntimeError(f"{calibrator.name} is not fitted; there is nothing to save.")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().contiguous().cpu() for k, v in calibrator.tensors().items()}, folder / "calibrator.safetensors")
    meta = {"class": type(calibrator).__name__, "settings": calibrator.settings(), "dim": calibrator.dim_}
    (folder / "calibrator.json").write_text(json.dumps(meta, indent=2))
    return folder


def load_calibrator(folder) -> Calibrator:
    """Read a calibrator written by :func:`save_calibrator`."""
    from safetensors.torch import load_file

    for module in CALIBRATOR_MODULES:
        importlib.import_module(module)
    folder = Path(folder)
    if not (folder / "calibrator.json").is_file():
        raise FileNotFoundError(f"{folder} holds no calibrator.json; was it written by save_calibrator?")
    meta = json.loads((folder / "calibrator.json").read_text())
    if meta["class"] not in CALIBRATORS:
        raise ValueError(f"Unknown calibrator class {meta['class']!r} in {folder}; known: {', '.join(CALIBRATORS)}.")
    calibrator = CALIBRATORS[meta["class"]](**meta["settings"])
    calibrator.dim_ = meta["dim"]
    calibrator._load(load_file(folder / "calibrator.safetensors"))
    return calibrator


def choose_natsv_k(train_embeddings, dev_u, dev_v, dev_scores, ks: Sequence[int] = range(0, 21),
                   standardize: bool = False) -> tuple[int, dict[int, float]]:
    """The k whose NATSV (after SN if ``standardize``) gives the best dev Spearman; also every k's score.

    One SVD serves every k: the top-k directions are the first k of the top-max(ks).
    """
    base = StandardNormalization().fit(train_embeddings) if standardize else None
    fitted = base.transform(train_embeddings) if base else train_embeddings
    widest = NullTopDirections(max(ks)).fit(fitted)
    dev_u, dev_v = (base.transform(x) if base else x for x in (dev_u, dev_v))
    scores = {}
    for k in ks:
        natsv = NullTopDirections(k)
        natsv.dim_, natsv.directions_ = widest.dim_, widest.directions_[:, :k]
        similarity = cosine_similarity(natsv.transform(dev_u), natsv.transform(dev_v))
        scores[k] = correlations(similarity, dev_scores)["spearman"]
    return max(scores, key=scores.get), scores
