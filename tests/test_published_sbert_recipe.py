"""SBERT's NLI and STS-B recipes, pinned to the paper's text (§3.1, §4.2, Table 2's caption; issue 23 C and G).

Typed again from arXiv 1908.10084, independently of ``sbert_workbook/published/sbert_recipe.py``.
"""
from __future__ import annotations

from sbert_workbook.published.sbert_recipe import SBERT_NLI_RECIPE, SBERT_STSB_RECIPE


def test_the_nli_recipe_is_section_3_1s():
    nli = SBERT_NLI_RECIPE.settings
    assert (nli["epochs"], nli["batch size"], nli["learning rate"], nli["pooling"]) == (1, 16, 2e-5, "MEAN")
    assert nli["optimizer (paper)"] == "Adam"  # §3.1 says Adam, not AdamW
    assert "§3.1" in SBERT_NLI_RECIPE.source("optimizer (paper)")


def test_adamw_with_weight_decay_is_said_to_be_the_librarys_not_the_papers():
    assert nli_says("optimizer (sentence-transformers)").startswith("AdamW, weight decay 0.01")
    where = SBERT_NLI_RECIPE.where["optimizer (sentence-transformers)"]
    assert "sentence-transformers" in where and "not in the paper" in where


def test_the_stsb_recipe_trains_four_epochs_with_ten_seeds():
    stsb = SBERT_STSB_RECIPE.settings
    assert (stsb["epochs"], stsb["seeds"]) == (4, 10)
    assert "Table 2's caption" in SBERT_STSB_RECIPE.where["epochs"]
    assert "[inferred:" in SBERT_STSB_RECIPE.where["epochs"]  # the caption names the BERT systems only
    assert "[inferred:" in SBERT_STSB_RECIPE.where["batch size"] and "[inferred:" in SBERT_STSB_RECIPE.where["learning rate"]


def nli_says(setting: str):
    return SBERT_NLI_RECIPE.settings[setting]
