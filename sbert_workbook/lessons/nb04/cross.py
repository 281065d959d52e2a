"""Lesson 04 §1: a cross-encoder and a bi-encoder trained alike, scored beside SBERT's Table 2 and Table 3, then timed
(``04_siamese_finetuning.ipynb``).

The two models are trained one after the other and never both at once: the cross-encoder is saved to the session's
scratch folder after its scores are taken, and read back from there to be timed in §1.2.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.data.corpora import search_corpus
from sbert_workbook.data.loaders import load_sts
from sbert_workbook.data.records import StsData
from sbert_workbook.evaluation import search, uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.evaluation.sts import score_pairs
from sbert_workbook.lessons.nb04.lesson import Lesson04, free
from sbert_workbook.lessons.report import Report
from sbert_workbook.published import SBERT_CLUSTERING_COST, SBERT_TABLE2, SBERT_TABLE3
from sbert_workbook.published.sbert_recipe import SBERT_STSB_RECIPE
from sbert_workbook.training.cross_encoder import CrossEncoder
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.siamese import SiameseModel

#: Table 2's two settings, each a (cross-encoder row, bi-encoder row) pair trained alike.
TABLE2_PAIRS = {"trained on STS-B train only": ("BERT-STSb-base", "SBERT-STSb-base"),
                "trained on NLI, then STS-B train": ("BERT-NLI-STSb-base", "SBERT-NLI-STSb-base")}
AFS_SETTINGS = {"10-fold (every topic seen in training)": "10-fold", "cross-topic (tested on a held-out topic)": "cross-topic"}
PAPER_SEEDS = SBERT_STSB_RECIPE.settings["seeds"]
ROWS = ("cross-encoder: [CLS] a [SEP] b [SEP] → regression head", "bi-encoder: cos(u, v) of mean-pooled vectors")


def paper_gaps() -> dict[str, uncertainty.Interval]:
    """Table 2's cross-encoder minus bi-encoder in each setting, with the σ/√n interval of two means over the seeds."""
    gaps = {}
    for setting, (cross_row, bi_row) in TABLE2_PAIRS.items():
        gaps[f"paper, {setting}"] = uncertainty.published_interval(
            SBERT_TABLE2.value(cross_row, "stsb"), SBERT_TABLE2.spread[cross_row], PAPER_SEEDS,
            SBERT_TABLE2.value(bi_row, "stsb"), SBERT_TABLE2.spread[bi_row], PAPER_SEEDS)
    return gaps


def table2_report(lesson: Lesson04) -> Report:
    """§1.1: SBERT Table 2's four rows as printed, the two cross − bi gaps with their intervals, and its recipe."""
    from IPython.display import Markdown

    rows = [row for pair in TABLE2_PAIRS.values() for row in pair]
    gaps = paper_gaps()
    largest_row, largest_sd = SBERT_TABLE2.largest_spread()
    epochs = SBERT_STSB_RECIPE.settings["epochs"]
    here = (f"{lesson.sizes.CROSS_STEPS} steps ({lesson.mode} mode)" if lesson.sizes.CROSS_STEPS
            else f"{lesson.sizes.STSB_EPOCHS} epochs")
    return Report(
        Markdown(f"**SBERT {SBERT_TABLE2.table}, as printed** (from `sbert_workbook.published`; STS-B test, Spearman × 100, "
                 f"mean ± sd over {PAPER_SEEDS} seeds): the BERT-* rows are cross-encoders, the SBERT-* rows bi-encoders, "
                 "all from BERT-base."), SBERT_TABLE2.frame(rows),
        *(f"{label}: cross-encoder minus bi-encoder: {gap.described()}" for label, gap in gaps.items()),
        f"Table 2's recipe: STS-B train for {epochs} epochs, each row the mean of {PAPER_SEEDS} seeds (the caption, §4.2); "
        f"its ± reaches {largest_sd:.2f} ({largest_row}). Here: one seed (SEED = {lesson.seed}), {here}.",
        interval_forest_figure(gaps, "SBERT Table 2: cross-encoder minus bi-encoder on STS-B test"))


@dataclass
class CrossVsBi:
    """§1.1's two trained models' scores; the bi-encoder's weights (the cross-encoder waits on disk for §1.2)."""

    test: StsData
    start: str
    scores: pd.DataFrame
    cross_scores: np.ndarray  # the trained cross-encoder's score for every test pair
    cross_folder: object
    config: TrainingConfig
    seconds: float
    bi_encoder: SiameseModel | None = field(default=None, repr=False)

    def free(self) -> None:
        self.bi_encoder = None


