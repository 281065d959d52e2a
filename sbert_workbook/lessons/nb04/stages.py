"""Lesson 04 §5: the student trained in two stages (NLI with the classification objective, then STS-B train with the
regression objective) over several seeds, scored on the seven STS sets before and after each stage
(``04_siamese_finetuning.ipynb``).

Seed ``SEED``'s run is the one the table shows, with live training curves, scored on all seven sets; the other seeds
train the same way, silently (no dev scoring, no checkpoints), and are scored on STS-B test only (the set the
regression stage trains for, and the paper's comparators' column), so that each stage's move on it comes with a t
interval over the seeds. One student is in memory at a time.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.sts import SEVEN_STS_SETS, evaluate_sts
from sbert_workbook.lessons.nb04.lesson import NOTEBOOK, Lesson04, free
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.published import SBERT_TABLE2
from sbert_workbook.published.sbert_recipe import SBERT_NLI_RECIPE, SBERT_STSB_RECIPE
from sbert_workbook.training.fitting import TrainingConfig, TrainingResult, fit
from sbert_workbook.training.plots import LiveTrainingPlot, before_after_figure, before_after_table, paper_stages_table
from sbert_workbook.training.siamese import SiameseModel

#: Each row of the before/after table, in order: the student before training, after each stage.
BEFORE, AFTER_NLI, AFTER_BOTH = "student before training", "+ NLI (softmax)", "+ NLI + STS-B (regression)"
REFERENCE = "trained reference: all-MiniLM-L6-v2"
#: The moves §5 reads, each (later stage, earlier stage), and the columns it reads them on.
MOVES = {"NLI then STS-B training": (AFTER_BOTH, BEFORE), "the NLI stage": (AFTER_NLI, BEFORE),
         "the STS-B stage": (AFTER_BOTH, AFTER_NLI)}
COLUMNS = {"stsb": "STS-B test"}
#: The moves §5 records as its verdicts (tools/story_check.py holds quick mode's to full mode's).
VERDICTS = ("NLI then STS-B training, STS-B test",)


@dataclass
class Stages:
    """§5's runs: seed SEED's seven-set tables (its rows of the before/after table) and every seed's scores."""

    tables: dict[str, pd.DataFrame]
    per_seed: dict[int, dict[str, pd.Series]]  # seed → stage → Spearman per set scored (STS-B test for every seed)
    nli_run: TrainingResult
    sts_run: TrainingResult
    configs: dict[str, TrainingConfig] = field(repr=False, default_factory=dict)

    def scores(self, column: str) -> pd.DataFrame:
        """One row per seed, one column per stage: Spearman × 100 on ``column`` (a set every seed was scored on)."""
        return pd.DataFrame({seed: {stage: table[column] for stage, table in stages.items()}
                             for seed, stages in self.per_seed.items()}).T.rename_axis("seed")

    def move(self, later: str, earlier: str, column: str) -> uncertainty.Interval:
        """``later`` minus ``earlier`` on ``column``, seed by seed: the t interval of the mean difference over seeds."""
        scores = self.scores(column)
        return uncertainty.seed_interval((scores[later] - scores[earlier]).tolist())


def configs(lesson: Lesson04) -> dict[str, TrainingConfig]:
    """The two stages' settings for seed SEED (the paper's recipe; steps and sizes from the manifest)."""
    sizes = lesson.sizes
    shared = dict(batch_size=sizes.BATCH_SIZE, learning_rate=lesson.student_lr, seed=lesson.seed, device=str(lesson.device),
                  eval_every=sizes.EVAL_EVERY, checkpoint_every=100, save_checkpoints=sizes.SAVE_CHECKPOINTS)
    return {"nli": TrainingConfig(max_steps=sizes.NLI_STEPS, **shared),
            "stsb": TrainingConfig(max_steps=sizes.STSB_STEPS, epochs=sizes.STSB_EPOCHS, **shared)}


