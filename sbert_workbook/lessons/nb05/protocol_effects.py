"""Lesson 05, §7.1: three protocol choices, each measured with its interval, and the flow's spread over seeds
(``05_bert_flow.ipynb``).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from sbert_workbook import published
from sbert_workbook.calibration import calibrators, protocol
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report


def view_effects(lesson: Lesson05, view: str) -> dict:
    """``{effect: Interval}`` of one view: target against NLI fitting, NATSV's dev-chosen k against k = 1, all − wmean."""
    embed, fitted, aggregation = lesson.embed(view), lesson.results["fitted"][view], lesson.results["aggregation"]
    k = lesson.results["natsv_k"][view]
    target_flow = lambda name: fitted[("+flow (target)", name)]  # noqa: E731
    nli_flow = lambda _: fitted[("+flow (NLI)", "nli")]  # noqa: E731
    natsv_one = {name: calibrators.NullTopDirections(1).fit(embed(lesson.fit_sentences[name])) for name in lesson.test_sets}
    effects = {
        "flow: target − NLI (all)": protocol.difference_interval(embed, lesson.test_sets, target_flow, nli_flow, "all"),
        f"NATSV: k on dev labels − k = 1 ({aggregation})": protocol.difference_interval(
            embed, lesson.test_sets, lambda name: fitted[(f"+NATSV (k={k})", name)], natsv_one.get, aggregation)}
    if any(protocol.wmean_is_defined(data) for data in lesson.test_sets.values()):
        effects["flow: target − NLI (wmean)"] = protocol.difference_interval(embed, lesson.test_sets, target_flow,
                                                                             nli_flow, "wmean")
    multi = {n: lesson.test_sets[n] for n in published.MULTI_SUBSET_SETS if protocol.wmean_is_defined(lesson.test_sets[n])}
    if multi:
        effects["raw: all − wmean (STS12–16)"] = protocol.aggregation_gap_interval(embed, multi, lambda _: None)
    return effects


def flow_seed_scores(lesson: Lesson05) -> dict[int, float]:
    """STS-B test Spearman of the static view's target flow, refitted with each of FLOW_SEEDS seeds."""
    stsb, embed = {"stsb": lesson.stsb}, lesson.embed("static")
    fit_on = embed(lesson.fit_sentences["stsb"])
    scores = {}
    for seed in range(lesson.seed, lesson.seed + lesson.sizes.FLOW_SEEDS):
        flow = calibrators.FlowCalibrator(seed=seed, progress=False).fit(fit_on)
        scores[seed] = protocol.seven_set_scores(embed, stsb, lambda _: flow, lesson.results["aggregation"])["stsb"]
    return scores


def protocol_effects(lesson: Lesson05) -> dict[str, dict]:
    """§7.1: every view's three protocol effects (intervals over the test pairs) and the flow's seed spread."""
    effects = {view: view_effects(lesson, view) for view in lesson.views}
    lesson.results.update(protocol_effects=effects, flow_seed_scores=flow_seed_scores(lesson))
    return effects


def protocol_report(lesson: Lesson05) -> Report:
    """§7.1: the published seed spreads, this run's, the effects table and their forest plot."""
    effects, seeds = lesson.results["protocol_effects"], lesson.results["flow_seed_scores"]
    spreads = [f"published seed spread, {where}: ±{spread:.2f} (row {row})"
               for where, (row, spread) in ((w, t.largest_spread()) for w, t in published.SEED_SPREADS.items())]
    values = list(seeds.values())
    spread = f"± {np.std(values, ddof=1):.2f} (sd)" if len(values) > 1 else "(one seed: no spread)"
    here = (f"here: flow (target), static view, STS-B test, seeds {list(seeds)}: {np.mean(values):.2f} {spread}; the "
            "intervals below hold the test sample's noise, not the flow's seed")
    defined = [name for name, data in lesson.test_sets.items() if protocol.wmean_is_defined(data)]
    table = pd.DataFrame({view: {effect: str(i) for effect, i in row.items()} for view, row in effects.items()}).T
    table = with_provenance(table, model=lesson.described, pooling="per row: the view",
                            aggregation=f"per column (wmean: over the sets where every subset has "
                                        f"{protocol.MIN_PAIRS_PER_SUBSET}+ pairs: {', '.join(defined) or 'none'})",
                            split=lesson.split() + "; averages over the seven sets",
                            unit="Spearman × 100 points: difference [95 % interval]: apart when it excludes 0; paired "
                                 "bootstrap over the test pairs (the aggregation gap: resampled within each subset)")
    figure = interval_forest_figure({f"{view}: {effect}": i for view, row in effects.items() for effect, i in row.items()},
                                    title="Three protocol choices, each measured on every view")
    return Report(*spreads, here, table, figure)
