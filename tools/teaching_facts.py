"""What TEACHING.md's generated tables are made of, besides the notebooks themselves (see ``tools/teaching_guide.py``).

Each entry names the code or the constant it stands for, so that ``tools/teaching_guide.py`` resolves it (an
import, a ``published.py`` constant, a notebook section) and fails when it moved: nothing here is a number.
Sections are given by their number in the notebook (``"3"`` for ``## 3 · …``); the guide prints the heading.
"""
from __future__ import annotations

from sbert_workbook.lessons.manifest import all_manifests

#: The planning allowance for discussion, counted from the notebooks (stated in TEACHING.md).
MINUTES_PER_EXERCISE = 3  #: each code cell tagged ``exercise``: try it, read the check, discuss
MINUTES_PER_PREDICT = 2  #: each cell tagged ``predict``: vote, run, explain
READING_WORDS_PER_MINUTE = 150  #: the section's markdown, read or presented aloud
SESSION_MINUTES = 90

#: The equation sheet, read from the lessons' manifests (sbert_workbook/lessons/manifests/nbNN.py, their one home):
#: (what, equation, implemented by "module:attribute", notebook, section).
EQUATIONS = [(e.what, e.equation, e.implemented_by, m.notebook, e.section) for m in all_manifests() for e in m.equations]

#: Key numbers: (published.py constant, row, column or None for a scalar/dict entry).
KEY_NUMBERS = [
    ("SBERT_TABLE1", "Avg. GloVe embeddings", "avg"), ("SBERT_TABLE1", "Avg. BERT embeddings", "avg"),
    ("SBERT_TABLE1", "BERT CLS-vector", "avg"), ("SBERT_TABLE1", "SBERT-NLI-base", "avg"),
    ("SBERT_TABLE2", "BERT-NLI-STSb-base", "stsb"), ("SBERT_TABLE2", "SBERT-NLI-STSb-base", "stsb"),
    ("SBERT_TABLE6", "MEAN", "nli"), ("SBERT_TABLE6", "MAX", "stsb"), ("SBERT_TABLE6", "MEAN", "stsb"),
    ("SBERT_TABLE6", "(u, v)", "nli"), ("SBERT_TABLE6", "(u, v, |u-v|)", "nli"),
    ("BERT_FLOW_TABLE2", "BERT-base", "stsb"), ("BERT_FLOW_TABLE2", "BERT-base-last2avg", "stsb"),
    ("BERT_FLOW_TABLE2", "BERT-base-flow (NLI)", "stsb"), ("BERT_FLOW_TABLE2", "BERT-base-flow (target)", "stsb"),
    ("BERT_FLOW_TABLE3", "BERT-base-NLI", "stsb"), ("BERT_FLOW_TABLE3", "BERT-base-NLI-flow (target)", "stsb"),
    ("BERT_FLOW_TABLE5", "+ SN", "stsb"), ("BERT_FLOW_TABLE5", "+ SN + NATSV (k=6)", "stsb"),
    ("BERT_FLOW_TABLE6", "BERT-induced similarity", "edit distance"),
    ("BERT_FLOW_TABLE6", "Flow-induced similarity", "edit distance"),
    ("SIMCSE_TABLE_C1", "BERT-flow (target)", "stsb"), ("SIMCSE_TABLE_C1", "BERT-whitening (target)", "stsb"),
    ("BERT_FLOW_TABLE1", "mean L2 norm", None), ("SBERT_TABLE7", "SBERT-base - smart batching", None),
    ("SBERT_CLUSTERING_COST", "BERT (cross-encoder) hours", None), ("SBERT_CLUSTERING_COST", "SBERT seconds", None),
    ("SIMCSE_TABLE3", "Unsup. SimCSE-BERT-base", "p=0.0"), ("SIMCSE_TABLE3", "Unsup. SimCSE-BERT-base", "p=0.1"),
    ("SIMCSE_TABLE5", "Unsup. SimCSE-BERT-base", "avg"), ("SIMCSE_TABLE5", "Sup. SimCSE-BERT-base", "avg"),
    ("ALL_MINILM_STSB", None, None),
]
#: Source lines of the published.py constants that are not PublishedTables.
PLAIN_SOURCES = {"BERT_FLOW_TABLE1": "BERT_FLOW_TABLE1_SOURCE", "SIMCSE_TABLE_C1": "SIMCSE_TABLE_C1_SOURCE",
                 "ALL_MINILM_STSB": "ALL_MINILM_SOURCE"}
PLAIN_NOTES = {"SBERT_TABLE7": "SBERT Table 7: sentences/s (CPU i7-5820K, GPU V100)",
               "SBERT_CLUSTERING_COST": "SBERT §8 (Conclusion): hierarchical clustering of 10,000 sentences"}

#: Paper → notebook, read from the manifests: (paper, what the notebook shows, notebook, section, published constant or "").
PAPER_MAP = [(p.paper, p.shows, m.notebook, p.section, p.constant) for m in all_manifests() for p in m.paper_map]

#: The 90-minute path: the core sections less these subsections (by number: "6.2" is ``### 6.2 · …``), which the room
#: reads at home; the path's exercises are homework too (their check cells grade them there), its predict questions
#: stay in class. What is left is planned to end SLACK_MINUTES early, for set-up and questions.
#: (Each manifest's read_at_home; 03 leaves 3a, which GloVe ran; 05 leaves 6.2-6.3, the bent 2-D cloud and invertible
#: against projection, keeping 6.1's idea and 6.4's Glow; 06 leaves 5.1-5.2, the start model's rows and the frequency test.)
PATH_LEAVES_FOR_READING = {m.notebook: m.read_at_home for m in all_manifests() if m.read_at_home}
SLACK_MINUTES = 15
#: (notebook, section) the path must teach, whatever else changes: the flow and SimCSE's alignment-uniformity plane.
PATH_MUST_TEACH = (("05_bert_flow", "6"), ("06_contrastive_simcse", "5"))
