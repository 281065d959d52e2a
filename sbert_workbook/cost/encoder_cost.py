"""The encoder's own cost: one model's encode in float32, with int8 linear layers and in bfloat16, each timed against
sentence-transformers' ``encode`` in the same run, with its STS change (``08_what_an_embedding_costs``, §5.2).

Encoding a query costs milliseconds where searching a few thousand vectors costs microseconds, so the plane of §7 is
incomplete without it. :func:`encoder_rows` loads the model once per precision (:mod:`sbert_workbook.encoding.precision`),
times the workbook's ``encode`` on the same sentences as sentence-transformers' float32 ``encode`` (alternating, every
other round in the reverse order, the fastest of each kept), and scores each precision's vectors of the STS pairs
against float32's with the paired bootstrap (03).
"""
from __future__ import annotations

import time
from collections.abc import Sequence

import pandas as pd

from sbert_workbook.diagnosis.ladder import PairVectors, spearman_table
from sbert_workbook.evaluation.uncertainty import Interval, paired_bootstrap


def fastest_alternating(runs: dict, repeats: int) -> dict[str, float]:
    """The fastest seconds of each of ``runs`` ({name: function}) over ``repeats`` rounds, every other round in the
    reverse order, so both see the same machine load."""
    best = dict.fromkeys(runs, float("inf"))
    for repeat in range(repeats):
        for name, run in (list(runs.items()) if repeat % 2 == 0 else list(runs.items())[::-1]):
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def encoder_rows(load, pairs: PairVectors, timed: Sequence[str], precisions: Sequence[str] = ("float32", "int8"),
                 repeats: int = 2, batch_size: int = 64, resamples: int = 2000,
                 seed: int = 0) -> tuple[pd.DataFrame, dict[str, Interval]]:
    """One row per precision: ms per sentence of the workbook's encode and of sentence-transformers' (float32) on the
    ``timed`` sentences, their ratio, and STS avg of the precision's vectors of ``pairs.corpus``; each precision's STS
    change against the first precision's (float32) with its paired-bootstrap interval. ``load(precision)`` gives the
    :class:`~sbert_workbook.encoding.encoder.Encoder` (one at a time: each is dropped before the next is loaded)."""
    from sentence_transformers import SentenceTransformer

    from sbert_workbook.encoding.quiet_loading import quiet_transformers

    timed, rows, cosines, intervals = list(timed), {}, {}, {}
    theirs_model = None
    for precision in precisions:
        ours = load(precision)
        if theirs_model is None:
            with quiet_transformers():
                theirs_model = SentenceTransformer(str(ours.resolved.path), device=str(ours.device))
        encode = {"ours": lambda: ours.encode(timed, batch_size=batch_size, progress=False),
                  "theirs": lambda: theirs_model.encode(timed, batch_size=batch_size, show_progress_bar=False)}
        for run in encode.values():  # warm-up: the first call pays for allocation
            run()
        best = fastest_alternating(encode, repeats)
        vectors = ours.encode(pairs.corpus, batch_size=batch_size, progress=False).float().numpy()
        cosines[precision] = PairVectors(pairs.sets, pairs.corpus, vectors).cosines()
        rows[precision] = {"ms per sentence": 1000 * best["ours"] / len(timed),
                           "sentence-transformers ms per sentence": 1000 * best["theirs"] / len(timed),
                           "× sentence-transformers' speed": best["theirs"] / best["ours"]}
        ours = encode = None  # dropped before the next precision loads
    sts = spearman_table(cosines, pairs.gold())
    table = pd.DataFrame(rows).T.rename_axis("precision")
    table["STS avg"] = sts["avg"]
    reference = precisions[0]
    for precision in precisions[1:]:
        intervals[precision] = paired_bootstrap(pairs.gold(), cosines[precision], cosines[reference], resamples=resamples,
                                                seed=seed)
    table.attrs["timed"] = f"{len(timed)} sentences, batch {batch_size}, fastest of {repeats} alternating rounds"
    return table, intervals


def available_precisions(device: str = "cpu") -> list[str]:
    """float32 and int8 on a CPU (int8 is PyTorch's CPU path), and bfloat16 where the CPU multiplies it natively."""
    from sbert_workbook.encoding.precision import cpu_has_bfloat16

    if device != "cpu":
        return ["float32", "bfloat16"]
    return ["float32", "int8"] + (["bfloat16"] if cpu_has_bfloat16() else [])


