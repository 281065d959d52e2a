"""SimCSE's training recipes, each setting with where it is stated (the contrastive lesson after ``05``).

From arXiv 2104.08821v4 (§3, §4, §6.1, §6.3, Appendices A and D). One setting, the maximum sequence
length, is not in the paper: it comes from the released scripts (princeton-nlp/SimCSE,
``run_unsup_example.sh`` / ``run_sup_example.sh``), and says so.
"""
from __future__ import annotations

from sbert_workbook.published.table import SIMCSE, PublishedRecipe, inferred

#: τ of SimCSE's loss, sim(h_i, h_j) / τ with cosine sim: Appendix D, Table D.1.
SIMCSE_TEMPERATURE = 0.05
_MAX_LENGTH = inferred("the released scripts run_unsup_example.sh and run_sup_example.sh pass --max_seq_length 32",
                       "the paper states no maximum sequence length")
_TAU = ("Appendix D: 'a carefully tuned temperature τ = 0.05' (Table D.1); "
        + inferred("the same τ for both recipes", "the paper names one τ; the released scripts pass --temp 0.05 to both"))
_SELECTION = ("Appendix A: evaluated every 250 steps on STS-B dev, best checkpoint kept (the released scripts use "
              "--eval_steps 125)")

SIMCSE_UNSUP_RECIPE = PublishedRecipe(SIMCSE, "unsupervised SimCSE, BERT-base", settings={
    "start": "bert-base-uncased", "data": "10^6 sentences sampled from English Wikipedia",
    "positive": "the sentence itself, a second dropout mask", "negatives": "the other sentences of the batch",
    "dropout p": 0.1, "similarity": "cosine", "temperature τ": SIMCSE_TEMPERATURE, "batch size": 64,
    "learning rate": 3e-5, "epochs": 1, "max sequence length": 32,
    "pooling (training)": "[CLS] with an MLP on top (randomly initialised)", "pooling (test)": "[CLS] without the MLP",
    "model selection": "best STS-B dev checkpoint"}, where={
    "start": "§6.1: pre-trained BERT checkpoints (uncased)", "data": "§6.1 and §3 footnote 2",
    "positive": "§3, Eq. 4", "negatives": "§3, Eq. 4 (in-batch)", "dropout p": "§3 and Table 3: Transformers' default",
    "similarity": "§2, Eq. 1", "temperature τ": _TAU, "batch size": "Appendix A, Table A.1",
    "learning rate": "Appendix A, Table A.1", "epochs": "Appendix A", "max sequence length": _MAX_LENGTH,
    "pooling (training)": "§6.1 footnote 9, Appendix A", "pooling (test)": "Appendix A; §6.3 Table 6 ('w/ MLP (train)')",
    "model selection": _SELECTION})

SIMCSE_SUP_RECIPE = PublishedRecipe(SIMCSE, "supervised SimCSE, BERT-base", settings={
    "start": "bert-base-uncased", "data": "SNLI + MNLI: 314k entailment pairs, each with a contradiction "
    "hypothesis of the same premise",
    "positive": "the entailment hypothesis", "negatives": "the contradiction hypothesis (hard negative) and the batch's "
    "other hypotheses", "hard-negative weight α": 1.0, "similarity": "cosine", "temperature τ": SIMCSE_TEMPERATURE,
    "batch size": 512, "learning rate": 5e-5, "epochs": 3, "max sequence length": 32,
    "pooling (training)": "[CLS] with an MLP on top", "pooling (test)": "[CLS] with the MLP",
    "model selection": "best STS-B dev checkpoint"}, where={
    "start": "§6.1: pre-trained BERT checkpoints (uncased)", "data": "§6.1; §4 (one contradiction per premise sampled)",
    "positive": "§4, Eq. 5", "negatives": "§4, Eq. 5", "hard-negative weight α": "§6.3, Eq. 8 and Table 7",
    "similarity": "§2, Eq. 1", "temperature τ": _TAU, "batch size": "Appendix A, Table A.1 (the released script: 4 GPUs × 128)",
    "learning rate": "Appendix A, Table A.1", "epochs": "Appendix A", "max sequence length": _MAX_LENGTH,
    "pooling (training)": "Appendix A", "pooling (test)": "§6.3: [CLS] w/ MLP is the supervised default",
    "model selection": _SELECTION})
