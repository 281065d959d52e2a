"""The manifest of ``06_contrastive_simcse.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb06.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).

``full_on_cpu`` is what tools/story_check.py runs as full mode on two cores: full-size evaluation (every test, dev and
SICK pair, every NLI sentence) with training capped (the start model's runs at 20 steps of 32 sentences, the cone's at
twice quick mode's steps, three seeds), so the run ends in tens of minutes on an idle 2-core CPU.
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_EXAMPLE, TOKENS_PER_SENTENCE, seven_set_sentences
from sbert_workbook.forecast.work import encode, load, measured_cpu, train
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """The set-up reads the start model's vectors; the cone (MODEL's word embeddings alone) trains 3 × CONE_SEEDS + 4
    times on the CPU's optimiser; three start-model runs (unsupervised and supervised SimCSE, SBERT's softmax) train
    MODEL and score it along the way; §5 calibrates both starts (flows on the CPU)."""
    d, width = plan.model.hidden, plan.model.hidden / 384
    scored = seven_set_sentences(sizes["PAIRS_PER_SET"]) + 1.8 * (sizes["DEV_PAIRS"] or 1500)
    calibration = sizes["CALIBRATION_PER_DIM"] * d
    unsup = 26_125 if sizes["UNSUP_SENTENCES"] is None else min(26_125, 3.14 * sizes["UNSUP_SENTENCES"])
    run_steps = [sizes["STEPS"] or n // sizes["BATCH_SIZE"] for n in (unsup, 5_875, 19_657)]
    columns = (2, 3, 2)
    dev = 1.8 * (sizes["DEV_PAIRS"] or 1500)
    path = 827 if sizes["DEV_PAIRS"] is not None else 2_910
    evaluations = sum(scored + (sizes["START_PATH_POINTS"] + 2) * (path + dev) for _ in run_steps)
    cone_runs = 3 * sizes["CONE_SEEDS"] + 4  # §2: 1, §3: 3 × CONE_SEEDS + 1, §4: 2
    test_pairs = 7 * ((sizes["PAIRS_PER_SET"] or 2690) + (sizes["CONE_PAIRS_PER_SET"] or 2690))
    steps = [load("setup", "begin(", plan.model, 4),
             encode("setup", "begin(", "the start model's vectors", scored + calibration + (0 if plan.embedded else scored),
                    TOKENS_PER_SENTENCE["seven sets"]),
             measured_cpu("2", "unsupervised_runs(", "the cone's run: its optimiser over every word vector",
                          "06 cone step per 384 dims", sizes["CONE_STEPS"] * width),
             measured_cpu("3", "dropout_runs(", "the cone's runs at three dropout rates and word deletion",
                          "06 cone step per 384 dims", (cone_runs - 3) * sizes["CONE_STEPS"] * width),
             measured_cpu("4", "supervised_runs(", "the cone's two supervised runs", "06 cone step per 384 dims",
                          2 * sizes["CONE_STEPS"] * width),
             measured_cpu("5", "plane_rows(", "flows on the cone's and the start's calibration sentences",
                          "flow step per 384 dims", (unsup + calibration) / 32 * width),
             measured_cpu("5", "plane_rows(", "the rows' paired bootstraps", "bootstrap pair", 14 * test_pairs),
             measured_cpu("rest", "", "the reports, figures, §6's probes and §7's gradient cache", "06 rest")]
    for call, steps_run, column in zip(("unsupervised_runs(", "supervised_runs(", "supervised_runs("), run_steps, columns):
        section = "2" if call.startswith("unsup") else "4"
        steps += [measured_cpu(section, call, "a start-model run's start and end", "fit call"),
                  train(section, call, "a start-model run", steps_run, sizes["BATCH_SIZE"],
                        column * TOKENS_PER_EXAMPLE["simcse sentence"]),
                  encode(section, call, "its scores along the way and after", evaluations / 3,
                         TOKENS_PER_SENTENCE["stsb dev"])]
    return steps


MANIFEST = Manifest(
    notebook="06_contrastive_simcse",
    objectives=(
        "write InfoNCE and train SimCSE with dropout noise and with NLI hard negatives",
        "place trained and post-processed models on the alignment–uniformity plane",
    ),
    sizes={
        "STEPS": Size("optimizer steps per run from the start model (None: one epoch of its data; full_on_cpu: full-size evaluation, training capped here)", quick=8, full=None,
                      suite=4, standin=1, full_on_cpu=20),
        "BATCH_SIZE": Size("sentences per step from the start model (64: the paper's unsupervised batch; full_on_cpu: capped)", quick=16, full=64,
                           standin=2, full_on_cpu=32),
        "CONE_STEPS": Size("optimizer steps per run from the cone, the bag-of-words start (full_on_cpu: capped)", quick=200, full=1500, suite=20,
                           standin=4, full_on_cpu=400),
        "CONE_SEEDS": Size("seeds per dropout p from the cone (§3's spread; full_on_cpu: capped)", quick=3, full=5, suite=2, standin=2,
                           full_on_cpu=3),
        "CONE_BATCH_SIZE": Size("sentences per step from the cone (64: SimCSE's unsupervised batch)", quick=64, full=64,
                                suite=16, standin=4),
        "UNSUP_SENTENCES": Size("NLI pairs read per set (SNLI, MultiNLI dev) for unlabelled sentences and the calibrators "
                                "(None: all)", quick=2000, full=None, suite=48, standin=8),
        "DEV_PAIRS": Size("STS-B dev pairs scored while training, and at most as many dev pairs scored above 4 for "
                          "alignment (None: all)", quick=250, full=None, suite=16, standin=4),
        "PAIRS_PER_SET": Size("STS test pairs per set for the start model's rows (None: all)", quick=250, full=None, suite=8,
                              standin=3),
        "CONE_PAIRS_PER_SET": Size("STS test pairs per set for the cone's rows (None: all)", quick=1000, full=None, suite=20,
                                   standin=3),
        "PROBE_PAIRS": Size("SICK-E pairs per split for the probe of §6 (None: all)", quick=60, full=None, suite=40, standin=16),
        "CALIBRATION_PER_DIM": Size("NLI sentences per dimension the start model's calibrators are fitted on (05 asks at "
                                    "least 4; the cone's use every NLI sentence read)", quick=5, full=5),
        "START_PATH_POINTS": Size("points on each path from the start model (alignment, uniformity, STS-B dev)", quick=2,
                                  full=8, standin=1, full_on_cpu=2),
        "CONE_PATH_POINTS": Size("points on each path from the cone", quick=10, full=10, suite=5, standin=2, full_on_cpu=5),
        "VIEW_SENTENCES": Size("STS-B dev sentences §3's ‖h − h⁺‖² is averaged over", quick=64, full=64, standin=4),
        "EVAL_BATCH": Size("sentences per forward pass when a row is scored", quick=32, full=64, suite=32, standin=8),
        "DEMO_PAIRS": Size("SNLI entailment pairs of §1's MNRL = InfoNCE check", quick=8, full=8, standin=4),
        "CACHE_MODEL": Size("§7: the demo BERT's (layers, width), random weights, float64", quick=(2, 64), full=(2, 64)),
        "CACHE_EXAMPLES": Size("§7: SNLI premise → entailment pairs the demo trains on", quick=64, full=64, standin=8),
        "CACHE_BATCH": Size("§7: pairs per step, cached through micro-batches of half that", quick=8, full=8, suite=4,
                            standin=2),
        "CACHE_STEPS": Size("§7: steps each way (2: the second starts from updated weights)", quick=2, full=2, standin=1),
    },
    equations=(
        Equation("InfoNCE (SimCSE §2, Eq. 1; 04's in-batch negatives at s = 1/τ)",
                 'ℓ_i = −log e^{sim(h_i, h_i⁺)/τ} / Σ_j e^{sim(h_i, h_j⁺)/τ}, sim = cosine, τ = 0.05',
                 'sbert_workbook.training.contrastive:info_nce_loss', '1'),
        Equation('alignment and uniformity (Wang & Isola 2020; SimCSE §2, Eq. 2–3)',
                 'ℓ_align = E‖f̂(x) − f̂(x⁺)‖², ℓ_uniform = log E e^{−2‖f̂(x) − f̂(y)‖²}, on unit vectors',
                 'sbert_workbook.evaluation.geometry:alignment', '2'),
        Equation("why the contrastive objective flattens the spectrum (SimCSE §5, Jensen's inequality on Eq. 6's second term)",
                 '(1/m) Σ_i log((1/m) Σ_j e^{h_iᵀh_j/τ}) ≥ Sum(WWᵀ)/(τm²) ≥ λ_max(WWᵀ)/(τm²) when every h_iᵀh_j > 0',
                 'sbert_workbook.lessons.nb06.plane_readings:bound_report', '5'),
    ),
    paper_map=(
        PaperLink('SimCSE 2104.08821', '§2 Eq. 1 and Table D.1: InfoNCE, temperature τ = 0.05', '1', 'SIMCSE_TABLE_D1'),
        PaperLink('SimCSE 2104.08821', '§3, Figure 2: unsupervised SimCSE, alignment and uniformity (§2, Eq. 2–3) while '
                  'training; a pre-trained start provides good initial alignment', '2'),
        PaperLink('SimCSE 2104.08821', '§3, Tables 3 and 1: dropout p, discrete augmentations', '3', 'SIMCSE_TABLE3'),
        PaperLink('SimCSE 2104.08821', '§4, Table 6: supervised SimCSE (entailment +, contradiction −)', '4', 'SIMCSE_TABLE6'),
        PaperLink('SimCSE 2104.08821', '§7, Figure 3 and Table 5 (§6.2): the plane and seven STS sets; §5 and Appendix F: '
                  'the singular spectrum', '5', 'SIMCSE_TABLE5'),
        PaperLink('SimCSE 2104.08821', 'Appendix E, Table E.1: transfer tasks; post-processing below its base models, '
                  'SimCSE above its own', '6', 'SIMCSE_TABLE_E1'),
    ),
    read_at_home=('5.1', '5.2', '5.3'),
    story_in_full_mode=True,
    work=work,
)
