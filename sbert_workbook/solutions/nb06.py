"""Reference solutions for ``06_contrastive_simcse.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from sbert_workbook.teaching.exercises import solution


def _info_nce(normalise: bool = True, use_temperature: bool = True, shift_labels: bool = False):
    def loss(anchors, positives, temperature):
        a, p = (F.normalize(anchors, dim=1), F.normalize(positives, dim=1)) if normalise else (anchors, positives)
        logits = a @ p.T / (temperature if use_temperature else 1.0)
        labels = torch.arange(len(anchors))
        return F.cross_entropy(logits, (labels + 1) % len(anchors) if shift_labels else labels)
    return loss


@solution(wrong={
    "no temperature: plain cosines as logits": lambda: _info_nce(use_temperature=False),
    "labels off the diagonal: row i labelled with column i + 1": lambda: _info_nce(shift_labels=True),
    "unnormalised dot products instead of cosines": lambda: _info_nce(normalise=False),
})
def ex06_infonce():
    """InfoNCE: cross-entropy over cos(a_i, p_j) / τ with the labels on the diagonal (row i's positive is column i)."""
    return _info_nce()


def _alignment(align_u, align_v, normalise: bool = True, squared: bool = True, reduce=torch.mean) -> float:
    u, v = torch.as_tensor(align_u, dtype=torch.float32), torch.as_tensor(align_v, dtype=torch.float32)
    if normalise:
        u, v = F.normalize(u, dim=1), F.normalize(v, dim=1)
    distances = (u - v).norm(dim=1)
    return float(reduce(distances.pow(2) if squared else distances))


@solution(wrong={
    "not unit-normalised: raw vectors' distances": lambda align_u, align_v: _alignment(align_u, align_v, normalise=False),
    "distance, not squared distance": lambda align_u, align_v: _alignment(align_u, align_v, squared=False),
    "summed over the pairs instead of averaged": lambda align_u, align_v: _alignment(align_u, align_v, reduce=torch.sum),
})
def ex06_alignment(align_u, align_v):
    """ℓ_align = mean over pairs of ‖û − v̂‖², û and v̂ unit-normalised (Wang & Isola, 2020; SimCSE §2, Eq. 2)."""
    return _alignment(align_u, align_v)


DISCUSSION = {
    "temperature": "τ sets the sharpness of each row's softmax. Very small τ lets the single hardest negative dominate the "
                   "gradient (and false negatives — paraphrases that happen to share a batch — get pushed away hard); a "
                   "large τ (1) treats every negative alike, and the loss barely cares how far apart sentences are, so "
                   "uniformity is not learnt. SimCSE's Table D.1 (printed in §1) is nearly flat from τ = 0.001 to 0.05, "
                   "best at 0.05, and falls steeply above it: a threshold, not a broad optimum.",
    "deletion": "SimCSE §3 finds that deleting one word improves the alignment yet achieves a smaller gain on the "
                "uniformity metric than dropout noise: the two views share all but one word, so they stay close, while "
                "the text change does less to spread the other sentences apart. Deletion can also change what the "
                "sentence says (a negation, the subject), so a positive is no longer guaranteed to mean the same. "
                "Dropout noise perturbs the representation, not the text. §3's deletion line reads both measures for "
                "the cone here.",
}
