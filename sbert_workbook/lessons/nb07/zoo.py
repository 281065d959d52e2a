"""Lesson 07 §8, other models: the same diagnosis's headline for every other model that loads here, side by side
(``07_your_model.ipynb``)."""
from __future__ import annotations

import time

import pandas as pd

from sbert_workbook.diagnosis import run
from sbert_workbook.lessons.nb07.lesson import Lesson07, captioned
from sbert_workbook.lessons.report import Report

#: The models §8 tries besides MODEL, as load_subject names them ("auto": bert-base-uncased when its cache is there).
ZOO = ("embedded", "auto", "tiny-mlm", "glove")


def zoo_report(lesson: Lesson07) -> Report:
    """§8: the headline of every other model that loads here (offline: the embedded model, bert-base-uncased when its
    cache is there, 01's tiny MLM, GloVe), and why any did not run."""
    rows, seen = {lesson.subject.name: headline_row(lesson.found, "this notebook's MODEL")}, {lesson.subject.name}
    sizes = {**run.sizes_from(lesson.sizes), "pairs_per_set": lesson.sizes.ZOO_PAIRS_PER_SET}
    for name in ZOO:
        started = time.perf_counter()
        try:
            identity = identity_of(name, lesson.sizes.TINY_STEPS)
            if identity in seen:
                rows[name] = {"ran": f"no: {name!r} is {identity}, already a row above"}
                continue
            found = run.diagnose(name, lesson.seed, lesson.device, progress=False, **sizes)
        except (RuntimeError, ImportError, OSError) as why:  # no such model here, GloVe not installed, no data
            rows[name] = {"ran": f"no: {str(why).split('. ')[0]}"}
            continue
        seen.add(found.subject)
        rows[found.subject] = headline_row(found, f"yes, as {name!r}, in {time.perf_counter() - started:.0f} s")
    table = captioned(pd.DataFrame(rows).T, lesson, f"one diagnosis per model ({lesson.sizes.ZOO_PAIRS_PER_SET} pairs per set)")
    ran = [name for name, row in rows.items() if not str(row.get("ran", "")).startswith("no")]
    return Report(table, f"Ran: {', '.join(ran)}.")


def identity_of(name: str, tiny_steps: int) -> str:
    """The name a diagnosis of ``name`` would carry, found without loading the model."""
    from sbert_workbook.diagnosis.subjects import GLOVE, TINY_MLM
    from sbert_workbook.encoding.glove import GLOVE_NAME
    from sbert_workbook.encoding.resolve import resolve_model

    return {GLOVE: GLOVE_NAME, TINY_MLM: f"tiny MLM ({tiny_steps} steps)"}.get(name) or resolve_model(name).model_id


def headline_row(found, ran: str) -> dict:
    """One model's row of §8's table: its diagnosis's headline and how it ran."""
    head = found.headline()
    return {"ran": ran, "kind": found.kind, "IsoScore": round(head["IsoScore"], 3),
            "IsoScore, isotropic data this size": round(found.cone["IsoScore of isotropic data this size"], 3),
            "mean cosine": round(found.cone["mean cosine of random pairs"], 3),
            "top-3 rogue share": "undefined (E cos near 0)" if head["their share of E cos"] is None
            else round(head["their share of E cos"], 2),
            "order without them (Spearman)": round(head["order without them (Spearman)"], 3), "verdict": head["verdict"]}
