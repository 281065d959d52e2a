"""Lesson 05, §7: this run's STS-B column beside the published bert-base rows (BERT-flow Tables 2, 3, 5; SimCSE
Tables B.2 and C.1), every comparison computed from ``sbert_workbook.published`` (``05_bert_flow.ipynb``).
"""
from __future__ import annotations

import pandas as pd
from IPython.display import Markdown

from sbert_workbook import published
from sbert_workbook.evaluation.provenance import describe_split, with_provenance
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report

FLOW_T, FLOW_N = "BERT-base-flow (target)", "BERT-base-flow (NLI)"


def stsb_columns(lesson: Lesson05) -> pd.DataFrame:
    """The STS-B column of every view's table, one column per view."""
    tables = lesson.results["tables"]
    first = tables[lesson.views[0]]
    ours = pd.DataFrame({view: tables[view]["stsb"].values for view in lesson.views},
                        index=[label.split(" (k=")[0] for label in first.index])
    ours.columns = [f"STS-B, {lesson.described.split(' (')[0].split('/')[-1]} {view}" for view in lesson.views]
    facts = first.attrs["provenance"]
    return with_provenance(ours.round(2), model=lesson.described, pooling="per column: " + ", ".join(lesson.views),
                           similarity="cosine", aggregation=facts["aggregation"], split=describe_split(lesson.stsb),
                           **{"fitted on": facts["fitted on"]})


def pooling_line() -> str:
    """One calibrator on two poolings (Tables 5 and 2), and whitening against the flow within Table C.1."""
    t5, t2, c1 = published.BERT_FLOW_TABLE5, published.BERT_FLOW_TABLE2, published.SIMCSE_TABLE_C1
    flow_t5, flow_t2 = t5.value(FLOW_T, "stsb"), t2.value(FLOW_T, "stsb")
    whitening, flow_c1 = c1.value("BERT-whitening (target)", "stsb"), c1.value("BERT-flow (target)", "stsb")
    return (f"The same calibrator, flow (target), on two poolings: {flow_t5:.2f} on last-layer mean ({t5.table}), "
            f"{flow_t2:.2f} on first_last_avg ({t2.table}), {flow_t2 - flow_t5:+.2f} points apart, so compare calibrators "
            f"within one pooling. Within {c1.table}: whitening {whitening:.2f}, flow {flow_c1:.2f} ({whitening - flow_c1:+.2f}).")


def target_against_nli_line() -> str:
    """Target against NLI fitting on the multi-subset sets, under wmean and all (Tables 2, C.1, B.2)."""
    t2, c1, b2, higher = published.BERT_FLOW_TABLE2, published.SIMCSE_TABLE_C1, published.SIMCSE_TABLE_B2, published.sets_where_higher
    n = len(published.MULTI_SUBSET_SETS)
    value = lambda row, column: c1.value(row, column)  # noqa: E731
    return (f"Target against NLI fitting, set by set on the {n} multi-subset sets (STS12–16, where the aggregations differ): "
            f"the flow (target) beats the flow (NLI) on **{len(higher(t2, FLOW_T, FLOW_N))} of {n}** under `wmean` "
            f"({t2.table}, BERT-flow's protocol) and on **{len(higher(c1, 'BERT-flow (target)', 'BERT-flow (NLI)'))} of {n}** "
            f"under `all` ({c1.table}, SimCSE's); whitening (target) beats whitening (NLI) on "
            f"{len(higher(b2, 'BERT-whitening (target, wmean)', 'BERT-whitening (NLI, wmean)'))} of {n} under `wmean` and "
            f"{len(higher(b2, 'BERT-whitening (target, all)', 'BERT-whitening (NLI, all)'))} of {n} under `all` ({b2.table}). "
            f"STS12 under `all`: flow {value('BERT-flow (target)', 'sts12'):.2f} (target) vs "
            f"{value('BERT-flow (NLI)', 'sts12'):.2f} (NLI), whitening {value('BERT-whitening (target)', 'sts12'):.2f} vs "
            f"{value('BERT-whitening (NLI)', 'sts12'):.2f}; average over the seven sets under `all`: flow "
            f"{value('BERT-flow (target)', 'avg'):.2f} vs {value('BERT-flow (NLI)', 'avg'):.2f}, whitening "
            f"{value('BERT-whitening (target)', 'avg'):.2f} vs {value('BERT-whitening (NLI)', 'avg'):.2f}.")


