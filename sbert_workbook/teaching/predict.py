"""Predict-then-run questions: commit to an answer before the next cell shows the result (``02_anisotropy.ipynb``).

:func:`predict_question` renders a multiple-choice question as ``ipywidgets.ToggleButtons`` (one button per
option, its label the option's text) above an HTML line that, once a button is chosen, says whether the choice
was right and why. Nothing is revealed before a choice. The notebook cell holding one is tagged ``predict``;
the cell below it computes and shows the result. The box carries the CSS class :data:`PREDICT_CLASS` (and its
parts :data:`OPTIONS_CLASS`, :data:`FEEDBACK_CLASS`), so a browser test finds it in JupyterLab and Voilà.
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

import ipywidgets as widgets

PREDICT_CLASS = "sbw-predict"
OPTIONS_CLASS = "sbw-predict-options"
FEEDBACK_CLASS = "sbw-predict-feedback"
RIGHT, WRONG = "✓ Right", "✗ Not quite"
WAITING = "Choose an answer, then run the next cell to see the result."


def predict_question(question: str, options: Sequence[str], answer: str, explanation: str) -> widgets.VBox:
    """A question, one button per option and, after a choice, "✓ Right" or "✗ Not quite" with ``explanation``.

    ``answer`` is one of ``options`` (a notebook may compute which, from the data, before the result is shown);
    ``explanation`` says *why* in words, without typing a number the next cell computes. The returned box has
    ``.buttons`` (set ``.value`` to an option to choose it) and ``.feedback`` (an HTML widget; its ``.value``
    holds the verdict). Introduced in ``02_anisotropy.ipynb``.
    """
    options = _checked_options(options, answer)
    buttons = widgets.ToggleButtons(options=options, value=None, tooltips=options,
                                    style={"button_width": "auto"}, layout=widgets.Layout(width="auto"))
    buttons.value = None  # ipywidgets 7 may pre-select the first option
    buttons.add_class(OPTIONS_CLASS)
    feedback = widgets.HTML(f"<i>{WAITING}</i>")
    feedback.add_class(FEEDBACK_CLASS)

    def reveal(change) -> None:
        chosen = change["new"]
        if chosen is None:
            return
        verdict = RIGHT if chosen == answer else f"{WRONG}: the answer is “{escape(answer)}”"
        feedback.value = f"<b>{verdict}.</b> You chose “{escape(chosen)}”. {escape(explanation)}"

    buttons.observe(reveal, names="value")
    box = widgets.VBox([widgets.HTML(f"<b>Predict before you run the next cell.</b> {escape(question)}"), buttons, feedback])
    box.add_class(PREDICT_CLASS)
    box.buttons, box.feedback = buttons, feedback
    return box


def range_holding(value: float, ranges: dict[str, float]) -> str:
    """The label of the first range whose upper bound (exclusive) ``value`` is below: ``ranges`` maps each label to
    its upper bound, in increasing order, the last one ``inf``."""
    bounds = list(ranges.values())
    if bounds != sorted(bounds) or bounds[-1] != float("inf"):
        raise ValueError(f"ranges must map labels to increasing upper bounds ending in inf, got {ranges!r}")
    return next(label for label, upper in ranges.items() if value < upper)


def predict_range(question: str, ranges: dict[str, float], value: float, explanation: str) -> widgets.VBox:
    """:func:`predict_question` whose options are the labels of ``ranges`` and whose answer is the range holding
    ``value`` (:func:`range_holding`), computed before the next cell shows ``value``."""
    return predict_question(question, list(ranges), range_holding(value, ranges), explanation)


def _checked_options(options: Sequence[str], answer: str) -> list[str]:
    """The options as a list of distinct strings that contains ``answer``, else a ValueError saying what to fix."""
    if isinstance(options, str) or not all(isinstance(option, str) for option in options):
        raise TypeError(f"options must be a list of strings (the button labels), got {options!r}")
    options = list(options)
    if len(options) < 2 or len(set(options)) != len(options):
        raise ValueError(f"give at least two different options, got {options!r}")
    if answer not in options:
        raise ValueError(f"the answer {answer!r} is not one of the options {options}; pass one of them exactly")
    return options
