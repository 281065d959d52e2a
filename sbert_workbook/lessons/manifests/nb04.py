"""The manifest of ``04_siamese_finetuning.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb04.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md). Full mode is SBERT's recipe (§3.1, §4.2, Table 2's caption);
``full_on_cpu`` is what tools/story_check.py runs as full mode on two cores: every evaluation at full size (all test
and dev pairs, all ablation variants), training capped at a number of steps each size's ``what`` states.
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_EXAMPLE, TOKENS_PER_SENTENCE, seven_set_sentences
from sbert_workbook.forecast.work import EMBEDDED, encode, load, measured_cpu, train
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size
from sbert_workbook.published.sbert_recipe import SBERT_NLI_RECIPE, SBERT_STSB_RECIPE
from sbert_workbook.training.siamese import SMALL_BERT

#: SBERT's seeds per configuration (§4.2, Table 2's caption) and its STS-B epochs (Table 2's caption).
PAPER_SEEDS, PAPER_STSB_EPOCHS = SBERT_STSB_RECIPE.settings["seeds"], SBERT_STSB_RECIPE.settings["epochs"]


def work(sizes, plan):
    """§1.1 trains a cross- and a bi-encoder from the start model; §5 trains the student in two stages per seed, §6 and
    §6.1 train ablation variants and seeds. The student is MODEL's pre-trained weights where the run fine-tunes them
    (a GPU, FINE_TUNE_ON_CPU, or MODEL named), else a small random-init BERT priced on the CPU."""
    pretrained = not plan.embedded and (plan.device != "cpu" or sizes["FINE_TUNE_ON_CPU"] or plan.asked != "auto")
    start = "lesson" if pretrained else "embedded"
    cross_steps = sizes["CROSS_STEPS"] or sizes["STSB_EPOCHS"] * 360
    nli_steps = sizes["NLI_STEPS"] or (58_880 if plan.mode != "quick" else 1229)  # one epoch: AllNLI train in full mode
    stsb_steps = sizes["STSB_STEPS"] or sizes["STSB_EPOCHS"] * 360
    seeds, variants = sizes["TRAIN_SEEDS"], sizes["ABLATION_VARIANTS"] or 6
    sts_sentences = 1.94 * (sizes["STS_LIMIT"] or 1379)
    s7 = seven_set_sentences(sizes["STS_LIMIT"])
    dev = 1.94 * (sizes["DEV_PAIRS"] or 1500)
    ablation_runs = variants + sizes["SEED_RUNS"] - 1
    steps = [train("1.1", "train_cross_and_bi_encoder(", "the cross-encoder on STS-B train", cross_steps, 16,
                   TOKENS_PER_EXAMPLE["cross pair"], model=start),
             train("1.1", "train_cross_and_bi_encoder(", "the bi-encoder on STS-B train", cross_steps, 16,
                   TOKENS_PER_EXAMPLE["stsb pair"], model=start),
             encode("1.1", "train_cross_and_bi_encoder(", "STS-B test before and after, both encoders", 4 * sts_sentences,
                    TOKENS_PER_SENTENCE["stsb test"], model=start),
             encode("1.2", "time_both(", "the timed bi- and cross-encoder passes",
                    sum(n + n * (n - 1) for n in sizes["COST_SIZES"]), TOKENS_PER_SENTENCE["stsb test"], model=start),
             load("setup", "begin(", EMBEDDED),
             measured_cpu("1.1", "train_cross_and_bi_encoder(", "two training runs' start and end", "fit call", 2),
             measured_cpu("5", "train_in_two_stages(", "its runs' start and end", "fit call", 2 * seeds),
             measured_cpu("6", "train_ablation(", "its runs' start and end", "fit call", variants),
             measured_cpu("6.1", "default_over_seeds(", "its runs' start and end", "fit call", sizes["SEED_RUNS"] - 1),
             encode("5", "train_in_two_stages(", "the trained reference on the seven sets", s7,
                    TOKENS_PER_SENTENCE["seven sets"], model="embedded"),
             measured_cpu("rest", "", "the set-up, the reports, §3's objectives and §7's resumed runs", "04 rest")]
    if pretrained:
        steps += [train("5", "train_in_two_stages(", "NLI, then STS-B, per seed", seeds * nli_steps, 16,
                        TOKENS_PER_EXAMPLE["nli pair"]),
                  train("5", "train_in_two_stages(", "the STS-B stage, per seed", seeds * stsb_steps, 16,
                        TOKENS_PER_EXAMPLE["stsb pair"]),
                  encode("5", "train_in_two_stages(", "the seven sets after each stage, STS-B for the other seeds",
                         3 * s7 + 3 * (seeds - 1) * sts_sentences + (nli_steps + stsb_steps) / sizes["EVAL_EVERY"] * dev,
                         TOKENS_PER_SENTENCE["seven sets"]),
                  train("6", "train_ablation(", "the ablation variants on NLI", variants * sizes["ABLATION_STEPS"], 16,
                        TOKENS_PER_EXAMPLE["nli pair"]),
                  train("6.1", "default_over_seeds(", "the default variant over seeds", (sizes["SEED_RUNS"] - 1) *
                        sizes["ABLATION_STEPS"], 16, TOKENS_PER_EXAMPLE["nli pair"]),
                  encode("6", "train_ablation(", "each variant's STS-B dev score", ablation_runs * dev,
                         TOKENS_PER_SENTENCE["stsb dev"]),
                  load("5", "train_in_two_stages(", plan.model, seeds + ablation_runs + 3)]
    else:
        shape = "quick" if sizes["STUDENT_HIDDEN"] <= 128 else "full"
        student_steps = seeds * (nli_steps + stsb_steps)
        steps += [measured_cpu("5", "train_in_two_stages(", "the random-init student, NLI then STS-B, per seed",
                               f"random-init student step ({shape} shape)", student_steps),
                  measured_cpu("5", "train_in_two_stages(", "the student's evaluations", f"random-init student sentence ({shape} shape)",
                               3 * s7 + 3 * (seeds - 1) * sts_sentences + student_steps / sizes["EVAL_EVERY"] / seeds * dev),
                  measured_cpu("6", "train_ablation(", "the ablation variants on NLI", f"random-init student step ({shape} shape)",
                               variants * sizes["ABLATION_STEPS"]),
                  measured_cpu("6.1", "default_over_seeds(", "the default variant over seeds",
                               f"random-init student step ({shape} shape)", (sizes["SEED_RUNS"] - 1) * sizes["ABLATION_STEPS"]),
                  measured_cpu("6", "train_ablation(", "each run's STS-B dev score", f"random-init student sentence ({shape} shape)",
                               ablation_runs * dev)]
    return steps


MANIFEST = Manifest(
    notebook="04_siamese_finetuning",
    objectives=(
        "write Sentence-BERT's classification, regression, triplet and in-batch-negatives objectives",
        "count the passes a cross-encoder and a bi-encoder need for n sentences",
        "fine-tune with `fit` and read, over seeds, whether STS moved",
    ),
    sizes={
        "BATCH_SIZE": Size("pairs per training step in every run (SBERT §3.1's batch)", quick=SBERT_NLI_RECIPE.settings["batch size"],
                           full=SBERT_NLI_RECIPE.settings["batch size"], standin=2),
        "FINE_TUNE_ON_CPU": Size("whether MODEL = \"auto\" on a CPU fine-tunes the pre-trained model it finds (bert-base-uncased "
                                 "online); False trains the small random-init student instead (bert-base's §5 did not "
                                 "finish in 30 minutes on 2 cores); MODEL = \"bert-base-uncased\" always fine-tunes it",
                                 quick=False, full=True, suite=True),
        "STUDENT_LAYERS": Size("layers of the random-init student (offline; a pre-trained MODEL keeps its own)",
                               quick=2, full=SMALL_BERT["num_hidden_layers"], standin=1),
        "STUDENT_HIDDEN": Size("width of the random-init student (heads: width / 64, feed-forward: 4 × width)",
                               quick=128, full=SMALL_BERT["hidden_size"], standin=64),
        "STUDENT_LR": Size("learning rate of the random-init student (random weights need far larger steps than the paper's "
                           "for a pre-trained one; the larger full-mode student collapses at quick mode's 1e-3: docs/measurements.md)",
                           quick=1e-3, full=3e-4),
        "CROSS_STEPS": Size("§1.1: steps of the cross-encoder and of the bi-encoder on STS-B train (None: STSB_EPOCHS epochs; "
                            "full_on_cpu: capped at 300; session: two epochs' worth)", quick=10, full=None, session=720, suite=4, standin=2,
                            full_on_cpu=300),
        "CROSS_LEARNING_RATE": Size("§1.1: their learning rate (a few steps need a larger one; full: the paper's)",
                                    quick=1e-4, full=SBERT_STSB_RECIPE.settings["learning rate"]),
        "STSB_EPOCHS": Size("epochs over STS-B train when a run's steps are None (SBERT Table 2's caption)",
                            quick=PAPER_STSB_EPOCHS, full=PAPER_STSB_EPOCHS),
        "STS_LIMIT": Size("pairs per STS test set in §1.1 and §5 (None: all)", quick=150, full=None, suite=50, standin=4),
        "COST_SIZES": Size("§1.2: the numbers of sentences timed", quick=(8, 16), full=(16, 32, 64), standin=(4, 8)),
        "NLI_STEPS": Size("§5: classification steps on NLI (None: one epoch, SBERT §3.1; full_on_cpu: capped at 300; "
                          "session: what fits a session on a T4 beside the rest)",
                          quick=60, full=None, session=2000, suite=20, standin=2, full_on_cpu=300),
        "STSB_STEPS": Size("§5: regression steps on STS-B train (None: STSB_EPOCHS epochs; full_on_cpu: capped at 300; "
                           "session: two epochs)", quick=80, full=None, session=720, suite=20, standin=2, full_on_cpu=300),
        "TRAIN_SEEDS": Size("§5: seeds SEED, SEED + 1, … of the two-stage training (the interval is over them)",
                            quick=3, full=3, standin=2),
        "EVAL_EVERY": Size("§5: steps between two STS-B dev scores during training", quick=20, full=200, standin=2),
        "DEV_PAIRS": Size("STS-B dev pairs scored during and after training (None: all)", quick=200, full=None, suite=50, standin=4),
        "SAVE_CHECKPOINTS": Size("§5: write resumable checkpoints (§7 always writes its own)", quick=True, full=True, standin=False),
        "ABLATION_STEPS": Size("§6: classification steps per ablation variant and per seed (full_on_cpu: 300)",
                               quick=15, full=600, session=300, suite=5, standin=1, full_on_cpu=300),
        "ABLATION_VARIANTS": Size("§6: how many of the six ablation variants to train (None: all six)", quick=None, full=None, standin=3),
        "SEED_RUNS": Size("§6.1: seeds of the default variant (full: SBERT's seeds per configuration, §4.2; full_on_cpu: 5)",
                          quick=5, full=PAPER_SEEDS, session=5, suite=3, standin=2, full_on_cpu=5),
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
    read_at_home=('3.4',),
    story_in_full_mode=True,
    has_session_mode=True,
    work=work,
)