def published_report(lesson: Lesson05) -> Report:
    """§7: ours (the STS-B column of each view) and the published bert-base rows, each naming its pooling."""
    t5, t2, c1 = published.BERT_FLOW_TABLE5, published.BERT_FLOW_TABLE2, published.SIMCSE_TABLE_C1
    return Report(
        Markdown("**Ours (ran here): the STS-B column of each view:**"), stsb_columns(lesson),
        Markdown(f"**Published, bert-base-uncased (quoted, not re-run); each row names its pooling.** BERT-flow {t5.table}: "
                 "SN, NATSV (k = 1 and the k chosen on STS-B dev) and the flow, all on **last-layer mean pooling**:"),
        t5.frame(),
        Markdown(f"BERT-flow {t2.table} (no NLI; `wmean` over subsets). The pooling of its *last2avg* rows: "
                 f"{published.LAST2AVG}. In this notebook's names `first_last_avg` is what the code computed and "
                 "`last2_avg` what the text says."),
        t2.frame(["BERT-base", "BERT-base-last2avg", FLOW_N, FLOW_T]),
        Markdown(f"SimCSE {c1.table} re-evaluates the flow and whitening (Su et al., 2021) on the same pooling, with the "
                 "`all` aggregation, fitted on the target set or on NLI (its BERT rows, all seven sets):"),
        c1.frame([row for row in c1.rows if row.startswith("BERT-")]),
        Markdown(pooling_line()), Markdown(target_against_nli_line()))


def nli_trained_report(lesson: Lesson05) -> Report:
    """§7: BERT-flow's Table 3 (the flow on NLI-trained SBERT) and what the flow did to this run's mean pooling."""
    t3 = published.BERT_FLOW_TABLE3
    sets, baseline = list(t3.columns), "BERT-base-NLI-last2avg"
    wins = {row: [s for s in sets if t3.value(row, s) > t3.value(baseline, s)]
            for row in ("BERT-base-NLI-flow (target)", "BERT-base-NLI-flow (NLI)")}
    paper = (f"In the paper, BERT-base-NLI-flow (target) beats {baseline} (same model and pooling, no flow) on "
             f"**{len(wins['BERT-base-NLI-flow (target)'])} of {len(sets)}** sets (STS-B "
             f"{t3.value('BERT-base-NLI-flow (target)', 'stsb') - t3.value(baseline, 'stsb'):+.2f}); the flow fitted on NLI "
             f"sentences on {len(wins['BERT-base-NLI-flow (NLI)'])} of {len(sets)}.")
    model = lesson.described.split(" (")[0]
    if "mean" in lesson.views and not lesson.is_bert_base:
        table = lesson.results["tables"]["mean"]
        ours_wins = [s for s in sets if table.loc["+flow (target)", s] > table.loc["raw", s]]
        ours = (f"Here, on {model}'s `mean` pooling (a model trained contrastively on about a billion sentence pairs, "
                f"not BERT-base fine-tuned on NLI) the flow (target) beats raw on {len(ours_wins)} of {len(sets)} sets "
                f"(STS-B {table.loc['+flow (target)', 'stsb'] - table.loc['raw', 'stsb']:+.2f}, "
                f"{lesson.results['aggregation']}; the seven-set verdict with its interval is above). That is a result for "
                "this model, not for SBERT-NLI.")
    else:
        ours = (f"Here the `mean` view of {model} is not NLI-trained: it is the untrained setting of "
                f"{published.BERT_FLOW_TABLE2.table}, not {t3.table}'s (notebook 04 trains on NLI).")
    return Report(Markdown(f"**BERT-flow {t3.table}: the flow on top of NLI-trained SBERT** (bert-base-uncased / large "
                           "fine-tuned on SNLI + MultiNLI in the siamese way, then the flow fitted without labels; quoted, "
                           "not re-run):"), t3.frame(), Markdown(paper + " " + ours))
