"""Lesson 08's experiments: every way of keeping the vectors measured against float32 in one run
(``08_what_an_embedding_costs.ipynb``, §2–§5).

Each experiment is one call a visible cell makes; it returns a :class:`~sbert_workbook.cost.frontier.Frontier`
(its table, its STS per set, each storage's STS change against float32 with its interval) that the reports read.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sbert_workbook.calibration.calibrators import Whitening
from sbert_workbook.cost import frontier
from sbert_workbook.cost.static_model import distil_static_model, static_vectors
from sbert_workbook.cost.storage import ApproximateIndex, Binary, Float32, Int8, Reduced, RescoredBinary
from sbert_workbook.cost.truncation import CentredFirstDimensions, FirstDimensions, PrincipalComponents
from sbert_workbook.lessons.manifests.nb08 import MANIFEST
from sbert_workbook.diagnosis.ladder import PairVectors, spearman_table
from sbert_workbook.evaluation.uncertainty import Interval, paired_bootstrap, seed_interval
from sbert_workbook.lessons.nb08.setup import K, Lesson08, timed_encoding_ms

#: Rescoring reads this many binary candidates per result kept.
RESCORE_MULTIPLIER = 4


def measure(lesson: Lesson08, storages, pairs: PairVectors | None = None, queries=None, corpus=None,
            calibration=None) -> frontier.Frontier:
    """The storages (float32 first) on the lesson's pairs and retrieval set, or on another model's vectors of them."""
    return frontier.measure(storages, lesson.calibration if calibration is None else calibration,
                            lesson.pairs if pairs is None else pairs,
                            lesson.query_vectors if queries is None else queries,
                            lesson.corpus_vectors if corpus is None else corpus, lesson.retrieval.match, k=K,
                            repeats=lesson.sizes.REPEATS, resamples=lesson.sizes.RESAMPLES, seed=lesson.seed)


def quantized(lesson: Lesson08) -> frontier.Frontier:
    """§2: float32, int8, binary, and binary rescored with the float query (on the bits; on int8 values kept beside)."""
    return measure(lesson, [Float32(), Int8(), Binary(), RescoredBinary(RESCORE_MULTIPLIER),
                            RescoredBinary(RESCORE_MULTIPLIER, with_int8=True)])


def fewer_dimensions(lesson: Lesson08) -> frontier.Frontier:
    """§3: the first k dimensions (as they are, and centred as PCA-k centres), PCA-k and whitening-k for every k of
    DIMENSIONS, beside float32."""
    ks = [k for k in lesson.sizes.DIMENSIONS if k < lesson.dimensions]
    storages = [Float32()]
    for make in (FirstDimensions, CentredFirstDimensions, PrincipalComponents, Whitening):
        storages += [Reduced(make(k)) for k in ks]
    return measure(lesson, storages)


@dataclass
class MatryoshkaRun:
    """§3.1: STS avg of the first k dimensions (rows: k) of the start model and, one column per seed, of the model
    trained with multiple negatives ranking alone (``plain``) and with its Matryoshka sum; each k's Matryoshka − plain
    change over the seeds."""

    trained: str
    start: pd.Series
    plain: pd.DataFrame
    matryoshka: pd.DataFrame
    changes: dict[int, Interval]


def first_k_sts(pairs: PairVectors, ks) -> pd.Series:
    """STS avg (Spearman × 100, mean of the sets) of the first k dimensions, for each k."""
    rows = {k: pairs.cosines(lambda vectors, k=k: vectors[:, :k]) for k in ks}
    return spearman_table(rows, pairs.gold())["avg"]


#: The steps §3.1's cell offers a CPU (tools/matryoshka_run.py measures that run and stores it beside this module).
CPU_RUN_STEPS = 200
CPU_RUN_FILE = Path(__file__).with_name("matryoshka_cpu.json")


def measured_cpu_run(full_steps: int, path: Path = CPU_RUN_FILE) -> str:
    """What the offered CPU run cost and showed when it was measured (tools/matryoshka_run.py), and what full mode's
    ``full_steps`` per run would cost at that pace; '' if never measured."""
    if not path.is_file():
        return ""
    run = json.loads(path.read_text(encoding="utf-8"))
    ks = sorted(run["first_k"], key=lambda k: -int(k))
    full_hours = run["seconds"] * full_steps / run["steps"] / 3600  # training dominates; it grows with the steps
    changes = "; ".join(f"k = {k}: {run['first_k'][k]['Matryoshka − plain']}" for k in ks)
    widest, smallest = run["first_k"][ks[0]], run["first_k"][ks[-1]]
    return (f"Measured: {run['steps']} steps × {run['seeds']} seeds × two objectives with {run['model_name']} "
            f"took {run['seconds'] / 60:.0f} min on {run['nproc']} CPU cores and peaked at {run['peak_rss_gb']:.1f} GB. "
            f"Matryoshka − plain, STS avg of the first k dimensions: {changes}. The start model, not trained for it, "
            f"already kept {smallest['start model']:.1f} of its {widest['start model']:.1f} in its first {ks[-1]} "
            f"dimensions. Full mode's {full_steps} steps per run would take about {full_hours:.1f} h at that pace: a "
            "GPU's run.")


def matryoshka(lesson: Lesson08) -> MatryoshkaRun | None:
    """§3.1: train MODEL twice per seed on NLI (anchor, entailment) pairs, with multiple negatives ranking and with
    its Matryoshka sum over the full width and every k of DIMENSIONS, the same steps, batches and seed; score the
    first k dimensions of each. None (and why, printed) when MATRYOSHKA_STEPS is None."""
    from sbert_workbook.data.loaders import load_nli
    from sbert_workbook.training.examples import concatenate, nli_positive_pairs
    from sbert_workbook.training.fitting import TrainingConfig, fit
    from sbert_workbook.training.siamese import SiameseModel

    s = lesson.sizes
    if not s.MATRYOSHKA_STEPS:
        print(f"Left out in this mode: MATRYOSHKA_STEPS is None. Full mode trains it ({s.MATRYOSHKA_SEEDS} seeds × two "
              f"objectives); to run it here, set SIZES = {{\"MATRYOSHKA_STEPS\": {CPU_RUN_STEPS}}}. "
              f"{measured_cpu_run(MANIFEST.sizes['MATRYOSHKA_STEPS'].full)}")
        return None
    ks = (lesson.dimensions, *[k for k in s.DIMENSIONS if k < lesson.dimensions])
    pairs = concatenate(*(nli_positive_pairs(load_nli(name)) for name in ("snli", "mnli")))
    seeds = list(range(lesson.seed, lesson.seed + s.MATRYOSHKA_SEEDS))
    scores, steps_run = {"mnrl": {}, "matryoshka": {}}, set()
    epochs = math.ceil(s.MATRYOSHKA_STEPS * s.MATRYOSHKA_BATCH / len(pairs))  # max_steps cuts epochs, never adds them
    for seed in seeds:
        for objective, by_seed in scores.items():
            model = SiameseModel.from_pretrained(lesson.encoder.resolved, device=lesson.device, announce=False)
            config = TrainingConfig(batch_size=s.MATRYOSHKA_BATCH, learning_rate=2e-5, max_steps=s.MATRYOSHKA_STEPS,
                                    epochs=epochs, seed=seed, device=str(lesson.device), save_checkpoints=False,
                                    progress=False, matryoshka_dimensions=ks)
            steps_run.add(fit(model, pairs, objective, config).steps)
            vectors = model.encoder().encode(lesson.pairs.corpus, batch_size=64, progress=False).float().numpy()
            by_seed[seed] = first_k_sts(PairVectors(lesson.pairs.sets, lesson.pairs.corpus, vectors), ks)
            del model
    plain, nested = (pd.DataFrame(scores[name]).rename_axis(index="k", columns="seed") for name in ("mnrl", "matryoshka"))
    changes = {k: seed_interval((nested.loc[k] - plain.loc[k]).tolist()) for k in ks}
    trained = (f"{lesson.encoder.name} trained {'/'.join(map(str, sorted(steps_run)))} steps per run on SNLI + MultiNLI dev (anchor, "
               f"entailment) pairs, batch {s.MATRYOSHKA_BATCH}, learning rate 2e-5, seeds {seeds[0]}–{seeds[-1]}: with "
               f"multiple negatives ranking (plain), and with its Matryoshka sum over k = {', '.join(map(str, ks))}")
    return MatryoshkaRun(trained, first_k_sts(lesson.pairs, ks), plain, nested, changes)


@dataclass
class StaticRun:
    """§4: the static model distilled from MODEL, its distillation time, its query encoding time and its frontier
    (float32 transformer vectors first, then the static model's)."""

    static_model: object
    distil_seconds: float
    encode_ms: float
    frontier: frontier.Frontier


class _OtherModel(Float32):
    """Float32 storage that stands for another model's vectors in a frontier (its own name)."""

    def __init__(self, name: str):
        self.name = name


def static_model(lesson: Lesson08) -> StaticRun:
    """§4: distil a static model from MODEL with model2vec, encode every sentence with it, measure it beside MODEL."""
    folder = lesson.encoder.resolved.path / lesson.encoder.modules.transformer_path
    started = time.perf_counter()
    static = distil_static_model(folder, longest_token=lesson.sizes.STATIC_LONGEST_TOKEN)
    seconds = time.perf_counter() - started
    embed = lambda sentences: static_vectors(static, sentences)  # noqa: E731
    pairs = PairVectors(lesson.pairs.sets, lesson.pairs.corpus, embed(lesson.pairs.corpus))
    vectors = {"queries": embed(lesson.retrieval.queries), "corpus": embed(lesson.retrieval.corpus)}
    encode_ms = timed_encoding_ms(embed, lesson.retrieval.queries[:lesson.sizes.TIMED_QUERIES], 1)
    static_storage = _OtherModel(f"static model (model2vec, {pairs.vectors.shape[1]} dims)")
    own = measure(lesson, [Float32()])
    other = measure(lesson, [static_storage], pairs=pairs, queries=vectors["queries"], corpus=vectors["corpus"],
                    calibration=pairs.vectors)
    change = paired_bootstrap(lesson.pairs.gold(), pairs.cosines(), lesson.pairs.cosines(),
                              resamples=lesson.sizes.RESAMPLES, seed=lesson.seed)
    both = frontier.Frontier(pd.concat([own.table, other.table]), pd.concat([own.sts, other.sts]),
                             {static_storage.name: change})
    return StaticRun(static, seconds, encode_ms, both)


@dataclass
class IndexRun:
    """§5: exact search against the HNSW graph, and the share of exact search's top K the graph finds."""

    frontier: frontier.Frontier
    overlap: float


def approximate_index(lesson: Lesson08) -> IndexRun:
    """§5: exact float32 search against usearch's HNSW graph over the same vectors."""
    graph = ApproximateIndex(connectivity=16, expansion=64)
    return IndexRun(measure(lesson, [Float32(), graph]), exact_overlap(lesson, graph))


@dataclass
class RerankRun:
    """§6: what the cross-encoder is, and each k's per-query outcomes before and after reranking (03 §6's)."""

    trained: str
    outcomes: list
    queries: int
    steps: int = 0  # the cross-encoder's training steps


def reranked(lesson: Lesson08) -> RerankRun:
    """§6: a cross-encoder over RERANK_START's weights (None: MODEL's) trained RERANK_STEPS on STS-B train (04 §1's
    architecture, 03 §6's recipe), reranking float32 search's top k for RERANK_QUERIES queries, each k timed on its
    own. A reranker need not share the bi-encoder's weights: it reads the candidates' text, not their vectors."""
    from sbert_workbook.data.loaders import load_sts
    from sbert_workbook.evaluation.rerank import RetrievalSet, rerank_outcomes
    from sbert_workbook.training.cross_encoder import CrossEncoder
    from sbert_workbook.training.examples import sts_pairs
    from sbert_workbook.training.fitting import TrainingConfig, fit

    s = lesson.sizes
    start = lesson.encoder.resolved if s.RERANK_START is None else s.RERANK_START
    pair_model = CrossEncoder.from_pretrained(start, device=lesson.device, seed=lesson.seed)
    config = TrainingConfig(learning_rate=s.RERANK_LEARNING_RATE, max_steps=s.RERANK_STEPS, seed=lesson.seed,
                            device=str(lesson.device), save_checkpoints=False, progress=False)
    run = fit(pair_model, sts_pairs(load_sts("stsb", "train")), "cross_regression", config)
    n = min(s.RERANK_QUERIES or len(lesson.retrieval), len(lesson.retrieval))
    some = RetrievalSet(lesson.retrieval.queries[:n], lesson.retrieval.corpus, lesson.retrieval.match[:n],
                        f"the first {n} queries of §1's retrieval set")
    outcomes = rerank_outcomes(lesson.query_vectors[:n], lesson.corpus_vectors, pair_model.predict, some, s.RERANK_KS)
    trained = (f"{pair_model.name}, trained {run.steps} steps on STS-B train (batch {config.batch_size}, learning rate "
               f"{config.learning_rate:g}, {run.seconds:.0f} s)")
    del pair_model
    return RerankRun(trained, outcomes, n, run.steps)


def exact_overlap(lesson: Lesson08, storage) -> float:
    """The share of exact float32 search's top K that ``storage`` finds too, over all queries."""
    exact = Float32().fit(lesson.calibration)
    truth = exact.search(lesson.query_vectors, exact.store(lesson.corpus_vectors), K)
    storage.fit(lesson.calibration)
    found = storage.search(lesson.query_vectors, storage.store(lesson.corpus_vectors), K)
    return float(np.mean([len(set(a) & set(b)) / K for a, b in zip(truth.tolist(), found.tolist())]))
