"""The manifest of ``06_contrastive_simcse.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb06.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size

MANIFEST = Manifest(
    notebook="06_contrastive_simcse",
    sizes={
        "STEPS": Size("optimizer steps per run from the start model (None: one epoch)", quick=8, full=None, suite=4, standin=1),
        "BATCH_SIZE": Size("sentences per step from the start model (64: the paper's unsupervised batch)", quick=16, full=64, standin=2),
        "CONE_STEPS": Size("optimizer steps per run from the cone (the bag-of-words start)", quick=200, full=1500, suite=20, standin=4),
        "CONE_SEEDS": Size("seeds per dropout p from the cone", quick=3, full=5, suite=2, standin=2),
        "CONE_BATCH_SIZE": Size("sentences per step from the cone (64: SimCSE's unsupervised batch)", quick=64, full=64, suite=16, standin=4),
        "UNSUP_SENTENCES": Size("NLI pairs read per set for unlabelled sentences (None: all)", quick=2000, full=None, suite=48, standin=8),
        "DEV_PAIRS": Size("STS-B dev pairs scored while training (None: all)", quick=250, full=None, suite=16, standin=4),
        "PAIRS_PER_SET": Size("STS test pairs per set for the start model's rows (None: all)", quick=250, full=None, suite=8, standin=3),
        "CONE_PAIRS_PER_SET": Size("STS test pairs per set for the cone's rows (None: all)", quick=1000, full=None, suite=20, standin=3),
        "PROBE_PAIRS": Size("SICK-E pairs per split for the probe of §6 (None: all)", quick=60, full=None, suite=40, standin=16),
        "CACHE_BATCH": Size("§7: pairs per step in the gradient-cache demo", quick=8, full=8, suite=4, standin=2),
        "CACHE_STEPS": Size("§7: steps each way in that demo", quick=2, full=2, standin=1),
    },
    equations=(
        Equation("InfoNCE (SimCSE Eq. 1; 04's in-batch negatives at s = 1/τ)",
                 'ℓ_i = −log e^{sim(h_i, h_i⁺)/τ} / Σ_j e^{sim(h_i, h_j⁺)/τ}, sim = cosine, τ = 0.05',
                 'sbert_workbook.training.contrastive:info_nce_loss', '1'),
        Equation('alignment and uniformity (Wang & Isola 2020, SimCSE §5)',
                 'ℓ_align = E‖f̂(x) − f̂(x⁺)‖², ℓ_uniform = log E e^{−2‖f̂(x) − f̂(y)‖²}, on unit vectors',
                 'sbert_workbook.evaluation.geometry:alignment', '2'),
    ),
    paper_map=(
        PaperLink('SimCSE 2104.08821', 'Eq. 1 and Table D.1: InfoNCE, temperature τ = 0.05', '1', 'SIMCSE_TABLE_D1'),
        PaperLink('SimCSE 2104.08821', '§3, Figure 2: unsupervised SimCSE, alignment and uniformity while training', '2'),
        PaperLink('SimCSE 2104.08821', 'Tables 3 and 1: dropout p, discrete augmentations', '3', 'SIMCSE_TABLE3'),
        PaperLink('SimCSE 2104.08821', '§4, Table 6: supervised SimCSE (entailment +, contradiction −)', '4', 'SIMCSE_TABLE6'),
        PaperLink('SimCSE 2104.08821', 'Table 5, §5: seven STS sets and the singular spectrum', '5', 'SIMCSE_TABLE5'),
        PaperLink('SimCSE 2104.08821', 'Appendix E, Table E.1: transfer probes; flow and whitening hurt', '6', 'SIMCSE_TABLE_E1'),
    ),
    read_at_home=('5.1', '5.2'),
)
