"""Lesson 08 §3 and §3.1, fewer numbers: the first k dimensions, centred or not, PCA-k and whitening-k against float32,
and a model trained to be cut (Matryoshka) against the same training without it (``08_what_an_embedding_costs.ipynb``).

A CPU's quick mode offers §3.1's measured run instead of training (``matryoshka_cpu.json``, written by
``tools/matryoshka_run.py`` with :data:`CPU_RUN_STEPS`)."""
from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from sbert_workbook.calibration.calibrators import Whitening
from sbert_workbook.cost import frontier
from sbert_workbook.cost.frontier import Frontier
from sbert_workbook.cost.storage import Float32, Reduced
from sbert_workbook.calibration.dimensions import CentredFirstDimensions, FirstDimensions, PrincipalComponents
from sbert_workbook.diagnosis.ladder import PairVectors, effect, spearman_table
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.uncertainty import Interval, seed_interval
from sbert_workbook.lessons.manifests.nb08 import MANIFEST
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, Lesson08, captioned, forest, measure
from sbert_workbook.lessons.report import Report, verdict


def fewer_dimensions(lesson: Lesson08) -> frontier.Frontier:
    """§3: the first k dimensions (as they are, and centred as PCA-k centres), PCA-k and whitening-k for every k of
    DIMENSIONS, beside float32."""
    ks = [k for k in lesson.sizes.DIMENSIONS if k < lesson.dimensions]
    storages = [Float32()]
    for make in (FirstDimensions, CentredFirstDimensions, PrincipalComponents, Whitening):
        storages += [Reduced(make(k)) for k in ks]
    return measure(lesson, storages)


@dataclass
class MatryoshkaRun:
    """§3.1: STS avg of the first k dimensions (rows: k) of the start model and, one column per seed, of the model
    trained with multiple negatives ranking alone (``plain``) and with its Matryoshka sum; each k's Matryoshka − plain
    change over the seeds."""

    trained: str
    start: pd.Series
    plain: pd.DataFrame
    matryoshka: pd.DataFrame
    changes: dict[int, Interval]


def first_k_sts(pairs: PairVectors, ks) -> pd.Series:
    """STS avg (Spearman × 100, mean of the sets) of the first k dimensions, for each k."""
    rows = {k: pairs.cosines(lambda vectors, k=k: vectors[:, :k]) for k in ks}
    return spearman_table(rows, pairs.gold())["avg"]


#: The steps §3.1's cell offers a CPU (tools/matryoshka_run.py measures that run and stores it beside this module).
CPU_RUN_STEPS = 200
CPU_RUN_FILE = Path(__file__).with_name("matryoshka_cpu.json")


def measured_cpu_run(full_steps: int, path: Path = CPU_RUN_FILE) -> str:
    """What the offered CPU run cost and showed when it was measured (tools/matryoshka_run.py), and what full mode's
    ``full_steps`` per run would cost at that pace; '' if never measured."""
    if not path.is_file():
        return ""
    run = json.loads(path.read_text(encoding="utf-8"))
    ks = sorted(run["first_k"], key=lambda k: -int(k))
    full_hours = run["seconds"] * full_steps / run["steps"] / 3600  # training dominates; it grows with the steps
    changes = "; ".join(f"k = {k}: {run['first_k'][k]['Matryoshka − plain']}" for k in ks)
    widest, smallest = run["first_k"][ks[0]], run["first_k"][ks[-1]]
    return (f"Measured: {run['steps']} steps × {run['seeds']} seeds × two objectives with {run['model_name']} "
            f"took {run['seconds'] / 60:.0f} min on {run['nproc']} CPU cores and peaked at {run['peak_rss_gb']:.1f} GB. "
            f"Matryoshka − plain, STS avg of the first k dimensions: {changes}. The start model, not trained for it, "
            f"already kept {smallest['start model']:.1f} of its {widest['start model']:.1f} in its first {ks[-1]} "
            f"dimensions. Full mode's {full_steps} steps per run would take about {full_hours:.1f} h at that pace: a "
            "GPU's run.")