def seven_sets(lesson: Lesson04, model, datasets=SEVEN_STS_SETS) -> pd.DataFrame:
    """Spearman × 100 of ``model``'s cosines on the STS test sets (STS_LIMIT pairs each) and, for several, their average."""
    if not isinstance(model, SiameseModel):  # the trained reference, an Encoder
        return evaluate_sts(model, datasets, pooling="mean", limit=lesson.sizes.STS_LIMIT)
    table = evaluate_sts(model.encoder(), datasets, pooling=model.pooling, limit=lesson.sizes.STS_LIMIT)
    model.train()  # encoder() switched it to eval mode
    return table


def train_in_two_stages(lesson: Lesson04) -> Stages:
    """§5: for each of TRAIN_SEEDS seeds, a fresh student trained on NLI, then on STS-B train; seven sets after each."""
    stage_configs = configs(lesson)
    seeds = range(lesson.seed, lesson.seed + lesson.sizes.TRAIN_SEEDS)
    tables, per_seed, runs, before = {}, {}, {}, None
    for seed in seeds:
        shown = seed == lesson.seed
        student = lesson.new_student(seed=seed)
        datasets = SEVEN_STS_SETS if shown else tuple(COLUMNS)
        if before is None or not lesson.pretrained_student:  # a pre-trained student is the same before every seed
            before = seven_sets(lesson, student, datasets)
        stages = {BEFORE: before}
        for stage, data, objective, row in (("nli", lesson.nli, "softmax", AFTER_NLI), ("stsb", lesson.stsb_train, "regression", AFTER_BOTH)):
            config = replace(stage_configs[stage], seed=seed) if shown else replace(
                stage_configs[stage], seed=seed, save_checkpoints=False, eval_every=None, progress=False)
            live = LiveTrainingPlot(f"{data.description}: {objective} objective (seed {seed})", every=10) if shown else None
            run = fit(student, data, objective, config, dev=lesson.dev if shown else None,
                      output_dir=lesson.runs / f"{stage}-seed-{seed}", callback=live)
            if shown:
                runs[stage] = run
                student.renamed(f"{student.resolved.model_id} + {'NLI' if stage == 'nli' else 'STS-B'} ({run.steps} steps)",
                                "trained in this notebook")
            stages[row] = seven_sets(lesson, student, datasets)
        per_seed[seed] = {name: table["spearman"] for name, table in stages.items()}
        if shown:
            tables = dict(stages)
        del student
        free()
    tables[REFERENCE] = seven_sets(lesson, lesson.reference)
    return Stages(tables, per_seed, runs["nli"], runs["stsb"], stage_configs)


def seeds_table(lesson: Lesson04, stages: Stages) -> pd.DataFrame:
    """Each seed's Spearman × 100 after each stage on STS-B test, with their mean and sd over the seeds."""
    rows = {}
    for column, label in COLUMNS.items():
        scores = stages.scores(column)
        for stage in scores.columns:
            rows[(label, stage)] = {"mean": scores[stage].mean(), "sd": scores[stage].std(ddof=1),
                                    **{f"seed {seed}": value for seed, value in scores[stage].items()}}
    table = pd.DataFrame.from_dict(rows, orient="index").round(2).rename_axis(["set", "stage"])
    return with_provenance(table, model=f"{lesson.student_name}, one fresh student per seed, the two stages of the table above",
                           pooling="mean", aggregation="all: the test pairs in one Spearman",
                           split=f"test, random sample of at most {lesson.sizes.STS_LIMIT} pairs per set"
                           if lesson.sizes.STS_LIMIT else "test, all pairs")


def moves(stages: Stages) -> dict[str, uncertainty.Interval]:
    """Every move of :data:`MOVES` on every column of :data:`COLUMNS`, labelled '<move>, <column>'."""
    return {f"{move}, {label}": stages.move(later, earlier, column)
            for move, (later, earlier) in MOVES.items() for column, label in COLUMNS.items()}


