"""References of notebook 05's checks that would give the answer away if typed into the check cell."""
from __future__ import annotations

from sbert_workbook.calibration import calibrators, word_vectors
from sbert_workbook.calibration.lexical import edit_distance


def ex05_snmean(bank, fit_sentences):
    """The mean StandardNormalization fits on the NLI sentences' static embeddings."""
    return calibrators.StandardNormalization().fit(bank.get("static", fit_sentences["nli"])).mean_


def ex05_edit():
    """The word-level Levenshtein distance of the exercise's two sentences (section 8's dynamic programme)."""
    return edit_distance("the cat sat on the mat", "the dog sat on a mat")


def ex05_sif(sif_probabilities):
    """SIF's weights a / (a + p(w)) with a = 1e-4, as the package computes them (word_vector_fixes_table)."""
    return word_vectors.sif_weights(sif_probabilities, a=1e-4)
