"""Lesson 05, §2-§5: the raw cosines, standard normalisation, NATSV and whitening, each checked and reported
(``05_bert_flow.ipynb``).

The notebook's cells write each equation as code (``standard_normalise``, ``null_top_directions``,
``whitening_kernel``); the reports here hold each against the package's calibrator, choose NATSV's k on STS-B dev,
and measure Su et al.'s two reasons for whitening: cosine's orthonormal basis, and smaller, faster vectors.
"""
from __future__ import annotations

import time

import pandas as pd
import torch

from sbert_workbook.teaching.predict import predict_question
from sbert_workbook.calibration import calibrators, plots
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.lessons.nb05.lesson import NOTEBOOK, Lesson05
from sbert_workbook.lessons.report import Report, verdict

#: How far from the identity a whitened covariance may be and still count as the identity "to rounding" (the package
#: returns float32; a direction with no variance to rescale is off by about 1 or far more).
IDENTITY_TOLERANCE = 1e-3
WHITE_OPTIONS = ["yes: its covariance is the identity, to rounding", "no: some directions stay far from variance 1"]


def raw_cosines_figure(lesson: Lesson05, raw_cosines: dict):
    """§2: the cosine of every STS-B test pair, per view, before any calibration."""
    return plots.similarity_histogram_figure(raw_cosines, title=f"{lesson.described.split(' (')[0]}: cosine of STS-B "
                                                                f"test pairs ({len(lesson.stsb)}), raw")


def sn_report(lesson: Lesson05, ours: torch.Tensor) -> Report:
    """§3: the notebook's SN against the package's, and what it does to the mean cosine of STS-B test pairs."""
    u_fit = lesson.bank.get("static", lesson.fit_sentences["stsb"])
    package = calibrators.StandardNormalization().fit(u_fit)
    gap = float((ours - package.transform(u_fit)).abs().max())
    s1, s2 = (lesson.bank.get("static", s) for s in (lesson.stsb.sentences1, lesson.stsb.sentences2))
    before, after = (float(cosine_similarity(a, b).mean()) for a, b in ((s1, s2), (package.transform(s1), package.transform(s2))))
    return Report(f"{'matches' if gap < 1e-4 else 'differs from'} calibrators.StandardNormalization (largest difference "
                  f"{gap:.1e})", f"mean cosine of the {len(lesson.stsb)} STS-B test pairs, static view: raw {before:.2f}, "
                  f"after SN fitted on STS-B's sentences {after:.2f}")


def choose_natsv_k(lesson: Lesson05) -> dict[str, int]:
    """§4: NATSV's k for every view, chosen on STS-B dev (alone and after SN), as BERT-flow's Table 5 does."""
    ks, dev = range(0, lesson.sizes.NATSV_MAX_K + 1), lesson.stsb_dev
    chosen, after_sn, curves = {}, {}, {}
    for view in lesson.views:
        fit_on = lesson.bank.get(view, lesson.fit_sentences["stsb"])
        dev_u, dev_v = lesson.bank.get(view, dev.sentences1), lesson.bank.get(view, dev.sentences2)
        chosen[view], curves[view] = calibrators.choose_natsv_k(fit_on, dev_u, dev_v, dev.scores, ks)
        after_sn[view], curves[f"{view} after SN"] = calibrators.choose_natsv_k(fit_on, dev_u, dev_v, dev.scores, ks,
                                                                                standardize=True)
    lesson.results.update(natsv_k=chosen, natsv_k_sn=after_sn, natsv_curves=curves)
    return chosen


def natsv_report(lesson: Lesson05, null_top_directions) -> Report:
    """§4: the notebook's NATSV against the package's, the k chosen per view, and the static view's dev curve."""
    u = lesson.bank.get("static", lesson.fit_sentences["stsb"])
    package = calibrators.NullTopDirections(k=3).fit(u)
    gap = float((null_top_directions(u, package.directions_.float()) - package.transform(u)).abs().max())
    chosen = pd.DataFrame({"NATSV alone": lesson.results["natsv_k"], "after SN": lesson.results["natsv_k_sn"]}).T
    table = with_provenance(chosen, model=lesson.described, pooling="per column: the view", aggregation="argmax over k "
                            f"of one Spearman on STS-B dev (k from 0 to {lesson.sizes.NATSV_MAX_K})",
                            split=f"fit: STS-B's sentences; choice: {len(lesson.stsb_dev)} STS-B dev pairs")
    curves, k = lesson.results["natsv_curves"], lesson.results["natsv_k"]["static"]
    figure = plots.k_selection_figure(curves["static"], k, title=f"NATSV on the static view: STS-B dev ({len(lesson.stsb_dev)} pairs)")
    figure.add_scatter(x=list(curves["static after SN"]), y=list(curves["static after SN"].values()), mode="lines+markers",
                       name="after SN")
    return Report(f"null_top_directions {'matches' if gap < 1e-4 else 'differs from'} calibrators.NullTopDirections "
                  f"(k = 3, largest difference {gap:.1e})", "k chosen on STS-B dev:", table, figure)


