"""Predict-then-run questions: nothing is revealed before a choice, and a choice says right or wrong and why."""
from __future__ import annotations

import re

import nbformat
import pytest

from sbert_workbook.teaching.predict import FEEDBACK_CLASS, OPTIONS_CLASS, PREDICT_CLASS, WAITING, predict_question, predict_range, range_holding
from sbert_workbook.runner.notebooks import list_notebooks

OPTIONS = ["close to 0", "around 0.3", "above 0.6"]


def question(**kwargs):
    arguments = dict(question="Mean cosine of random pairs?", options=OPTIONS, answer="around 0.3",
                     explanation="They share the position part.")
    return predict_question(**{**arguments, **kwargs})


def test_nothing_is_chosen_or_revealed_before_a_click():
    box = question()
    assert box.buttons.value is None and WAITING in box.feedback.value
    assert "around 0.3" not in box.feedback.value and "position part" not in box.feedback.value
    assert list(box.buttons.options) == OPTIONS  # each button's label is the option's text


RANGES = {"close to 0 (below 0.15)": 0.15, "around 0.3 (0.15 to 0.45)": 0.45, "above 0.45": float("inf")}


@pytest.mark.parametrize("value, label", [(-0.2, "close to 0 (below 0.15)"), (0.15, "around 0.3 (0.15 to 0.45)"),
                                          (0.449, "around 0.3 (0.15 to 0.45)"), (0.45, "above 0.45"), (3.0, "above 0.45")])
def test_the_range_holding_a_value_is_found_by_hand(value, label):
    assert range_holding(value, RANGES) == label  # each upper bound belongs to the next range


def test_a_range_question_offers_every_range_and_answers_with_the_one_holding_the_value():
    box = predict_range("Mean cosine?", RANGES, 0.3, "They share the position part.")
    assert list(box.buttons.options) == list(RANGES)
    box.buttons.value = "around 0.3 (0.15 to 0.45)"
    assert "✓ Right" in box.feedback.value


@pytest.mark.parametrize("ranges", [{"a": 0.5, "b": 0.2, "c": float("inf")}, {"a": 0.5, "b": 0.9}])
def test_ranges_out_of_order_or_without_an_open_end_are_refused(ranges):
    with pytest.raises(ValueError, match="increasing upper bounds ending in inf"):
        range_holding(0.1, ranges)


def test_a_right_choice_says_so_with_the_explanation():
    box = question()
    box.buttons.value = "around 0.3"
    assert box.feedback.value.startswith("<b>✓ Right.</b>") and "They share the position part." in box.feedback.value


def test_a_wrong_choice_names_the_answer_and_a_second_choice_replaces_the_verdict():
    box = question()
    box.buttons.value = "above 0.6"
    text = box.feedback.value
    assert "✗ Not quite" in text and "“around 0.3”" in text and "You chose “above 0.6”" in text
    assert "position part" in text
    box.buttons.value = "around 0.3"
    assert "✓ Right" in box.feedback.value and "✗" not in box.feedback.value


def test_the_widget_is_easy_to_find_in_a_browser():
    box = question()
    assert PREDICT_CLASS in box._dom_classes
    assert OPTIONS_CLASS in box.buttons._dom_classes and FEEDBACK_CLASS in box.feedback._dom_classes


def test_text_is_escaped():
    box = question(options=["a < b", "a > b"], answer="a < b", explanation="<script>")
    box.buttons.value = "a > b"
    assert "<script>" not in box.feedback.value and "&lt;script&gt;" in box.feedback.value


@pytest.mark.parametrize("options, answer, words", [
    (["yes", "no"], "maybe", "not one of the options"),
    (["yes"], "yes", "at least two different options"),
    (["yes", "yes"], "yes", "at least two different options"),
    ("yes/no", "yes", "list of strings"),
    ([0.1, 0.3], 0.3, "list of strings"),
])
def test_bad_questions_are_refused_with_advice(options, answer, words):
    with pytest.raises((TypeError, ValueError), match=words):
        predict_question("?", options, answer, "because")


#: A cell that asks the student to predict: predict_question itself, or a lesson's nbNN.predict_<what>(...) call.
PREDICT_CALL = re.compile(r"\b(predict_question|predict_range|nb\d\d\.predict_\w+)\(")


def test_predict_cells_are_tagged_and_come_before_code_that_shows_the_result():
    import importlib
    import inspect

    found = 0
    for notebook in list_notebooks():
        cells = nbformat.read(notebook, 4).cells
        for index, cell in enumerate(cells):
            calls = cell.cell_type == "code" and PREDICT_CALL.search(cell.source)
            same_line = cell.source[:calls.start()].rsplit("\n", 1)[-1] if calls else ""
            if calls and "import" not in same_line:
                found += 1
                assert "predict" in cell.get("metadata", {}).get("tags", []), f"{notebook.name} cell {index}: tag it 'predict'"
                assert any(c.cell_type == "code" for c in cells[index + 1:]), f"{notebook.name} cell {index}: no result cell below"
                if calls.group(1) not in ("predict_question", "predict_range"):
                    module, name = calls.group(1).split(".")
                    asked = getattr(importlib.import_module(f"sbert_workbook.lessons.{module}"), name)
                    asks = re.search(r"\bpredict_(question|range)\(", inspect.getsource(asked))
                    assert asks, f"{notebook.name}: {name} asks no question"
    assert found >= 2
