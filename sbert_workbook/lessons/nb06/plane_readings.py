"""Lesson 06 §5's readings of the plane: SimCSE §5's bound on this run's vectors and the spectra, the same rows from the
start model beside the published Table 5 (§5.1), and whether a row still follows word frequency (§5.2)
(``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

import pandas as pd
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb06.lesson import STARTS, TAU, Lesson06
from sbert_workbook.lessons.nb06.plane import UNIT, Plane, flatness, flattest_row, moves, moves_forest, table_caption
from sbert_workbook.lessons.nb06.rows import kind_of
from sbert_workbook.lessons.report import Report
from sbert_workbook.training import contrastive_plots


def bound_report(lesson: Lesson06, plane: Plane, jensen_sides) -> Report:
    """§5: SimCSE §5's chain on every row of the cone (the notebook's ``jensen_sides``), and the spectra (Appendix F)."""
    rows = plane.rows["cone"]
    table = pd.DataFrame({name: jensen_sides(row.uniform, TAU) for name, row in rows.items()}).T
    holds = bool((table["second term"] >= table["Sum(WWᵀ)/(τm²)"] - 1e-9).all())
    flattest = flattest_row(plane, "cone")
    spectra = plane.spectra["cone"]
    return Report(
        with_provenance(table.round(4), model=lesson.cone.resolved.model_id, pooling="mean of the word vectors",
                        aggregation=f"over the m = {len(lesson.data.uniform_sentences)} geometry sentences, τ = {TAU}",
                        split="STS-B dev sentences (the uniformity sample)"),
        f"Jensen's bound holds on every row: {holds}. λ_max/m is the top direction's share of the table above (the largest "
        "eigenvalue of WWᵀ over its trace m).",
        f"Flattest spectrum (mean σ_k/σ_1 over k): {flattest} ({kind_of(flattest)}, {flatness(spectra[flattest]):.3f}); raw "
        f"{flatness(spectra['raw']):.3f}; trained rows " + ", ".join(f"{n} {flatness(spectra[n]):.3f}" for n in spectra
                                                                     if kind_of(n) == "trained") + ".",
        contrastive_plots.singular_spectrum_figure(spectra, title=f"{lesson.cone.resolved.model_id}: singular spectrum of each "
                                                   "row, STS-B dev sentences (σ_k / σ_1, log scale)"))


def start_model_report(lesson: Lesson06, plane: Plane, dropout_runs: dict) -> Report:
    """§5.1: the same rows from the start model, the published Table 5 and C.1, and unsupervised SimCSE's gain three ways."""
    frame, rows = plane.frames["start model"], plane.rows["start model"]
    table, intervals = moves(lesson, plane, "start model")
    t5, c1 = published.SIMCSE_TABLE5, published.SIMCSE_TABLE_C1
    gold = {name: data.scores for name, data in lesson.data.test_sets.items()}
    ours = uncertainty.paired_bootstrap(gold, rows["unsup SimCSE"].sts, rows["raw"].sts)
    cone_raw = plane.frames["cone"].loc["raw", "avg (all)"]
    cone = uncertainty.seed_interval([dropout_runs[("p = 0.1", seed)].end["STS avg (all)"] - cone_raw for seed in lesson.seeds])
    paper = t5.value("Unsup. SimCSE-BERT-base", "avg") - t5.value("BERT-base (first-last avg.)", "avg")
    rows_shown = ["BERT-base (first-last avg.)", "BERT-base-whitening", "BERT-base-flow", "Unsup. SimCSE-BERT-base",
                  "SBERT-base", "Sup. SimCSE-BERT-base"]
    caption = table_caption(lesson, plane, "start model")
    return Report(
        with_provenance(frame.round(3), **caption),
        contrastive_plots.alignment_uniformity_plane_figure(frame, plane.paths["start model"],
                                                            title=f"{lesson.resolved.model_id}: the same plane"),
        with_provenance(table, **{**caption, "aggregation": "each row minus raw [95 % interval]: verdict"}, unit=UNIT),
        *moves_forest(intervals, f"From the start model ({lesson.resolved.model_id})"),
        Markdown(f"**Published: SimCSE {t5.table}** (bert-base-uncased; {t5.aggregation}; quoted, not re-run):"), t5.frame(rows_shown),
        Markdown(f"**SimCSE {c1.table}**: whitening and the flow fitted on NLI or on each target set:"), c1.frame(),
        f"Unsupervised SimCSE minus the raw row, average of the seven sets. Paper (bert-base, raw row first-last average, one "
        f"epoch): {paper:+.2f}. Here, from the start model ({lesson.resolved.model_id}, raw row `{lesson.raw_pooling}`, "
        f"{lesson.steps_for(lesson.data.unsup)} steps, one seed): {ours.described()}, the test sample's noise only. From the "
        f"cone ({lesson.sizes.CONE_STEPS} steps): {cone.described()}." + ("" if lesson.is_bert_base else
        " The embedded model starts where SimCSE's training aims, so a small change from it is the expected result, not a "
        "failed reproduction."))


def frequency_report(lesson: Lesson06, plane: Plane) -> Report:
    """§5.2: per row of both starts, the top direction's share of energy and its |Spearman| with word log-frequency."""
    table = pd.DataFrame({(start, name): row.frequency for start in STARTS for name, row in plane.rows[start].items()}).T
    share, link = "top direction's share of energy", "|Spearman| with mean log-frequency"
    lines = []
    for start in STARTS:
        part = table.loc[start]
        kinds = {kind: part.loc[[n for n in part.index if kind_of(n) == kind]] for kind in ("calibrated", "trained")}
        lines.append(f"{start}: raw share {part.loc['raw', share]:.2f}, |Spearman| {part.loc['raw', link]:.2f}; calibrated rows "
                     f"{kinds['calibrated'][link].min():.2f} to {kinds['calibrated'][link].max():.2f}; trained rows "
                     f"{kinds['trained'][link].min():.2f} to {kinds['trained'][link].max():.2f} (shares "
                     f"{kinds['trained'][share].min():.2f} to {kinds['trained'][share].max():.2f})")
    n = sum(len(data) for data in lesson.data.test_sets.values())
    return Report(with_provenance(table.round(3), model=f"cone: {lesson.cone.resolved.model_id}; start model: "
                                  f"{lesson.resolved.model_id}", pooling="per row, as in §5 and §5.1",
                                  aggregation="over the distinct test sentences of §5.1 (|Spearman| of the coordinate on v1 "
                                  "with the mean log-frequency)", split=f"the test sentences of §5.1 ({n} pairs)"), *lines)
