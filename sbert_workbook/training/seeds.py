"""One run or ten: how far a random seed moves a score, and which differences it swallows (``04_siamese_finetuning.ipynb``).

SBERT trains every configuration of Tables 2 and 6 with 10 random seeds and prints the mean (± the
spread in Table 2). Notebook 04 trains one small configuration over a handful of seeds
(:func:`scores_over_seeds`) and summarises them (:func:`seed_spread`: mean and sample standard
deviation); every later single-seed comparison is read with the interval that spread gives
(:func:`sbert_workbook.evaluation.uncertainty.single_run_interval`).
"""
from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pandas as pd
from tqdm.auto import tqdm



@dataclass(frozen=True)
class SeedSpread:
    """Scores of one configuration trained with ``n`` seeds: their mean and sample standard deviation (n − 1)."""

    mean: float
    sd: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.2f} ± {self.sd:.2f} (mean ± sd over {self.n} seeds)"


def scores_over_seeds(score_one: Callable[[int], float], seeds: Iterable[int]) -> pd.Series:
    """``score_one(seed)`` for each seed (one training run each): the scores, indexed by seed."""
    seeds = list(seeds)
    if len(seeds) != len(set(seeds)):
        raise ValueError(f"Seeds must differ from each other to measure a spread; got {seeds}.")
    scores = {seed: float(score_one(seed)) for seed in tqdm(seeds, desc="seeds", unit="run")}
    return pd.Series(scores, name="score").rename_axis("seed")


def seed_spread(scores: Iterable[float]) -> SeedSpread:
    """Mean and sample standard deviation (divisor n − 1) of one configuration's scores over seeds."""
    values = [float(score) for score in scores]
    if len(values) < 2:
        raise ValueError(f"A spread needs at least 2 seeds, got {len(values)}: run more seeds (SEED_RUNS ≥ 2).")
    return SeedSpread(statistics.fmean(values), statistics.stdev(values), len(values))