def train_cross_and_bi_encoder(lesson: Lesson04) -> CrossVsBi:
    """§1.1: one cross-encoder and one bi-encoder from the same weights, trained on STS-B train alike; test before/after."""
    started = time.perf_counter()
    start = lesson.model if lesson.pretrained_student else "embedded"
    sizes = lesson.sizes
    config = TrainingConfig(batch_size=sizes.BATCH_SIZE, learning_rate=sizes.CROSS_LEARNING_RATE, max_steps=sizes.CROSS_STEPS,
                            epochs=sizes.STSB_EPOCHS, seed=lesson.seed, device=str(lesson.device), save_checkpoints=False,
                            progress=not lesson.quick)
    test = load_sts("stsb", "test").sample(sizes.STS_LIMIT, seed=lesson.seed)
    pairs = list(zip(test.sentences1, test.sentences2))
    cross = CrossEncoder.from_pretrained(start, device=lesson.device, seed=lesson.seed)
    cross_before = float(_spearman(cross.predict(pairs), test.scores))
    cross_run = fit(cross, lesson.stsb_train, "cross_regression", config)
    cross_scores = cross.predict(pairs)
    folder = cross.save(lesson.runs / "cross-encoder")  # safetensors; §1.2 reads it back to time it
    del cross
    free()
    bi = SiameseModel.from_pretrained(start, device=lesson.device)
    bi_before = _bi_spearman(bi, test)
    bi_run = fit(bi, lesson.stsb_train, "regression", config, output_dir=lesson.runs / "bi-encoder")
    scores = pd.DataFrame({"before training": [cross_before, bi_before],
                           "after training": [float(_spearman(cross_scores, test.scores)), _bi_spearman(bi, test)],
                           "steps": [cross_run.steps, bi_run.steps], "training s": [cross_run.seconds, bi_run.seconds]},
                          index=list(ROWS))
    scores.index.name = "STS-B test, Spearman × 100"
    return CrossVsBi(test, bi.resolved.model_id, scores, cross_scores, folder, config, time.perf_counter() - started, bi)


def _spearman(predicted, gold) -> float:
    from scipy.stats import spearmanr

    return 100 * spearmanr(predicted, gold).statistic


def _bi_spearman(model: SiameseModel, data: StsData) -> float:
    return float(_spearman(_bi_similarities(model, data), data.scores))


def _bi_similarities(model: SiameseModel, data: StsData) -> np.ndarray:
    similarities = score_pairs(lambda s: model.encoder().encode(s, pooling=model.pooling, batch_size=64), data)
    model.train()
    return similarities


def cross_vs_bi_report(lesson: Lesson04, run: CrossVsBi) -> Report:
    """§1.1: before/after for both, the trained cross − bi gap (paired bootstrap over test pairs) beside Table 2's."""
    table = with_provenance(
        run.scores.round(2), model=f"both from {run.start}, trained on {lesson.stsb_train.description} for the steps shown "
        f"(batch {run.config.batch_size}, learning rate {run.config.learning_rate:g})",
        pooling="cross-encoder: none (one joint pass, head on the [CLS] pooler); bi-encoder: mean",
        aggregation="all: the test pairs in one Spearman", split=describe_split(run.test))
    ours = uncertainty.paired_bootstrap(run.test.scores, run.cross_scores, _bi_similarities(run.bi_encoder, run.test))
    gaps = {**paper_gaps(), f"ours, one seed each (SEED = {lesson.seed})": ours}
    pairs_seen = run.scores.loc[ROWS[0], "steps"] * run.config.batch_size
    return Report(
        table,
        f"After training, cross-encoder minus bi-encoder, one seed each (SEED = {lesson.seed}): {ours.described()}. "
        "The interval holds the test sample's noise only; another seed moves each run too (§6.1 measures by how much).",
        f"The cross-encoder's new head has seen {pairs_seen:,} training pairs; the bi-encoder started from "
        f"{run.start}, {'a pre-trained BERT like the cross-encoder' if lesson.pretrained_student else 'already trained as a bi-encoder'}.",
        f"§1.1 took {run.seconds:.0f} s on {lesson.device} ({lesson.mode} mode), model loading and scoring included.",
        interval_forest_figure(gaps, "Cross-encoder minus bi-encoder on STS-B test: the paper's and ours"))


