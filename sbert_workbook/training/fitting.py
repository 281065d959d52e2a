"""``fit``: the one training loop, on top of Hugging Face ``accelerate`` (``04_siamese_finetuning.ipynb``).

It trains a :class:`~sbert_workbook.training.siamese.SiameseModel` (bi-encoder objectives) and a
:class:`~sbert_workbook.training.cross_encoder.CrossEncoder` (``cross_regression``) alike: every
objective is one entry of :data:`~sbert_workbook.training.objectives.OBJECTIVES`.

accelerate places the model on the device, runs mixed precision (fp16 on GPUs below compute
capability 8, bf16 from 8, fp32 on CPU), accumulates gradients and, under ``accelerate launch``
or ``notebook_launcher``, spreads batches over several GPUs. This module adds what the paper's
recipe needs on top: a fixed batch plan, AdamW with linear warm-up, STS-B dev evaluation,
best-checkpoint keeping, resumable checkpoints and an out-of-memory back-off.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from tqdm.auto import tqdm

from sbert_workbook.training.checkpoints import load_checkpoint, load_weights, random_state, restore_random_state, save_checkpoint, save_weights
from sbert_workbook.data.records import StsData
from sbert_workbook.devices import half_precision_dtype, pick_device
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.training.examples import Examples, no_duplicate_batches, shuffled_batches
from sbert_workbook.training.gradient_cache import back_off_keeps, cached_optimizer_step, uses_cache
from sbert_workbook.training.objectives import OBJECTIVES, checked_objective
from sbert_workbook.optimizer import adamw
from sbert_workbook.training.scratch import scratch_folder
from sbert_workbook.settings import set_seed


@dataclass
class TrainingConfig:
    """The paper's defaults: batch 16, AdamW lr 2e-5, linear warm-up over 10 % of the steps, 1 epoch."""

    batch_size: int = 16
    learning_rate: float = 2e-5
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    epochs: int = 1
    max_steps: int | None = None  # stop early (quick mode); None trains every batch of every epoch
    seed: int = 0
    micro_batch_size: int | None = None  # None: the whole batch at once; smaller: gradient accumulation
    eval_every: int | None = None  # steps between STS-B dev evaluations (None: only at the end)
    checkpoint_every: int | None = None  # steps between resumable checkpoints (None: only at the end)
    save_checkpoints: bool = True  # False: no resumable checkpoints at all (short experiments, benchmarks)
    mixed_precision: str = "auto"  # "auto", "no", "fp16" or "bf16"
    device: str | None = None
    progress: bool = True
    margin: float = 1.0  # triplet ε
    scale: float = 20.0  # multiple-negatives ranking scale (1 / temperature; simcse's τ = 1 / scale)
    matryoshka_dimensions: tuple[int, ...] | None = None  # the matryoshka objective's prefixes (None: the width, then powers of two down to 32)


@dataclass
class TrainingResult:
    steps: int
    seconds: float
    examples_seen: int
    output_dir: Path
    precision: str
    micro_batch_size: int
    history: dict = field(default_factory=dict)
    best_step: int | None = None
    best_spearman: float | None = None
    resumed_from: int = 0

    @property
    def pairs_per_second(self) -> float:
        """Training examples per second in *this* call (resumed steps excluded)."""
        return self.examples_seen / self.seconds if self.seconds else float("nan")


def fit(model, examples: Examples, objective: str, config: TrainingConfig | None = None, dev: StsData | None = None,
        output_dir: str | Path | None = None, callback: Callable[[dict, dict], None] | None = None) -> TrainingResult:
    """Train ``model`` on ``examples`` with ``objective``, a name in :data:`~sbert_workbook.training.objectives.OBJECTIVES`.

    A :class:`~sbert_workbook.training.siamese.SiameseModel` trains with ``softmax`` (NLI labels;
    call ``model.add_classifier()`` first), ``regression`` (scores in [0, 1]), ``triplet`` or
    ``mnrl`` or ``simcse`` (06); a :class:`~sbert_workbook.training.cross_encoder.CrossEncoder` with
    ``cross_regression`` (scores in [0, 1]). With ``dev`` (STS-B dev), Spearman is measured
    every ``eval_every`` steps and the best weights are kept in ``output_dir/best``. A checkpoint
    in ``output_dir/checkpoint`` lets a second call with the same arguments continue where an
    interrupted one stopped. ``callback(event, history)`` runs after every step (live plots).
    """
    config = config or TrainingConfig()
    checked_objective(objective, model, examples)
    if len(examples) == 0 or config.batch_size < 1:
        raise ValueError(f"Nothing to train: {len(examples)} examples, batch size {config.batch_size}.")
    output_dir = Path(output_dir) if output_dir else scratch_folder("sbw-fit-")
    result = _Run(model, examples, objective, config, dev, output_dir).train(callback)
    return_freed_memory()  # the optimizer's state and the last activations are gone: hand their pages back
    return result


