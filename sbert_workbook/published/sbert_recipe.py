"""Sentence-BERT's two training recipes, each setting with where it is stated (``04_siamese_finetuning.ipynb``).

From arXiv 1908.10084 (§3.1, §4.2, Table 2's caption). The paper says "Adam"; its code,
sentence-transformers' ``fit``, implements the recipe with AdamW (weight decay 0.01) and a
warm-up followed by a linear decay ("WarmupLinear"): those settings say that they are the library's,
not the paper's. The STS-B recipe's epochs come from Table 2's caption, which names the BERT
(cross-encoder) systems only; reading them for the SBERT rows too is marked inferred.
"""
from __future__ import annotations

from sbert_workbook.published.table import SBERT, PublishedRecipe, inferred

_LIBRARY = ("sentence-transformers' fit (the paper's released code; checked in 6.2.0's fit_mixin.py): "
            "optimizer_class=torch.optim.AdamW, weight_decay=0.01, scheduler='WarmupLinear'; not in the paper")
_ADAM = "§3.1: 'Adam optimizer with learning rate 2e-5'"

SBERT_NLI_RECIPE = PublishedRecipe(SBERT, "SBERT on NLI (classification objective)", settings={
    "data": "SNLI + MultiNLI", "objective": "3-way softmax classifier on (u, v, |u-v|), cross-entropy",
    "epochs": 1, "batch size": 16, "optimizer (paper)": "Adam", "learning rate": 2e-5,
    "warm-up": "linear, over 10 % of the training data", "pooling": "MEAN",
    "optimizer (sentence-transformers)": "AdamW, weight decay 0.01, warm-up then linear decay"}, where={
    "data": "§3.1", "objective": "§3, classification objective; §3.1", "epochs": "§3.1: 'for one epoch'",
    "batch size": "§3.1", "optimizer (paper)": _ADAM, "learning rate": _ADAM, "warm-up": "§3.1",
    "pooling": "§3.1: 'Our default pooling strategy is MEAN'", "optimizer (sentence-transformers)": _LIBRARY})

SBERT_STSB_RECIPE = PublishedRecipe(SBERT, "SBERT on STS-B train (regression objective)", settings={
    "data": "STS-B train (5,749 pairs)", "objective": "MSE between cos(u, v) and the gold score",
    "epochs": 4, "seeds": 10, "batch size": 16, "learning rate": 2e-5}, where={
    "data": "§4.2", "objective": "§3, regression objective; §4.2",
    "epochs": "Table 2's caption: 'BERT systems were trained with 10 random seeds and 4 epochs' "
              + inferred("the same 4 epochs for the SBERT rows", "the caption names the BERT systems only"),
    "seeds": "§4.2: 'All systems are trained with 10 random seeds to counter variances'; Table 2's caption",
    "batch size": inferred("§3.1's batch size", "§4.2 states none for STS-B"),
    "learning rate": inferred("§3.1's learning rate", "§4.2 states none for STS-B")})
