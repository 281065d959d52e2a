"""Isotropy by training vs after the fact: one table for encoders and calibrators alike (``06_contrastive_simcse.ipynb``).

A *row* is anything that maps sentences to vectors: a trained model (:func:`model_row`), or the start
model's vectors through a fitted calibrator (:func:`calibrated_row`). :func:`isotropy_table` scores
every row on the same STS test sets (Spearman × 100 of cosine, ``all`` per set, the average under
``all`` and ``wmean``) and measures its geometry on the same sentences: the mean cosine of unrelated
sentences, alignment and uniformity (Wang & Isola, 2020, as in SimCSE §5), and the singular spectrum.
:func:`geometry_callback` records alignment and uniformity while ``fit`` trains (SimCSE Figure 2).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from sbert_workbook.anisotropy.metrics import alignment, principal_variance_ratios, random_pair_cosines, uniformity
from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.sts import aggregate, score_pairs

Embed = Callable[[list[str]], torch.Tensor]


def model_row(model, batch_size: int = 64) -> Embed:
    """A trained :class:`~sbert_workbook.training.siamese.SiameseModel` as a row: its encoder and pooling, in eval mode."""
    def embed(sentences):
        encoded = model.encoder().encode(list(sentences), pooling=model.pooling, batch_size=batch_size)
        model.train(False)
        return torch.as_tensor(encoded, dtype=torch.float32)
    return embed


def calibrated_row(embed: Embed, calibrator) -> Embed:
    """The start model's vectors through a fitted calibrator (whitening, flow, …: anything with ``transform``)."""
    return lambda sentences: torch.as_tensor(calibrator.transform(torch.as_tensor(embed(sentences))), dtype=torch.float32)


def positive_pairs(data: StsData, threshold: float = 4.0) -> tuple[list[str], list[str]]:
    """The pairs scored at least ``threshold`` (of 5): SimCSE §5 takes STS-B pairs above 4 as alignment's positives."""
    keep = [i for i, score in enumerate(data.scores) if score >= threshold]
    if len(keep) < 2:
        raise ValueError(f"Only {len(keep)} pairs of {data.name} score at least {threshold}: take more pairs or a lower threshold.")
    return [data.sentences1[i] for i in keep], [data.sentences2[i] for i in keep]


def geometry(embed: Embed, sentences: Sequence[str], pairs: tuple[list[str], list[str]], seed: int = 0) -> dict[str, float]:
    """Mean cosine of random unrelated pairs, alignment of ``pairs``, uniformity and the top direction's share."""
    vectors = torch.as_tensor(embed(list(sentences)), dtype=torch.float32)
    unit = torch.nn.functional.normalize(vectors, dim=1)
    return {"mean cosine, unrelated": float(random_pair_cosines(vectors, 2000, seed).mean()),
            "alignment": alignment(embed(pairs[0]), embed(pairs[1])), "uniformity": uniformity(vectors),
            "top direction's share": float(principal_variance_ratios(unit, center=False)[0])}


def singular_spectrum(vectors) -> np.ndarray:
    """σ_k / σ_1 of the centred, unit-normalised vectors: flat for an isotropic cloud, steep for a few dominant directions."""
    unit = torch.nn.functional.normalize(torch.as_tensor(vectors, dtype=torch.float32), dim=1)
    ratios = principal_variance_ratios(unit, center=True)
    return np.sqrt(ratios / ratios[0])


def sts_scores(embed: Embed, test_sets: Mapping[str, StsData]) -> dict[str, float]:
    """Spearman × 100 of cosine per set (``all``), their average, and the average under ``wmean`` (NaN where a subset is too small)."""
    scores, weighted = {}, []
    for name, data in test_sets.items():
        similarities = score_pairs(embed, data)
        scores[name] = aggregate(similarities, data, "all")["spearman"]
        try:
            weighted.append(aggregate(similarities, data, "wmean")["spearman"])
        except ValueError:  # a subset with fewer than 2 pairs (quick mode's samples) has no correlation
            weighted.append(float("nan"))
    scores["avg (all)"] = float(np.mean([scores[name] for name in test_sets]))
    scores["avg (wmean)"] = float(np.mean(weighted))
    return scores


def isotropy_table(rows: Mapping[str, Embed], test_sets: Mapping[str, StsData], sentences: Sequence[str],
                   pairs: tuple[list[str], list[str]], seed: int = 0) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """One row per embedding: STS per set and averaged, then geometry on ``sentences`` and ``pairs``; and each row's spectrum."""
    table, spectra = {}, {}
    for name, embed in rows.items():
        table[name] = {**sts_scores(embed, test_sets), **geometry(embed, sentences, pairs, seed)}
        spectra[name] = singular_spectrum(embed(list(sentences)))
    frame = pd.DataFrame.from_dict(table, orient="index")
    frame.index.name = "embedding"
    return frame, spectra


def geometry_callback(model, pairs: tuple[list[str], list[str]], sentences: Sequence[str], every: int,
                      trajectory: dict | None = None) -> Callable[[dict, dict], None]:
    """A ``fit`` callback that records alignment and uniformity every ``every`` steps (and at step 0 right away)."""
    trajectory = trajectory if trajectory is not None else {}
    for key in ("step", "alignment", "uniformity"):
        trajectory.setdefault(key, [])

    def record(step: int) -> None:
        was_training = model.training
        embed = model_row(model)
        trajectory["step"].append(step)
        trajectory["alignment"].append(alignment(embed(pairs[0]), embed(pairs[1])))
        trajectory["uniformity"].append(uniformity(embed(list(sentences))))
        model.train(was_training)

    if not trajectory["step"]:
        record(0)

    def callback(event: dict, history: dict) -> None:
        if event["step"] % every == 0 or event["step"] == event["total_steps"]:
            record(event["step"])
    callback.trajectory = trajectory
    return callback
