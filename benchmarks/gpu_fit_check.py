"""GPU check for ``fit``: a randomly initialised bert-base-sized model, fp32 against bf16.

For each precision, a fresh process (accelerate's precision is fixed per process) runs ``fit``
for ``--steps`` steps (classification objective, SNLI + MultiNLI dev pairs, batch 16) and
reports steps/s (steps 11 … N−1: warm-up and the final checkpoint excluded), peak GPU memory,
and the encode throughput of the same model (sentences/s, the workbook's Encoder). Last, the lessons' own probe on this
GPU and every notebook's predicted seconds per mode with bert-base (``forecast``): the measured side of the session
sizes that were chosen from a T4's stated throughput (sbert_workbook/forecast/reference.py).

Needs a CUDA GPU and the workbook installed (``pip install -e .``); data from ../shared/data
when present, otherwise synthetic sentences from the tokenizer's vocabulary.

    HF_HUB_OFFLINE=1 python benchmarks/gpu_fit_check.py --steps 300
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

BERT_BASE = {"hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072}


def training_examples(tokenizer, n: int):
    import numpy as np

    import sbert_workbook as sbw
    from sbert_workbook.training.examples import Examples, concatenate, nli_pairs

    try:
        return concatenate(nli_pairs(sbw.load_nli("snli")), nli_pairs(sbw.load_nli("mnli"))).head(n)
    except Exception as missing:  # noqa: BLE001 - any data problem: fall back to synthetic text
        print(f"NLI data not found ({type(missing).__name__}); using synthetic sentences", file=sys.stderr)
        rng = np.random.default_rng(0)
        words = [w for w in tokenizer.get_vocab() if w.isalpha()]
        sentence = lambda: " ".join(rng.choice(words, size=rng.integers(8, 24)))  # noqa: E731
        columns = {"premise": [sentence() for _ in range(n)], "hypothesis": [sentence() for _ in range(n)]}
        return Examples(columns, rng.integers(0, 3, size=n), f"{n} synthetic pairs")


def one_precision(precision: str, steps: int, batch: int, device: str = "cuda", tiny: bool = False) -> dict:
    import torch

    cuda = device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    from sbert_workbook.training.siamese import SiameseModel
    from sbert_workbook.training.fitting import TrainingConfig, fit

    sizes = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64} if tiny else BERT_BASE
    model = SiameseModel.from_scratch("embedded", device=device, **sizes)
    model.add_classifier(3)
    examples = training_examples(model.tokenizer, steps * batch)
    marks = {}

    def clock(event, history):
        if event["step"] in (10, steps - 1):
            sync()
            marks[event["step"]] = time.perf_counter()

    if cuda:
        torch.cuda.reset_peak_memory_stats()
    config = TrainingConfig(batch_size=batch, max_steps=steps, mixed_precision=precision, device=device, progress=False)
    with tempfile.TemporaryDirectory() as folder:
        result = fit(model, examples, "softmax", config, output_dir=folder, callback=clock)
    peak_gib = torch.cuda.max_memory_allocated() / 2**30 if cuda else float("nan")
    sentences = [s for column in examples.columns.values() for s in column][:4096]
    encoder = model.encoder()
    encoder.encode(sentences[:256], batch_size=128)  # warm-up
    sync()
    started = time.perf_counter()
    encoder.encode(sentences, batch_size=128)
    sync()
    return {"precision": result.precision, "steps": result.steps, "steps_per_s": (steps - 11) / (marks[steps - 1] - marks[10]),
            "pairs_per_s": (steps - 11) * batch / (marks[steps - 1] - marks[10]), "peak_train_memory_gib": peak_gib,
            "encode_sentences_per_s": len(sentences) / (time.perf_counter() - started), "final_loss": result.history["loss"][-1],
            "gpu": torch.cuda.get_device_name() if cuda else "cpu",
            "capability": ".".join(map(str, torch.cuda.get_device_capability())) if cuda else "-"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--precisions", default="no,bf16", help="accelerate names: no (fp32), bf16, fp16")
    parser.add_argument("--device", default="cuda", help="cuda; cpu only to smoke-test this script")
    parser.add_argument("--tiny", action="store_true", help="a 2-layer model instead of bert-base (smoke test)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print("RESULT " + json.dumps(one_precision(args.one, args.steps, args.batch, args.device, args.tiny)), flush=True)
        return
    rows = []
    for precision in args.precisions.split(","):
        done = subprocess.run([sys.executable, __file__, "--one", precision, "--steps", str(args.steps), "--batch", str(args.batch), "--device", args.device]
                              + (["--tiny"] if args.tiny else []),
                              capture_output=True, text=True)
        found = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode or not found:
            print(f"{precision}: failed (exit {done.returncode})\n{done.stderr[-3000:]}")
            continue
        rows.append(json.loads(found[-1][len("RESULT "):]))
    print(f"\nfit on a random {'tiny (smoke test)' if args.tiny else 'bert-base-sized'} BERT, classification objective, batch {args.batch}, {args.steps} steps")
    for row in rows:
        print(f"  {row['precision']:>4}: {row['steps_per_s']:6.2f} steps/s ({row['pairs_per_s']:7.1f} pairs/s), peak memory "
              f"{row['peak_train_memory_gib']:5.2f} GiB, encode {row['encode_sentences_per_s']:7.0f} sentences/s, "
              f"final loss {row['final_loss']:.3f}  [{row['gpu']}, capability {row['capability']}]")
    print(json.dumps(rows))
    print(json.dumps({"forecast": forecast_on(args.device)}))


def forecast_on(device: str) -> dict:
    """The lessons' probe on this GPU and each notebook's predicted seconds per mode with a bert-base-shaped model (the
    stand-in: what MODEL = "auto" loads online), beside the stated T4 throughput the session sizes were chosen with."""
    import tempfile
    from pathlib import Path

    import torch

    from sbert_workbook.environment.bert_base_standin import write_bert_base_standin
    from sbert_workbook.forecast.lessons import lesson_forecasts, model_folders, rates_for
    from sbert_workbook.lessons.manifest import all_manifests

    from sbert_workbook.environment.bert_base_standin import STANDIN_MODEL_ID, STANDIN_REVISION

    with tempfile.TemporaryDirectory(prefix="sbw-gpu-forecast-") as home:
        write_bert_base_standin(Path(home))
        folder = str(Path(home) / "hub" / f"models--{STANDIN_MODEL_ID}" / "snapshots" / STANDIN_REVISION)
        rates = rates_for(model_folders(folder), torch.device(device))
        table = {m.notebook: {mode: round(f.total_s, 1) for mode, f in lesson_forecasts(m, None, folder, torch.device(device),
                                                                                        rates).items()}
                 for m in all_manifests() if m.work is not None}
    return {"probe": {"where": rates.where, "source": rates.source, "encode_s_per_token": rates.encode_s_per_token,
                      "train_s_per_token": rates.train_s_per_token, "cpu_factor": rates.cpu_factor},
            "predicted_s": table}


if __name__ == "__main__":
    main()
