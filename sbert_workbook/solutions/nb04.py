"""Reference solutions for ``04_siamese_finetuning.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import math

import torch

from sbert_workbook.teaching.exercises import solution


def _softmax_loss(features=lambda u, v: (u, v, (u - v).abs()), reduce=torch.mean, log=True):
    """A softmax-objective loss (u, v, labels, weight, bias) → scalar, with one of its pieces swappable."""
    def loss(u, v, labels, weight, bias):
        logits = torch.cat(features(u, v), dim=-1) @ weight.T + bias
        chosen = torch.log_softmax(logits, dim=-1)[torch.arange(len(labels)), labels.long()]
        return reduce(-chosen if log else -chosen.exp())
    return loss


@solution(wrong={
    "u − v instead of |u − v|": lambda: _softmax_loss(features=lambda u, v: (u, v, u - v)),
    "summed over the batch instead of averaged": lambda: _softmax_loss(reduce=torch.sum),
    "−softmax probability instead of −log softmax": lambda: _softmax_loss(log=False),
    "(v, u, |u − v|): the sentences swapped": lambda: _softmax_loss(features=lambda u, v: (v, u, (u - v).abs())),
})
def ex04_softmax():
    """SBERT's classification objective: mean over the batch of −log softmax(W·(u, v, |u−v|) + b)[label]."""
    return _softmax_loss()


