"""Lesson 06's reports for §5: the plane from the cone (the verdicts), SimCSE §5's bound on this run's vectors, the
same rows from the start model (§5.1) and the frequency test (§5.2) (``06_contrastive_simcse.ipynb``)."""
from __future__ import annotations

import pandas as pd
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb06.plane import Plane, flatness, flattest_row, moves, order, record_verdicts
from sbert_workbook.lessons.nb06.rows import kind_of
from sbert_workbook.lessons.nb06.setup import STARTS, TAU, Lesson06
from sbert_workbook.lessons.report import Report
from sbert_workbook.training import contrastive_plots

UNIT = "STS: Spearman × 100; ℓ_uniform and ℓ_align: their own units (lower is better)"


def table_caption(lesson: Lesson06, plane: Plane, start: str) -> dict:
    d, sets = lesson.data, plane.test_sets(lesson, start)
    model = lesson.cone.resolved.model_id if start == "cone" else lesson.resolved.model_id
    return dict(model=f"{model}: raw, calibrated (fitted on {len(lesson.calibration_for(start))} NLI sentences), or trained "
                f"from it in §2 and §4 (seed {lesson.seed})",
                pooling="mean of the word vectors" if start == "cone" else f"raw and calibrated: {lesson.raw_pooling}; "
                f"trained: {lesson.pooling}",
                aggregation="per set: all; avg (all) and avg (wmean) over the seven sets (wmean NaN where a sampled subset "
                "has fewer than 2 pairs)", split="test sets: " + ", ".join(f"{n} {len(data)}" for n, data in sets.items())
                + f"; geometry: {len(d.uniform_sentences)} STS-B dev sentences, {len(d.align_pairs[0])} dev pairs scored above 4")


def moves_forest(moved: dict, title: str) -> list:
    """Two forest plots: each row's STS change, and its ℓ_uniform and ℓ_align changes, against raw."""
    sts = {name: by["STS"] for name, by in moved.items()}
    geometry = {f"{name}: {measure}": by[measure] for name, by in moved.items() for measure in ("uniformity", "alignment")}
    return [interval_forest_figure(sts, f"{title}: STS average minus raw"),
            interval_forest_figure(geometry, f"{title}: ℓ_uniform and ℓ_align minus raw (lower is better)",
                                   unit="ℓ_uniform, ℓ_align")]


def order_sentence(lesson: Lesson06, plane: Plane, start: str) -> str:
    calibrated, trained, gap = order(lesson, plane, start)
    frame = plane.frames[start]
    raw = frame.loc["raw", "avg (all)"]
    place = {"higher": "above", "lower": "below", "tie": "level with"}[gap.direction]
    return (f"From the {start}, on the STS average the best calibrated row ({calibrated}, {frame.loc[calibrated, 'avg (all)'] - raw:+.2f} "
            f"over raw) ranks {place} the best trained row ({trained}, {frame.loc[trained, 'avg (all)'] - raw:+.2f}): "
            f"{gap.described()}.")


def paper_order() -> str:
    t5 = published.SIMCSE_TABLE5
    unsup = t5.value("Unsup. SimCSE-BERT-base", "avg")
    return (f"SimCSE {t5.table}, from bert-base-uncased: unsupervised SimCSE {unsup:.2f} against whitening "
            f"{t5.value('BERT-base-whitening', 'avg'):.2f} ({unsup - t5.value('BERT-base-whitening', 'avg'):+.2f}) and the flow "
            f"{t5.value('BERT-base-flow', 'avg'):.2f} ({unsup - t5.value('BERT-base-flow', 'avg'):+.2f}); one run each, no spread printed.")


