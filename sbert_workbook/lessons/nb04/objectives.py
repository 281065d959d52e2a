"""Lesson 04 §3 and §4: the four objectives beside sentence-transformers' loss classes, duplicate-free batches, and
the training recipe (``04_siamese_finetuning.ipynb``).

The notebook writes each objective as its equation in code; these reports put them beside the library a reader
already knows, read sentence-transformers' own docstrings from the installed copy (what its ``MSELoss`` is for),
and print SBERT's recipe with where each setting is stated.
"""
from __future__ import annotations

import inspect

import pandas as pd
import plotly.graph_objects as go
import torch

from sbert_workbook.data.loaders import load_nli
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb04.lesson import Lesson04
from sbert_workbook.lessons.report import Report
from sbert_workbook.published.sbert_recipe import SBERT_NLI_RECIPE, SBERT_STSB_RECIPE
from sbert_workbook.training import examples, losses
from sbert_workbook.training.fitting import TrainingConfig

#: The batch sizes §3.4's duplicate count compares: SBERT's, and a larger one as in-batch negatives like.
DUPLICATE_BATCH_SIZES = (SBERT_NLI_RECIPE.settings["batch size"], 128)
RANDOM = "none: random embeddings, no encoder"


def st_losses():
    """sentence-transformers' loss classes (their module moved in version 6; Colab's 5.x keeps the old one)."""
    try:
        from sentence_transformers.sentence_transformer import losses as found
    except ImportError:  # sentence-transformers before 6
        from sentence_transformers import losses as found
    return found


def first_sentence_of_docstring(cls) -> str:
    """The first sentence a loss class says about itself: its own docstring or its ``__init__``'s, or those of a parent
    below torch's ``nn.Module`` (whose docstrings say nothing about the loss)."""
    for owner in cls.__mro__:
        if owner.__module__.startswith("torch"):
            break
        init = owner.__dict__.get("__init__")
        for text in (owner.__dict__.get("__doc__"), getattr(init, "__doc__", None)):
            if text and text.strip():
                paragraph = " ".join(inspect.cleandoc(text).split("\n\n")[0].split())
                return paragraph.split(". ")[0].rstrip(".") + "."
    return "(no docstring)"


