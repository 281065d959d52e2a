"""Lesson 04 §6: the pooling and concatenation ablation in small form beside SBERT's Table 6, and §6.1's seeds: how far
the seed alone moves one run, and which differences that spread swallows (``04_siamese_finetuning.ipynb``).
"""
from __future__ import annotations

import pandas as pd

from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import describe_split, inherit_provenance, with_provenance
from sbert_workbook.lessons.nb04.lesson import NOTEBOOK, Lesson04, free
from sbert_workbook.lessons.report import Report, verdict
from sbert_workbook.published import SBERT_TABLE2, SBERT_TABLE6, SBERT_TABLE6_CONCATENATIONS, SBERT_TABLE6_SEEDS
from sbert_workbook.training import ablations, seeds
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.losses import SBERT_PAIR_FEATURES

DEFAULT = ("mean", SBERT_PAIR_FEATURES)


def label(pooling: str, parts) -> str:
    """'max pooling, (u, v, |u-v|)': one variant's name in tables, figures and verdicts."""
    return f"{pooling} pooling, {ablations.concatenation_label(parts)}"


def predict_lowest():
    """§6's predict question: which of four concatenations Table 6 puts lowest (read from ``published``)."""
    options = [SBERT_TABLE6_CONCATENATIONS[parts] for parts in (("u", "v"), ("|u-v|",), ("u", "v", "|u-v|"), ("u", "v", "|u-v|", "u*v"))]
    return predict_question(
        "SBERT's Table 6 trains the NLI classifier on different concatenations of u and v, then scores the encoder's "
        "cosine on STS-B dev. Of these four, which gives the lowest score?",
        options, min(options, key=lambda row: SBERT_TABLE6.value(row, "nli")),
        "On (u, v) alone the linear classifier computes W₁u + W₂v: each sentence adds its own part and nothing compares "
        "the two, so the loss never asks the encoder to put related sentences close together. The paper names the "
        "element-wise difference |u − v| the most important component. The next cell prints the table.")


def table6() -> pd.DataFrame:
    return SBERT_TABLE6.frame()


def table6_report() -> Report:
    """§6: Table 6 as printed, and every difference the paper's conclusions quote, computed from it."""
    from IPython.display import Markdown

    printed = table6()
    poolings = printed.loc[["MEAN", "MAX", "CLS"], ["nli", "stsb"]]
    concatenations = printed.loc[list(SBERT_TABLE6_CONCATENATIONS.values()), "nli"]
    span = poolings.max() - poolings.min()
    drop = (concatenations["(u, v, |u-v|)"] - concatenations["(u, v)"],
            concatenations["(u, v, |u-v|, u*v)"] - concatenations["(u, v, u*v)"])
    return Report(
        Markdown(f"**SBERT {SBERT_TABLE6.table}, as printed** (from `sbert_workbook.published`; STS-B dev, mean of "
                 f"{SBERT_TABLE6_SEEDS} seeds): column `nli` trained on SNLI + MultiNLI with the classification objective, "
                 "column `stsb` trained on STS-B train with the regression objective (the paper filled it for the pooling rows only)."),
        printed,
        Markdown(f"* **Classification on NLI:** the three poolings lie within {span['nli']:.2f} points of each other — *\"the "
                 f"pooling strategy has a rather minor impact\"*; the seven concatenations span "
                 f"{concatenations.max() - concatenations.min():.2f} points — *\"the impact of the concatenation mode is much "
                 f"larger\"*. Dropping $|u-v|$ costs {drop[0]:.2f} points from $(u, v, |u-v|)$ and {drop[1]:.2f} from "
                 "$(u, v, |u-v|, u*v)$: *\"the most important component is the element-wise difference\"*; adding $u*v$ to "
                 f"$(u, v, |u-v|)$ moves {concatenations['(u, v, |u-v|, u*v)'] - concatenations['(u, v, |u-v|)']:+.2f}.\n"
                 f"* **Regression on STS-B:** the poolings span {span['stsb']:.2f} points — *\"the pooling strategy has a large "
                 f"impact\"*: MAX is {poolings.loc['MEAN', 'stsb'] - poolings.loc['MAX', 'stsb']:.2f} points below MEAN and "
                 f"{poolings.loc['CLS', 'stsb'] - poolings.loc['MAX', 'stsb']:.2f} below CLS."))


