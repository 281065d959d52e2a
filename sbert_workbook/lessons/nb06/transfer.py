"""Lesson 06's §6 (what uniformity does not buy: a frozen probe, and SimCSE's Table E.1 read as the paper reads it) and
§7 (gradient caching, shown exact on a small model) (``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.encoding.resolve import ResolvedModel
from sbert_workbook.evaluation import geometry_intervals, probes
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.lessons.nb06.plane import Plane
from sbert_workbook.lessons.nb06.setup import MAX_LENGTH, TAU, Lesson06
from sbert_workbook.lessons.report import Report
from sbert_workbook.training import contrastive
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.siamese import SiameseModel

PROBED = ("raw", "+ whitening (NLI)", "+ flow (NLI)", "unsup SimCSE", "sup SimCSE")
#: Table E.1's comparisons, each SimCSE row against the row the paper reads it against.
E1_PAIRS = {"Unsup. SimCSE-BERT-base": ("Avg. BERT embeddings (quoted from SBERT)", "IS-BERT-base"),
            "Sup. SimCSE-BERT-base": ("Avg. BERT embeddings (quoted from SBERT)", "SBERT-base (quoted from SBERT)"),
            "Unsup. SimCSE-BERT-base w/ MLM": ("Unsup. SimCSE-BERT-base",),
            "Sup. SimCSE-BERT-base w/ MLM": ("Sup. SimCSE-BERT-base",)}


def transfer_probe(lesson: Lesson06, plane: Plane) -> dict[str, np.ndarray]:
    """§6's experiment: 03's frozen SICK-E probe (SentEval's (|u − v|, u ∗ v)) on each row of the start model; for each
    row, whether it labels each test pair right."""
    d, right = lesson.data, {}
    for name in PROBED:
        train_u, train_v, test_u, test_v = plane.rows["start model"][name].probe
        features = probes.SENTEVAL_PROBE_FEATURES
        probe = probes.fit_probe(probes.probe_features(train_u, train_v, features), d.sick_train.labels)
        right[name] = probe.predict(probes.probe_features(test_u, test_v, features)) == np.asarray(d.sick_test.labels)
    return right


def e1_lines() -> list[str]:
    """Each SimCSE row of Table E.1 against the rows the paper reads it against, computed from the published table."""
    e1 = published.SIMCSE_TABLE_E1
    return [f"{e1.table}, transfer average: {row} {e1.value(row, 'avg'):.2f} against " + "; ".join(
        f"{other} {e1.value(other, 'avg'):.2f} ({e1.value(row, 'avg') - e1.value(other, 'avg'):+.2f})" for other in others)
        for row, others in E1_PAIRS.items()] + ["One run each, no spread printed."]


def transfer_report(lesson: Lesson06, right: dict[str, np.ndarray]) -> Report:
    """§6: probe accuracy per row, each row minus raw with its interval (drawn), and Table E.1 as the paper reads it."""
    d = lesson.data
    table = pd.DataFrame({"probe accuracy": {name: 100 * r.mean() for name, r in right.items()}}).rename_axis("embedding")
    changes = {f"{name} minus raw": geometry_intervals.mean_difference(100 * r, 100 * right["raw"], "SICK-E test pairs")
               for name, r in right.items() if name != "raw"}
    majority = 100 * probes.majority_accuracy(d.sick_train.labels, d.sick_test.labels)
    e1 = published.SIMCSE_TABLE_E1
    return Report(
        with_provenance(table.round(2), model=f"{lesson.resolved.model_id}: the rows of §5.1", pooling=lesson.pooling,
                        aggregation="accuracy × 100 of a logistic-regression probe on (|u-v|, u*v), fitted on the training pairs",
                        split=f"{describe_split(d.sick_train)} (probe training); {describe_split(d.sick_test)} (test)"),
        f"Majority label: {majority:.1f}. Probe accuracy minus the raw row's: " + "; ".join(
            f"{name.removesuffix(' minus raw')} {interval.described()}" for name, interval in changes.items()),
        interval_forest_figure(changes, "SICK-E probe accuracy, each row minus raw", unit="accuracy × 100"),
        published.SIMCSE_APPENDIX_E_POSTPROCESSING + ".",
        Markdown(f"**SimCSE {e1.table}** (quoted, not re-run; {e1.split}):"), e1.frame(), *e1_lines())


# ----------------------------------------------------------------------------- §7: gradient caching
@dataclass
class CacheDemo:
    losses: dict  # micro-batch size (None: the whole batch) → the loss at each step
    largest_difference: float  # the largest weight difference between the two runs after training
    described: str


def small_model(lesson: Lesson06) -> SiameseModel:
    """A BERT of CACHE_MODEL's (layers, width), random weights (seed), the start model's tokenizer, in float64."""
    from transformers import BertConfig, BertModel

    layers, width = lesson.sizes.CACHE_MODEL
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(lesson.seed)
        transformer = BertModel(BertConfig(vocab_size=lesson.tokenizer.vocab_size, hidden_size=width, num_hidden_layers=layers,
                                           num_attention_heads=2, intermediate_size=2 * width), add_pooling_layer=False)
    described = f"a BERT of {layers} layers × {width} (random weights, seed {lesson.seed}), float64"
    resolved = ResolvedModel("cache demo", lesson.resolved.path, "built in this notebook", described, "n/a", described)
    return SiameseModel(transformer, lesson.tokenizer, resolved, "mean", MAX_LENGTH).double()


def gradient_cache_demo(lesson: Lesson06) -> CacheDemo:
    """§7's experiment: the same small model trained twice on the same batches with SimCSE's objective, once a whole
    batch at a time and once through micro-batches of half with gradient caching; dropout off, float64."""
    s, weights, losses = lesson.sizes, {}, {}
    for micro in (None, s.CACHE_BATCH // 2):
        model = small_model(lesson)
        contrastive.set_dropout(model, 0.0)
        config = TrainingConfig(batch_size=s.CACHE_BATCH, learning_rate=3e-5, max_steps=s.CACHE_STEPS, micro_batch_size=micro,
                                scale=1 / TAU, seed=lesson.seed, device="cpu", save_checkpoints=False, progress=False,
                                mixed_precision="no")
        losses[micro] = fit(model, lesson.data.cache_pairs, "simcse", config).history["loss"]
        weights[micro] = {k: v.detach().clone() for k, v in model.state_dict().items()}
        described = model.resolved.model_id
    largest = max(float((weights[None][k] - weights[s.CACHE_BATCH // 2][k]).abs().max()) for k in weights[None])
    return CacheDemo(losses, largest, described)


def cache_report(lesson: Lesson06, demo: CacheDemo) -> Report:
    micro = lesson.sizes.CACHE_BATCH // 2
    return Report(f"{demo.described}; batches of {lesson.sizes.CACHE_BATCH} pairs, {lesson.sizes.CACHE_STEPS} step(s) each way.",
                  f"Losses, the whole batch at once {np.round(demo.losses[None], 6).tolist()}; micro-batches of {micro} with the "
                  f"cache {np.round(demo.losses[micro], 6).tolist()}; largest weight difference after training: "
                  f"{demo.largest_difference:.1e}")