def afs_report() -> Report:
    """§1.1: SBERT Table 3 (Argument Facet Similarity) as printed, and the cross-encoder's lead in each setting."""
    from IPython.display import Markdown

    rows = [f"{architecture}-AFS-{size}, {setting}" for setting in AFS_SETTINGS.values() for size in ("base", "large")
            for architecture in ("BERT", "SBERT")]
    leads = [f"{label}, {size}: cross-encoder minus bi-encoder = "
             f"{SBERT_TABLE3.value(f'BERT-AFS-{size}, {setting}', 'spearman') - SBERT_TABLE3.value(f'SBERT-AFS-{size}, {setting}', 'spearman'):+.2f} "
             "Spearman points" for label, setting in AFS_SETTINGS.items() for size in ("base", "large")]
    return Report(Markdown(f"**SBERT {SBERT_TABLE3.table}, as printed** (from `sbert_workbook.published`; Pearson r × 100 and "
                           "Spearman ρ × 100 averaged over folds or topics): the BERT-* rows are cross-encoders, the SBERT-* "
                           "rows bi-encoders."), SBERT_TABLE3.frame(rows), *leads,
                  "Table 3 prints no spread over seeds, so these leads carry no interval: they are the paper's point "
                  "estimates, one number per setting.")


def paper_cost():
    """§1.2: the paper's example size, its pair count and its two times."""
    from IPython.display import Markdown

    n = SBERT_CLUSTERING_COST["sentences"]
    return Markdown(f"The paper's example (SBERT, §1 and §8): $n = {n:,}$ sentences, so $\\binom{{n}}{{2}} = {math.comb(n, 2):,}$ "
                    f"cross-encoder passes, about **{SBERT_CLUSTERING_COST['BERT (cross-encoder) hours']} hours** with BERT on a "
                    f"V100, against about **{SBERT_CLUSTERING_COST['SBERT seconds']} seconds** with SBERT's bi-encoder.")


def predict_growth():
    """§1.2's predict question: how the cross-encoder's time grows when n doubles (decided by counting passes)."""
    options = {"about the same": 1, "about twice as long": 2, "about four times as long": 4, "about eight times as long": 8}
    n = SBERT_CLUSTERING_COST["sentences"]
    ratio = math.comb(2 * n, 2) / math.comb(n, 2)
    return predict_question(
        "Double the number of sentences n. About how much longer does the cross-encoder take to score every pair?",
        list(options), min(options, key=lambda option: abs(math.log(options[option] / ratio))),
        "A cross-encoder needs one forward pass per pair, and n sentences make n(n − 1)/2 pairs (the paper's count): twice "
        "the sentences make about four times the pairs, while the bi-encoder's n encodings only double. The next cells "
        "time both on a few small n, where fixed costs such as a half-empty batch still weigh, so the measured ratio can "
        "fall short of the count; the log-log plot shows the two slopes.")


def trained_cross_encoder(lesson: Lesson04, run: CrossVsBi) -> CrossEncoder:
    """§1.2: the cross-encoder trained in §1.1, read back from its safetensors folder."""
    return CrossEncoder.load(run.cross_folder, device=lesson.device)


def time_both(lesson: Lesson04, run: CrossVsBi, cross_encoder: CrossEncoder) -> pd.DataFrame:
    """§1.2: seconds for the most similar pair among n sentences, both models, each n of COST_SIZES."""
    sizes = lesson.sizes.COST_SIZES
    sentences = search_corpus(max(sizes))
    costs = search.cost_table(run.bi_encoder.encoder(), cross_encoder.predict, sentences, sizes)
    return with_provenance(costs, model=f"both trained in §1.1 from {run.start}: the bi-encoder and the cross-encoder",
                           pooling=f"bi-encoder: {run.bi_encoder.pooling}; cross-encoder: none (one joint pass per pair)",
                           aggregation="one timed run per n", split=f"the first n of {len(sentences)} search-corpus sentences")


def cost_report(lesson: Lesson04, costs: pd.DataFrame) -> Report:
    """§1.2: the measured seconds, extrapolated to the paper's n, beside the paper's ratio; the log-log figure."""
    at_n = search.extrapolate(costs, SBERT_CLUSTERING_COST["sentences"])
    hours, seconds = SBERT_CLUSTERING_COST["BERT (cross-encoder) hours"], SBERT_CLUSTERING_COST["SBERT seconds"]
    return Report(costs.style.format({"bi_encoder_s": "{:.3f}", "cross_encoder_s": "{:.3f}"}),
                  f"Extrapolated from n = {at_n['from_n']} to n = {at_n['n']:,} on {lesson.device}: bi-encoder "
                  f"{search.readable_seconds(at_n['bi_encoder_s'])}, cross-encoder {search.readable_seconds(at_n['cross_encoder_s'])} "
                  f"({at_n['cross_encoder_s'] / at_n['bi_encoder_s']:,.0f} times longer). Paper, BERT-base on a V100: "
                  f"≈{seconds} s vs ≈{hours} h ({hours * 3600 / seconds:,.0f} times longer).",
                  search.cost_figure(costs))
