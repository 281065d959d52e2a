"""The manifest of ``09_what_a_score_means.ipynb``: its sizes per mode, its long steps, the equations it teaches and the
results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb09.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_EXAMPLE, TOKENS_PER_SENTENCE
from sbert_workbook.forecast.work import EMBEDDED, encode, load, measured_cpu, train
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size

#: Pairs there are to draw from: STS-B dev and test, SNLI dev premises with an entailed and a contradicting
#: hypothesis, and the minimal pairs each perturbation finds among the paraphrases (counted from the data).
STSB_DEV, STSB_TEST, SNLI_PREMISES = 1500, 1379, 2943
MINIMAL_PAIRS = {"negation": 1049, "swap": 128, "number": 146, "antonym": 308}
STSB_TRAIN_STEPS = 360  # one epoch of STS-B train's 5,749 pairs at batch 16


def work(sizes, plan):
    """The set-up encodes every sentence once with the embedded model and with MODEL when it is another one; §4 trains
    a cross-encoder and reads every minimal pair and SNLI test premise with it; the rest is bootstraps and fits."""
    pairs, premises, limit = sizes["STSB_PAIRS"], sizes["SNLI_PREMISES"], sizes["STRESS_PAIRS"]
    stsb = 1.94 * (min(pairs or STSB_DEV, STSB_DEV) + min(pairs or STSB_TEST, STSB_TEST))
    snli = min(premises or SNLI_PREMISES, SNLI_PREMISES)
    minimal = sum(min(limit or found, found) for found in MINIMAL_PAIRS.values())
    sentences = stsb + 3 * snli + 3 * minimal
    steps = sizes["CROSS_STEPS"] or STSB_TRAIN_STEPS
    cross = "embedded" if sizes["CROSS_START"] == "embedded" or plan.embedded else "lesson"
    models = 1 if plan.embedded else 2
    found = [load("setup", "begin(", EMBEDDED),
             encode("setup", "begin(", "every sentence, with the embedded model", sentences, TOKENS_PER_SENTENCE["stsb dev"],
                    model="embedded"),
             train("4", "stress_test(", "the cross-encoder on STS-B train", steps, 16, TOKENS_PER_EXAMPLE["cross pair"],
                   model=cross),
             encode("4", "stress_test(", "the cross-encoder's passes over every minimal pair and SNLI test premise",
                    2 * minimal + snli, TOKENS_PER_EXAMPLE["cross pair"], model=cross),
             measured_cpu("2", "choose_thresholds(", "the test figures' bootstraps: three rules, two datasets, each model",
                          "bootstrap pair", models * 3 * (min(pairs or STSB_TEST, STSB_TEST) + snli) * sizes["RESAMPLES"] / 2000),
             measured_cpu("rest", "", "the fits, the other bootstraps, the reports and their figures", "09 rest")]
    if not plan.embedded:
        found += [load("setup", "begin(", plan.model),
                  encode("setup", "begin(", "every sentence, with MODEL", sentences, TOKENS_PER_SENTENCE["stsb dev"])]
    return found


MANIFEST = Manifest(
    notebook="09_what_a_score_means",
    objectives=(
        "say where related and unrelated pairs fall and why a threshold does not carry between models",
        "choose a threshold on one split and test it on another; calibrate a score into a probability",
        "test a model with minimal pairs",
    ),
    sizes={
        "STSB_PAIRS": Size("STS-B dev and test pairs each, drawn at random (None: all 1,500 and 1,379)", quick=1000,
                           full=None, suite=40, standin=24),
        "SNLI_PREMISES": Size("SNLI dev premises with an entailed and a contradicting hypothesis, halved into a choosing "
                              "and a testing split (None: all 2,943)", quick=800, full=None, suite=40, standin=16),
        "STRESS_PAIRS": Size("§4: minimal pairs per perturbation (None: every one found)", quick=120, full=None, suite=10,
                             standin=6),
        "RESAMPLES": Size("bootstrap resamples per interval", quick=2000, full=2000, suite=200, standin=100),
        "CROSS_START": Size("§4: the model the cross-encoder starts from (\"embedded\": the small embedded model, trained "
                            "in a minute or two on a CPU whatever MODEL is; None: MODEL itself)", quick="embedded",
                            full=None, full_on_cpu="embedded"),
        "CROSS_STEPS": Size("§4: steps training the cross-encoder on STS-B train, batch 16 (None: one epoch; full mode on "
                            "a CPU keeps quick mode's, so both modes read the same short run on more pairs)", quick=100,
                            full=None, suite=4, standin=2, full_on_cpu=100),
        "CROSS_LEARNING_RATE": Size("§4: the cross-encoder's learning rate (a few hundred steps take a larger one than "
                                    "SBERT's 2e-5)", quick=1e-4, full=2e-5, full_on_cpu=1e-4),
    },
    equations=(
        Equation("a threshold's precision, recall and F1",
                 "P(t) = TP/(TP + FP), R(t) = TP/(TP + FN), F1 = 2PR/(P + R); related when s ≥ t",
                 "sbert_workbook.evaluation.thresholds:best_f1", "2"),
        Equation("expected calibration error (equal-width bins)", "ECE = Σ_b (n_b/n) |acc_b − conf_b|",
                 "sbert_workbook.evaluation.probabilities:expected_calibration_error", "3"),
        Equation("isotonic regression and the logistic (Platt) map",
                 "p̂ = argmin Σ (y_i − p_i)² over p non-decreasing in s; p = σ(a s + b)",
                 "sbert_workbook.evaluation.probabilities:Isotonic", "3"),
    ),
    paper_map=(
        PaperLink("Whitening 2103.15316", "whitening moves where the cosines fall (05's whitening, fitted here on the "
                  "choosing splits)", "1"),
        PaperLink("sentence-transformers' BinaryClassificationEvaluator", "best-accuracy and best-F1 thresholds and "
                  "average precision, matched on the same pairs", "2"),
        PaperLink("Platt scaling (Platt, 1999); isotonic calibration (Zadrozny & Elkan, 2002)", "a score made a "
                  "probability, read with reliability diagrams and ECE", "3"),
        PaperLink("CheckList 2005.04118", "behavioural tests from templates and perturbations: a directional "
                  "expectation per minimal pair", "4"),
        PaperLink("Sentence-BERT 1908.10084", "§1: a cross-encoder reads both sentences at once, a bi-encoder one "
                  "vector per sentence", "4"),
    ),
    story_in_full_mode=True,
    own_session=True,
    work=work,
)
