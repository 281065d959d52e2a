"""Lesson 00, start here: its set-up, predict questions and reports (``00_start_here.ipynb``).

The notebook's cells run the environment check, move the widget and compute a first cosine; the calls here ask the
predict questions and show the data registry, what ``predownload`` fetches and whether the embedded model resolves.
"""
from __future__ import annotations

import pandas as pd

from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.report import Report
from sbert_workbook.lessons.setup import Lesson
from sbert_workbook.lessons.setup import begin as begin_lesson

NOTEBOOK = "00_start_here"
ANGLE_OPTIONS = ["1", "about 0.5", "0", "−1"]
SENTENCES = ["A man is playing a guitar.", "Someone plays an instrument.", "The stock market fell today."]


def begin(quick="auto", model="auto", seed=0, device=None, sizes=None) -> Lesson:
    """Set the lesson up (00 has no sizes: it runs the same in both modes)."""
    return begin_lesson(NOTEBOOK, quick, model, seed, device, sizes)


def predict_right_angle():
    """§2's predict question: the cosine of two arrows at a right angle."""
    return predict_question(
        "Move the slider below to 90°, so that v stands at a right angle to u. What cosine will the title show?",
        ANGLE_OPTIONS, ANGLE_OPTIONS[2],
        "cos 90° = 0: two perpendicular arrows share no direction, so u · v = 0. The cosine runs from 1 (the same "
        "direction) through 0 (perpendicular) to −1 (opposite directions), whatever the lengths; that is why it measures "
        "similarity without caring how long the vectors are.")


def predict_nearest(encoder):
    """§3's predict question: which sentence lies closest to the first (computed now, revealed on a choice)."""
    from sbert_workbook.evaluation.similarity import cosine_similarity

    vectors = encoder.encode(SENTENCES, pooling="mean")
    to_first = cosine_similarity(vectors[[0, 0]], vectors[[1, 2]])
    options = [f"“{SENTENCES[1]}” (the same scene, other words)", f"“{SENTENCES[2]}” (another topic)",
               "neither: the two cosines within 0.05 of each other"]
    answer = (options[2] if abs(to_first[0] - to_first[1]) < 0.05 else options[0] if to_first[0] > to_first[1] else options[1])
    trained = encoder.name.startswith("sentence-transformers/")
    return predict_question(
        f"With mean pooling of {encoder.name.split('/')[-1]}, which sentence will have the higher cosine with "
        f"“{SENTENCES[0]}”?", options, answer,
        "Neither sentence shares a word with the first, so only what they mean can set them apart. "
        + ("A sentence-transformers model was trained on sentence pairs to put sentences that mean the same close "
           "together, so the paraphrase should stand out." if trained else
           "A raw pre-trained model was never trained to compare sentences: notebooks 02 and 03 show how its vectors "
           "crowd together, which makes every cosine high.") + " The next cell prints both cosines.")


def essentials_report(report) -> str:
    """§1: one line, ✓ when nothing essential is missing, else each essential problem with its fix."""
    if report.ok:
        return "✓ all essential checks passed: the notebooks can run"
    return "✗ fix these first:\n" + "\n".join(check.line() for check in report.problems(essential_only=True))


def registry_report() -> Report:
    """§4: where each data set comes from, as the loaders will find it (sbert_workbook/data/registry.py)."""
    from sbert_workbook.data import REGISTRY, find_local

    registry = pd.DataFrame([{"name": name, "found at": str(find_local(name) or "not found locally"),
                              "hub copy": entry.hub_id or "-", "splits": ", ".join(entry.splits), "what": entry.description}
                             for name, entry in REGISTRY.items()]).set_index("name")
    return Report(with_provenance(registry, model="none (the data registry, sbert_workbook/data/registry.py)", pooling="n/a",
                                  aggregation="n/a (nothing scored)", split="per row: see 'splits'"))


def predownload_report() -> Report:
    """§6: what ``python -m sbert_workbook predownload`` fetches by default."""
    from sbert_workbook.environment import predownload

    sources = ", ".join(entry.hub_id + (f" ({entry.hub_config})" if entry.hub_config else "")
                        for entry in predownload.hub_data_sources())
    return Report(f"models: {', '.join(predownload.DEFAULT_MODELS)}", f"data sets: {sources}")


def embedded_model_report() -> str:
    """§6: the embedded model resolves here (it always does, offline too): the doctor's own line."""
    from sbert_workbook.environment import doctor

    check = doctor.check_model("embedded")
    return check.line() + ("\n✓ the embedded model resolves" if check.status == "ok" else f"\n✗ {check.fix}")
