"""The manifest of ``07_your_model.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb07.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_SENTENCE, seven_set_sentences
from sbert_workbook.forecast.work import encode, load, measured_cpu
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """The set-up reads the seven sets once through MODEL; every measurement and rung then works on those vectors on the
    CPU (the flow too); §8 diagnoses the other models of the zoo (the tiny MLM is trained for it)."""
    s7, pairs = seven_set_sentences(sizes["PAIRS_PER_SET"]), 7 * (sizes["PAIRS_PER_SET"] or 2690)
    resampled, width = sizes["RESAMPLES"] / 2000, plan.model.hidden / 384
    queries = 1500 if sizes["QUERIES_PER_BUCKET"] is not None else 26535
    shown = min(s7, sizes["UNIFORMITY_SENTENCES"])
    return [load("setup", "begin(", plan.model),
            encode("setup", "begin(", "the seven sets once, last layer", s7, TOKENS_PER_SENTENCE["seven sets"]),
            measured_cpu("3", "rogue_report(", "the informativity test's bootstraps", "bootstrap pair", 2 * pairs * resampled),
            measured_cpu("4", "frequency_report(", "word frequencies and each bucket's nearest neighbours",
                         "07 frequency query", queries * width + sizes["WORDFREQ_WORDS"] / 20),
            measured_cpu("5", "climb_ladder(", "the flow rung", "flow step per 384 dims", s7 / 32 * width),
            measured_cpu("5", "climb_ladder(", "six paired bootstraps", "bootstrap pair", 6 * pairs * resampled),
            measured_cpu("5", "climb_ladder(", "the other rungs' fits and scores", "07 ladder sentence", s7 * width),
            measured_cpu("6", "plane_report(", "each rung's uniformity and its intervals", "07 uniformity pair",
                         7 * shown ** 2 / 1e6 * width * resampled),
            measured_cpu("8", "zoo_report(", "the tiny MLM trained for the zoo", "01 tiny MLM step", sizes["TINY_STEPS"]),
            measured_cpu("8", "zoo_report(", "the other models' diagnoses", "07 zoo sentence",
                         (2 if plan.embedded else 3) * seven_set_sentences(sizes["ZOO_PAIRS_PER_SET"])),
            measured_cpu("rest", "", "the reports and the page", "07 rest")]


MANIFEST = Manifest(
    notebook="07_your_model",
    objectives=(
        "diagnose any model: the cone, IsoScore, rogue dimensions and frequency",
        "pick the fix a model needs from the fix ladder's intervals, and keep its report",
    ),
    sizes={
        "PAIRS_PER_SET": Size("test pairs sampled from each of the seven STS sets (None: all); their sentences are the "
                              "corpus every part reads", quick=200, full=None, suite=12, standin=4),
        "RESAMPLES": Size("paired-bootstrap resamples per interval", quick=2000, full=2000, suite=200, standin=100),
        "WORDFREQ_WORDS": Size("§4: wordfreq's most frequent English words that rank the vocabulary", quick=30_000,
                               full=100_000, suite=10_000),
        "QUERIES_PER_BUCKET": Size("§4: words per frequency bucket whose nearest neighbours are measured (None: all)",
                                   quick=500, full=None, suite=20, standin=10),
        "UNIFORMITY_SENTENCES": Size("§6: sentences uniformity reads (every pair of them)", quick=2000, full=5000,
                                     suite=100, standin=40),
        "ZOO_PAIRS_PER_SET": Size("§8: test pairs per set for each other model's diagnosis", quick=60, full=250, suite=6,
                                  standin=3),
        "TINY_STEPS": Size("§8: training steps of 01's tiny MLM (batch 128) before it is diagnosed", quick=400, full=4000,
                           suite=20, standin=5),
    },
    equations=(
        Equation("IsoScore (Rudman et al. 2022, Algorithm 1)",
                 'λ̂ = √d λ/‖λ‖, δ = ‖λ̂ − 1‖/√(2(d − √d)), ι = ((d − δ²(d − √d))² − d)/(d(d − 1))',
                 'sbert_workbook.diagnosis.cone:isoscore', '2'),
        Equation("effective rank (Roy & Vetterli 2007)", 'erank = exp(−Σ_k p_k log p_k), p_k = σ_k/Σσ',
                 'sbert_workbook.diagnosis.cone:effective_rank', '2'),
        Equation("a dimension's contribution to the expected cosine (Timkey & van Schijndel 2021)",
                 'CC(i) = E[u_i v_i/(‖u‖‖v‖)], Σ_i CC(i) = E cos(u, v)',
                 'sbert_workbook.diagnosis.rogue:cosine_contributions', '3'),
        Equation("all-but-the-top (Mu & Viswanath 2018)", 'x ↦ x̃ − Σ_{i≤D} (u_iᵀx̃) u_i, x̃ = x − μ',
                 'sbert_workbook.calibration.all_but_the_top:AllButTheTop', '5'),
        Equation("informativity (Timkey & van Schijndel 2021)", 'ρ = Spearman(cos(u, v), cos(u_∖R, v_∖R)) over the STS '
                 'pairs, R the top three dimensions by |CC(i)|', 'sbert_workbook.diagnosis.rogue:informativity', '3'),
    ),
    paper_map=(
        PaperLink('IsoScore 2108.07344', 'Algorithm 1: IsoScore; the mean cosine is not an isotropy measure', '2'),
        PaperLink('Rogue dimensions 2109.04404', 'CC(i), 1–3 dimensions dominate cosine; informativity; standardisation '
                  '(theirs on word-level benchmarks, adapted here to pooled sentences on STS)', '3'),
        PaperLink('BERT-flow 2011.05864', 'Table 1: norm and k-NN distance by frequency bucket, for this model', '4'),
        PaperLink('Cluster-based isotropy (Rajaee & Pilehvar, ACL 2021) 2106.01183', 'per-cluster all-but-the-top', '5'),
        PaperLink('SimCSE 2104.08821', '§7, Figure 3: post-processing on the alignment–uniformity plane, each move read '
                  'with its intervals', '6'),
    ),
    story_in_full_mode=True,
    work=work,
)
