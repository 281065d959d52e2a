"""Lesson 05, §6: the change of variables, a flow you can see, invertible against projection, Glow and one fit
(``05_bert_flow.ipynb``).

Each function is one experiment a visible cell calls (:func:`fit_banana`, :func:`fit_target_flow`,
:func:`latent_codes`) or the report a hidden cell shows under it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from sbert_workbook import published
from sbert_workbook.calibration import calibrators, change_of_variables, plots, toy_flow
from sbert_workbook.calibration.flow import AdditiveCoupling, Glow
from sbert_workbook.calibration.flow_fit import fit_flow, flow_embed
from sbert_workbook.evaluation import uncertainty
from sbert_workbook.evaluation.interval_plots import interval_forest_figure
from sbert_workbook.evaluation.provenance import with_provenance
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.lessons.nb05.lesson import NOTEBOOK, Lesson05
from sbert_workbook.lessons.report import Report, verdict

#: How many STS-B sentences exercise 6.4 hides behind their latent codes.
HIDDEN_SENTENCES = 8


def change_of_variables_report(pieces) -> Report:
    """§6.1: the density's total mass on the grid (1, as a density must) and the three panels."""
    return Report(f"∫ p_U(u) du on the grid [{pieces.u[0]:g}, {pieces.u[-1]:g}] = {pieces.total_mass():.6f}",
                  plots.change_of_variables_figure(pieces))


def fit_banana(lesson: Lesson05) -> dict:
    """§6.2: the package's Glow (2 dimensions, one level of 4 steps) fitted on a bent, off-centre cloud of points."""
    n, seed = lesson.sizes.TOY_POINTS, lesson.seed
    train, held_out = toy_flow.banana_cloud(n, seed=seed), toy_flow.banana_cloud(n, seed=seed + 1)
    flow = toy_flow.toy_flow(seed=seed)
    untrained = toy_flow.negative_log_likelihood(flow, held_out)
    fit = toy_flow.fit_toy_flow(flow, train, seed=seed)
    print(fit.describe())
    return {"flow": flow, "train": train, "held out": held_out, "untrained nll": untrained}


def banana_report(lesson: Lesson05, toy: dict) -> Report:
    """§6.2: held-out negative log-likelihood before and after the fit, beside the axis-aligned Gaussian; the panels."""
    flow, train, held_out = toy["flow"], toy["train"], toy["held out"]
    nll = pd.DataFrame({"held-out negative log-likelihood (nats per point)": {
        "untrained flow (identity: N(0, I) on the raw points)": toy["untrained nll"],
        "axis-aligned Gaussian fitted on the training points": toy_flow.diagonal_gaussian_nll(train, held_out),
        "fitted flow": toy_flow.negative_log_likelihood(flow, held_out)}})
    n, seed = len(train), lesson.seed
    table = with_provenance(nll.round(3), model="2-D Glow (1 level x 4 steps, additive couplings), fitted here",
                            pooling="n/a (2-D toy points)", aggregation=f"mean over {n} held-out points",
                            split=f"banana_cloud: {n} training points (seed {seed}), {n} held-out (seed {seed + 1})")
    return Report(table, plots.toy_flow_figure(flow, train, toy_flow.flow_samples(flow, n, seed=seed)))


def holes_and_angles_report(lesson: Lesson05, toy: dict) -> Report:
    """§6.2: the density at the data's mean (a hole), and the directions of data, latent and Gaussian samples."""
    flow, train = toy["flow"], toy["train"]
    grid_x, grid_y, grid_r = np.linspace(-4, 4, 81), np.linspace(0, 7, 71), np.linspace(-3.5, 3.5, 71)
    latent = toy_flow.to_latent(flow, train)
    gaussian = np.random.default_rng(lesson.seed).normal(size=(lesson.sizes.GAUSSIAN_SAMPLES, 2))
    half = len(train) // 2
    return Report(
        f"density at the mean, relative to the peak: data under the flow's p_U "
        f"{toy_flow.density_at_mean(flow, train, grid_x, grid_y):.3f}; latent under N(0, I) "
        f"{toy_flow.density_at_mean(None, latent, grid_r, grid_r):.3f}",
        f"mean cosine of {half} random pairs: data {cosine_similarity(train[:half], train[half:2 * half]).mean():.2f}, "
        f"latent {cosine_similarity(latent[:half], latent[half:2 * half]).mean():.2f}",
        plots.circle_angles_figure({"data u (off-centre)": toy_flow.circle_angles(train),
                                    "latent f(u)": toy_flow.circle_angles(latent),
                                    f"{len(gaussian)} N(0, I) samples": toy_flow.circle_angles(gaussian)}))


def invertible_vs_projection(lesson: Lesson05, information_u: torch.Tensor, information_natsv) -> Report:
    """§6.3: a flow with random weights gives every embedding back; NATSV's projection removes a share for good."""
    round_trip = change_of_variables.round_trip_error(change_of_variables.scrambled_flow(information_u, seed=lesson.seed),
                                                      information_u)
    removed = change_of_variables.nulled_share(information_natsv, information_u)
    return Report(f"{len(information_u)} static-view embeddings of STS-B sentences ({information_u.shape[1]} dimensions)",
                  *(f"  flow with random weights: {what} = {value:.2e}" for what, value in round_trip.items()),
                  f"  NATSV (k={information_natsv.k}): ‖u − P(u)‖ / ‖u‖ = {removed.mean():.3f} on average (from "
                  f"{removed.min():.3f} to {removed.max():.3f}); that part cannot be recovered from P(u)")


