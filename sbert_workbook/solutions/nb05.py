"""Reference solutions for ``05_bert_flow.ipynb`` (see :mod:`sbert_workbook.teaching.exercises` for the pattern)."""
from __future__ import annotations

import numpy as np
import torch

from sbert_workbook.calibration.change_of_variables import cubic_map, standard_normal_pdf
from sbert_workbook.teaching.exercises import solution
from sbert_workbook.evaluation.uncertainty import published_interval
from sbert_workbook.published.bert_flow import BERT_FLOW_TABLE2, BERT_FLOW_TABLE8
from sbert_workbook.published.comparisons import MULTI_SUBSET_SETS, sets_where_higher
from sbert_workbook.published.simcse import SIMCSE_TABLE_B3, SIMCSE_TABLE_C1


def _at_one():
    z, slope = cubic_map(1.0)
    return float(standard_normal_pdf(z)), float(slope)


@solution(wrong={
    "no Jacobian term: p_Z(f(1)) alone": lambda: _at_one()[0],
    "divided by |f′(1)| instead of multiplied": lambda: _at_one()[0] / _at_one()[1],
    "p_Z evaluated at u = 1 instead of at f(1)": lambda: float(standard_normal_pdf(1.0)) * _at_one()[1],
})
def ex05_cov():
    """p_U(1) = p_Z(f(1)) · |f′(1)| with f(u) = u³ + 0.3u + 0.4: N(1.7) · 3.3."""
    density, slope = _at_one()
    return density * slope


def _top_direction(information_natsv, rank: int = 0) -> torch.Tensor:
    return information_natsv.directions_[:, rank].float()


@solution(wrong={
    "u itself: the same point, not a second one": lambda information_u, information_natsv: information_u[0].clone(),
    "u scaled by 2: NATSV is linear, so it maps 2u to 2P(u)": lambda information_u, information_natsv: 2 * information_u[0],
    "moved along a random direction that NATSV keeps": lambda information_u, information_natsv: information_u[0]
    + information_u[0].norm() * torch.nn.functional.normalize(torch.randn(information_u.shape[1],
                                                                           generator=torch.Generator().manual_seed(0)), dim=0),
})
def ex05_twin(information_u, information_natsv):
    """u + c·v₁ for any c ≠ 0: the removed direction v₁ is all that changes, and NATSV removes it."""
    return information_u[0] + 0.5 * information_u[0].norm() * _top_direction(information_natsv)


def _static(lesson, group: str) -> torch.Tensor:
    return lesson.bank.get("static", lesson.fit_sentences[group])


@solution(wrong={
    "averaged over dimensions (dim=1), not over sentences": lambda lesson: _static(lesson, "nli").mean(1),
    "the STS-B target sentences instead of the NLI ones": lambda lesson: _static(lesson, "stsb").mean(0),
    "the standard deviation instead of the mean": lambda lesson: _static(lesson, "nli").std(0, unbiased=False),
})
def ex05_snmean(lesson):
    """μ_d over the NLI sentences: the mean over rows (dim 0) of their static embeddings."""
    return _static(lesson, "nli").mean(0)


def _energy(x) -> float:
    return float((torch.as_tensor(x, dtype=torch.float64) ** 2).sum())


def _removed(natsv_u, natsv) -> float:
    return _energy(natsv_u - natsv.transform(natsv_u)) / _energy(natsv_u)


def _fitted_natsv(natsv_u, k: int):
    from sbert_workbook.calibration.calibrators import NullTopDirections

    return NullTopDirections(k=k).fit(natsv_u)


@solution(wrong={
    "0: what is left along the removed directions, not the share of energy removed": lambda: 0.0,
    "the share kept, 1 − removed": lambda natsv_u, natsv: 1 - _removed(natsv_u, natsv),
    "norms not squared: ‖U − NATSV(U)‖ / ‖U‖": lambda natsv_u, natsv: _removed(natsv_u, natsv) ** 0.5,
    "the top direction alone (k = 1), not the three NATSV removed": lambda natsv_u: _removed(natsv_u, _fitted_natsv(natsv_u, 1)),
})
def ex05_natsv(natsv_u, natsv):
    """‖U − NATSV(U)‖²_F / ‖U‖²_F: the share of the energy NATSV took away (the top-3 singular values' share)."""
    return _removed(natsv_u, natsv)