def matryoshka(lesson: Lesson08) -> MatryoshkaRun | None:
    """§3.1: train MODEL twice per seed on NLI (anchor, entailment) pairs, with multiple negatives ranking and with
    its Matryoshka sum over the full width and every k of DIMENSIONS, the same steps, batches and seed; score the
    first k dimensions of each. None (and why, printed) when MATRYOSHKA_STEPS is None."""
    from sbert_workbook.data.loaders import load_nli
    from sbert_workbook.training.examples import concatenate, nli_positive_pairs
    from sbert_workbook.training.fitting import TrainingConfig, fit
    from sbert_workbook.training.siamese import SiameseModel

    s = lesson.sizes
    if not s.MATRYOSHKA_STEPS:
        print(f"Left out in this mode: MATRYOSHKA_STEPS is None. Full mode trains it ({s.MATRYOSHKA_SEEDS} seeds × two "
              f"objectives); to run it here, set SIZES = {{\"MATRYOSHKA_STEPS\": {CPU_RUN_STEPS}}}. "
              f"{measured_cpu_run(MANIFEST.sizes['MATRYOSHKA_STEPS'].full)}")
        return None
    ks = (lesson.dimensions, *[k for k in s.DIMENSIONS if k < lesson.dimensions])
    pairs = concatenate(*(nli_positive_pairs(load_nli(name)) for name in ("snli", "mnli")))
    seeds = list(range(lesson.seed, lesson.seed + s.MATRYOSHKA_SEEDS))
    scores, steps_run = {"mnrl": {}, "matryoshka": {}}, set()
    epochs = math.ceil(s.MATRYOSHKA_STEPS * s.MATRYOSHKA_BATCH / len(pairs))  # max_steps cuts epochs, never adds them
    for seed in seeds:
        for objective, by_seed in scores.items():
            model = SiameseModel.from_pretrained(lesson.encoder.resolved, device=lesson.device, announce=False)
            config = TrainingConfig(batch_size=s.MATRYOSHKA_BATCH, learning_rate=2e-5, max_steps=s.MATRYOSHKA_STEPS,
                                    epochs=epochs, seed=seed, device=str(lesson.device), save_checkpoints=False,
                                    progress=False, matryoshka_dimensions=ks)
            steps_run.add(fit(model, pairs, objective, config).steps)
            vectors = model.encoder().encode(lesson.pairs.corpus, batch_size=64, progress=False).float().numpy()
            by_seed[seed] = first_k_sts(PairVectors(lesson.pairs.sets, lesson.pairs.corpus, vectors), ks)
            del model
    plain, nested = (pd.DataFrame(scores[name]).rename_axis(index="k", columns="seed") for name in ("mnrl", "matryoshka"))
    changes = {k: seed_interval((nested.loc[k] - plain.loc[k]).tolist()) for k in ks}
    trained = (f"{lesson.encoder.name} trained {'/'.join(map(str, sorted(steps_run)))} steps per run on SNLI + MultiNLI dev (anchor, "
               f"entailment) pairs, batch {s.MATRYOSHKA_BATCH}, learning rate 2e-5, seeds {seeds[0]}–{seeds[-1]}: with "
               f"multiple negatives ranking (plain), and with its Matryoshka sum over k = {', '.join(map(str, ks))}")
    return MatryoshkaRun(trained, first_k_sts(lesson.pairs, ks), plain, nested, changes)


#: §3's reductions: the row-name prefix of each (its rows read "<prefix> (k = 32)") and its label.
REDUCTIONS = {"first k dimensions": "first k", "first k dimensions, centred": "first k, centred", "PCA-k": "PCA-k",
              "whitening": "whitening-k"}


def reduction_rows(table: pd.DataFrame, prefix: str) -> list[str]:
    """The rows of one reduction, every k (exact prefix: "first k dimensions" is not "first k dimensions, centred")."""
    return [name for name in table.index if name.startswith(f"{prefix} (k = ")]