def load_best(model, output_dir: str | Path) -> dict:
    """Put the best dev-Spearman weights of a run into ``model``; return their info (step, score)."""
    weights, info = load_weights(Path(output_dir) / "best")
    model.load_state_dict(weights)
    return info


def batch_plan(examples: Examples, objective: str, config: TrainingConfig) -> list[list[int]]:
    """Every batch of the run, fixed by the seed: epoch e is shuffled with seed + e.

    Objectives with in-batch negatives get batches without repeated sentences (a repeat would be
    its own negative); the others get plain shuffled batches.
    """
    plan = []
    for epoch in range(config.epochs):
        if OBJECTIVES[objective].in_batch_negatives:
            plan += no_duplicate_batches(examples, config.batch_size, config.seed + epoch)
        else:
            plan += shuffled_batches(len(examples), config.batch_size, config.seed + epoch)
    return plan[:config.max_steps] if config.max_steps else plan


def mixed_precision_for(device: torch.device, requested: str = "auto") -> str:
    """accelerate's precision name: bf16 from compute capability 8, fp16 below, "no" (fp32) off CUDA."""
    if requested != "auto":
        return requested
    dtype = half_precision_dtype(device)
    return {None: "no", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]


def _forward_backward(run: _Run, columns: list[list[str]], labels) -> torch.Tensor:
    """The objective's loss on one (micro-)batch, through accelerate's prepared model; backpropagate; return the loss."""
    with run.accelerator.autocast():
        labels = None if labels is None else labels.to(run.accelerator.device)
        loss = OBJECTIVES[run.objective].loss(run.model, columns, labels, run.config, run.prepared)
    run.accelerator.backward(loss)
    return loss.detach()


