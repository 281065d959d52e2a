"""Lesson 05, §12-§12.1: SN, whitening and the flow as one family of Gaussianisations, scored by held-out likelihood,
STS and isotropy; and whitening to k dimensions against full whitening and the flow (``05_bert_flow.ipynb``).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from sbert_workbook.calibration import calibrators, plots, protocol
from sbert_workbook.calibration import family as gaussianisation
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report

LIKELIHOOD, ISOTROPY, STS = "held-out log-likelihood (nats/dim)", "mean cosine, held-out pairs", "STS avg"


def held_out_sentences(lesson: Lesson05) -> list[str]:
    """The seven sets' test sentences, each once: none of the NLI fits saw them."""
    return list(dict.fromkeys(s for data in lesson.test_sets.values() for s in data.sentences1 + data.sentences2))


def family_maps(lesson: Lesson05, view: str) -> dict:
    """raw, SN, whitening and the flow of one view, each fitted on the NLI sentences."""
    nli_u = lesson.bank.get(view, lesson.fit_sentences["nli"])
    with warnings.catch_warnings():
        if "nli" in lesson.short:  # else the filters stay ("default" showed libraries' deprecations)
            warnings.simplefilter("ignore")  # too few NLI sentences: said in §1
        return {"raw": None, "SN": calibrators.StandardNormalization().fit(nli_u),
                "whitening": calibrators.Whitening().fit(nli_u), "flow": lesson.results["fitted"][view][("+flow (NLI)", "nli")]}


def gaussianisation_family(lesson: Lesson05) -> pd.DataFrame:
    """§12: per view and map (fitted on NLI), the held-out log-likelihood, the mean cosine of held-out pairs and STS."""
    held_out = held_out_sentences(lesson)
    half, rows, maps = len(held_out) // 2, [], {}
    for view in lesson.views:
        held_u, maps[view] = lesson.bank.get(view, held_out), family_maps(lesson, view)
        for name, member in maps[view].items():
            z = held_u if member is None else member.transform(held_u)
            sts = protocol.seven_set_scores(lesson.embed(view), lesson.test_sets, lambda _, m=member: m,
                                            lesson.results["aggregation"])
            rows.append({"view": view, "map": name, LIKELIHOOD: gaussianisation.log_likelihood(member, held_u),
                         ISOTROPY: float(cosine_similarity(z[:half], z[half:2 * half]).mean()),
                         STS: float(np.mean(list(sts.values())))})
    lesson.results.update(family_maps=maps, held_out=held_out)
    return pd.DataFrame(rows)


def family_report(lesson: Lesson05, family_table: pd.DataFrame) -> Report:
    """§12: the family's table and panels, and per view whether the likeliest map is also the best for STS."""
    n_nli, held_out = len(lesson.fit_sentences["nli"]), lesson.results["held_out"]
    table = with_provenance(family_table.set_index(["view", "map"]).round(3), model=lesson.described,
                            pooling="per row: the view", aggregation=f"log-likelihood and cosine: mean over {len(held_out)} "
                            f"held-out sentences; STS: {lesson.results['aggregation']}, mean of the seven sets",
                            split=f"fitted on {n_nli} NLI sentences; scored on {lesson.split('the test sentences')}")
    lines = []
    if n_nli < calibrators.SENTENCES_PER_DIMENSION * lesson.dim:
        lines.append(f"{n_nli} NLI sentences for {lesson.dim} dimensions, fewer than "
                     f"{calibrators.SENTENCES_PER_DIMENSION}·{lesson.dim}: whitening's covariance "
                     f"is poorly estimated (singular below {lesson.dim}, section 5), so its held-out likelihood is "
                     "unreliable; raise NLI_PAIRS in SIZES.")
    for view, part in family_table.groupby("view", sort=False):
        best = part.set_index("map")
        lines.append(f"{view}: highest held-out likelihood {best[LIKELIHOOD].idxmax()}, best STS {best[STS].idxmax()}")
    return Report(table, *lines, plots.family_figure(family_table))


