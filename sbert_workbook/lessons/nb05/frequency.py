"""Lesson 05, §12.2: BERT-flow §3.1's claim that mapping to an isotropic Gaussian flattens the singular spectrum and
suppresses the frequency-related directions, tested on every fix of the lesson (``05_bert_flow.ipynb``).

For each representation of the held-out test sentences: the top singular direction's share of the energy (how much
it dominates every dot product) and the |Spearman| of each sentence's coordinate on it with the sentence's mean word
log-frequency (how much that direction *is* frequency).
"""
from __future__ import annotations

import pandas as pd

from sbert_workbook.calibration import calibrators
from sbert_workbook.calibration import family as gaussianisation
from sbert_workbook.calibration import word_vectors as fixes
from sbert_workbook.encoding import glove
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report

SHARE, LINK = "top direction's share of energy", "|Spearman| with mean log-frequency"
GLOVE_BLOCK = "GloVe 6B 50d"


def view_rows(lesson: Lesson05, view: str, log_frequency) -> dict:
    """Raw, SN, whitening, flow (all fitted on NLI, §12) and NATSV with §4's k, on one view."""
    held_out, k = lesson.results["held_out"], max(1, lesson.results["natsv_k"][view])
    maps = dict(lesson.results["family_maps"][view])
    maps[f"NATSV (k={k})"] = calibrators.NullTopDirections(k).fit(lesson.bank.get(view, lesson.fit_sentences["nli"]))
    u = lesson.bank.get(view, held_out)
    return {(view, name): gaussianisation.top_direction_frequency(u if member is None else member.transform(u), log_frequency)
            for name, member in maps.items()}


def glove_rows(lesson: Lesson05, log_frequency) -> dict:
    """§11's GloVe representations of the same sentences: plain, without stop words, SIF's weights, both SIF steps."""
    vectors, held_out = lesson.results["glove"], lesson.results["held_out"]
    sif = fixes.sif_encoder(vectors)  # one encoder: its word weights are computed once, for both SIF rows
    embeds = {"avg GloVe": glove.GloveEncoder(vectors).encode,
              fixes.STOP_WORDS_ROW: glove.GloveEncoder(vectors, drop_stop_words=True).encode,
              "SIF weights only": sif.encode,
              "SIF (weights + remove 1st PC)": lambda s: fixes.without_first_component(sif.encode(s))}
    return {(GLOVE_BLOCK, name): gaussianisation.top_direction_frequency(embed(held_out), log_frequency)
            for name, embed in embeds.items()}


def top_direction_frequency(lesson: Lesson05) -> pd.DataFrame:
    """§12.2: the share and the frequency link of the top direction, for every view's fixes and GloVe's."""
    log_frequency = gaussianisation.mean_log_frequency(lesson.results["held_out"])
    rows = {}
    for view in lesson.views:
        rows.update(view_rows(lesson, view, log_frequency))
    if "glove" in lesson.results:
        rows.update(glove_rows(lesson, log_frequency))
    return pd.DataFrame(rows).T


def claim_line(table: pd.DataFrame, views) -> str:
    """BERT-flow §3.1's claim read from the table: does the flow cut the top direction's share, and its frequency link?"""
    flattened = [v for v in views if table.loc[(v, "flow"), SHARE] < table.loc[(v, "raw"), SHARE]]
    unlinked = [v for v in views if table.loc[(v, "flow"), LINK] < table.loc[(v, "raw"), LINK]]
    per_view = "; ".join(f"{v} {table.loc[(v, 'raw'), SHARE]:.2f} → {table.loc[(v, 'flow'), SHARE]:.2f} (share), "
                         f"{table.loc[(v, 'raw'), LINK]:.2f} → {table.loc[(v, 'flow'), LINK]:.2f} (|Spearman|)" for v in views)
    return (f"BERT-flow §3.1, tested: the flow (fitted on NLI) lowers the top direction's share of the energy on "
            f"{len(flattened)} of {len(views)} views and the link of the leading direction to word frequency on "
            f"{len(unlinked)} of {len(views)} (raw → flow: {per_view}).")


def frequency_report(lesson: Lesson05, table: pd.DataFrame) -> Report:
    """§12.2: the table, each block's range after its fixes, and the paper's claim read from this run."""
    shown = with_provenance(table.round(3), model=f"{lesson.described} views" + (f" and {GLOVE_BLOCK}" if "glove" in
                            lesson.results else ""), pooling="per row", split=lesson.split("the seven sets' test sentences"),
                            aggregation=f"over {len(lesson.results['held_out'])} held-out test sentences (Spearman, |ρ|)",
                            **{"fitted on": "NLI sentences (SN, whitening, flow, NATSV); SIF's component: these sentences"})
    lines = []
    for block, part in table.groupby(level=0, sort=False):
        first, rest = part.iloc[0], part.iloc[1:]
        lines.append(f"{block}: top direction's share {first[SHARE]:.2f} ({part.index[0][1]}) -> {rest[SHARE].min():.2f} to "
                     f"{rest[SHARE].max():.2f} after the fixes; its |Spearman| with frequency {first[LINK]:.2f} -> "
                     f"{rest[LINK].min():.2f} to {rest[LINK].max():.2f}")
    return Report(shown, *lines, claim_line(table, list(lesson.views)))
