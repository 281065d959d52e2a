"""The manifest of ``04_siamese_finetuning.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb04.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size

MANIFEST = Manifest(
    notebook="04_siamese_finetuning",
    sizes={
        "NLI_STEPS": Size("softmax-objective steps on NLI (None: one epoch, SBERT §3.1)", quick=60, full=None, suite=20, standin=2),
        "STSB_STEPS": Size("regression steps on STS-B train (None: the paper's epochs)", quick=80, full=None, suite=20, standin=2),
        "STS_LIMIT": Size("pairs per STS test set in the before/after table (None: all)", quick=150, full=None, suite=50, standin=4),
        "ABLATION_STEPS": Size("softmax steps per ablation variant and per seed of §6.1", quick=15, full=600, suite=5, standin=1),
        "ABLATION_VARIANTS": Size("§6: how many of the six ablation variants to train (None: all six)", quick=None, full=None, standin=3),
        "SEED_RUNS": Size("§6.1: seeds for the default ablation variant", quick=5, full=10, suite=3, standin=2),
        "BATCH_SIZE": Size("pairs per training step in every run (16: the paper's)", quick=16, full=16, standin=2),
        "COST_SIZES": Size("§1.2: the numbers of sentences timed", quick=(8, 16), full=(16, 32, 64), standin=(4, 8)),
        "DEV_PAIRS": Size("STS-B dev pairs scored during training (None: all)", quick=200, full=None, suite=50, standin=4),
        "CROSS_STEPS": Size("§1.1: cross-encoder and bi-encoder steps on STS-B train (None: the paper's epochs)", quick=10, full=None, suite=4, standin=2),
    },
    equations=(
        Equation('classification objective (SBERT §3)',
                 'o = softmax(W_t (u, v, |u − v|)), W_t ∈ ℝ^{3d × k} (d: embedding size, k: number of labels, 3 for NLI); cross-entropy',
                 'sbert_workbook.training.losses:classification_loss', '3'),
        Equation('regression objective (SBERT §3)',
                 'L = mean_i (cos(u_i, v_i) − y_i)², y scaled to [0, 1]',
                 'sbert_workbook.training.losses:cosine_regression_loss', '3'),
        Equation('triplet objective (SBERT §3)',
                 'L = max(‖a − p‖ − ‖a − n‖ + ε, 0), ε = 1',
                 'sbert_workbook.training.losses:triplet_loss', '3'),
        Equation('multiple-negatives ranking (in-batch negatives; Henderson et al. 2017, arXiv 1705.00652)',
                 'L_i = −log softmax_j(s · cos(a_i, c_j))|_{j = i}, s = 20: InfoNCE with temperature τ = 1/s = 0.05',
                 'sbert_workbook.training.losses:multiple_negatives_ranking_loss', '3'),
    ),
    paper_map=(
        PaperLink('Sentence-BERT 1908.10084', 'Table 2 and §8: cross- vs bi-encoder, accuracy and cost', '1', 'SBERT_TABLE2'),
        PaperLink('Sentence-BERT 1908.10084', 'Figures 1–2: the Siamese architectures', '2'),
        PaperLink('Sentence-BERT 1908.10084', '§3: classification, regression, triplet objectives', '3'),
        PaperLink('Sentence-BERT 1908.10084', '§3.1 recipe: batch 16, Adam 2e-5, 10 % warm-up, 1 epoch', '4'),
        PaperLink('Sentence-BERT 1908.10084', 'Table 6: pooling and concatenation ablations', '6', 'SBERT_TABLE6'),
    ),
)
