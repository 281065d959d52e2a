"""Live figures are written into their ``Output`` by the kernel, in one update, and never captured by the page.

The page-side capture (``with output: display(...)``) sent every redraw's outputs back to the kernel, and a bundle
carrying plotly's PNG snapshot came back as a still picture (docs/reliability.md, "Figures that turned into
pictures"); tests/test_browser.py checks in Chromium that a page never sends outputs; these check the kernel side.
"""
from __future__ import annotations

import base64
import json
import warnings

import ipywidgets
import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from sbert_workbook.teaching.widgets import interactive_figure
from sbert_workbook.teaching.live_output import as_output, show

PLOTLY = "application/vnd.plotly.v1+json"
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture
def kernel_renderer(monkeypatch):
    """plotly's renderer as in a Jupyter kernel (outside one it has none)."""
    monkeypatch.setattr(pio.renderers, "default", "plotly_mimetype")


def figure_of(output: dict) -> go.Figure:
    """The figure an output holds, read back by plotly itself."""
    assert output["output_type"] == "display_data" and PLOTLY in output["data"], output
    return pio.from_json(json.dumps(output["data"][PLOTLY]))


def values(array) -> np.ndarray:
    """A trace's numbers, as plotly sends them: a plain list, or typed-array bytes ({"dtype", "bdata"})."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array)


def updates_of(output: ipywidgets.Output) -> list[tuple]:
    seen = []
    output.observe(lambda change: seen.append(change["new"]), names="outputs")
    return seen


def test_show_replaces_the_outputs_with_the_figure_in_one_update(kernel_renderer):
    output = ipywidgets.Output()
    seen = updates_of(output)
    show(output, go.Figure(go.Scatter(y=[1.0, 2.5]), layout_title_text="first"))
    show(output, go.Figure(go.Bar(y=np.array([3, 4, 5])), layout_title_text="second"))
    assert len(seen) == 2 and len(output.outputs) == 1
    shown = figure_of(output.outputs[0])
    assert shown.layout.title.text == "second" and shown.data[0].type == "bar"
    np.testing.assert_array_equal(values(shown.data[0].y), [3, 4, 5])
    assert output.msg_id == "", "show must not start a capture the page would answer"


def test_a_widget_is_shown_by_its_view_and_plain_objects_by_their_formatters(kernel_renderer):
    message = ipywidgets.HTML("<b>hello</b>")
    assert as_output(message)["data"][WIDGET] == message._repr_mimebundle_()[WIDGET], "the view ipywidgets 8 itself gives"
    assert as_output(12)["data"] == {"text/plain": "12"}
    assert as_output(go.Figure())["data"].keys() == {PLOTLY}, "no text/plain repr of the whole figure beside it"


def test_interactive_figure_redraws_by_one_kernel_update_per_change(kernel_renderer):
    slider = ipywidgets.IntSlider(value=1, min=0, max=5)
    box = interactive_figure(lambda n: go.Figure(go.Scatter(y=list(range(n + 1))), layout_title_text=f"n = {n}"), n=slider)
    output = box.children[1]
    seen = updates_of(output)
    slider.value = 4
    assert len(seen) == 1 and figure_of(output.outputs[0]).layout.title.text == "n = 4"
    assert output.msg_id == ""


def test_bad_input_shows_the_escaped_message_as_a_widget(kernel_renderer):
    def make_figure(name: str):
        raise KeyError(f"no data set called <{name}>")

    output = interactive_figure(make_figure, name=ipywidgets.Text(value="script")).children[1]
    (shown,) = output.outputs
    message = ipywidgets.Widget.widgets[shown["data"][WIDGET]["model_id"]]
    assert "Nothing to show yet:" in message.value and "&lt;script&gt;" in message.value and "<script>" not in message.value


def test_what_making_the_figure_prints_and_warns_is_shown_below_it(kernel_renderer):
    def make_figure(n: int) -> go.Figure:
        print(f"encoding {n} sentences")
        warnings.warn("1 of 1 sentences were truncated", UserWarning)
        return go.Figure(layout_title_text="made")

    output = interactive_figure(make_figure, n=ipywidgets.IntSlider(value=3)).children[1]
    figure, said = output.outputs
    assert figure_of(figure).layout.title.text == "made"
    assert said == {"output_type": "stream", "name": "stderr",
                    "text": "encoding 3 sentences\nUserWarning: 1 of 1 sentences were truncated\n"}
    quiet = interactive_figure(lambda n: go.Figure(), n=ipywidgets.IntSlider()).children[1]
    assert len(quiet.outputs) == 1, "nothing said, nothing shown below the figure"


def test_the_live_training_and_flow_curves_write_their_output(kernel_renderer, capsys):
    from sbert_workbook.calibration.plots import LiveCurve
    from sbert_workbook.training.plots import LiveTrainingPlot

    training = LiveTrainingPlot(title="NLI", every=5)
    history = {"step": [1, 2, 3, 4, 5], "loss": [1.0, 0.9, 0.8, 0.7, 0.6], "eval_step": [], "dev_spearman": []}
    training({"step": 5, "total_steps": 10}, history)
    (drawn,) = training.output.outputs
    assert figure_of(drawn).layout.title.text == "NLI: step 5 of 10" and training.output.msg_id == ""
    curve = LiveCurve(every=2, name="flow")
    curve({"step": 2, "total_steps": 4}, {"log_likelihood": [-3.0, -2.5]})
    (drawn,) = curve.output.outputs
    np.testing.assert_allclose(values(figure_of(drawn).data[0].y), [-3.0, -2.5])
