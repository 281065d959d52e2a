"""How sure is a difference? Its 95 % interval, and "apart" only when the interval excludes 0 (``03_pooling_and_sts.ipynb``).

Where the uncertainty comes from decides the interval:

* **frozen views** (a pooling, averaged GloVe, a calibrator) have no seed: scored twice on the same test pairs they
  give the same numbers. What varies is the *sample of pairs*. :func:`paired_bootstrap` resamples the pairs with
  replacement, each pair keeping its gold score and both similarities, recomputes both Spearman correlations and
  their difference, and reads the 2.5 and 97.5 percentiles (the same as ``scipy.stats.bootstrap(..., paired=True,
  method="percentile")``, which the tests check; written out here so that a table over several test sets can
  resample every set at once);
* **trained runs**: what varies is the seed. :func:`seed_interval` takes the difference seed by seed and gives
  mean ± t·sd/√n (Student's t, n − 1 degrees of freedom, ``scipy.stats.t``);
* **published means over n seeds** (SBERT §6: 10 seeds): the mean's standard error is σ/√n;
  :func:`published_interval` gives ±1.96·√(σ_a²/n_a + σ_b²/n_b) for a difference of two such means.

The one verdict: a difference is **apart** when its interval excludes 0, else a **tie**; every verdict says which
interval it read (:attr:`Interval.method`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95
RESAMPLES = 2000


@dataclass(frozen=True)
class Interval:
    """A difference with its interval, and the kind of interval (``method``), e.g. "paired bootstrap over 1379 pairs"."""

    difference: float
    low: float
    high: float
    method: str

    @property
    def apart(self) -> bool:
        """True when the interval excludes 0."""
        return self.low > 0 or self.high < 0

    @property
    def verdict(self) -> str:
        return "apart" if self.apart else "tie"

    @property
    def direction(self) -> str:
        """'higher' or 'lower' (the first against the second) when apart, else 'tie'."""
        return "tie" if not self.apart else ("higher" if self.difference > 0 else "lower")

    def __str__(self) -> str:
        return f"{self.difference:+.2f} [{self.low:+.2f}, {self.high:+.2f}]: {self.verdict}"

    def described(self) -> str:
        """The interval with its kind: '+0.84 [+0.21, +1.47]: apart (95 % paired bootstrap over 1379 pairs)'."""
        return f"{self} ({CONFIDENCE:.0%} {self.method})".replace("%", " %", 1)


def spearman_rows(similarities: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Spearman × 100 of each row of ``similarities`` (resamples × pairs) with the matching row of ``gold``."""
    return _pearson_rows(stats.rankdata(similarities, axis=-1), stats.rankdata(gold, axis=-1))


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x = x - x.mean(axis=-1, keepdims=True)
    y = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 100 * (x * y).sum(axis=-1) / np.sqrt((x ** 2).sum(axis=-1) * (y ** 2).sum(axis=-1))