def stage_note(lesson: Lesson04, stages: Stages) -> str:
    """What to read the rows against: the student's start, its steps, and the paper's comparators."""
    nli, sts, batch = stages.nli_run.steps, stages.sts_run.steps, stages.configs["nli"].batch_size
    paper = paper_stages_table()
    seeds, epochs = SBERT_STSB_RECIPE.settings["seeds"], SBERT_STSB_RECIPE.settings["epochs"]
    row, largest = SBERT_TABLE2.largest_spread()
    paper_says = (f"The paper's comparators on STS-B test: after NLI, {paper['paper row'].iloc[0]} reaches "
                  f"{paper['stsb'].iloc[0]:.2f} ({SBERT_NLI_RECIPE.settings['epochs']} epoch of SNLI + MultiNLI); after NLI "
                  f"then STS-B train ({epochs} epochs), {paper['paper row'].iloc[1]} reaches {paper['stsb'].iloc[1]:.2f} ± "
                  f"{paper['±'].iloc[1]:.2f} (mean ± sd over {seeds} seeds). Table 2's ± reaches {largest:.2f} ({row}), so "
                  "one run can land that far from the paper's mean with nothing wrong.")
    if lesson.pretrained_student and lesson.quick:
        return (f"Quick mode fine-tuned {lesson.student_name} for only {nli} NLI and {sts} STS-B steps ({nli * batch:,} and "
                f"{sts * batch:,} pairs), far from the paper's full epochs: read the rows as the direction training moves in, "
                f"not as a reproduction; `QUICK=False` on a GPU runs the recipe. {paper_says}")
    if lesson.pretrained_student:
        return (f"{paper_says} Read the '+ NLI' row against the first and the '+ NLI + STS-B' row against the second; if "
                "AllNLI train was not available (see above), the NLI stage saw far less data than the paper's.")
    return (f"This student started from **random weights**, without BERT's pre-training, and saw {nli * batch:,} NLI pairs "
            f"and {sts * batch:,} STS-B pairs: its numbers show the mechanics, not a reproduction. The paper's recipe starts "
            f"from pre-trained BERT-base (`MODEL=\"bert-base-uncased\"`, `QUICK=False`, a GPU). {paper_says}")


def before_after_report(lesson: Lesson04, stages: Stages) -> Report:
    """§5: seed SEED's seven sets before and after each stage, the paper's rows, every seed, each move's interval."""
    from IPython.display import Markdown

    table = before_after_table(stages.tables)
    intervals = moves(stages)
    n = len(stages.per_seed)
    found = {label: intervals[label].direction for label in VERDICTS}
    said = [f"{label}: {intervals[label].described()}" for label in intervals]
    verdicts = {}
    for label, direction in found.items():
        verdicts.update(verdict(NOTEBOOK, f"{label}, against the untrained student" if label.startswith("NLI then") else label,
                                direction))
    return Report(
        Markdown(f"**Spearman × 100, cosine similarity, seed {lesson.seed}.** Student: {lesson.student_name} "
                 f"({stages.nli_run.steps} NLI steps, then {stages.sts_run.steps} STS-B steps); the caption names each row's model."),
        table, Markdown("**The paper's row for each stage** (bert-base-uncased with SBERT's full recipe; quoted, not re-run):"),
        paper_stages_table(tuple(table.columns)), before_after_figure(table),
        Markdown(f"Average over the seven sets: {table.loc[BEFORE, 'avg']:.1f} before, {table.loc[AFTER_BOTH, 'avg']:.1f} after "
                 f"training; STS-B test: {table.loc[BEFORE, 'stsb']:.1f} before, {table.loc[AFTER_BOTH, 'stsb']:.1f} after. "
                 f"{stage_note(lesson, stages)}"),
        f"The same two stages trained with {n} seeds (SEED, SEED + 1, …), each move the later stage minus the earlier one, "
        "seed by seed:", seeds_table(lesson, stages), *said,
        interval_forest_figure(intervals, f"What each stage moves, over {n} seeds"), verdicts=verdicts)