def back_off_after_out_of_memory(run: _Run, batch_size: int) -> None:
    """CUDA ran out of memory mid-step: drop the half-accumulated gradients and halve the micro-batch.

    The effective batch stays ``batch_size`` (gradient accumulation over more micro-batches), and the
    step is redone. Gives up with advice at micro-batches of 1. This is the only place that decides
    how a run reacts to running out of memory.
    """
    run.optimizer.optimizer.zero_grad(set_to_none=True)
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    if run.micro_batch_size <= 1:
        raise torch.cuda.OutOfMemoryError(
            "CUDA ran out of memory even with micro-batches of 1 example. Lower max_length "
            "(model.max_length), use a smaller model, or train on a GPU with more memory.")
    run.micro_batch_size = max(1, run.micro_batch_size // 2)
    steps = -(-batch_size // run.micro_batch_size)
    print(f"CUDA ran out of memory at step {run.step + 1}: continuing with micro-batches of {run.micro_batch_size} "
          f"and {steps} {back_off_keeps(run.objective, batch_size)}.", flush=True)


class _Run:
    """The state of one training run; :meth:`train` is the loop."""

    def __init__(self, model, examples, objective, config, dev, output_dir):
        from accelerate import Accelerator
        from accelerate.utils import GradientAccumulationPlugin
        from transformers import get_linear_schedule_with_warmup

        self.model, self.examples, self.objective, self.config, self.dev = model, examples, objective, config, dev
        self.output_dir = output_dir
        device = pick_device(config.device)
        self.accelerator = Accelerator(
            cpu=device.type == "cpu", mixed_precision=mixed_precision_for(device, config.mixed_precision), log_with=None,
            gradient_accumulation_plugin=GradientAccumulationPlugin(num_steps=1, sync_with_dataloader=False))
        self.plan = batch_plan(examples, objective, config)
        self.micro_batch_size = config.micro_batch_size or config.batch_size
        set_seed(config.seed)  # the workbook's one seeding helper: python, numpy and torch
        optimizer = adamw(model.parameters(), config.learning_rate, config.weight_decay)
        self.scheduler = get_linear_schedule_with_warmup(optimizer, int(config.warmup_ratio * len(self.plan)), len(self.plan))
        self.prepared, self.optimizer = self.accelerator.prepare(model, optimizer)
        self.history = {"step": [], "loss": [], "lr": [], "eval_step": [], "dev_spearman": []}
        self.step, self.best = 0, {"step": None, "spearman": None}

    # ------------------------------------------------------------------ the loop
    def train(self, callback) -> TrainingResult:
        resumed_from = self._resume()
        started, bar = time.perf_counter(), tqdm(total=len(self.plan), initial=self.step, disable=not self.config.progress,
                                                desc=f"fit ({self.objective})", unit="step")
        self.model.train()
        while self.step < len(self.plan):
            loss = self._optimizer_step(self.plan[self.step])
            self.step += 1
            self._log(loss, bar)
            if self._due(self.config.eval_every) or self.step == len(self.plan):
                self._evaluate()
            if self.config.save_checkpoints and (self._due(self.config.checkpoint_every) or self.step == len(self.plan)):
                self._save()
            if callback is not None:
                callback(self._event(), self.history)
        bar.close()
        seconds = time.perf_counter() - started
        seen = sum(len(batch) for batch in self.plan[resumed_from:])
        precision = {"no": "fp32"}.get(self.accelerator.mixed_precision, self.accelerator.mixed_precision)
        return TrainingResult(self.step, seconds, seen, self.output_dir, precision,
                              self.micro_batch_size, self.history, self.best["step"], self.best["spearman"], resumed_from)

    def _due(self, every: int | None) -> bool:
        return bool(every) and self.step % every == 0

    def _optimizer_step(self, batch: list[int]) -> float:
        """One optimizer step over ``batch``; on CUDA out-of-memory, halve the micro-batch and redo it.

        Under ``accelerate launch`` with several processes, each takes its share of the batch and
        accelerate averages the gradients, so the effective batch stays ``batch_size``.
        """
        batch = batch[self.accelerator.process_index::self.accelerator.num_processes] or batch[:1]
        while True:
            try:  # in-batch objectives over micro-batches: gradient caching keeps every negative (gradient_cache.py)
                return (cached_optimizer_step if uses_cache(self, batch) else _Run._accumulated_step)(self, batch)
            except torch.cuda.OutOfMemoryError:
                back_off_after_out_of_memory(self, len(batch))

    def _accumulated_step(self, batch: list[int]) -> float:
        size = self.micro_batch_size
        chunks = [batch[start:start + size] for start in range(0, len(batch), size)]
        self.accelerator.gradient_accumulation_steps = len(chunks)
        self.accelerator.step = 0  # each optimizer step starts a fresh accumulation cycle
        total = 0.0
        for chunk in chunks:
            with self.accelerator.accumulate(self.prepared):
                columns, labels = self.examples.batch(chunk)
                total += float(_forward_backward(self, columns, labels)) * len(chunk) / len(batch)
                if self.accelerator.sync_gradients:
                    if self.config.max_grad_norm:
                        self.accelerator.clip_grad_norm_(self.prepared.parameters(), self.config.max_grad_norm)
                    self.optimizer.step()
                    self.scheduler.step()
                    self.optimizer.zero_grad()
        return total

    # ------------------------------------------------------------------ logging and evaluation
    def _log(self, loss: float, bar) -> None:
        self.history["step"].append(self.step)
        self.history["loss"].append(loss)
        self.history["lr"].append(self.scheduler.get_last_lr()[0])
        bar.update(1)
        bar.set_postfix(loss=f"{loss:.4f}")

    def _event(self) -> dict:
        event = {"step": self.step, "total_steps": len(self.plan), "loss": self.history["loss"][-1], "lr": self.history["lr"][-1]}
        if self.history["eval_step"] and self.history["eval_step"][-1] == self.step:
            event["dev_spearman"] = self.history["dev_spearman"][-1]
        return event

    def _evaluate(self) -> None:
        if self.dev is None:
            return
        model = self.model
        score = model.sts_spearman(self.dev)
        model.train()  # evaluation switched the model to eval mode
        self.history["eval_step"].append(self.step)
        self.history["dev_spearman"].append(score)
        if self.best["spearman"] is None or score > self.best["spearman"]:
            self.best = {"step": self.step, "spearman": score}
            save_weights(self.output_dir / "best", model.state_dict(), {**self.best, "dev": f"{self.dev.name} {self.dev.split}"})

    # ------------------------------------------------------------------ checkpoints
    def _fingerprint(self) -> dict:
        settings = {k: v for k, v in asdict(self.config).items()
                    if k not in ("progress", "device", "micro_batch_size", "checkpoint_every", "save_checkpoints")}
        return {"objective": self.objective, "examples": len(self.examples), "data": self.examples.description,
                "steps": len(self.plan), **settings}

    def _save(self) -> None:
        if not self.accelerator.is_main_process:
            return
        state = {"optimizer": self.optimizer.state_dict(), "scheduler": self.scheduler.state_dict(), "rng": random_state()}
        if self.accelerator.scaler is not None:
            state["scaler"] = self.accelerator.scaler.state_dict()
        info = {"step": self.step, "micro_batch_size": self.micro_batch_size, "history": self.history, "best": self.best,
                "fingerprint": self._fingerprint()}
        save_checkpoint(self.output_dir / "checkpoint", self.model.state_dict(), state, info)

    def _resume(self) -> int:
        found = load_checkpoint(self.output_dir / "checkpoint")
        if found is None:
            return 0
        weights, state, info = found
        if info["fingerprint"] != self._fingerprint():
            raise ValueError(f"{self.output_dir} holds a checkpoint of a different run ({info['fingerprint']}); "
                             "pass a fresh output_dir to start over, or the same settings to resume it.")
        self.model.load_state_dict(weights)
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        if "scaler" in state and self.accelerator.scaler is not None:
            self.accelerator.scaler.load_state_dict(state["scaler"])
        restore_random_state(state["rng"])
        self.step, self.micro_batch_size = info["step"], info["micro_batch_size"]
        self.history, self.best = info["history"], info["best"]
        print(f"Resuming from the checkpoint at step {self.step} of {len(self.plan)} in {self.output_dir}.", flush=True)
        return self.step
