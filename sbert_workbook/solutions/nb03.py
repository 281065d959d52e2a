"""Reference solutions for ``03_pooling_and_sts.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np
import torch
from scipy.stats import kendalltau, pearsonr, spearmanr

from sbert_workbook.evaluation import probes
from sbert_workbook.teaching.exercises import solution


def _tau_a(x, y) -> float:
    dx, dy = np.sign(np.subtract.outer(x, x)), np.sign(np.subtract.outer(y, y))
    n = len(x)
    return float((dx * dy).sum() / (n * (n - 1)))


@solution(wrong={
    "Spearman's ρ instead of Kendall's τ": lambda demo_cosines, demo: tuple(
        float(spearmanr(c, demo.scores).statistic) for c in (demo_cosines, demo_cosines ** 9)),
    "τ-a: the ties among the gold scores not corrected for": lambda demo_cosines, demo: tuple(
        _tau_a(c, np.asarray(demo.scores)) for c in (demo_cosines, demo_cosines ** 9)),
    "Pearson's r (not a rank correlation) before and after cos**9": lambda demo_cosines, demo: tuple(
        float(pearsonr(c, demo.scores)[0]) for c in (demo_cosines, demo_cosines ** 9)),
})
def ex03_1(demo_cosines, demo) -> tuple[float, float]:
    """Kendall's τ (scipy's default, τ-b) of the demo cosines vs gold, before and after cos**9."""
    return tuple(float(kendalltau(c, demo.scores).statistic) for c in (demo_cosines, demo_cosines ** 9))


def _max_pooling(fill: float | None = -1e9, dim: int = 1):
    def pool(token_embeddings, attention_mask):
        if fill is None:
            return token_embeddings.max(dim=dim).values
        masked = token_embeddings.masked_fill(attention_mask.unsqueeze(-1) == 0, fill)
        return masked.max(dim=dim).values
    return pool


@solution(wrong={
    "padding not masked (padded positions can win the maximum)": lambda: _max_pooling(fill=None),
    "padding filled with 0, which beats every negative token value": lambda: _max_pooling(fill=0.0),
    "maximum over the hidden dimension (dim=-1) instead of over the tokens": lambda: _max_pooling(dim=-1),
    "the mean over real tokens, not the maximum": lambda: lambda token_embeddings, attention_mask: (
        (token_embeddings * attention_mask.unsqueeze(-1)).sum(1) / attention_mask.sum(1, keepdim=True)),
})
def ex03_2():
    """A max pooling function: per dimension, the largest value over the real (unpadded) tokens."""
    return _max_pooling()


def _stsb_score(encoder, stsb_sample, pooling: str = "max", statistic=spearmanr, scale: float = 100.0,
                normalise: bool = True) -> float:
    u = encoder.encode(stsb_sample.sentences1, pooling=pooling).double()
    v = encoder.encode(stsb_sample.sentences2, pooling=pooling).double()
    similarity = torch.nn.functional.cosine_similarity(u, v) if normalise else (u * v).sum(-1)
    result = statistic(similarity.numpy(), stsb_sample.scores)
    return float(scale * (result.statistic if hasattr(result, "statistic") else result[0]))


@solution(wrong={
    "Pearson's r instead of Spearman's ρ": lambda encoder, stsb_sample: _stsb_score(encoder, stsb_sample, statistic=pearsonr),
    "mean pooling (the row already in the table) instead of max": lambda encoder, stsb_sample: _stsb_score(
        encoder, stsb_sample, pooling="mean"),
    "not × 100 (the correlation itself)": lambda encoder, stsb_sample: _stsb_score(encoder, stsb_sample, scale=1.0),
    "dot product instead of cosine": lambda encoder, stsb_sample: _stsb_score(encoder, stsb_sample, normalise=False),
})
def ex03_3(encoder, stsb_sample) -> float:
    """Spearman ρ × 100 of the cosine of max-pooled vectors vs gold, on the STS-B test sample."""
    return _stsb_score(encoder, stsb_sample)


def _wmean(sts12, sts12_cosines, statistic=spearmanr, scale: float = 100.0) -> float:
    subsets, gold = np.asarray(sts12.subsets), np.asarray(sts12.scores)
    total = 0.0
    for name in sts12.subset_names():
        rows = subsets == name
        result = statistic(sts12_cosines[rows], gold[rows])
        total += rows.sum() / len(subsets) * (result.statistic if hasattr(result, "statistic") else result[0])
    return float(scale * total)


@solution(wrong={
    "'all': one ρ over the pooled pairs, not one per subset": lambda sts12, sts12_cosines: float(
        100 * spearmanr(sts12_cosines, sts12.scores).statistic),
    "Pearson's r per subset instead of Spearman's ρ": lambda sts12, sts12_cosines: _wmean(sts12, sts12_cosines, pearsonr),
    "not × 100": lambda sts12, sts12_cosines: _wmean(sts12, sts12_cosines, scale=1.0),
})
def ex03_4(sts12, sts12_cosines) -> float:
    """wmean: Σ_s n_s/N · ρ_s × 100 over STS12's subsets."""
    return _wmean(sts12, sts12_cosines)