def dimensions_report(lesson: Lesson08, run: Frontier) -> Report:
    """§3: first-k (as is and centred), PCA-k and whitening-k at every k: the table, STS against k per method, which
    keeps most at the smallest k against the runner-up, and the like-for-like comparisons (centred against centred)."""
    table = captioned(run.table.round(4), lesson, "PCA-k, whitening-k and the centred first k fitted on the calibration sentences")
    figure = go.Figure()
    for prefix, label in REDUCTIONS.items():
        rows = reduction_rows(run.table, prefix)
        figure.add_trace(go.Scatter(x=run.table.loc[rows, "dimensions"], y=run.table.loc[rows, "STS avg"],
                                    mode="lines+markers", name=label))
    figure.add_hline(y=run.table["STS avg"].iloc[0], line={"dash": "dot"}, annotation_text="float32, all dimensions")
    figure.update_layout(title=f"{lesson.encoder.name}: STS against the dimensions kept", xaxis_title="k (log scale)",
                         yaxis_title="STS avg (Spearman × 100)", xaxis_type="log", height=380)
    smallest = int(run.table.loc[list(run.intervals), "dimensions"].min())
    rows = {label: next(name for name in reduction_rows(run.table, prefix) if run.table.loc[name, "dimensions"] == smallest)
            for prefix, label in REDUCTIONS.items()}
    best, runner_up = sorted(rows, key=lambda label: -run.table.loc[rows[label], "STS avg"])[:2]
    change = functools.cache(lambda a, b: run.change(rows[a], rows[b], resamples=lesson.sizes.RESAMPLES,  # noqa: E731
                                                     seed=lesson.seed))  # a pair asked twice is bootstrapped once
    gap, like, centring = change(best, runner_up), change("first k, centred", "PCA-k"), change("first k, centred", "first k")
    said = (f"At k = {smallest}: " + ", ".join(f"{label} {run.table.loc[row, 'STS avg']:.2f}" for label, row in rows.items())
            + f". {best} − {runner_up}: {gap.described()}. Like for like, both centred: first k, centred − PCA-k: "
            f"{like.described()}; what centring alone does to the first k: {centring.described()}.")
    first = max(("first k", "first k, centred"), key=lambda label: run.table.loc[rows[label], "STS avg"])
    fitted_above = [label for label in ("PCA-k", "whitening-k") if change(first, label).direction == "lower"]
    verdicts = verdict(NOTEBOOK, f"a fitted reduction (PCA-k, whitening-k) surely keeps more STS than the first k at "
                                 f"k = {smallest}", "yes" if fitted_above else "no")
    verdicts |= verdict(NOTEBOOK, f"PCA-k surely keeps more STS than the centred first k at k = {smallest}",
                        "yes" if like.direction == "lower" else "no")
    return Report(table, figure, said, forest(run, f"{lesson.encoder.name}: STS change against float32, every k"),
                  verdicts=verdicts)


def matryoshka_report(lesson: Lesson08, run: MatryoshkaRun | None) -> Report:
    """§3.1: the first k dimensions of the start model, of the plain-trained and of the Matryoshka-trained model at
    every k (means over seeds), each k's Matryoshka − plain change with its interval over seeds, drawn."""
    if run is None:
        return Report("Nothing to report in this mode: the cell above says how to run it.")
    table = pd.DataFrame({"start model": run.start, "trained, plain": run.plain.mean(axis=1),
                          "trained, Matryoshka": run.matryoshka.mean(axis=1)})
    table.index.name = "k"
    table["Matryoshka − plain"] = [run.changes[k].described() for k in table.index]
    figure = go.Figure()
    for column in ("start model", "trained, plain", "trained, Matryoshka"):
        figure.add_trace(go.Scatter(x=table.index, y=table[column], mode="lines+markers", name=column))
    figure.update_layout(title=f"{lesson.encoder.name}: STS of the first k dimensions", xaxis_title="k (log scale)",
                         yaxis_title="STS avg (Spearman × 100)", xaxis_type="log", height=380)
    smallest = int(table.index.min())
    change = run.changes[smallest]
    said = ("Matryoshka − plain at every k: " + "; ".join(f"k = {k}: {interval.described()} ({effect(interval)})"
                                                           for k, interval in run.changes.items())
            + f". At k = {smallest} the Matryoshka-trained model's first dimensions score "
            f"{table.loc[smallest, 'trained, Matryoshka']:.2f} against the plain-trained model's "
            f"{table.loc[smallest, 'trained, plain']:.2f}.")
    return Report(run.trained, with_provenance(table.round(2), model=lesson.encoder, pooling="mean",
                                               aggregation="STS avg: mean Spearman × 100 over the seven sets; each "
                                                           "trained column: the mean over seeds; the change: t interval "
                                                           "over seeds", split=lesson.split.split("; retrieval")[0]),
                  figure, said, interval_forest_figure({f"k = {k}": interval for k, interval in run.changes.items()},
                                                       f"{lesson.encoder.name}: Matryoshka − plain, first k dimensions"),
                  verdicts=verdict(NOTEBOOK, f"Matryoshka training against plain training, first {smallest} dimensions",
                                   effect(change)))