def resampled_ranks(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """``scipy.stats.rankdata(values[picks], axis=-1)`` (average ranks per row), by counting: each row's rank of a value
    is how many picked values lie below it plus (its own count + 1) / 2. Linear in the picks, not n log n."""
    dense = stats.rankdata(values, method="dense").astype(np.int64) - 1
    levels, rows = int(dense.max()) + 1, picks.shape[0]
    chosen = dense[picks] + levels * np.arange(rows)[:, None]
    counts = np.bincount(chosen.ravel(), minlength=rows * levels).reshape(rows, levels)
    below = np.cumsum(counts, axis=1) - counts
    row_index = np.arange(rows)[:, None]
    level = dense[picks]
    return below[row_index, level] + (counts[row_index, level] + 1) / 2


def _as_sets(gold, *similarities) -> dict[str, tuple[np.ndarray, ...]]:
    """One test set as ``{"": (gold, *similarities)}``, several as given; each checked for matching lengths."""
    if isinstance(gold, Mapping):
        sets = {name: (gold[name], *(values[name] for values in similarities)) for name in gold}
    else:
        sets = {"": (gold, *similarities)}
    checked = {}
    for name, arrays in sets.items():
        arrays = tuple(np.asarray(values, dtype=np.float64) for values in arrays)
        if not (arrays[0].ndim == 1 and all(a.shape == arrays[0].shape for a in arrays)):
            raise ValueError(f"{name or 'the test set'}: gold scores and the similarity lists must be 1-d and as long "
                             f"as each other; got shapes {[a.shape for a in arrays]}.")
        if len(arrays[0]) < 3:
            raise ValueError(f"{name or 'the test set'} has {len(arrays[0])} pairs: a Spearman correlation's bootstrap "
                             "needs at least 3.")
        checked[name] = arrays
    return checked


def bootstrap_picks(n: int, resamples: int, seed) -> np.ndarray:
    """(``resamples``, ``n``) indices of ``n`` items drawn with replacement, one resample per row: the draws of every
    percentile bootstrap here. ``seed`` is an int, or a numpy Generator to draw several sets from one stream."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def percentile_interval(resampled, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The central ``confidence`` interval of a statistic's resampled values: its (1 − c)/2 and (1 + c)/2 quantiles, the
    resamples where it is undefined (NaN) left out; (NaN, NaN) when none is defined (e.g. a precision with no pair
    called related in any resample)."""
    defined = np.asarray(resampled, dtype=np.float64).ravel()
    defined = defined[~np.isnan(defined)]
    if defined.size == 0:
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return float(low), float(high)


def _bootstrap(sets: Mapping[str, tuple[np.ndarray, ...]], statistic, resamples: int, seed: int, confidence: float,
               label: str, weights: Mapping[str, float] | None = None) -> Interval:
    """``statistic(gold ranks, *similarity ranks)`` (rows → one value per row) on each set and on its resamples,
    averaged over the sets (with ``weights``: their weighted sum); the observed value and the percentile interval of
    the resampled ones."""
    rng = np.random.default_rng(seed)
    observed, resampled = [], []
    for arrays in sets.values():
        observed.append(statistic(*(stats.rankdata(values) for values in arrays)))
        picks = bootstrap_picks(len(arrays[0]), resamples, rng)
        resampled.append(statistic(*(resampled_ranks(values, picks) for values in arrays)))
    if weights is not None:
        w = np.asarray([weights[name] for name in sets], dtype=np.float64)[:, None]
        observed, resampled = [float(np.sum(w[:, 0] * np.asarray(observed)))], [np.sum(w * np.stack(resampled), axis=0)]
    low, high = percentile_interval(_mean_over_sets(resampled), confidence)
    pairs = sum(len(arrays[0]) for arrays in sets.values())
    where = f"{pairs} pairs" if len(sets) == 1 else f"{pairs} pairs of {len(sets)} sets, each resampled"
    return Interval(float(np.mean(observed)), float(low), float(high), f"{label} over {where}, {resamples} resamples")


def _mean_over_sets(resampled: list[np.ndarray]) -> np.ndarray:
    """Each resample's statistic averaged over the sets that define it; NaN where none does (a small set's resample
    can pick one pair over and over, whose ranks have no correlation), which the percentiles then leave out."""
    stacked = np.stack(resampled)
    defined = np.isfinite(stacked).sum(axis=0)
    return np.where(defined > 0, np.nansum(stacked, axis=0) / np.maximum(defined, 1), np.nan)


def paired_bootstrap(gold, similarities_a, similarities_b, resamples: int = RESAMPLES, seed: int = 0,
                     confidence: float = CONFIDENCE, weights: Mapping[str, float] | None = None) -> Interval:
    """Interval of Spearman(a) − Spearman(b) (× 100) over test pairs resampled with replacement, a pair's scores together.

    ``gold``, ``similarities_a``, ``similarities_b``: one test set's arrays, or mappings ``{set name: array}`` for
    several; then each resample draws every set's pairs anew and the difference is of the mean over the sets (the
    seven-set average's interval), or of their ``weights``-weighted sum (``wmean``: each subset a set of its own,
    weighted by its share of its set's pairs, :func:`wmean_strata`).
    """
    difference = lambda g, a, b: _pearson_rows(a, g) - _pearson_rows(b, g)  # noqa: E731 - of ranks: Spearman
    return _bootstrap(_as_sets(gold, similarities_a, similarities_b), difference, resamples, seed, confidence,
                      "paired bootstrap", weights)


def wmean_strata(gold: Mapping[str, np.ndarray], subsets: Mapping[str, Sequence[str]], *similarities: Mapping[str, np.ndarray]):
    """Each set's subsets as sets of their own, with the weights that make their weighted sum the mean over the sets
    of ``wmean`` (subset correlations weighted by size): ``(weights, gold, *similarities)``, each keyed ``set/subset``."""
    weights, split = {}, [dict() for _ in range(1 + len(similarities))]
    for name in gold:
        labels = np.asarray(subsets[name])
        for subset in dict.fromkeys(labels.tolist()):
            chosen = labels == subset
            key = f"{name}/{subset}"
            weights[key] = chosen.sum() / len(labels) / len(gold)
            for target, source in zip(split, (gold, *similarities)):
                target[key] = np.asarray(source[name])[chosen]
    return (weights, *split)


def row_means_interval(gold: Mapping[str, np.ndarray], similarities: Mapping[str, Mapping[str, np.ndarray]], statistic,
                       resamples: int = RESAMPLES, seed: int = 0, confidence: float = CONFIDENCE) -> Interval:
    """Interval of ``statistic({row: mean Spearman × 100 over the sets})``, any function of the rows' averages (a share
    of a gap, a ratio), over test pairs resampled with replacement, each pair keeping every row's similarity
    (``03_pooling_and_sts.ipynb`` §3a). ``statistic`` takes floats for the observed value and arrays (one per resample)."""
    rng = np.random.default_rng(seed)
    observed = {row: float(np.mean([spearman_rows(np.asarray(values[name], dtype=np.float64),
                                                  np.asarray(gold[name], dtype=np.float64)) for name in gold]))
                for row, values in similarities.items()}
    resampled = {row: [] for row in similarities}
    for name in gold:
        values = np.asarray(gold[name], dtype=np.float64)
        picks = bootstrap_picks(len(values), resamples, rng)
        gold_ranks = resampled_ranks(values, picks)
        for row, rows in similarities.items():
            resampled[row].append(_pearson_rows(resampled_ranks(np.asarray(rows[name], dtype=np.float64), picks), gold_ranks))
    distribution = statistic({row: np.nanmean(np.stack(values), axis=0) for row, values in resampled.items()})
    low, high = percentile_interval(distribution, confidence)
    pairs = sum(len(values) for values in gold.values())
    return Interval(float(statistic(observed)), float(low), float(high),
                    f"bootstrap over {pairs} pairs of {len(gold)} sets, each resampled, {resamples} resamples")


def score_interval(gold, similarities, reference: float, resamples: int = RESAMPLES, seed: int = 0,
                   confidence: float = CONFIDENCE) -> Interval:
    """Interval of Spearman(similarities) − ``reference`` (a published figure: a number without pairs) over
    resampled test pairs; ``gold`` and ``similarities`` as in :func:`paired_bootstrap`. Only our sample varies."""
    return _bootstrap(_as_sets(gold, similarities), lambda g, a: _pearson_rows(a, g) - reference, resamples, seed,
                      confidence, "bootstrap of our score")


def aggregation_gap_interval(gold: Mapping[str, np.ndarray], similarities: Mapping[str, np.ndarray],
                             subsets: Mapping[str, Sequence[str]], resamples: int = RESAMPLES, seed: int = 0,
                             confidence: float = CONFIDENCE) -> Interval:
    """Interval of ``all`` − ``wmean`` (Spearman × 100 of the same similarities, pooled or averaged per subset by size),
    averaged over the sets, with each set's pairs resampled within their subsets (so the subset sizes, hence the
    ``wmean`` weights, stay as they are)."""
    rng = np.random.default_rng(seed)
    observed, resampled = [], []
    for name in gold:
        g, x, labels = (np.asarray(gold[name], dtype=np.float64), np.asarray(similarities[name], dtype=np.float64),
                        np.asarray(subsets[name]))
        members = [np.flatnonzero(labels == subset) for subset in dict.fromkeys(labels.tolist())]
        weights = np.asarray([len(m) for m in members]) / len(labels)
        observed.append(float(_pearson_rows(stats.rankdata(x), stats.rankdata(g))
                              - sum(w * _pearson_rows(stats.rankdata(x[m]), stats.rankdata(g[m])) for w, m in zip(weights, members))))
        picks = [m[bootstrap_picks(len(m), resamples, rng)] for m in members]
        pooled = np.concatenate(picks, axis=1)
        per_subset = sum(w * _pearson_rows(resampled_ranks(x, p), resampled_ranks(g, p)) for w, p in zip(weights, picks))
        resampled.append(_pearson_rows(resampled_ranks(x, pooled), resampled_ranks(g, pooled)) - per_subset)
    low, high = percentile_interval(_mean_over_sets(resampled), confidence)
    pairs = sum(len(values) for values in gold.values())
    return Interval(float(np.mean(observed)), float(low), float(high),
                    f"bootstrap over {pairs} pairs of {len(gold)} sets, resampled within each subset, {resamples} resamples")


def paired_mean_interval(a: Sequence[float], b: Sequence[float], resamples: int = RESAMPLES, seed: int = 0,
                         confidence: float = CONFIDENCE, unit: str = "queries") -> Interval:
    """Interval of mean(a) − mean(b) for two outcomes of the same items (queries), the items resampled with replacement,
    each keeping both of its outcomes (``03_pooling_and_sts.ipynb`` §6: recall@1 or MRR before and after reranking)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape or len(a) < 2:
        raise ValueError(f"Give two 1-d outcome lists with one number for each of the same {unit} (at least 2); "
                         f"got shapes {a.shape} and {b.shape}.")
    low, high = percentile_interval((a - b)[bootstrap_picks(len(a), resamples, seed)].mean(axis=1), confidence)
    return Interval(float((a - b).mean()), low, high,
                    f"paired bootstrap over {len(a)} {unit}, {resamples} resamples")


def seed_interval(differences: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Interval of the mean difference over seeds: mean ± t·sd/√n, from one difference per seed (at least 2)."""
    values = np.asarray(differences, dtype=np.float64)
    if values.ndim != 1 or len(values) < 2:
        raise ValueError(f"A spread over seeds needs the difference from at least 2 seeds; got {values.size}.")
    mean, error = float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))
    half = float(stats.t.ppf(1 - (1 - confidence) / 2, df=len(values) - 1)) * error
    return Interval(mean, mean - half, mean + half, f"t interval over {len(values)} seeds")