def ablation_config(lesson: Lesson04, seed: int | None = None) -> TrainingConfig:
    """The classification runs of §6 and §6.1: ABLATION_STEPS steps, no dev scoring during training, no checkpoints."""
    return TrainingConfig(batch_size=lesson.sizes.BATCH_SIZE, learning_rate=lesson.student_lr, max_steps=lesson.sizes.ABLATION_STEPS,
                          seed=lesson.seed if seed is None else seed, device=str(lesson.device), progress=False,
                          save_checkpoints=False)


def ablation_model(lesson: Lesson04) -> str:
    return f"{lesson.student_name}, one fresh model per row, {lesson.sizes.ABLATION_STEPS} NLI steps ({lesson.nli.description})"


def train_ablation(lesson: Lesson04, variants) -> pd.DataFrame:
    """§6: one fresh student per (pooling, concatenation), ABLATION_STEPS classification steps; STS-B dev Spearman of each."""
    chosen = list(variants)[:lesson.sizes.ABLATION_VARIANTS]
    table = ablations.run_ablation(lambda pooling, parts: lesson.new_student(pooling, parts), chosen, lesson.nli, lesson.dev,
                                   ablation_config(lesson), lesson.runs / "ablation")
    free()
    return with_provenance(table, model=ablation_model(lesson), pooling="per row (the pooling table) or mean (the concatenation table)",
                           aggregation="all: the dev pairs in one Spearman", split=describe_split(lesson.dev))


def ablation_report(lesson: Lesson04, ablation: pd.DataFrame) -> Report:
    """§6: our runs beside Table 6's rows, one table per choice varied, and the concatenation figure."""
    from IPython.display import Markdown

    concatenation = ablations.beside_paper(ablation, "concatenation")
    return Report(Markdown(f"**STS-B dev Spearman × 100** ({len(lesson.dev)} pairs), student {lesson.student_name}, "
                           f"{lesson.sizes.ABLATION_STEPS} NLI steps per variant; paper: BERT-base, one epoch of SNLI + MultiNLI."),
                  ablations.beside_paper(ablation, "pooling"), concatenation,
                  ablations.ablation_figure(concatenation, "Concatenation ablation: ours (small) beside the paper"))


def default_over_seeds(lesson: Lesson04, ablation: pd.DataFrame) -> pd.Series:
    """§6.1: the default variant (mean pooling, (u, v, |u-v|)) trained with SEED_RUNS seeds, all else as in §6."""
    pooling, parts = DEFAULT
    done = ablation[(ablation["pooling"] == pooling) & (ablation["concatenation"] == ablations.concatenation_label(parts))]

    def score(seed: int) -> float:
        if seed == lesson.seed and len(done):  # §6 already trained it with SEED
            return done["dev_spearman"].item()
        model = lesson.new_student(pooling, parts, seed=seed)
        fit(model, lesson.nli, "softmax", ablation_config(lesson, seed), output_dir=lesson.runs / f"seed-{seed}")
        scored = ablations.dev_spearman(model, lesson.dev)
        del model
        free()
        return scored

    return seeds.scores_over_seeds(score, range(lesson.seed, lesson.seed + lesson.sizes.SEED_RUNS))


def readings(ablation: pd.DataFrame, seed_scores: pd.Series) -> dict[str, uncertainty.Interval]:
    """Each variant's one run minus the default's mean over seeds, with the interval the seeds' spread gives."""
    found = {}
    for row in ablation.itertuples():
        if (row.pooling, row.concatenation) != (DEFAULT[0], ablations.concatenation_label(DEFAULT[1])):
            found[f"{row.pooling} pooling, {row.concatenation}"] = uncertainty.single_run_interval(row.dev_spearman, seed_scores)
    return found


