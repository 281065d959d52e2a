"""The manifest of ``02_anisotropy.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb02.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size

MANIFEST = Manifest(
    notebook="02_anisotropy",
    sizes={
        "N_PER_DATASET": Size("sentences per data set in the 3-D view", quick=100, full=800, standin=16),
        "STSB_PAIRS": Size("STS-B test pairs for the cone and alignment/uniformity (None: all 1379)", quick=None, full=None, standin=40),
        "QUERIES_PER_BUCKET": Size("k-NN queries per frequency bucket (None: every token)", quick=300, full=None, standin=50),
        "N_WORDS": Size("vocabulary rows read by the frequency sections", quick=30_000, full=100_000),
        "MAX_TOKENS": Size("tokens per layer view", quick=2000, full=8000),
        "RANKED_SAMPLE": Size("ranked rows drawn for the density figure", quick=1500, full=6000),
    },
    paper_map=(
        PaperLink('BERT-flow 2011.05864', '§1 anisotropy hypothesis: the cone', '1'),
        PaperLink('BERT-flow 2011.05864', 'Table 1: word-embedding norm by frequency', '4', 'BERT_FLOW_TABLE1'),
        PaperLink('BERT-flow 2011.05864', 'Table 1: k-NN distances, sparse rare words', '5', 'BERT_FLOW_TABLE1'),
        PaperLink('BERT-flow 2011.05864', '§2, observation 2 carried to sentences (assumed there, measured here: frequency and length vs distance from the mean and Gaussian density)', '5'),
        PaperLink('SimCSE 2104.08821', 'alignment and uniformity (Wang & Isola 2020), the lens SimCSE uses', '7'),
    ),
    story_in_full_mode=True,
)