def single_run_interval(run: float, seed_scores: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Interval of one run of a configuration minus the mean of ``seed_scores`` (another configuration over n seeds),
    assuming both configurations' runs spread alike: ± t·s·√(1 + 1/n), s the seeds' sample standard deviation."""
    scores = np.asarray(seed_scores, dtype=np.float64)
    if len(scores) < 2:
        raise ValueError(f"A spread over seeds needs at least 2 seeds; got {len(scores)}.")
    difference = float(run - scores.mean())
    half = float(stats.t.ppf(1 - (1 - confidence) / 2, df=len(scores) - 1) * scores.std(ddof=1) * np.sqrt(1 + 1 / len(scores)))
    return Interval(difference, difference - half, difference + half,
                    f"t interval: one run against the mean of {len(scores)} seeds, their spread")


def published_interval(mean_a: float, sd_a: float, seeds_a: int, mean_b: float, sd_b: float, seeds_b: int,
                       confidence: float = CONFIDENCE) -> Interval:
    """Interval of a difference of two published means over seeds: ± z·√(σ_a²/n_a + σ_b²/n_b) (σ/√n each)."""
    if min(seeds_a, seeds_b) < 1 or min(sd_a, sd_b) < 0:
        raise ValueError(f"Seeds must be at least 1 and spreads never negative; got n = {seeds_a}, {seeds_b}, "
                         f"σ = {sd_a}, {sd_b}.")
    half = float(stats.norm.ppf(1 - (1 - confidence) / 2)) * float(np.sqrt(sd_a ** 2 / seeds_a + sd_b ** 2 / seeds_b))
    difference = mean_a - mean_b
    return Interval(difference, difference - half, difference + half,
                    f"normal interval of two published means, σ/√n over {seeds_a} and {seeds_b} seeds")