@solution(wrong={
    "z_hidden itself: the identity, which any round-trip check would pass": lambda z_hidden: z_hidden.clone(),
    "forward again: f(z), not f⁻¹(z)": lambda flow, z_hidden: flow(z_hidden)[0].detach(),
    "the inverse twice: f⁻¹(f⁻¹(z))": lambda flow, z_hidden: flow.inverse(flow.inverse(z_hidden)).detach(),
})
def ex05_roundtrip(flow, z_hidden):
    """u = f⁻¹(z): the flow run backwards gives back the embeddings the codes came from (Glow's inverse)."""
    with torch.no_grad():
        return flow.inverse(z_hidden)


@solution(wrong={
    "only the first substitution counted (cat → dog)": lambda: 1,
    "characters, not words": lambda: __import__("sbert_workbook.calibration.lexical", fromlist=["edit_distance"])
        .edit_distance("the cat sat on the mat", "the dog sat on a mat", unit="char"),
    "each substitution counted as a deletion plus an insertion": lambda: 4,
})
def ex05_edit():
    """cat → dog and the → a: two substitutions, the other four words line up."""
    return 2


def _ex05_1_answer() -> str:
    """The model answer to ex05_1, its published figures read from BERT-flow Table 2 (never typed)."""
    t2, c1 = BERT_FLOW_TABLE2, SIMCSE_TABLE_C1
    nli, target, last2 = "BERT-base-flow (NLI)", "BERT-base-flow (target)", "BERT-base-last2avg"
    return (
        "Most of the gain of the flow on the untrained views survives NLI fitting, because most of what it fixes (the "
        "offset cone, a few dominant directions) is common to any English sentences; part is lost, because the target "
        "fit also adapts to the set's vocabulary and sentence lengths. Whether target > NLI > no flow holds depends on "
        f"the set and the protocol. In BERT-flow's {t2.table} (BERT-base, 'wmean'), on STS-B the NLI flow scores "
        f"{t2.value(nli, 'stsb'):.2f}, below the same pooling without a flow ({last2}: {t2.value(last2, 'stsb'):.2f}; the "
        f"paper marks it ↓), while the target flow reaches {t2.value(target, 'stsb'):.2f}; on SICK-R the order flips: "
        f"NLI {t2.value(nli, 'sickr'):.2f} above target {t2.value(target, 'sickr'):.2f}. On the {len(MULTI_SUBSET_SETS)} "
        f"multi-subset sets (STS12-16) the target flow beats the NLI flow on {len(sets_where_higher(t2, target, nli))} under "
        f"'wmean' ({t2.table}) but on {len(sets_where_higher(c1, 'BERT-flow (target)', 'BERT-flow (NLI)'))} under "
        f"SimCSE's 'all' ({c1.table}, section 7). "
        "Compare your own rows with section 7.1's intervals: a difference is apart only where its 95 % interval "
        "excludes 0. On the trained mean pooling the difference is small either way."
    )


def _ex05_isotropy_answer() -> str:
    """The model answer to section 12.1's question; the published figures read from SimCSE C.1 and B.3 (never typed)."""
    c1, b3 = SIMCSE_TABLE_C1, SIMCSE_TABLE_B3
    _, spread = BERT_FLOW_TABLE8.largest_spread()

    def gap(table, first, second):
        # whitening has no seed; the flow is one run, whose seed moves it by up to BERT-flow Table 8's sd (5 seeds)
        interval = published_interval(table.value(first, "avg"), 0.0, 1, table.value(second, "avg"), spread, 1)
        return f"{interval} (95 %: one flow run, σ = {spread:.2f} from BERT-flow's Table 8; the re-runs print none)"

    return (
        "Invertibility keeps information, but information is not what cosine was missing: raw BERT already holds it. "
        "What the helpful maps share is isotropy: they centre the cloud and equalise its directions, so the few "
        "directions that frequency and length dominate stop deciding every cosine. Whitening does it with one affine map; "
        "against the flow in the published re-runs, whitening minus flow, average over the seven sets, is "
        f"{gap(c1, 'BERT-whitening (NLI)', 'BERT-flow (NLI)')} fitted on NLI under 'all' ({c1.table}), "
        f"{gap(b3, 'BERT-base + whitening (target)', 'BERT-base + flow (target)')} fitted on the target under 'wmean' "
        f"({b3.table}). Whitening to k < d and NATSV go further and throw directions away, the low-variance ones that "
        "whitening would otherwise blow up to variance 1 (noise weighed like content) or the top ones that carry "
        "frequency; if they tie with or beat full whitening and the flow in your rows, the lost information was not "
        "helping the cosine. The flow's extra likelihood (section 12's table) buys little STS for the same reason: a "
        "better density model is not a better similarity. Isotropy, not invertibility, does the work here."
    )


