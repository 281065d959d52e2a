"""Reference solutions for ``00_start_here.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np

from sbert_workbook.teaching.exercises import solution


def _cosine_by(vectors, first: int, second: int, scale) -> float:
    u, v = np.asarray(vectors[first], dtype=float), np.asarray(vectors[second], dtype=float)
    return float(u @ v / scale(u, v))


@solution(wrong={
    "the plain dot product (not divided by the lengths)": lambda vectors: _cosine_by(vectors, 0, 2, lambda u, v: 1.0),
    "divided by the length of u only": lambda vectors: _cosine_by(vectors, 0, 2, lambda u, v: np.linalg.norm(u)),
    "sentences 0 and 1 (the paraphrase) instead of 0 and 2": lambda vectors: ex00_1(vectors[[0, 2, 1]]),
})
def ex00_1(vectors) -> float:
    """cos(sentence 0, sentence 2) = u·v / (‖u‖ ‖v‖), by hand with numpy."""
    return _cosine_by(vectors, 0, 2, lambda u, v: np.linalg.norm(u) * np.linalg.norm(v))


DISCUSSION = {
    "ex00_2": "The doctor reports bert-large-uncased as missing on an offline machine (or one without it in the "
              "Hugging Face cache) and prints the fix: download it once online (python -m sbert_workbook predownload "
              "--models bert-large-uncased) or pick a model that is there (MODEL = 'embedded' always is).",
}