def predict_whitened_covariance(lesson: Lesson05):
    """§5's predict question: is the whitened cloud exactly isotropic on the sentences it was fitted on?"""
    u = lesson.bank.get("static", lesson.fit_sentences["stsb"]).double()
    full_rank = int(torch.linalg.matrix_rank(u - u.mean(0))) == u.shape[1]
    return predict_question(
        f"Whitening is fitted on the {len(u)} STS-B sentences' static embeddings and applied to the same sentences. "
        "Will the covariance of the whitened embeddings be the identity?", WHITE_OPTIONS, WHITE_OPTIONS[0 if full_rank else 1],
        "Whitening divides each principal direction by its standard deviation, so every direction that has some variance "
        "comes out with variance exactly 1. That needs the sentences to spread in every direction: n centred vectors span "
        "at most n − 1 directions, so with fewer sentences than dimensions the others have no variance to rescale. "
        "Compare the number of sentences and of dimensions the next cells print.")


def largest_gap_to_identity(white: torch.Tensor) -> float:
    """max |cov(white) − I| (the covariance with 1/n, as whitening's)."""
    white = white.double()
    return float((torch.cov(white.T, correction=0) - torch.eye(white.shape[1], dtype=torch.float64)).abs().max())


def whitening_report(lesson: Lesson05, u_fit: torch.Tensor, white: torch.Tensor) -> Report:
    """§5: how far the notebook's and the package's whitened covariances are from the identity; the section's verdict."""
    import warnings

    with warnings.catch_warnings():
        if len(u_fit) <= u_fit.shape[1]:  # else the filters stay ("default" showed libraries' deprecations)
            warnings.simplefilter("ignore")  # too few: said in the text
        package = calibrators.Whitening().fit_transform(u_fit)
    ours, theirs = largest_gap_to_identity(white), largest_gap_to_identity(package)
    identity = "the identity, to rounding" if max(ours, theirs) < IDENTITY_TOLERANCE else "not the identity"
    return Report(f"{len(u_fit)} sentences, {u_fit.shape[1]} dimensions",
                  f"largest |cov(whitened) − I|: ours {ours:.1e}, calibrators.Whitening {theirs:.1e}: {identity}",
                  verdicts=verdict(NOTEBOOK, "the whitened covariance on the sentences whitening was fitted on", identity))


def retrieval_seconds(corpus: torch.Tensor, queries: torch.Tensor, repeats: int = 5) -> float:
    """Median time of scoring ``queries`` against every row of ``corpus`` by cosine (one matrix product)."""
    corpus, queries = (torch.nn.functional.normalize(x.float(), dim=1) for x in (corpus, queries))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        (queries @ corpus.T).topk(10, dim=1)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def whitening_k_costs(lesson: Lesson05) -> Report:
    """§5: Su et al.'s second reason, measured: whitening-k's vectors are smaller and a retrieval over them faster."""
    import warnings

    corpus = lesson.bank.views["static"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a small sample's singular covariance changes the values, not the cost
        full, k = calibrators.Whitening().fit_transform(corpus), calibrators.su_k(lesson.dim)
    queries = full[: min(64, len(full))]
    seconds = {d: retrieval_seconds(full[:, :d], queries[:, :d]) for d in (lesson.dim, k)}
    rows = pd.DataFrame({"bytes per sentence (float32)": {d: 4 * d for d in seconds},
                         f"seconds to rank {len(corpus)} sentences for {len(queries)} queries": seconds}).rename_axis("dimensions")
    table = with_provenance(rows, model=lesson.described, pooling="static", aggregation="median of 5 timings (this CPU, "
                            "shared: a ratio, not a benchmark)", split=f"every sentence of this lesson ({len(corpus)})")
    return Report(table, f"whitening to d/3 = {k} of {lesson.dim} dimensions: {lesson.dim / k:.1f}x less to store, "
                         f"{seconds[lesson.dim] / seconds[k]:.1f}x the speed of one retrieval here")