DISCUSSION = {
    "ex05_snmean": "With SN fitted on the NLI sentences and applied to STS-B, the mean cosine of STS-B pairs falls a long "
                   "way towards 0 but usually not as far as with target fitting: the common direction (the cone's axis) "
                   "is shared by any English sentences, so the NLI mean removes most of it; what is left is the part of "
                   "the mean that depends on STS-B's own topics and lengths.",
    "ex05_1": _ex05_1_answer(),
    "ex05_isotropy": _ex05_isotropy_answer(),
    "ex05_2": "Spearman rises as k grows from a handful of dimensions, peaks and then falls or flattens: the last "
              "directions have tiny variance, and whitening rescales them to variance 1, so noise weighs as much as "
              "content. The best k is well below the full dimension (Su et al. report k = 256 of 768 for BERT-base); "
              "in quick mode, with fewer sentences than dimensions, everything past rank n is noise.",
    "ex05_3": "The loaded calibrator gives the same vector up to float rounding, because save_calibrator writes its "
              "settings and tensors (mean, kernel, flow weights) and load_calibrator rebuilds it from them. Feeding it "
              "embeddings of another size fails with an error naming the fitted and the given dimension: a calibrator "
              "belongs to one encoder and one pooling.",
    "ex05_4": "The affine coupling can rescale as well as shift, so it usually reaches a higher log-likelihood on the "
              "fitted sentences; STS-B Spearman rises little or not at all, and can fall: a better density model "
              "is not a better similarity (the same point as one epoch vs many). BERT-flow uses the additive one.",
    "ex05_sif": "With a smaller a (1e-4) frequent words are pushed down harder: 'the' gets a weight near 0 and only "
                "rare, content words steer the average; with a larger a (1e-2) the weights of all but the most "
                "frequent words approach 1 and SIF's weighted average tends to the plain one. Arora et al. report a "
                "broad optimum between 1e-4 and 1e-3; rerun the table with a=1e-4 and a=1e-2 to see where these 50-d "
                "vectors sit (in quick mode a few points either way are noise).",
}


@solution(wrong={
    "log p_U(u), the log-likelihood, not the log-determinant alone": lambda flow, u_check: flow.log_prob(u_check).detach(),
    "the inverse's log-determinant (sign flipped)": lambda flow, u_check: -flow(u_check)[1].detach(),
    "log N(f(u)) alone: the Gaussian term, without the Jacobian": lambda flow, u_check: (
        flow.log_prob(u_check) - flow(u_check)[1]).detach(),
})
def ex05_logdet(flow, u_check):
    """log|det ∂f/∂u| at the sentence: the second output of Glow's forward."""
    with torch.no_grad():
        return flow(u_check)[1]


@solution(wrong={
    "SIF's default a = 1e-3 instead of the a = 1e-4 asked for": lambda sif_probabilities: 1e-3 / (1e-3 + sif_probabilities),
    "p / (a + p): frequent words pushed up, not down": lambda sif_probabilities: sif_probabilities / (1e-4 + sif_probabilities),
    "1 / (a + p): the a in the numerator left out": lambda sif_probabilities: 1 / (1e-4 + sif_probabilities),
})
def ex05_sif(sif_probabilities):
    """SIF's weights a / (a + p(w)) with a = 1e-4: near 1 for rare words, small for 'the'."""
    return 1e-4 / (1e-4 + np.asarray(sif_probabilities, dtype=np.float64))