def _probe_score(probe_views, sick_train, sick_test, features=("|u-v|", "u*v"), signed: bool = False,
                 on_train: bool = False, scale: float = 100.0) -> float:
    train_u, train_v, test_u, test_v = (np.asarray(x, dtype=np.float64) for x in probe_views["mean"])

    def build(u, v):
        parts = {"u": u, "v": v, "|u-v|": (u - v) if signed else np.abs(u - v), "u*v": u * v}
        return np.hstack([parts[name] for name in features])

    probe = probes.fit_probe(build(train_u, train_v), sick_train.labels)
    u, v, labels = (train_u, train_v, sick_train.labels) if on_train else (test_u, test_v, sick_test.labels)
    return float(scale * (probe.predict(build(u, v)) == np.asarray(labels)).mean())


@solution(wrong={
    "u and v only (the two vectors, not how they differ and agree)": lambda probe_views, sick_train, sick_test: _probe_score(
        probe_views, sick_train, sick_test, features=("u", "v")),
    "the signed difference u − v instead of |u − v|": lambda probe_views, sick_train, sick_test: _probe_score(
        probe_views, sick_train, sick_test, signed=True),
    "accuracy on the training pairs, not the test pairs": lambda probe_views, sick_train, sick_test: _probe_score(
        probe_views, sick_train, sick_test, on_train=True),
    "not × 100 (accuracy in [0, 1])": lambda probe_views, sick_train, sick_test: _probe_score(
        probe_views, sick_train, sick_test, scale=1.0),
})
def ex03_8(probe_views, sick_train, sick_test) -> float:
    """SICK-E test accuracy × 100 of a probe on (|u − v|, u ∗ v) of the mean view."""
    return _probe_score(probe_views, sick_train, sick_test)


DISCUSSION = {
    "ex03_3": "Add 'max' to the poolings and rerun the table: for the embedded all-MiniLM-L6-v2, trained with mean pooling, "
              "mean stays the best row on average, and max is below it on most sets but not by the same margin on each "
              "(it is the pooling the model was not trained with). The order of the other rows is not the same on every "
              "data set either: rows whose gap's interval holds 0 (§3's neighbour table) can swap places from one sample "
              "of pairs to another. Read the averages with their intervals.",
    "ex03_5": "Pairs such as 'The cat sat on the mat.' / 'The cat did not sit on the mat.' or 'The dog bit the man.' / "
              "'The man bit the dog.' get a high cosine under every pooling: the poolings average (or take maxima of) "
              "token vectors, and the two sentences have almost the same tokens. The trained mean pooling usually puts "
              "them a little lower than the untrained views, but rarely below an unrelated-but-on-topic pair. Negation "
              "and word order are exactly the demo categories of section 1 where a bi-encoder is weakest.",
    "ex03_6": "The top hits for 'A man is not playing a guitar.' are mostly sentences about a man playing a guitar, "
              "without the negation: cosine similarity of averaged token vectors measures what a sentence is about "
              "(its topic and words) far more than its polarity, and 'not' is one token among many. Section 1's "
              "negation pairs showed the same: high cosine, low gold score.",
    "ex03_7": "No. The ONNX graph the workbook exports returns only the last layer's token vectors, enough for cls, mean "
              "and max; first_last_avg also needs the first transformer layer's hidden states, so that pooling runs "
              "in PyTorch (the ONNX encoder falls back to it), and its time is PyTorch's time.",
    "ex03_8": "SentEval reads SICK-E from (|u − v|, u ∗ v) alone: how the two sentences differ and agree, dimension by "
              "dimension, not what each is about. Adding u and v (InferSent's four blocks) gives a frozen probe twice "
              "the weights to fit on a few hundred pairs; whether that helps depends on the view, so hold each gain "
              "against one test pair's worth of accuracy (100 / the number of test pairs) and the majority-label floor "
              "before reading anything into them. SBERT's Table 6 is a different experiment: there each concatenation "
              "is the softmax head that trains BERT on NLI, the head is dropped, and the score is the cosine of the "
              "trained embeddings on STS-B dev; SBERT §6 reports that adding u ∗ v to (u, v, |u − v|) decreased it, and "
              "notebook 04 §6 prints that step with the interval two means over 10 seeds allow (Table 6 prints no "
              "spread, so Table 2's widest ± stands in). A frozen probe scores its own predictions, so it can rank the "
              "same blocks differently.",
}
