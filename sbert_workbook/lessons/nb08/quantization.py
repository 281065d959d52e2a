"""Lesson 08 §2, fewer bits a number: int8 and binary vectors (binary searched by Hamming distance, then rescored)
against float32 in one run, what sentence-transformers' own quantization gives on the same vectors, and the predict
question (``08_what_an_embedding_costs.ipynb``)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.cost import frontier
from sbert_workbook.cost.frontier import Frontier
from sbert_workbook.cost.storage import Binary, Float32, Int8, RescoredBinary
from sbert_workbook.diagnosis.ladder import effect
from sbert_workbook.lessons.nb08.lesson import NOTEBOOK, K, Lesson08, captioned, changes_said, forest, measure
from sbert_workbook.lessons.report import Report, verdict

#: Rescoring reads this many binary candidates per result kept.
RESCORE_MULTIPLIER = 4


def quantized(lesson: Lesson08) -> frontier.Frontier:
    """§2: float32, int8, binary, and binary rescored with the float query (on the bits; on int8 values kept beside)."""
    return measure(lesson, [Float32(), Int8(), Binary(), RescoredBinary(RESCORE_MULTIPLIER),
                            RescoredBinary(RESCORE_MULTIPLIER, with_int8=True)])


def quantization_report(lesson: Lesson08, run: Frontier) -> Report:
    """§2: float32 against int8, binary and rescored binary: the table, each STS change drawn, and the verdicts."""
    table = captioned(run.table.round(4), lesson, "int8 ranges and binary signs from the calibration sentences")
    verdicts = {}
    for name in ("int8", "binary"):  # the direction: whether it is a point or more sits near the interval's edge
        verdicts |= verdict(NOTEBOOK, f"{name} against float32, STS", run.intervals[name].direction)
    rescored = [name for name in run.intervals if name.startswith("binary, rescored")]
    recall = {name: run.recall_change(name, "binary", lesson.sizes.RESAMPLES, lesson.seed) for name in rescored}
    said = [f"recall@{K}, {name} − binary, on the same queries: {interval.described()}" for name, interval in recall.items()]
    for name, interval in recall.items():
        verdicts |= verdict(NOTEBOOK, f"{name.removeprefix('binary, ')} against binary alone, recall@{K}", interval.direction)
    popcount = ("NumPy's np.bitwise_count, one popcount per byte" if hasattr(np, "bitwise_count")
                else "a 256-entry table lookup per byte (this NumPy has no bitwise_count)")
    return Report(table, *changes_said(run), *said, f"Hamming distances here: {popcount}.",
                  forest(run, f"{lesson.encoder.name}: STS change against float32"), verdicts=verdicts)


def predict_binary(lesson: Lesson08, run: Frontier):
    """§2's predict question: binary keeps one bit of every 32: will STS surely fall a point or more?"""
    from sbert_workbook.teaching.predict import predict_question

    options = ["Yes: surely a point or more below float32", "No sure loss of a point"]
    hurts = effect(run.intervals["binary"]) == "hurts"
    return predict_question(
        f"Binary vectors keep one bit of each of {lesson.encoder.name}'s 32-bit numbers, its sign. Will STS (both "
        "sentences of a pair binarised, compared by how many bits agree, d − 2·Hamming) fall a point or more below "
        "float32's, beyond its interval?",
        options, options[0 if hurts else 1],
        "A sign keeps which side of each direction a sentence lies on. How much that loses depends on how the model "
        "spreads its sentences: centred, spread dimensions keep most of the order in their signs; a cone whose every "
        "sentence has the same sign in its top directions loses them. The next cell shows the change with its interval.")


def beside_sentence_transformers(lesson: Lesson08, int8, binary) -> Report:
    """§2: the notebook's int8 and binary, run on the corpus, against sentence-transformers' quantize_embeddings."""
    from sentence_transformers.util.quantization import quantize_embeddings

    ranges = np.vstack([lesson.calibration.min(axis=0), lesson.calibration.max(axis=0)])
    lines = []
    for name, ours, theirs in (
            ("int8", lambda: int8(lesson.corpus_vectors, ranges[0], ranges[1]),
             lambda: quantize_embeddings(lesson.corpus_vectors, "int8", ranges=ranges)),
            ("binary", lambda: binary(lesson.corpus_vectors), lambda: quantize_embeddings(lesson.corpus_vectors, "ubinary"))):
        try:
            same = np.array_equal(np.asarray(ours()), theirs())
        except Exception as error:  # a cell left unfinished is a message, not a traceback
            same, why = False, f"({type(error).__name__}: {error})"
        else:
            why = ""
        lines.append(f"{'✓' if same else '✗'} your {name} on the {len(lesson.corpus_vectors):,} corpus vectors "
                     f"{'equals' if same else 'differs from'} sentence-transformers' quantize_embeddings ({name if name == 'int8' else 'ubinary'}) {why}".rstrip())
    return Report(*lines)
