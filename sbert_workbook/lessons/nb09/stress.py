"""Lesson 09 §4: the minimal pairs a cosine gets wrong, per model and perturbation, SNLI's contradictions as the natural
case, and a cross-encoder beside the bi-encoders (``09_what_a_score_means.ipynb``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.minimal_pairs import PERTURBATIONS, fooled
from sbert_workbook.evaluation.thresholds import Estimate
from sbert_workbook.evaluation.uncertainty import Interval, bootstrap_picks, paired_mean_interval, percentile_interval
from sbert_workbook.lessons.nb09.lesson import NOTEBOOK, Lesson09, ModelVectors, captioned
from sbert_workbook.lessons.report import Report, verdict

SNLI_CASE = "SNLI contradiction"
CROSS = "cross-encoder"


@dataclass
class StressRun:
    """Per scorer (each bi-encoder, the cross-encoder) and case (each perturbation, SNLI's contradictions): 1 where the
    changed meaning scored above the paraphrase (the entailment), each share with its interval, and each change of the
    cross-encoder against the embedded model."""

    cross: str
    steps: int
    epoch_share: float  # the share of an epoch of STS-B train the cross-encoder read
    fooled: dict[tuple[str, str], np.ndarray]
    shares: dict[tuple[str, str], Estimate]
    changes: dict[str, Interval]


def share_estimate(values: np.ndarray, resamples: int, seed: int) -> Estimate:
    """The share of 1s with its percentile interval over the items resampled with replacement."""
    low, high = percentile_interval(values[bootstrap_picks(len(values), resamples, seed)].mean(axis=1))
    return Estimate(float(values.mean()), low, high, f"bootstrap over {len(values)} pairs, {resamples} resamples")


def share_difference(a: np.ndarray, b: np.ndarray, resamples: int, seed: int) -> Interval:
    """Interval of share(a) − share(b) (× 100) for two different sets of items, each resampled on its own."""
    rng = np.random.default_rng(seed)
    draws = [values[bootstrap_picks(len(values), resamples, rng)].mean(axis=1) for values in (a, b)]
    low, high = percentile_interval(100 * (draws[0] - draws[1]))
    return Interval(float(100 * (a.mean() - b.mean())), low, high,
                    f"bootstrap over {len(a)} and {len(b)} pairs, each set resampled, {resamples} resamples")


def bi_encoder_fooled(lesson: Lesson09, m: ModelVectors) -> dict[str, np.ndarray]:
    """Per perturbation: whether cos(sentence, perturbed) > cos(sentence, paraphrase); per SNLI test premise: whether
    cos(premise, contradiction) > cos(premise, entailment)."""
    found = {}
    for name, pairs in lesson.minimal.items():
        sentences = [p.sentence for p in pairs]
        found[name] = fooled(m.cosines(sentences, [p.perturbed for p in pairs]),
                             m.cosines(sentences, [p.paraphrase for p in pairs]))
    snli = lesson.snli["test"]
    found[SNLI_CASE] = fooled(m.cosines(snli.premises, snli.contradictions), m.cosines(snli.premises, snli.entailments))
    return found


def embedded_shares(lesson: Lesson09) -> dict[str, float]:
    """The share of each perturbation's minimal pairs the embedded model scores above the paraphrase (exercise 3)."""
    found = bi_encoder_fooled(lesson, lesson.embedded)
    return {name: float(found[name].mean()) for name in PERTURBATIONS}


def cross_encoder_fooled(lesson: Lesson09, predict) -> dict[str, np.ndarray]:
    """The same comparisons read from a cross-encoder's score of each (sentence, other sentence) pair."""
    found = {}
    for name, pairs in lesson.minimal.items():
        scores = predict([(p.sentence, p.perturbed) for p in pairs] + [(p.sentence, p.paraphrase) for p in pairs])
        found[name] = fooled(scores[:len(pairs)], scores[len(pairs):])
    snli = lesson.snli["test"]
    scores = predict(list(zip(snli.premises, snli.contradictions)) + list(zip(snli.premises, snli.entailments)))
    found[SNLI_CASE] = fooled(scores[:len(snli)], scores[len(snli):])
    return found


def trained_cross_encoder(lesson: Lesson09):
    """A cross-encoder over CROSS_START's weights (None: MODEL's), trained CROSS_STEPS steps on STS-B train (04 §1's
    architecture and objective); (the model, what it is, its steps)."""
    from sbert_workbook.data.loaders import load_sts
    from sbert_workbook.training.cross_encoder import CrossEncoder
    from sbert_workbook.training.examples import sts_pairs
    from sbert_workbook.training.fitting import TrainingConfig, fit

    s = lesson.sizes
    pair_model = CrossEncoder.from_pretrained(lesson.model if s.CROSS_START is None else s.CROSS_START,
                                              device=lesson.device, seed=lesson.seed)
    config = TrainingConfig(learning_rate=s.CROSS_LEARNING_RATE, max_steps=s.CROSS_STEPS, seed=lesson.seed,
                            device=str(lesson.device), save_checkpoints=False, progress=False)
    train = sts_pairs(load_sts("stsb", "train"))
    run = fit(pair_model, train, "cross_regression", config)
    trained = (f"{pair_model.name}, trained {run.steps} steps on STS-B train (batch {config.batch_size}, learning rate "
               f"{config.learning_rate:g}, {run.seconds:.0f} s)")
    return pair_model, trained, run.steps, run.steps * config.batch_size / len(train)


def stress_test(lesson: Lesson09) -> StressRun:
    """§4: every bi-encoder's and a briefly trained cross-encoder's comparisons on every minimal pair and SNLI test
    premise; each share with its interval; the cross-encoder against the embedded model, paired over the same pairs."""
    s = lesson.sizes
    from sbert_workbook.heap import return_freed_memory

    found = {(m.name, case): values for m in lesson.models.values() for case, values in bi_encoder_fooled(lesson, m).items()}
    return_freed_memory()  # the pages the set-up freed, back before training starts
    pair_model, trained, steps, epoch_share = trained_cross_encoder(lesson)
    found |= {(CROSS, case): values for case, values in cross_encoder_fooled(lesson, pair_model.predict).items()}
    del pair_model
    return_freed_memory()
    shares = {key: share_estimate(values, s.RESAMPLES, lesson.seed) for key, values in found.items()}
    changes = {f"{CROSS} − {lesson.embedded.name}: {case}": paired_mean_interval(
        100 * found[(CROSS, case)], 100 * found[(lesson.embedded.name, case)], s.RESAMPLES, lesson.seed, unit="pairs")
        for case in (*PERTURBATIONS, SNLI_CASE)}
    return StressRun(trained, steps, epoch_share, found, shares, changes)


def against_half(estimate: Estimate) -> str:
    """'more often than not', 'less often than not' or 'as often as not (a tie with one half)', read from the interval."""
    if estimate.low > 0.5:
        return "more often than not"
    if estimate.high < 0.5:
        return "less often than not"
    return "as often as not (a tie with one half)"


def examples_report(lesson: Lesson09) -> Report:
    """§4: one minimal pair of each perturbation, before anything is scored."""
    rows = {name: {"sentence": pairs[0].sentence, "paraphrase": pairs[0].paraphrase, "changed": pairs[0].perturbed,
                   "from": pairs[0].source, "pairs": len(pairs)} for name, pairs in lesson.minimal.items() if pairs}
    return Report(captioned(pd.DataFrame(rows).T, lesson, "the first minimal pair of each perturbation, and how many",
                            "STS-B dev and test, SICK test: pairs scored 4.5 or more"))


def stress_report(lesson: Lesson09, run: StressRun) -> Report:
    """§4: how often each scorer ranks the changed meaning above the paraphrase, with intervals; which perturbation
    fools the embedded model most; the cross-encoder against it, drawn; what the short training can show."""
    scorers = [*lesson.models, CROSS]
    cases = [*PERTURBATIONS, SNLI_CASE]
    table = pd.DataFrame({scorer: {case: str(run.shares[(scorer, case)]) for case in cases} for scorer in scorers})
    table["pairs"] = [len(run.fooled[(CROSS, case)]) for case in cases]
    table = captioned(table, lesson, "share of minimal pairs whose changed sentence scored above the paraphrase (SNLI: "
                      "the contradiction above the entailment), 95 % bootstrap interval over the pairs", lesson.split)
    verdicts, said = {}, [f"Cross-encoder: {run.cross}."]
    for scorer in scorers:  # each perturbation's share is in the table; the natural case is a verdict of its own
        share = run.shares[(scorer, SNLI_CASE)]
        said.append(f"{scorer}: the share of SNLI test premises whose contradiction scored above their entailment, "
                    f"{share.described()}: {against_half(share)}.")
        verdicts |= verdict(NOTEBOOK, f"{scorer}: {SNLI_CASE} scored above the entailment", against_half(share))
    embedded = lesson.embedded.name
    ranked = sorted(PERTURBATIONS, key=lambda case: -run.shares[(embedded, case)].value)
    gap = share_difference(run.fooled[(embedded, ranked[0])], run.fooled[(embedded, ranked[1])], lesson.sizes.RESAMPLES,
                           lesson.seed)
    most = ranked[0] if gap.direction == "higher" else f"{ranked[0]} or {ranked[1]} (a tie)"
    said.append(f"{embedded} is fooled most by {ranked[0]}, then {ranked[1]}: {ranked[0]} − {ranked[1]}, percentage points: "
                f"{gap.described()}.")
    verdicts |= verdict(NOTEBOOK, "the perturbation that fools the embedded model most", most)
    for name, interval in run.changes.items():
        said.append(f"{name}, percentage points: {interval.described()}")
        verdicts |= verdict(NOTEBOOK, name.replace(" − ", " against "), interval.direction)
    said.append(f"What this run can show: a cross-encoder that read {run.steps} batches of STS-B train pairs "
                f"({run.epoch_share:.0%} of an epoch), from a bi-encoder checkpoint with a new, randomly started head, "
                "reading both sentences of each pair at once. It cannot show what a cross-encoder trained longer, or on "
                "NLI, would do, nor separate what reading both sentences buys from what so little training leaves out.")
    return Report(table, *said, interval_forest_figure(run.changes, f"{CROSS} against {embedded}: share fooled",
                                                       unit="percentage points"), verdicts=verdicts)
