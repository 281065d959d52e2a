"""What an ``ipywidgets.Output`` shows, written by the kernel alone: every live figure of the workbook.

:func:`show` sets ``output.outputs`` to the new figure in one update from the kernel, instead of
displaying it inside ``with output:``. Inside ``with output:`` the *page* captures what is
displayed and sends the outputs back to the kernel, which echoes them; plotly's JupyterLab
renderer adds a PNG snapshot to every figure it has drawn, so what went back and forth could
carry that snapshot, and a page that re-rendered such a bundle showed the still picture instead
of the live figure (no hover, no redraw it could see). Written by the kernel, the outputs never
leave the page, and a redraw sends the figure once instead of back and forth (docs/reliability.md,
"Figures that turned into pictures"). ipywidgets' own ``Output.append_display_data`` works this way too.
Used by :func:`sbert_workbook.teaching.widgets.interactive_figure` (first met in 00_start_here's live slider) and the live
training (04) and flow (05) plots.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.formatters import DisplayFormatter

if TYPE_CHECKING:
    import ipywidgets as widgets

#: The mime type under which a front end draws a widget's view.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def show(output: widgets.Output, shown: object, said: str = "") -> None:
    """Make ``output`` show ``shown`` (and, below it, the text ``said`` while it was made), in one update.

    Sets ``output.outputs`` from the kernel rather than displaying inside ``with output:``, so
    the page never writes the outputs back (see the module's docstring).
    """
    outputs = [as_output(shown)]
    if said:
        outputs.append({"output_type": "stream", "name": "stderr", "text": said})
    output.outputs = tuple(outputs)


def as_output(shown: object) -> dict:
    """The ``display_data`` output ``display(shown)`` would send, built instead of sent.

    A widget is shown by its view (ipywidgets 7, Colab's, builds that bundle only while displaying, so it is built
    here as both 7 and 8 do). Objects with ``_repr_mimebundle_`` give their own bundle: for a plotly figure, the one
    ``fig.show()`` sends under the current ``plotly.io.renderers.default``.
    """
    import ipywidgets

    if isinstance(shown, ipywidgets.Widget):
        view = {"version_major": 2, "version_minor": 0, "model_id": shown.model_id}
        return {"output_type": "display_data", "data": {"text/plain": repr(shown)[:110], WIDGET_VIEW: view}, "metadata": {}}
    bundle = shown._repr_mimebundle_() if hasattr(shown, "_repr_mimebundle_") else None
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    if not data:  # no mimebundle (or no plotly renderer outside a kernel): IPython's formatters
        formatter = DisplayFormatter()
        formatter.ipython_display_formatter.enabled = False  # plotly's would send the figure itself
        data, metadata = formatter.format(shown)
    return {"output_type": "display_data", "data": data, "metadata": metadata}