def coupling_report(additive_coupling) -> Report:
    """§6.4: the notebook's additive coupling against the package's, and its exact inverse."""
    layer = AdditiveCoupling(6)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        torch.nn.init.normal_(layer.net.out.weight)  # leave the identity initialisation so the check shows something
        u = torch.randn(4, 6)
    with torch.no_grad():
        same = torch.allclose(additive_coupling(u, layer.net), layer(u)[0])
        back = torch.allclose(layer.inverse(layer(u)[0]), u, atol=1e-6)
    return Report(f"our coupling equals the package's AdditiveCoupling: {same}", f"and inverts exactly: {back}")


def flow_size(dim: int, levels: int, depth: int, width: int) -> dict[str, int]:
    """Steps and trainable parameters of the package's Glow of this shape on ``dim``-dimensional embeddings."""
    with torch.random.fork_rng():
        flow = Glow(dim, levels=levels, depth=depth, width=width)
    return {"steps (actnorm, permutation, coupling)": levels * depth,
            "trainable parameters": sum(p.numel() for p in flow.parameters())}


def glow_recipe_report(lesson: Lesson05) -> Report:
    """§6.4: the paper's flow (Table 7, §4.1, Appendix B), its released code's, and this notebook's, sized side by side."""
    paper, code = published.BERT_FLOW_PAPER_FLOW, published.BERT_FLOW_CODE_FLOW
    ours = calibrators.FlowCalibrator().settings()
    recipes = [with_provenance(r.frame(), model="none (a published recipe, quoted, not run)", pooling="n/a",
                               aggregation="n/a", split="n/a", source=r.source()) for r in (paper, code)]
    shapes = {"the paper (Table 7)": (paper.settings["levels"], paper.settings["depth"], paper.settings["coupling width"]),
              "the released code": (code.settings["levels"], code.settings["depth"], code.settings["coupling width"]),
              "this notebook": (ours["levels"], ours["depth"], ours["width"])}
    sizes = pd.DataFrame({f"{name}: {levels} levels × depth {depth}, width {width}": flow_size(lesson.dim, levels, depth, width)
                          for name, (levels, depth, width) in shapes.items()}).T
    table = with_provenance(sizes, model=f"the package's Glow on {lesson.dim}-dimensional embeddings (built, not trained)",
                            pooling="n/a", aggregation="n/a", split="n/a")
    mine, theirs = sizes.iloc[2], sizes.iloc[0]
    said = (f"This notebook's flow has {mine.iloc[0] / theirs.iloc[0]:.1f}x the paper's steps and "
            f"{mine.iloc[1] / theirs.iloc[1]:.2f}x its parameters here (its later levels act on fewer coordinates); "
            f"its coupling network is a residual MLP where the paper's is a 3-layer CNN. It trains {ours['epochs']:g} "
            f"epoch at lr {ours['learning_rate']:g} for BOTH target and NLI fits: the paper's target recipe, while the "
            f"paper fits its NLI flows for {paper.settings['NLI flow epochs']:g} epoch at lr "
            f"{paper.settings['NLI flow learning rate']:g}.")
    return Report(*recipes, table, said)


def fit_target_flow(lesson: Lesson05) -> Glow:
    """§6.4: this notebook's Glow fitted on the static view of STS-B's sentences with BERT-flow's target schedule,
    its log-likelihood drawn live."""
    live = plots.LiveCurve(every=20, name="static view, STS-B target")
    settings = calibrators.FlowCalibrator().settings()
    with torch.random.fork_rng():
        torch.manual_seed(lesson.seed)
        flow = Glow(lesson.dim, levels=settings["levels"], depth=settings["depth"], coupling=settings["coupling"],
                    permutation=settings["permutation"], width=settings["width"], seed=lesson.seed)
    fit = fit_flow(flow, lesson.bank.get("static", lesson.fit_sentences["stsb"]), epochs=settings["epochs"],
                   learning_rate=settings["learning_rate"], seed=lesson.seed, callback=live)
    print(fit.describe())
    lesson.results["target flow fit"] = fit
    return flow


def flow_fit_report(lesson: Lesson05, flow: Glow) -> Report:
    """§6.4: STS-B test Spearman of the static view, raw and through the flow, with the paired-bootstrap interval of
    the difference (the section's verdict) and its forest plot."""
    stsb, embed = lesson.stsb, lesson.embed("static")
    raw = cosine_similarity(embed(stsb.sentences1), embed(stsb.sentences2))
    flowed = cosine_similarity(*(flow_embed(flow, embed(s)) for s in (stsb.sentences1, stsb.sentences2)))
    interval = uncertainty.paired_bootstrap(stsb.scores, flowed, raw)
    claim = "static view, STS-B test: the flow fitted in §6.4 against raw"
    return Report(f"STS-B test Spearman × 100, static view: flow minus raw {interval.described()}",
                  interval_forest_figure({"static: flow (target) − raw": interval},
                                         title=f"STS-B test ({len(stsb)} pairs): the §6.4 flow against the raw static view"),
                  verdicts=verdict(NOTEBOOK, claim, interval.direction))


def latent_codes(lesson: Lesson05, flow: Glow) -> torch.Tensor:
    """Exercise 6.4: z = f(u) of STS-B test sentences the page does not show (drawn with the lesson's seed)."""
    pool = list(dict.fromkeys(lesson.stsb.sentences2))
    picks = np.random.default_rng(lesson.seed + 64).choice(len(pool), size=min(HIDDEN_SENTENCES, len(pool)), replace=False)
    lesson.results["hidden sentences"] = [pool[i] for i in sorted(picks)]
    return flow_embed(flow, lesson.bank.get("static", lesson.results["hidden sentences"]))
