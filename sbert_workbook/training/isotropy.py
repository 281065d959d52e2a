"""Trained vs after the fact: one table for encoders and calibrators alike (``06_contrastive_simcse.ipynb``).

A *row* is anything that maps sentences to vectors: a trained model (:func:`model_row`), or the start
model's vectors through a fitted calibrator (:func:`calibrated_row`). :func:`isotropy_table` scores
every row on the same STS test sets (Spearman × 100 of cosine, ``all`` per set, the average under
``all`` and ``wmean``), adds the mean cosine of unrelated sentences and the top singular direction's
share, and any further *measures* the caller passes (the notebook passes alignment and uniformity,
Wang & Isola 2020, defined in SimCSE §2, Eq. 2–3, and read in its §3 and §7). :func:`measure_callback` records such measures while
``fit`` trains (SimCSE Figure 2).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import torch

from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation.similarity import cosine_matrix
from sbert_workbook.evaluation.geometry import principal_variance_ratios, singular_values
from sbert_workbook.evaluation.sts import aggregate, score_pairs

Embed = Callable[[list[str]], torch.Tensor]
#: A measure maps a row (an Embed) to one number, e.g. ``lambda embed: uniformity(embed(sentences))``.
Measure = Callable[[Embed], float]


def remembering(embed: Embed) -> Embed:
    """``embed`` that computes each distinct sentence's vector once and remembers it.

    A row is a fixed map from sentences to vectors, and the table asks it for the same sentences several times
    (uniformity's sentences are also the geometry's; every calibrated row re-reads the raw vectors): make the row
    after training, since what it remembers does not follow later changes to the model.
    """
    memory: dict[str, torch.Tensor] = {}

    def embed_remembered(sentences):
        sentences = list(sentences)
        if not sentences:
            return embed(sentences)  # the wrapped function says what is wrong with no sentences
        missing = list(dict.fromkeys(s for s in sentences if s not in memory))
        if missing:
            memory.update(zip(missing, torch.as_tensor(embed(missing), dtype=torch.float32)))
        return torch.stack([memory[s] for s in sentences])
    return embed_remembered


def model_row(model, batch_size: int = 64, pooling: str | None = None) -> Embed:
    """A trained :class:`~sbert_workbook.training.siamese.SiameseModel` as a row: its encoder and pooling (or
    ``pooling``, e.g. the first-last average SimCSE's raw BERT row uses), in eval mode, reading each sentence up to the
    model's own limit (its position embeddings, e.g. 512 tokens), not the shorter length it trained at (each sentence
    encoded once: :func:`remembering`)."""
    def embed(sentences):
        encoder = model.encoder()
        encoded = encoder.encode(list(sentences), pooling=pooling or model.pooling, batch_size=batch_size,
                                 max_length=encoder.position_limit, progress=False)
        return torch.as_tensor(encoded, dtype=torch.float32)
    return remembering(embed)


def frozen_row(embed: Embed, sentences: Sequence[str], name: str = "this row") -> Embed:
    """``embed``'s vectors of ``sentences``, computed now; the row returned looks them up and holds no model, so the
    model can be freed (06 trains one model at a time, scores it and keeps only its vectors). A sentence it was not
    given is an error that says so."""
    distinct = list(dict.fromkeys(sentences))
    vectors = torch.as_tensor(embed(distinct), dtype=torch.float32)
    index = {sentence: i for i, sentence in enumerate(distinct)}

    def look_up(asked):
        asked = list(asked)
        missing = [sentence for sentence in asked if sentence not in index]
        if missing:
            raise KeyError(f"{name} was computed for {len(index)} sentences, not for {len(missing)} of these "
                           f"(e.g. {missing[0]!r}): compute the row with every sentence it will be asked for.")
        return vectors[[index[sentence] for sentence in asked]]
    return look_up


def calibrated_row(embed: Embed, calibrator) -> Embed:
    """The start model's vectors through a fitted calibrator (whitening, flow, …: anything with ``transform``)."""
    return remembering(lambda sentences: torch.as_tensor(calibrator.transform(torch.as_tensor(embed(sentences))),
                                                         dtype=torch.float32))


def positive_pairs(data: StsData, threshold: float = 4.0) -> tuple[list[str], list[str]]:
    """The pairs scored above ``threshold`` (of 5): SimCSE §3 (footnote 3) takes STS-B pairs "with a score higher than 4"
    as alignment's positives, as 02 §7 does."""
    keep = [i for i, score in enumerate(data.scores) if score > threshold]
    if len(keep) < 2:
        raise ValueError(f"Only {len(keep)} pairs of {data.name} score above {threshold}: take more pairs or a lower threshold.")
    return [data.sentences1[i] for i in keep], [data.sentences2[i] for i in keep]


