"""Figures of a training run, including the live one ``fit`` redraws (``04_siamese_finetuning.ipynb``)."""
from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.published import SBERT_TABLE1, SBERT_TABLE2


def training_figure(history: dict, title: str = "Training") -> go.Figure:
    """Training loss per step (left axis) and STS-B dev Spearman × 100 at each evaluation (right axis)."""
    figure = make_subplots(specs=[[{"secondary_y": True}]])
    figure.add_trace(go.Scatter(x=history["step"], y=history["loss"], mode="lines", name="training loss"), secondary_y=False)
    if history.get("eval_step"):
        figure.add_trace(go.Scatter(x=history["eval_step"], y=history["dev_spearman"], mode="lines+markers",
                                    name="dev Spearman × 100"), secondary_y=True)
    figure.update_xaxes(title_text="optimizer step")
    figure.update_yaxes(title_text="loss", secondary_y=False)
    figure.update_yaxes(title_text="STS-B dev Spearman × 100", secondary_y=True)
    figure.update_layout(title=title, height=360, legend_orientation="h")
    return figure


class LiveTrainingPlot:
    """A ``callback`` for :func:`~sbert_workbook.training.fitting.fit` that redraws :func:`training_figure` as training runs.

    It redraws every ``every`` steps and after each dev evaluation, inside an ``ipywidgets.Output``
    (the workbook's widget pattern), so it also works in Colab and Voila.
    """

    def __init__(self, title: str = "Training", every: int = 10):
        import ipywidgets as widgets
        from IPython.display import display

        self.title, self.every, self.output = title, every, widgets.Output()
        self.redraws = 0
        display(self.output)

    def __call__(self, event: dict, history: dict) -> None:
        from IPython.display import display

        if event["step"] % self.every and "dev_spearman" not in event and event["step"] != event["total_steps"]:
            return
        with self.output:
            self.output.clear_output(wait=True)
            display(training_figure(history, f"{self.title}: step {event['step']} of {event['total_steps']}"))
        self.redraws += 1


def before_after_table(tables: dict) -> "pd.DataFrame":
    """One row per model (in the order given) of Spearman × 100 per data set, from :func:`~sbert_workbook.evaluate_sts` tables."""
    import pandas as pd

    from sbert_workbook.evaluation.provenance import inherit_provenance

    rows = {label: table["spearman"] for label, table in tables.items()}
    combined = pd.DataFrame(rows).T
    combined.index.name = "model (Spearman × 100)"
    first = next(iter(tables.values()))
    models = "; ".join(f"{label} = {table.attrs.get('provenance', {}).get('model', 'not recorded')}"
                       for label, table in tables.items())
    return inherit_provenance(combined, first, {"model": f"one per row: {models}"})


#: The paper's row to read beside each training stage of ``04``: (table of ``published``, row).
PAPER_STAGES = {"+ NLI (softmax)": (SBERT_TABLE1, "SBERT-NLI-base"),
                "+ NLI + STS-B (regression)": (SBERT_TABLE2, "SBERT-NLI-STSb-base")}


def paper_stages_table(columns=(*SBERT_TABLE1.columns,)) -> "pd.DataFrame":
    """The published SBERT row for each stage of :func:`before_after_table` (``04_siamese_finetuning.ipynb``).

    After NLI: Table 1's SBERT-NLI-base (seven sets). After NLI then STS-B: Table 2's
    SBERT-NLI-STSb-base (STS-B test only, mean ± sd over 10 seeds); other columns are empty (NaN).
    """
    import pandas as pd

    from sbert_workbook.evaluation.provenance import with_provenance

    rows = {}
    for stage, (table, row) in PAPER_STAGES.items():
        values = {column: (table.value(row, column) if column in table.columns else None) for column in columns}
        rows[stage] = {"paper row": f"{row} ({table.table})", **values, "±": table.spread.get(row)}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame[[*columns, "±"]] = frame[[*columns, "±"]].astype(float)
    frame.index.name = "stage: published comparator"
    return with_provenance(
        frame, model="; ".join(f"{stage} = {table.model[row]}" for stage, (table, row) in PAPER_STAGES.items())
        + " — quoted from SBERT, not re-run", pooling="mean (last layer)",
        aggregation=f"{SBERT_TABLE1.table}: {SBERT_TABLE1.aggregation}; {SBERT_TABLE2.table}: one set",
        split="test sets", source="; ".join(table.source(row) for table, row in PAPER_STAGES.values()))


def before_after_figure(table) -> go.Figure:
    """Grouped bars of :func:`before_after_table`: data sets on the x axis, one colour per model."""
    figure = go.Figure()
    for label, row in table.iterrows():
        figure.add_trace(go.Bar(x=row.index.tolist(), y=row.to_numpy(), name=str(label)))
    figure.update_layout(barmode="group", yaxis_title="Spearman × 100", title="Seven STS sets before and after training", height=400)
    return figure
