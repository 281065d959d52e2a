"""Lesson 06's training runs, one at a time: a fresh copy of a start, trained, scored, freed (``06_contrastive_simcse.ipynb``).

Each call of a notebook cell trains its runs here. A run keeps what the lesson reads later (its path on the
alignment–uniformity plane, its STS-B dev scores, its :class:`~.rows.ScoredRow`, the end-point numbers of §3) and
drops its weights and optimizer before the next run starts, so the kernel holds one model in training at a time.
"""
from __future__ import annotations

import contextlib
import copy
import gc
import math
import re
import shutil
import warnings
from dataclasses import dataclass, field

from sbert_workbook.evaluation.geometry import alignment, uniformity
from sbert_workbook.lessons.nb06.rows import ScoredRow, score_row
from sbert_workbook.lessons.nb06.lesson import CONE_LEARNING_RATE, LARGE_P, MAX_LENGTH, TAU, Lesson06
from sbert_workbook.training import contrastive, isotropy
from sbert_workbook.training.bag_of_words import bag_of_words_row
from sbert_workbook.training.fitting import TrainingConfig, fit
from sbert_workbook.training.scratch import scratch_folder

#: §3's dropout probabilities, by label.
DROPOUTS = {"p = 0 (no dropout)": 0.0, "p = 0.1": 0.1, f"p = {LARGE_P}": LARGE_P}


@dataclass
class Run:
    """One training run, measured: its path, dev scores and row; its weights are gone."""

    name: str
    start: str
    steps: int
    seconds: float
    path: dict  # {"step", "alignment", "uniformity"}, every few steps (SimCSE Figure 2)
    dev: dict  # {"eval_step", "dev_spearman"}, the start's score first
    row: ScoredRow | None
    end: dict = field(default_factory=dict)  # §3's end point: dropout p, ‖h − h⁺‖², geometry, STS average


@dataclass(frozen=True)
class Recipe:
    """How one run trains: its objective, data, dropout, step size and whether SimCSE's MLP sits on the pooled vector."""

    examples: object
    objective: str = "simcse"
    dropout: float = 0.1
    learning_rate: float = 3e-5
    mlp: bool = True


def geometry_measures(lesson: Lesson06, row=None) -> dict:
    """Alignment on the positive pairs and uniformity on the geometry sentences: 02 §7's functions, on unit vectors;
    with ``row``, read through it (a bag of words' sparse row) instead of the row each call is handed."""
    d = lesson.data
    return {"alignment": lambda embed: alignment((row or embed)(d.align_pairs[0]), (row or embed)(d.align_pairs[1])),
            "uniformity": lambda embed: uniformity((row or embed)(d.uniform_sentences))}


def row_of(lesson: Lesson06, model, start: str):
    """The row a model is scored through: a bag of words as one sparse product (the cone), else its encoder."""
    return bag_of_words_row(model, lesson.token_ids) if start == "cone" else isotropy.model_row(model, lesson.sizes.EVAL_BATCH)


