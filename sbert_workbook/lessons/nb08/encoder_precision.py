"""Lesson 08 §5.2, the encoder's own cost: the transformer at each precision (float32, bfloat16, int8) against
sentence-transformers on the same sentences, time and STS with their intervals (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import gc
from dataclasses import dataclass

import pandas as pd

from sbert_workbook.cost import encoder_cost
from sbert_workbook.diagnosis.ladder import effect
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.heap import return_freed_memory
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, Lesson08
from sbert_workbook.lessons.report import Report, verdict


@dataclass
class EncoderRun:
    """§5.2: one row per precision and each one's STS change against float32."""

    table: pd.DataFrame
    intervals: dict


def encoder_precisions(lesson: Lesson08) -> EncoderRun:
    """§5.2: the workbook's encode in float32, int8 (CPU) and bfloat16 (where the CPU has it), each timed against
    sentence-transformers' encode in one run, each scored on the STS pairs."""
    import contextlib
    import io

    from sbert_workbook.encoding.encoder import load_encoder

    def load(precision):
        if precision == "float32":
            return lesson.encoder  # the lesson's own, as loaded
        with contextlib.redirect_stdout(io.StringIO()):  # the same model again: its load report was printed at set-up
            return load_encoder(str(lesson.encoder.resolved.path), device=lesson.device, precision=precision)

    s = lesson.sizes
    table, intervals = encoder_cost.encoder_rows(load, lesson.pairs, lesson.pairs.corpus[:s.ENCODER_TIMED_SENTENCES],
                                                 encoder_cost.available_precisions(lesson.device.type), s.ENCODER_REPEATS,
                                                 resamples=s.RESAMPLES, seed=lesson.seed)
    gc.collect()  # the int8 and bfloat16 copies and sentence-transformers' model are gone: hand their pages back
    return_freed_memory()
    return EncoderRun(table, intervals)


def encoder_report(lesson: Lesson08, run: EncoderRun) -> Report:
    """§5.2: each precision's speed against sentence-transformers and its STS change, drawn, and their verdicts."""
    table = with_provenance(run.table.round(3), model=lesson.encoder,
                            pooling=lesson.encoder.modules.describe().removeprefix("pooling: "),
                            aggregation=f"ms: the workbook's encode and sentence-transformers' (float32) on the same "
                                        f"{run.table.attrs['timed']}; STS avg: mean Spearman × 100 over the seven sets",
                            split=lesson.split.split("; retrieval")[0])
    said, verdicts = [], {}
    for precision, interval in run.intervals.items():
        ratio = run.table.loc[precision, "× sentence-transformers' speed"]
        said.append(f"{precision}: {ratio:.2f}× sentence-transformers' speed; STS change against float32 "
                    f"{interval.described()} ({effect(interval)})")
        verdicts |= verdict(NOTEBOOK, f"the encoder in {precision} against float32, STS", interval.direction)
    figure = interval_forest_figure({f"{p} − float32": i for p, i in run.intervals.items()},
                                    f"{lesson.encoder.name}: STS change of the encoder's precision")
    return Report(table, *said, figure, verdicts=verdicts)