def mean_unrelated_cosine(vectors) -> float:
    """The mean cosine over all pairs i ≠ j of ``vectors``: near 0 for an isotropic cloud, near 1 for a narrow cone."""
    cosines = cosine_matrix(torch.as_tensor(vectors, dtype=torch.float32), torch.as_tensor(vectors, dtype=torch.float32))
    n = len(cosines)
    if n < 2:
        raise ValueError("The mean cosine of unrelated sentences needs at least two sentences.")
    return float((cosines.sum() - cosines.diagonal().sum()) / (n * (n - 1)))


def singular_spectrum(vectors) -> np.ndarray:
    """σ_k / σ_1 of the centred, unit-normalised vectors: flat when many directions are used, steep when a few dominate."""
    unit = torch.nn.functional.normalize(torch.as_tensor(vectors, dtype=torch.float64), dim=1)
    values = singular_values(unit).numpy()
    return values / values[0]


def energy_share_of_top_direction(vectors) -> float:
    """σ_1² / Σ σ_k² of the unit-normalised, *uncentred* vectors: the share of their energy along one common direction
    (not :func:`sbert_workbook.diagnosis.cone.top_direction_share`, the centred PCA share λ_1 / Σ λ)."""
    unit = torch.nn.functional.normalize(torch.as_tensor(vectors, dtype=torch.float64), dim=1)
    return float(principal_variance_ratios(unit, center=False)[0])


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
                   measures: Mapping[str, Measure] | None = None) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """One row per embedding: STS per set and averaged, the geometry of ``sentences``, then ``measures``; and each spectrum."""
    table, spectra = {}, {}
    for name, embed in rows.items():
        vectors = embed(list(sentences))
        table[name] = {**sts_scores(embed, test_sets), "mean cosine, unrelated": mean_unrelated_cosine(vectors),
                       **{label: float(measure(embed)) for label, measure in (measures or {}).items()},
                       "top direction's share": energy_share_of_top_direction(vectors)}
        spectra[name] = singular_spectrum(vectors)
    frame = pd.DataFrame.from_dict(table, orient="index")
    frame.index.name = "embedding"
    return frame, spectra


def measure_callback(model, measures: Mapping[str, Measure], every: int, trajectory: dict | None = None) -> Callable[[dict, dict], None]:
    """A ``fit`` callback that records each measure of ``model`` every ``every`` steps (and at step 0 right away).

    The record is ``callback.trajectory``: ``{"step": [...], name: [...] for each measure}``.
    """
    if every < 1:
        raise ValueError(f"Record the measures every 1 step or more, got every={every}.")
    trajectory = trajectory if trajectory is not None else {}
    for key in ("step", *measures):
        trajectory.setdefault(key, [])

    def record(step: int) -> None:
        was_training = model.training
        embed = model_row(model)
        trajectory["step"].append(step)
        for name, measure in measures.items():
            trajectory[name].append(float(measure(embed)))
        model.train(was_training)

    if not trajectory["step"]:
        record(0)

    def callback(event: dict, history: dict) -> None:
        if event["step"] % every == 0 or event["step"] == event["total_steps"]:
            record(event["step"])
    callback.trajectory = trajectory
    return callback


def plane_moves(frame: pd.DataFrame, reference: str = "raw", sts: str = "avg (all)") -> pd.DataFrame:
    """Each row of an :func:`isotropy_table` (with ``alignment`` and ``uniformity`` measures) against ``reference``:
    its change in ℓ_uniform, ℓ_align and STS — SimCSE's Figure 3, read as numbers. Whether a change is a gain, a loss
    or a tie is for its interval to say (:mod:`sbert_workbook.evaluation.geometry_intervals`), not its sign."""
    missing = {"alignment", "uniformity", sts} - set(frame.columns)
    if missing or reference not in frame.index:
        raise ValueError(f"plane_moves needs the columns alignment, uniformity and {sts!r} and a row {reference!r}; "
                         f"missing: {sorted(missing) or reference!r}")
    base = frame.loc[reference]
    moves = pd.DataFrame({"Δ uniformity": frame["uniformity"] - base["uniformity"],
                          "Δ alignment": frame["alignment"] - base["alignment"],
                          f"Δ STS ({sts})": frame[sts] - base[sts]}).drop(index=reference)
    return moves

