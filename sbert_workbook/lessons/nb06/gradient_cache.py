"""Lesson 06 §7, gradient caching: the same small model trained twice on the same batches, a whole batch at a time and
through micro-batches with the cache, shown to end at the same weights (``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from sbert_workbook.encoding.resolve import ResolvedModel
from sbert_workbook.lessons.nb06.lesson import MAX_LENGTH, TAU, Lesson06
from sbert_workbook.lessons.report import Report
from sbert_workbook.training import contrastive
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.siamese import SiameseModel


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
    """§7: the two runs' losses step by step and the largest weight difference between them after training."""
    micro = lesson.sizes.CACHE_BATCH // 2
    return Report(f"{demo.described}; batches of {lesson.sizes.CACHE_BATCH} pairs, {lesson.sizes.CACHE_STEPS} step(s) each way.",
                  f"Losses, the whole batch at once {np.round(demo.losses[None], 6).tolist()}; micro-batches of {micro} with the "
                  f"cache {np.round(demo.losses[micro], 6).tolist()}; largest weight difference after training: "
                  f"{demo.largest_difference:.1e}")