def whitening_rows(lesson: Lesson05, view: str, ks: list[int]) -> dict:
    """``{row label: calibrator for a set name}`` of one view: whitening to each k (target and NLI) and the flows."""
    fitted, embed = lesson.results["fitted"][view], lesson.embed(view)
    with warnings.catch_warnings():
        if lesson.short:  # else the filters stay ("default" showed libraries' deprecations)
            warnings.simplefilter("ignore")  # too few sentences for a covariance: said in §1
        by_set = {name: gaussianisation.whitening_to_each_k(calibrators.Whitening().fit(embed(lesson.fit_sentences[name])), ks)
                  for name in lesson.test_sets}
    on_nli = gaussianisation.whitening_to_each_k(lesson.results["family_maps"][view]["whitening"], ks)
    rows = {}
    for k in ks:
        label = "full" if k == lesson.dim else k
        rows[f"whitening-{label} (target)"] = lambda name, k=k: by_set[name][k]
        rows[f"whitening-{label} (NLI)"] = lambda _, k=k: on_nli[k]
    rows["flow (target)"] = lambda name: fitted[("+flow (target)", name)]
    rows["flow (NLI)"] = lambda _: fitted[("+flow (NLI)", "nli")]
    return rows


def view_whitening_to_k(lesson: Lesson05, view: str, ks: list[int]) -> tuple[dict, dict]:
    """One view's seven-set scores per row, and the best whitening-k (per source) against full whitening and the flow."""
    aggregation, embed = lesson.results["aggregation"], lesson.embed(view)
    rows = whitening_rows(lesson, view, ks)
    scores = {"raw": protocol.seven_set_scores(embed, lesson.test_sets, lambda _: None, aggregation)}
    scores.update({label: protocol.seven_set_scores(embed, lesson.test_sets, row, aggregation) for label, row in rows.items()})
    gaps = {}
    for source in ("target", "NLI"):
        whitened = [label for label in scores if label.startswith("whitening") and f"({source})" in label]
        best = max(whitened, key=lambda label: np.mean(list(scores[label].values())))
        for other in (f"whitening-full ({source})", f"flow ({source})"):
            gaps[f"{view}: {best} − {other}"] = protocol.difference_interval(embed, lesson.test_sets, rows[best], rows[other],
                                                                              aggregation)
    return scores, gaps


def whitening_to_k(lesson: Lesson05) -> pd.DataFrame:
    """§12.1: every view's seven-set table of whitening to k (64, 128, 256 where below d, and d) beside the flow."""
    ks = sorted({k for k in (64, 128, 256) if k < lesson.dim} | {lesson.dim})
    table, gaps = {}, {}
    for view in lesson.views:
        scores, view_gaps = view_whitening_to_k(lesson, view, ks)
        table.update({(view, label): row for label, row in scores.items()})
        gaps.update(view_gaps)
    table = pd.DataFrame(table).T
    table["avg"] = table.mean(axis=1)
    lesson.results["whitening_k_gaps"] = gaps
    return table


def whitening_k_report(lesson: Lesson05, table: pd.DataFrame) -> Report:
    """§12.1: the table and, per view and source, the best whitening-k against full whitening and the flow."""
    shown = with_provenance(table.round(2), model=lesson.described, pooling="per row: the view",
                            aggregation=lesson.results["aggregation"], split=lesson.split(),
                            **{"fitted on": "target: each set's own sentences; NLI: the NLI sentences; flow rows: section 7"})
    gaps = lesson.results["whitening_k_gaps"]
    return Report(shown, *(f"{name}: {interval}" for name, interval in gaps.items()),
                  "(each: difference [95 % paired-bootstrap interval over the test pairs]: verdict)",
                  interval_forest_figure(gaps, title="The best whitening-k against full whitening and against the flow"))
