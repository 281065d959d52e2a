"""The fix ladder scored: each fix's STS change on the seven sets, its 95 % interval, and the verdict (``07_your_model``).

The sentences are the seven STS test sets' (a sample of pairs from each, :func:`sts_sample`). Every fix is fitted on
all of their sentences without labels (BERT-flow's "target" setting, as whitening is fitted too), then each pair is
scored by the cosine of its fixed vectors. A fix's change is the seven-set mean Spearman × 100 with it minus without
it, and its interval the paired bootstrap over the same test pairs (:func:`~sbert_workbook.evaluation.uncertainty.paired_bootstrap`:
every set's pairs resampled at once; 03). The verdict is computed, never typed: a model *needs* the fix with the largest
change among those whose interval lies wholly above zero and whose change is at least :data:`MIN_GAIN` (one Spearman
point: with thousands of test pairs a tenth of a point can be "sure" and still not worth a post-processing step), and
*needs no fix* when none does.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sbert_workbook.data.records import StsData
from sbert_workbook.data.registry import SEVEN_STS_SETS
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.evaluation.uncertainty import Interval, paired_bootstrap, spearman_rows

NO_FIX = "no fix"
#: The least change of the seven-set mean Spearman × 100 a fix must bring (beyond its interval) for a model to need it.
MIN_GAIN = 1.0


def sts_sample(pairs_per_set: int | None, seed: int = 0, datasets: Sequence[str] = SEVEN_STS_SETS,
               data_dir=None) -> dict[str, StsData]:
    """``pairs_per_set`` random test pairs (seed) of each STS set (all of them for None)."""
    from sbert_workbook.data.loaders import load_sts

    return {name: load_sts(name, "test", data_dir=data_dir).sample(pairs_per_set, seed=seed) for name in datasets}


def corpus_of(sets: Mapping[str, StsData]) -> list[str]:
    """Every distinct sentence of the sets' pairs, in order of first appearance: what the fixes are fitted on."""
    return list(dict.fromkeys(s for data in sets.values() for s in (*data.sentences1, *data.sentences2)))


def effect(interval: Interval) -> str:
    """'helps' or 'hurts' when the interval lies wholly on one side of 0 and the change is at least :data:`MIN_GAIN`,
    else 'no sure change of a point'."""
    if interval.direction == "higher" and interval.difference >= MIN_GAIN:
        return "helps"
    if interval.direction == "lower" and interval.difference <= -MIN_GAIN:
        return "hurts"
    return "no sure change of a point"


@dataclass
class PairVectors:
    """The corpus's vectors, looked up for each set's two columns of sentences."""

    sets: Mapping[str, StsData]
    corpus: list[str]
    vectors: np.ndarray
    _row: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self):
        self._row = {sentence: i for i, sentence in enumerate(self.corpus)}

    def of(self, sentences: Sequence[str], fix: Callable | None = None) -> np.ndarray:
        rows = self.vectors[[self._row[s] for s in sentences]]
        return rows if fix is None else fix(rows)

    def gold(self) -> dict[str, np.ndarray]:
        return {name: np.asarray(data.scores, dtype=np.float64) for name, data in self.sets.items()}

    def cosines(self, fix: Callable | None = None) -> dict[str, np.ndarray]:
        """cos(u, v) of every pair of every set, after ``fix`` (none: the model's own vectors)."""
        return {name: cosine_similarity(self.of(data.sentences1, fix), self.of(data.sentences2, fix))
                for name, data in self.sets.items()}


@dataclass
class Ladder:
    """Spearman × 100 per set (and their mean) for every rung, each fix's interval against no fix, the fitted fixes,
    and every rung's cosines with the gold scores (what any two rungs' paired bootstrap reads)."""

    table: pd.DataFrame
    intervals: dict[str, Interval]
    fitted: dict[str, Callable]
    similarities: dict[str, dict[str, np.ndarray]] = field(default_factory=dict, repr=False)
    gold: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def runner_up(self) -> str | None:
        """The fix with the second largest change (None with fewer than two fixes)."""
        ranked = sorted(self.intervals, key=lambda name: -self.intervals[name].difference)
        return ranked[1] if len(ranked) > 1 else None

    def change(self, fix: str, against: str, resamples: int = 2000, seed: int = 0) -> Interval:
        """Seven-set mean Spearman of ``fix`` minus that of ``against`` on the same pairs, with its paired bootstrap."""
        return paired_bootstrap(self.gold, self.similarities[fix], self.similarities[against], resamples=resamples, seed=seed)

    @property
    def best(self) -> str:
        """The fix with the largest change, apart or not."""
        return max(self.intervals, key=lambda name: self.intervals[name].difference)

    @property
    def needed(self) -> str | None:
        """The fix the model needs (the largest change among those whose interval lies above 0 and that gain at least
        :data:`MIN_GAIN`), or None."""
        helping = [name for name, interval in self.intervals.items() if effect(interval) == "helps"]
        return max(helping, key=lambda name: self.intervals[name].difference) if helping else None

    def verdict(self) -> str:
        """'needs no fix' or 'needs <fix>': the computed conclusion."""
        return "needs no fix" if self.needed is None else f"needs {self.needed}"


def spearman_table(rows: Mapping[str, Mapping[str, np.ndarray]], gold: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Spearman × 100 of each row's similarities per set, and their mean (``avg``)."""
    table = pd.DataFrame({row: {name: float(spearman_rows(values[name], gold[name])) for name in gold}
                          for row, values in rows.items()}).T
    table["avg"] = table.mean(axis=1)
    return table


def climb(fixes: Mapping[str, Callable], pairs: PairVectors, seed: int = 0, resamples: int = 2000,
          progress=None) -> Ladder:
    """Fit every fix on the corpus's vectors, score each on the pairs, and bootstrap its change against no fix.

    ``progress`` (optional) is called with each fix's name before it is fitted (a progress bar's update).
    """
    gold, raw = pairs.gold(), pairs.cosines()
    rows, intervals, fitted = {NO_FIX: raw}, {}, {}
    for name, make in fixes.items():
        if progress is not None:
            progress(name)
        fitted[name] = make(pairs.vectors)
        rows[name] = pairs.cosines(fitted[name])
        intervals[name] = paired_bootstrap(gold, rows[name], raw, resamples=resamples, seed=seed)
    table = spearman_table(rows, gold)
    table.index.name = "fix (fitted on the sets' sentences, no labels)"
    return Ladder(table, intervals, fitted, rows, gold)
