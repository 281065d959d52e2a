"""tools/wheel_standin_check.py reads a run's printed text to tell whether bert-base-uncased's branch ran."""
import json

from tools.wheel_standin_check import LOADED_BERT_BASE, printed_text


def test_printed_text_joins_streams_and_text_displays_and_finds_the_model_line(tmp_path):
    cells = [{"cell_type": "code", "outputs": [{"output_type": "stream", "text": ["Model: bert-base-uncased ", "(hub cache, r"]}]},
             {"cell_type": "markdown"},
             {"cell_type": "code", "outputs": [{"output_type": "execute_result", "data": {"text/plain": "0.5", "text/html": "<b>"}},
                                               {"output_type": "display_data", "data": {"image/png": "..."}}]}]
    (tmp_path / "run.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    text = printed_text(tmp_path / "run.ipynb")
    assert text == "Model: bert-base-uncased (hub cache, r0.5"
    assert LOADED_BERT_BASE in text
    (tmp_path / "embedded.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "stream", "text": "Model: sentence-transformers/all-MiniLM-L6-v2 (embedded package"}]}]}), encoding="utf-8")
    assert LOADED_BERT_BASE not in printed_text(tmp_path / "embedded.ipynb")