def why_the_cone(lesson: Lesson06, plane: Plane) -> str:
    """What the cone's order means, chosen and filled in by the run's numbers (never typed)."""
    gap = order(lesson, plane, "cone")[2]
    if gap.direction != "higher":
        return ("From the cone the best trained row is " + ("above the best calibrated row: Table 5's order."
                if gap.direction == "lower" else "level with the best calibrated row within the interval."))
    frame = plane.frames["cone"]
    spread = {kind: frame.loc[[n for n in frame.index if kind_of(n) == kind], "uniformity"] - frame.loc["raw", "uniformity"]
              for kind in ("calibrated", "trained")}
    share = {kind: frame.loc[[n for n in frame.index if kind_of(n) == kind], "top direction's share"] for kind in spread}
    ratio = {start: row.alignment / (2 - 2 * _mean_cosine(row)) for start, row in lesson.starting_rows().items()}
    how_far = ("One fitted map spread the cone further than training did: ℓ_uniform fell by at least "
               f"{-spread['calibrated'].max():.2f} for every calibrated row and by at most {-spread['trained'].min():.2f} for "
               f"any trained row, and the top direction's share is {share['calibrated'].max():.2f} or less after a calibrator, "
               f"{share['trained'].min():.2f} or more after training (raw {frame.loc['raw', GEOMETRY_SHARE]:.2f}). "
               if spread["calibrated"].max() < spread["trained"].min() else "")
    return (f"From the cone this is the reverse of Table 5. {how_far}The cone is the weak start SimCSE §3 warns about: not a "
            f"pre-trained encoder but a bag of words, whose related pairs sit at {ratio['cone']:.2f} of the unrelated pairs' "
            f"distance where the pre-trained start model's sit at {ratio['start model']:.2f} (§0), trained "
            f"{lesson.sizes.CONE_STEPS} steps of {lesson.sizes.CONE_BATCH_SIZE} sentences, and able only to re-weight its words.")


GEOMETRY_SHARE = "top direction's share"


def _mean_cosine(row) -> float:
    from sbert_workbook.training.isotropy import mean_unrelated_cosine

    return mean_unrelated_cosine(row.uniform)


def plane_report(lesson: Lesson06, plane: Plane) -> Report:
    """§5 (core): the cone's table, its plane with the training paths, each move with its interval (drawn), the verdicts,
    and the order of calibrated and trained rows from both starts beside Table 5's."""
    frame = plane.frames["cone"]
    moved = {start: moves(lesson, plane, start) for start in STARTS}
    table, intervals = moved["cone"]
    found = record_verdicts(plane, lesson, {start: m[1] for start, m in moved.items()})
    caption = table_caption(lesson, plane, "cone")
    gained = [n for n in table.index if table.loc[n, "uniformity"] == "gains"]
    lost = [n for n in table.index if table.loc[n, "alignment"] == "loses"]
    return Report(
        with_provenance(frame.round(3), **caption),
        contrastive_plots.alignment_uniformity_plane_figure(frame, plane.paths["cone"], title=f"{lesson.cone.resolved.model_id}: "
                                                            "every row on SimCSE's plane (Figure 3), training paths as arrows"),
        with_provenance(table, **{**caption, "aggregation": "each row minus raw [95 % interval]: verdict"},
                        unit=f"{UNIT}; intervals: paired bootstrap over the test pairs (STS), the positive pairs (ℓ_align), "
                        "the sentences (ℓ_uniform); a trained row is one seed: the sample's noise only"),
        *moves_forest(intervals, f"From the cone ({lesson.cone.resolved.model_id})"),
        f"Rows that gain uniformity over raw (interval below 0): {', '.join(gained) or 'none'}. Rows that lose alignment "
        f"(interval above 0): {', '.join(lost) or 'none'}. The most uniform row: {frame['uniformity'].idxmin()} "
        f"({kind_of(frame['uniformity'].idxmin())}).",
        order_sentence(lesson, plane, "cone"), why_the_cone(lesson, plane), order_sentence(lesson, plane, "start model"),
        paper_order(), published.SIMCSE_POSTPROCESSING_GEOMETRY + ".", verdicts=found)


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
