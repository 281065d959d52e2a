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
    the kernel writes (:func:`sbert_workbook.teaching.live_output.show`), so it also works in Colab and Voila.
    """

    def __init__(self, title: str = "Training", every: int = 10):
        import ipywidgets as widgets
        from IPython.display import display

        self.title, self.every, self.output = title, every, widgets.Output()
        self.redraws = 0
        display(self.output)

    def __call__(self, event: dict, history: dict) -> None:
        from sbert_workbook.teaching.live_output import show

        if event["step"] % self.every and "dev_spearman" not in event and event["step"] != event["total_steps"]:
            return
        show(self.output, training_figure(history, f"{self.title}: step {event['step']} of {event['total_steps']}"))
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


#: The two towers of :func:`sbert_architectures_figure`, bottom to top: (label, y of the box centre).
_TOWER = (("Sentence {}", 0.5), ("BERT", 2.0), ("pooling", 3.5), ("{}", 5.0))


def _box(figure: go.Figure, x: float, y: float, label: str, width: float = 2.0, color: str = "#dbe9f6") -> None:
    """A labelled rectangle centred at (x, y), 0.8 high."""
    figure.add_shape(type="rect", x0=x - width / 2, x1=x + width / 2, y0=y - 0.4, y1=y + 0.4,
                     line_color="#345", fillcolor=color, layer="below", name=label)
    figure.add_annotation(x=x, y=y, text=label, showarrow=False, font_size=13)


def _arrow(figure: go.Figure, x0: float, y0: float, x1: float, y1: float) -> None:
    figure.add_annotation(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="",
                          showarrow=True, arrowhead=3, arrowwidth=1.5, arrowcolor="#345")


def _siamese_towers(figure: go.Figure, left: float) -> None:
    """Sentence → BERT → pooling → vector, twice (A → u, B → v), with the shared weights marked."""
    for x, sentence, vector in ((left + 1.2, "A", "u"), (left + 4.2, "B", "v")):
        for (label, y), (_, y_next) in zip(_TOWER, (*_TOWER[1:], (None, None))):
            text = label.format(sentence if "Sentence" in label else vector)
            _box(figure, x, y, text, color={"{}": "#fdf1d6", "Sentence {}": "#eeeeee"}.get(label, "#dbe9f6"))
            if y_next is not None:
                _arrow(figure, x, y + 0.4, x, y_next - 0.4)
    figure.add_annotation(x=left + 2.7, y=2.0, text="shared<br>weights", showarrow=False, font_size=11, font_color="#666")


def sbert_architectures_figure() -> go.Figure:
    """SBERT's two architectures, drawn from shapes (``04_siamese_finetuning.ipynb``, §2).

    Left, the classification objective (training on NLI): (u, v, |u−v|) → softmax classifier.
    Right, the regression objective and inference: cosine(u, v) → a score in [−1, 1].
    """
    figure = go.Figure()
    tops = {0.0: (("(u, v, |u−v|)", 6.6), ("softmax classifier", 8.2)),
            8.0: (("cosine-sim(u, v)", 6.6), ("score in [−1, 1]", 8.2))}
    titles = {0.0: "classification objective (NLI)", 8.0: "regression objective and inference"}
    for left, boxes in tops.items():
        _siamese_towers(figure, left)
        for x in (left + 1.2, left + 4.2):
            _arrow(figure, x, 5.4, left + 2.7, 6.2)
        (first, y_first), (second, y_second) = boxes
        _box(figure, left + 2.7, y_first, first, width=3.4, color="#e3f4e1")
        _arrow(figure, left + 2.7, y_first + 0.4, left + 2.7, y_second - 0.4)
        _box(figure, left + 2.7, y_second, second, width=3.4, color="#e3f4e1")
        figure.add_annotation(x=left + 2.7, y=9.3, text=f"<b>{titles[left]}</b>", showarrow=False, font_size=14)
    figure.update_xaxes(visible=False, range=[-0.3, 13.7])
    figure.update_yaxes(visible=False, range=[-0.2, 9.8])
    figure.update_layout(title="SBERT's two architectures: one Siamese encoder, two heads", height=460,
                         plot_bgcolor="white", margin=dict(l=10, r=10, t=50, b=10), showlegend=False)
    return figure