def random_embeddings(seed: int, rows: int = 8, dim: int = 6) -> tuple[torch.Tensor, ...]:
    """Three batches of random vectors (u, v, a third for the triplet's negative), drawn from ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(rows, dim, generator=generator) for _ in range(3))


def regression_beside_sentence_transformers(lesson: Lesson04) -> Report:
    """§3.2: SBERT's regression objective is sentence-transformers' CosineSimilarityLoss, not its MSELoss."""
    import sentence_transformers

    found = st_losses()
    u, v, _ = random_embeddings(lesson.seed)
    gold = torch.linspace(0, 1, len(u))
    ours = losses.cosine_regression_loss(u, v, gold).item()
    theirs = found.CosineSimilarityLoss(None).compute_loss_from_embeddings([u, v], gold).item()
    distilled = torch.nn.functional.mse_loss(u, v).item()  # MSELoss: student embeddings u against target embeddings v
    table = pd.DataFrame({
        "what it compares": ["cos(u, v) with the gold score y", "cos(u, v) with the gold score y",
                             "every coordinate of u with a target (teacher) embedding"],
        "what the class says it does": ["(the regression objective, §3.2)", first_sentence_of_docstring(found.CosineSimilarityLoss),
                                        first_sentence_of_docstring(found.MSELoss)],
        "loss on the same tensors": [ours, theirs, distilled]},
        index=["ours: losses.cosine_regression_loss", "sentence-transformers: CosineSimilarityLoss",
               "sentence-transformers: MSELoss (v as the target)"])
    table = with_provenance(table, model=f"{RANDOM} (torch seed {lesson.seed}); gold scores evenly spaced in [0, 1]",
                            pooling="n/a", aggregation=f"each loss's own mean over the batch of {len(u)}",
                            split="n/a: random tensors, no data set", library=f"sentence-transformers {sentence_transformers.__version__}")
    same = abs(ours - theirs) < 1e-6
    return Report(table, f"Our regression objective and CosineSimilarityLoss give {'the same' if same else 'different'} "
                         f"loss on the same embeddings ({ours:.4f} and {theirs:.4f}); MSELoss compares embeddings with "
                         "embeddings, so it needs a teacher's vectors as labels, not a similarity score.")


def losses_beside_sentence_transformers(lesson: Lesson04) -> Report:
    """§3: three of our objectives and sentence-transformers' classes on the same random embeddings."""
    found = st_losses()
    e1, e2, e3 = random_embeddings(lesson.seed)
    gold = torch.linspace(0, 1, len(e1))
    table = pd.DataFrame({
        "ours": [losses.cosine_regression_loss(e1, e2, gold).item(), losses.triplet_loss(e1, e2, e3).item(),
                 losses.multiple_negatives_ranking_loss(e1, e2).item()],
        "sentence-transformers": [found.CosineSimilarityLoss(None).compute_loss_from_embeddings([e1, e2], gold).item(),
                                  found.TripletLoss(None, triplet_margin=1.0).compute_loss_from_embeddings([e1, e2, e3], None).item(),
                                  found.MultipleNegativesRankingLoss(None).compute_loss_from_embeddings([e1, e2], None).item()]},
        index=["regression (CosineSimilarityLoss)", "triplet, ε = 1 (TripletLoss)", "multiple-negatives ranking"])
    table = with_provenance(table, model=f"{RANDOM} (torch seed {lesson.seed})", pooling="n/a",
                            aggregation=f"each loss's own mean over the batch of {len(e1)}", split="n/a: random tensors, no data set")
    agree = torch.allclose(torch.tensor(table["ours"].values), torch.tensor(table["sentence-transformers"].values), rtol=1e-5)
    return Report(table, f"On the same embeddings the three {'agree' if agree else 'DIFFER'} to within 1e-5 (relative).")


def duplicate_batches_report(lesson: Lesson04) -> Report:
    """§3.4: sentences repeated inside a batch, with plain shuffling and with duplicate-free batches."""
    pairs = examples.nli_positive_pairs(load_nli("snli"))
    rows = {}
    for batch_size in DUPLICATE_BATCH_SIZES:
        plain = examples.shuffled_batches(len(pairs), batch_size, lesson.seed)
        clean = examples.no_duplicate_batches(pairs, batch_size, lesson.seed)
        rows[batch_size] = {"batches": len(plain),
                            "repeats, plain shuffling": sum(examples.duplicates_in_batch(pairs, b) for b in plain),
                            "repeats, duplicate-free batches": sum(examples.duplicates_in_batch(pairs, b) for b in clean)}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("batch size")
    return Report(pairs.description, with_provenance(
        table, model="none: counts of sentences, no encoder", pooling="n/a",
        aggregation="sum over every batch of one epoch", split=pairs.description, seed=str(lesson.seed)))


def recipe_report() -> Report:
    """§4: SBERT's two recipes with where each setting is stated, and TrainingConfig's defaults."""
    recipes = pd.concat({"NLI": SBERT_NLI_RECIPE.frame(), "STS-B": SBERT_STSB_RECIPE.frame()}, names=["recipe", "setting"])
    return Report(with_provenance(recipes, model="none: SBERT's training recipes as the paper (and, where it says so, its code) "
                                  "states them", pooling="n/a", aggregation="n/a", split="n/a"),
                  f"fit's defaults: {TrainingConfig()}")


def schedule_figure(learning_rates) -> go.Figure:
    """§4: the learning rate of each step of a run, as the cell computed it."""
    steps = list(range(1, len(learning_rates) + 1))
    return go.Figure(go.Scatter(x=steps, y=list(learning_rates), mode="lines")).update_layout(
        title=f"Learning rate over a {len(steps)}-step run: warm-up, then linear decay", xaxis_title="step",
        yaxis_title="learning rate", height=300)
