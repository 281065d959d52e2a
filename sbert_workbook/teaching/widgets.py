"""Controls wired to a plotly figure: the one pattern every interactive cell uses.

A plain ``go.Figure`` is re-drawn inside an ``ipywidgets.Output`` when a control changes.
This renders the same in JupyterLab 4, Notebook 7, Voila, VS Code and Colab, without the
extra front-end package ``FigureWidget`` needs (docs/notebooks.md, "Widgets"). Introduced in
``00_start_here.ipynb`` (the live slider); every notebook and the classroom explorers use it.
The kernel alone writes what the ``Output`` shows (:func:`sbert_workbook.teaching.live_output.show`).
"""
from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable

import ipywidgets as widgets

from sbert_workbook.teaching.live_output import show


def interactive_figure(make_figure: Callable[..., object], **controls: widgets.ValueWidget) -> widgets.VBox:
    """A box of ``controls`` above the figure ``make_figure(**values)``, redrawn on every change.

    A ``ValueError``/``TypeError``/``KeyError`` raised by ``make_figure`` (an empty text
    box, say) is shown as a short message in place of the figure, never as a traceback.
    """
    output = widgets.Output()

    def redraw(_change=None) -> None:
        values = {name: control.value for name, control in controls.items()}
        with _what_it_says() as said:
            try:
                result = make_figure(**values)
            except (ValueError, TypeError, KeyError) as problem:
                result = widgets.HTML(f"<b>Nothing to show yet:</b> {_escape(str(problem))}")
        show(output, result, said.getvalue())

    for control in controls.values():
        control.observe(redraw, names="value")
    redraw()
    box = widgets.VBox([widgets.HBox(list(controls.values())), output])
    box.redraw = redraw  # lets tests and notebooks force a redraw
    return box


@contextlib.contextmanager
def _what_it_says():
    """Collect what the code in the block prints and warns, to show it with the figure."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said), warnings.catch_warnings(record=True) as caught:
        yield said
    for warning in caught:
        said.write(f"{warning.category.__name__}: {warning.message}\n")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