def train(lesson: Lesson06, name: str, start: str, recipe: Recipe, seed: int | None = None, keep_row: bool = True,
          views=None, points: int | None = None) -> Run:
    """Train a fresh copy of ``start`` with ``recipe``, record its path at ``points`` points, score it, free it."""
    model = lesson.fresh_start() if start == "start model" else copy.deepcopy(lesson.cone)
    seed = lesson.seed if seed is None else seed
    contrastive.set_dropout(model, recipe.dropout)
    if recipe.mlp:
        contrastive.add_projection_head(model, seed=seed)
    if recipe.objective == "softmax":
        model.add_classifier(3, seed=seed)  # SBERT's classifier over (u, v, |u - v|), thrown away after training
    s = lesson.sizes
    steps, batch = (lesson.steps_for(recipe.examples), s.BATCH_SIZE) if start == "start model" else (s.CONE_STEPS, s.CONE_BATCH_SIZE)
    points = points or (s.START_PATH_POINTS if start == "start model" else s.CONE_PATH_POINTS)
    every = max(1, steps // points)
    config = TrainingConfig(batch_size=batch, learning_rate=recipe.learning_rate, warmup_ratio=0.0, max_steps=steps,
                            epochs=max(1, math.ceil(steps * batch / len(recipe.examples))), eval_every=every,
                            scale=1 / TAU, seed=seed, device=str(lesson.device), save_checkpoints=False, progress=False)
    path = isotropy.measure_callback(model, geometry_measures(lesson, row_of(lesson, model, start) if start == "cone" else None),
                                     every)
    folder = scratch_folder("sbw-06-run-")
    try:
        with dev_cut_said_once(lesson):
            result = fit(model, recipe.examples, recipe.objective, config, dev=lesson.data.stsb_dev, output_dir=folder,
                         callback=path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    model.head = None  # the MLP is used in training only (the paper's unsupervised default)
    row = score_row(lesson, name, start, row_of(lesson, model, start)) if keep_row else None
    end = {} if views is None else end_point(lesson, model, recipe.dropout, views)
    start_dev = lesson.starting_rows()[start].dev
    run = Run(name, start, result.steps, result.seconds, dict(path.trajectory),
              {"eval_step": [0, *result.history["eval_step"]], "dev_spearman": [start_dev, *result.history["dev_spearman"]]},
              row, end)
    del model, path, result
    gc.collect()
    return run


#: The encoder's warning when sentences are cut at max_length (sbert_workbook.encoding.batch_limits).
CUT = re.compile(r"(\d+) of (\d+) sentences are longer than max_length=(\d+) tokens")


@contextlib.contextmanager
def dev_cut_said_once(lesson: Lesson06):
    """Every run scores STS-B dev while it trains, at the recipe's MAX_LENGTH tokens (SimCSE's --max_seq_length), and
    the encoder warns at each evaluation that the longer dev sentences are cut: the lesson says it once, as its own
    line; any other warning passes on as it came (each distinct one once)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    passed = set()
    for warning in caught:
        cut = CUT.search(str(warning.message))
        if cut is None or int(cut[3]) != MAX_LENGTH:
            if (str(warning.message), warning.category) not in passed:
                passed.add((str(warning.message), warning.category))
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        elif not lesson.said_dev_is_cut:
            lesson.said_dev_is_cut = True
            print(f"While training, STS-B dev is scored at the recipe's {MAX_LENGTH} tokens a sentence (SimCSE's "
                  f"max_seq_length): {cut[1]} of its {cut[2]} sentences are longer and are cut there, in every run.")


def end_point(lesson: Lesson06, model, dropout: float, views) -> dict:
    """§3's numbers for one run from the cone: the positive pair's distance as training sees it (``views``, the
    notebook's function), the geometry on STS-B dev and the seven-set STS average."""
    row = row_of(lesson, model, "cone")
    distance = views(model, dropout, lesson.data.uniform_sentences[:lesson.sizes.VIEW_SENTENCES])
    contrastive.set_dropout(model, 0.1)
    model.eval()
    return {"dropout p": dropout, "‖h − h⁺‖² in training": float(distance),
            **{label: measure(row) for label, measure in geometry_measures(lesson).items()},
            "STS avg (all)": isotropy.sts_scores(row, lesson.data.cone_test_sets)["avg (all)"]}


# ----------------------------------------------------------------------------- the experiments, one call per cell
def cone_recipe(lesson: Lesson06, examples=None, dropout: float = 0.1, objective: str = "simcse") -> Recipe:
    """From the cone: no MLP (a bag of words has no layers under the head), the word vectors' step size."""
    return Recipe(examples or lesson.data.unsup, objective, dropout, CONE_LEARNING_RATE, mlp=False)


def unsupervised_runs(lesson: Lesson06) -> dict[str, Run]:
    """§2: unsupervised SimCSE (dropout p = 0.1) from the cone, then from the start model, one after the other."""
    return {"cone": train(lesson, "cone: unsup SimCSE (p = 0.1)", "cone", cone_recipe(lesson)),
            "start model": train(lesson, "start model: unsup SimCSE (p = 0.1)", "start model", Recipe(lesson.data.unsup))}


def dropout_runs(lesson: Lesson06, views) -> dict[tuple[str, int], Run]:
    """§3: from the cone, every dropout p of :data:`DROPOUTS` with every seed, and one-word deletion (one seed); each
    run keeps its end point (with ``views``, the notebook's ‖h − h⁺‖²) and, for the first seed, its path."""
    runs = {}
    for label, p in {**DROPOUTS, "delete one word (p = 0.1)": 0.1}.items():
        deletion = label.startswith("delete")
        for seed in lesson.seeds[:1] if deletion else lesson.seeds:
            recipe = cone_recipe(lesson, lesson.data.deletion if deletion else None, dropout=p)
            runs[(label, seed)] = train(lesson, f"cone: {label}, seed {seed}", "cone", recipe, seed, keep_row=False,
                                        views=views, points=None if seed == lesson.seed else 1)
    return runs


def supervised_runs(lesson: Lesson06) -> dict[str, Run]:
    """§4: supervised SimCSE and SBERT's softmax objective, from the cone and from the start model, same steps."""
    d = lesson.data
    return {"cone: sup SimCSE": train(lesson, "cone: sup SimCSE", "cone", cone_recipe(lesson, d.sup)),
            "cone: SBERT objective (softmax)": train(lesson, "cone: SBERT objective (softmax)", "cone",
                                                     cone_recipe(lesson, d.nli_pairs, objective="softmax")),
            "start model: sup SimCSE": train(lesson, "start model: sup SimCSE", "start model",
                                             Recipe(d.sup, learning_rate=5e-5)),
            "start model: SBERT objective (softmax)": train(lesson, "start model: SBERT objective (softmax)", "start model",
                                                            Recipe(d.nli_pairs, "softmax", learning_rate=2e-5, mlp=False))}