@solution(wrong={
    "n²: ordered pairs, each sentence with itself too": lambda: (1000 * 1000, 1000),
    "n(n − 1): (a, b) and (b, a) both scored": lambda: (1000 * 999, 1000),
    "two encodings per pair: no sentence vector reused": lambda: (1000 * 999 // 2, 1000 * 999),
})
def ex04_pairs():
    """(cross-encoder passes, bi-encoder encodings) for n = 1000: C(1000, 2) unordered pairs, one encoding per sentence."""
    return math.comb(1000, 2), 1000


@solution(wrong={
    "without the margin ε": lambda: max(2.0 - 1.0, 0.0),
    "squared distances instead of distances": lambda: max(2.0 ** 2 - 1.0 ** 2 + 1.0, 0.0),
    "the distances the other way round, ‖a − n‖ − ‖a − p‖": lambda: max(1.0 - 2.0 + 1.0, 0.0),
})
def ex04_triplet():
    """max(‖a − p‖ − ‖a − n‖ + ε, 0) for a = (0, 0), p = (0, 2), n = (1, 0), ε = 1: ‖a − p‖ = 2, ‖a − n‖ = 1."""
    return max(2.0 - 1.0 + 1.0, 0.0)


@solution(wrong={
    "(u, v): swapping the sentences swaps the two blocks": lambda: ("u", "v"),
    "(u, v, |u − v|), SBERT's own: |u − v| stays, but u and v swap": lambda: ("u", "v", "|u-v|"),
    "(u, v, |u − v|, u ∗ v): the u and v blocks still swap": lambda: ("u", "v", "|u-v|", "u*v"),
})
def ex04_symmetric():
    """(|u − v|,): |a − b| = |b − a|, so any W gives the same logits for (a, b) and (b, a)."""
    return ("|u-v|",)


DISCUSSION = {
    "ex04_symmetric": "SBERT's own (u, v, |u − v|) is not symmetric, and for NLI that is no flaw: the pair is (premise, "
                      "hypothesis) and entailment has a direction ('A man plays a guitar' entails 'A man plays an "
                      "instrument', not the reverse), so the classifier may treat the two sides differently. The "
                      "encoder itself is shared, so u and v are still computed the same way; only the head is "
                      "asymmetric, and it is thrown away after training. For the cosine used at test time the order "
                      "never matters.",
    "ex04_uv_puzzle": "The cosine sums the products with equal weights, Σ u_i v_i / (‖u‖ ‖v‖); the classifier does not. "
                      "On the u ∗ v block it computes W·(u ∗ v): a weighted sum of the products, one weight per label and "
                      "per dimension, free to be negative. It can tell entailment from contradiction by the sign and size of "
                      "a few chosen products without the plain, equally weighted sum ever becoming large for related pairs "
                      "and small for unrelated ones, so the loss never asks the encoder for the geometry the cosine reads. "
                      "Products also grow with the vectors' lengths, whatever their angle, so the head can lean on norms "
                      "rather than directions. |u − v| works the other way: to separate the labels through |u_i − v_i| the "
                      "classifier needs the coordinates of related sentences to agree dimension by dimension, which pulls "
                      "their vectors together: a small ‖u − v‖, and for vectors of similar length ‖u − v‖² = ‖u‖² + ‖v‖² "
                      "− 2 u·v, a large cosine. That is the paper's own reason (§6): the element-wise difference 'measures "
                      "the distance between the dimensions of the two sentence embeddings, ensuring that similar pairs are "
                      "closer and dissimilar pairs are further apart.' Once |u − v| is in, u ∗ v adds little a linear head "
                      "can use ((u_i − v_i)² = u_i² + v_i² − 2 u_i v_i: difference and product carry overlapping "
                      "information) and gives it more weights with which to fit NLI without improving the cosine. How "
                      "much it 'hurts' is a question of protocol: the cell prints the step with a 95 % interval for two "
                      "means over 10 seeds, borrowing Table 2's widest ± because Table 6 prints none; read whether that "
                      "interval holds 0. The paper, averaging several seeds, reads it as a decrease. The safe reading is "
                      "'u ∗ v does not help'.",
    "ex04_mnrl": "Train a fresh student with fit(new_student(), nli_batches.nli_positive_pairs(...), 'mnrl', nli_config, "
                 "dev=dev, ...) and compare its best dev Spearman (printed by the cell, fit's best_spearman) with the "
                 "softmax run's after the same number of steps. Expect the ranking objective to be ahead, usually "
                 "clearly: it trains the cosine itself, the quantity STS measures, and each anchor is pushed away "
                 "from the other 15 positives of its batch, while the softmax objective trains a classifier whose "
                 "head W can do part of the work without the cosine getting better. It sees only the entailment pairs "
                 "(about a third of the NLI data), so the same steps are more epochs over fewer pairs. From random "
                 "weights in quick mode both stay low and a point or two is noise; with a pre-trained student "
                 "(MODEL='bert-base-uncased', QUICK=False) the difference is clearer, which is why later "
                 "sentence-transformers NLI recipes use MultipleNegativesRankingLoss instead of SoftmaxLoss.",
    "ex04_micro_batch": "With TrainingConfig(micro_batch_size=4) each step of 16 pairs runs as four micro-batches of 4 "
                        "whose gradients are accumulated before one optimizer step. For the softmax and regression "
                        "objectives the loss of a batch is a mean over independent pairs, so the accumulated "
                        "gradient is the same mean: the loss curve (the live plot, or the run's history) lies on the "
                        "old one up to float rounding and different dropout masks, and the time per step grows a "
                        "little. It is not the same for 'mnrl': its in-batch negatives come from the micro-batch, so "
                        "each anchor sees 3 negatives instead of 15, the loss is lower and the training signal "
                        "weaker. Accumulation keeps the effective batch of a mean loss, not of a contrastive one "
                        "(sentence-transformers' CachedMultipleNegativesRankingLoss exists for that).",
    "ex04_gpu": "With QUICK=False and MODEL='bert-base-uncased' on a GPU the student starts from pre-trained BERT-base "
                "with the paper's learning rate, and both stages move a long way from the untrained row. Read the "
                "'+ NLI' row against SBERT-NLI-base and the '+ NLI + STS-B' row's stsb column against "
                "SBERT-NLI-STSb-base in the table printed under the before/after table (from "
                "sbert_workbook.published, with the ± over seeds): expect to land near them, within a few points, "
                "not on them. Full mode trains the STS-B stage for the epochs of Table 2's caption (one epoch is the NLI "
                "recipe), so what remains is the NLI data and the seed. Below them if AllNLI train was not available and the NLI stage fell back to the dev "
                "sets (the cell says so), and by up to the seed spread either way, because this is one seed while the "
                "paper reports a mean over several (§6.1 measures how far a seed moves a small run here); the other sets move with STS-B but they are out of domain for the "
                "regression stage.",
}
