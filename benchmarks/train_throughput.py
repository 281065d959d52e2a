"""Training throughput: our ``fit`` against sentence-transformers' own trainer, same data, batch and steps.

Both fine-tune all-MiniLM-L6-v2 (the embedded copy) with the regression objective
(cosine-MSE, sentence-transformers' ``CosineSimilarityLoss``) on the first STS-B train pairs,
batch 16, lr 2e-5, 10 % warm-up, max_length 128, fp32, on the same device. The two runs
alternate ``--repeats`` times; the best of each is reported, with the ratio, in one run.

    HF_HUB_OFFLINE=1 python benchmarks/train_throughput.py --steps 20 --repeats 2
"""
from __future__ import annotations

import argparse
import copy
import tempfile
import time

import torch

import sbert_workbook as sbw
from sbert_workbook.training.examples import sts_pairs
from sbert_workbook.training.siamese import SiameseModel
from sbert_workbook.training.fitting import TrainingConfig, fit

MAX_LENGTH = 128


class Clock:
    """Wall-clock and process CPU seconds of a block: CPU time is fairer when other jobs share the cores."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu

    def rates(self, pairs: int) -> tuple[float, float]:
        """(pairs per wall-clock second, pairs per CPU second)."""
        return pairs / self.wall, pairs / self.cpu


def ours(base: SiameseModel, examples, steps: int, batch: int, device: str) -> tuple[float, float]:
    model = copy.deepcopy(base)
    config = TrainingConfig(batch_size=batch, max_steps=steps, progress=False, device=device, seed=0, save_checkpoints=False)
    with tempfile.TemporaryDirectory() as folder, Clock() as clock:
        fit(model, examples, "regression", config, output_dir=folder)
    return clock.rates(steps * batch)


def theirs(path: str, examples, steps: int, batch: int, device: str) -> tuple[float, float]:
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.sentence_transformer.losses import CosineSimilarityLoss

    model = SentenceTransformer(path, device=device)
    model.max_seq_length = MAX_LENGTH
    columns = list(examples.columns.values())
    data = Dataset.from_dict({"sentence1": columns[0], "sentence2": columns[1], "score": examples.labels.tolist()})
    with tempfile.TemporaryDirectory() as folder:
        args = SentenceTransformerTrainingArguments(
            output_dir=folder, per_device_train_batch_size=batch, max_steps=steps, learning_rate=2e-5,
            warmup_steps=int(0.1 * steps), report_to="none", save_strategy="no", logging_strategy="no", seed=0,
            use_cpu=device == "cpu", dataloader_num_workers=0, disable_tqdm=True)
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=data, loss=CosineSimilarityLoss(model))
        with Clock() as clock:
            trainer.train()
    return clock.rates(steps * batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    examples = sts_pairs(sbw.load_sts("stsb", "train")).head(args.steps * args.batch)
    base = SiameseModel.from_pretrained("embedded", max_length=MAX_LENGTH, device=args.device)
    results = {"ours (sbw fit)": [], "sentence-transformers trainer": []}
    for _ in range(args.repeats):
        results["ours (sbw fit)"].append(ours(base, examples, args.steps, args.batch, args.device))
        results["sentence-transformers trainer"].append(theirs(str(base.resolved.path), examples, args.steps, args.batch, args.device))
    print(f"\nall-MiniLM-L6-v2, regression objective, STS-B train, batch {args.batch}, {args.steps} steps, device {args.device}, "
          f"torch threads {torch.get_num_threads()}; best of {args.repeats} alternating runs; timed: our fit() call vs trainer.train(), neither saving checkpoints")
    best = {}
    for name, values in results.items():
        best[name] = (max(v[0] for v in values), max(v[1] for v in values))
        runs = ", ".join(f"{wall:.1f}" for wall, _ in values)
        print(f"  {name:32s} {best[name][0]:7.1f} pairs/s wall clock (runs: {runs}); {best[name][1]:7.1f} pairs per CPU-second")
    ours_best, theirs_best = best["ours (sbw fit)"], best["sentence-transformers trainer"]
    print(f"  ratio ours / sentence-transformers: {ours_best[0] / theirs_best[0]:.2f} (wall clock), "
          f"{ours_best[1] / theirs_best[1]:.2f} (CPU time)")

if __name__ == "__main__":
    main()
