"""The manifest of ``03_pooling_and_sts.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb03.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size

MANIFEST = Manifest(
    notebook="03_pooling_and_sts",
    objectives=(
        "score a model on STS (Spearman of cosines against gold) and tell `all` from `wmean`",
        "compare poolings and GloVe, calling two rows apart only when a 95 % interval excludes 0",
        "say why search retrieves with a bi-encoder and reranks with a cross-encoder",
    ),
    sizes={
        "PAIRS_PER_SET": Size("pairs per STS test set, §3's table and everything read from it (None: every pair)",
                              quick=500, full=None, suite=20, standin=8),
        "PAIRS_PER_SUBSET": Size("§4: random pairs from every STS12-16 subset (None: all)", quick=6, full=None, standin=2),
        "SEARCH_SIZE": Size("§6: sentences of STS-B test and SNLI to search over (None: the STS-B sample and demo "
                            "sentences already embedded)", quick=None, full=3000),
        "RERANK_PAIRS": Size("§6: STS-B test pairs the retrieval set is built from (None: all)", quick=150, full=None,
                             standin=40, full_on_cpu=150),
        "RERANK_QUERIES": Size("§6: queries kept from them (None: all)", quick=16, full=None, suite=8, standin=4,
                               full_on_cpu=16),
        "RERANK_STEPS": Size("§6: steps training the cross-encoder on STS-B train, batch 16 (None: one epoch)", quick=4,
                             full=None, suite=2, standin=2, full_on_cpu=4),
        "RERANK_LEARNING_RATE": Size("§6: the cross-encoder's learning rate (quick mode's few steps take a larger one)",
                                     quick=1e-4, full=2e-5),
        "RERANK_KS": Size("§6: candidates k the cross-encoder reranks", quick=(3, 10), full=(5, 10, 20)),
        "ENGINE_SENTENCES": Size("§7: sentences each engine encodes", quick=200, full=2000, standin=16),
        "TIMING_PAIRS": Size("§8: STS-B test pairs whose sentences are timed", quick=64, full=1000, standin=16),
        "TIMING_ROUNDS": Size("§8: timed runs per batching (the fastest is kept)", quick=1, full=3),
        "PROBE_PAIRS": Size("§9: the first pairs of each SICK split the probes read (None: all)", quick=200, full=None,
                            standin=24),
    },
    equations=(
        Equation('mean pooling',
                 'u = (1/n) Σ_{t: mask_t = 1} h_t',
                 'sbert_workbook.encoding.pooling:mean_pooling', '2'),
        Equation('CLS pooling',
                 'u = h_[CLS]',
                 'sbert_workbook.encoding.pooling:cls_pooling', '2'),
        Equation('max pooling',
                 'u_d = max_{t: mask_t = 1} h_{t,d}',
                 'sbert_workbook.encoding.pooling:max_pooling', '2'),
        Equation("Spearman's ρ (× 100)",
                 'ρ = Pearson(rank(cos(u, v)), rank(gold)) = 1 − 6 Σ d_i² / (n(n² − 1)) without ties',
                 'sbert_workbook.evaluation.sts:correlations', '1'),
    ),
    paper_map=(
        PaperLink('Sentence-BERT 1908.10084', 'Table 1: GloVe / BERT mean / CLS baselines vs trained', '3', 'SBERT_TABLE1'),
        PaperLink('Sentence-BERT 1908.10084', 'Table 7: smart batching', '8', 'SBERT_TABLE7'),
        PaperLink('Sentence-BERT 1908.10084', 'Table 5: SentEval probes vs cosine', '9', 'SBERT_TABLE5'),
        PaperLink('SimCSE 2104.08821', '`all` vs `wmean` aggregation: why published numbers disagree', '4'),
    ),
    read_at_home=('3a',),
    story_in_full_mode=True,
)