def seed_report(lesson: Lesson04, ablation: pd.DataFrame, seed_scores: pd.Series) -> Report:
    """§6.1: the default's scores over seeds, their spread, and every ablation row read against it (the verdicts)."""
    spread = seeds.seed_spread(seed_scores)
    scores = with_provenance(seed_scores.to_frame("STS-B dev Spearman × 100"), model=ablation_model(lesson).replace(
        "one fresh model per row", "one fresh model per seed"), pooling="mean, classifier on (u, v, |u-v|)",
        aggregation="all: the dev pairs in one Spearman", split=describe_split(lesson.dev))
    found = readings(ablation, seed_scores)
    table = pd.DataFrame({"one run": [row.dev_spearman for row in ablation.itertuples() if f"{row.pooling} pooling, {row.concatenation}" in found],
                          "minus the default's mean over seeds": [i.difference for i in found.values()],
                          "95 % interval": [f"[{i.low:+.2f}, {i.high:+.2f}]" for i in found.values()],
                          "reading": [i.verdict for i in found.values()]}, index=list(found))
    kind = next(iter(found.values())).method if found else "no variant besides the default"
    table = inherit_provenance(table.rename_axis("variant"), ablation, {"seed spread": f"{spread} (§6.1)", "interval": kind})
    verdicts, against_paper, departs = {}, [], False
    for name in VERDICTS:
        if name in found:
            paper, ours = paper_direction(name), found[name].direction
            departs |= ours != paper
            verdicts.update(verdict(NOTEBOOK, f"{name} against {label(*DEFAULT)}, read as SBERT Table 6 reads it",
                                    "yes" if ours == paper else "no"))
            against_paper.append(f"Table 6 (NLI column) puts {name} {paper} than {label(*DEFAULT)}; this run: "
                                 f"{ours}, {'as the paper' if ours == paper else 'not as the paper'}.")
    if departs:
        against_paper.append("This student is not the paper's: a random-weight BERT trained for a few hundred steps, which "
                             "§5's NLI stage may have moved *down* on STS; then a variant that fits NLI less can keep more "
                             "STS. Table 6's ordering needs the paper's pre-trained BERT: MODEL = \"bert-base-uncased\" "
                             "with QUICK = False, on a GPU.")
    largest_row, largest = SBERT_TABLE2.largest_spread()
    ties = sum(i.verdict == "tie" for i in found.values())
    return Report(scores, f"Default variant over {spread.n} seeds: {spread}. The single-seed figure in the ablation table "
                          f"(SEED = {lesson.seed}): {seed_scores[lesson.seed]:.2f}. SBERT Table 2 (bert-base, full recipe) "
                          f"prints ± up to {largest:.2f} ({largest_row}).", table,
                  f"{ties} of {len(found)} differences from the default variant are ties: their 95 % interval ({kind}: "
                  f"± t·s·√(1 + 1/n), s = {spread.sd:.2f} points) holds 0, so a single run cannot tell them apart.",
                  " ".join(against_paper) or None,
                  interval_forest_figure(found, f"Each variant minus the default ({label(*DEFAULT)}), STS-B dev", ) if found else None,
                  verdicts=verdicts)


#: The ablation readings §6.1 records as verdicts, each as "does this run order it as Table 6 does?" (a tie does not)
#: (tools/story_check.py holds quick mode's to full mode's).
VERDICTS = ("mean pooling, (u, v)",)


def paper_direction(name: str) -> str:
    """'higher' or 'lower': how SBERT Table 6's NLI column puts the mean-pooling variant ``name`` against the default."""
    nli, concatenation = table6()["nli"], name.removeprefix(f"{DEFAULT[0]} pooling, ")
    return "higher" if nli[concatenation] > nli[ablations.concatenation_label(DEFAULT[1])] else "lower"


def uv_puzzle_report() -> Report:
    """§6's puzzle: Table 6's rows with u*v or |u-v|, and the step adding u*v, with an interval that borrows Table 2's ±."""
    printed = table6()
    rows = ["(u*v)", "(|u-v|)", "(|u-v|, u*v)", "(u, v, |u-v|)", "(u, v, |u-v|, u*v)"]
    column = inherit_provenance(printed.loc[rows, ["nli"]].rename(columns={"nli": "paper: NLI, classification"}), printed,
                                {"rows": "the concatenations with u*v or |u-v|, MEAN pooling"})
    nli = printed["nli"]
    _, largest = SBERT_TABLE2.largest_spread()
    adding = uncertainty.published_interval(nli["(u, v, |u-v|, u*v)"], largest, SBERT_TABLE6_SEEDS,
                                            nli["(u, v, |u-v|)"], largest, SBERT_TABLE6_SEEDS)
    return Report(column, f"u*v alone minus SBERT's (u, v, |u-v|): {nli['(u*v)'] - nli['(u, v, |u-v|)']:+.2f} points; adding u*v "
                          f"to (u, v, |u-v|): {adding.described()}. Table 6 prints no spread: the interval assumes each row's "
                          f"seeds spread as much as Table 2's widest row (± {largest:.2f}) and divides by √{SBERT_TABLE6_SEEDS} "
                          f"(each row a mean over {SBERT_TABLE6_SEEDS} seeds, §6). The paper reads the step as a decrease.",
                  interval_forest_figure({"adding u*v to (u, v, |u-v|)": adding},
                                         "SBERT Table 6: adding u*v, with Table 2's widest ± assumed"))
