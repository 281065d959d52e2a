"""Lesson 05, §9-§10: pictures before and after calibration, and a widget to re-fit the flow (``05_bert_flow.ipynb``)."""
from __future__ import annotations

from sbert_workbook.calibration import calibrators, plots
from sbert_workbook.calibration.flow import COUPLINGS
from sbert_workbook.evaluation.similarity import cosine_similarity
from sbert_workbook.evaluation.sts import correlations
from sbert_workbook.lessons.nb05.lesson import Lesson05
from sbert_workbook.lessons.report import Report

PICTURE_VIEW = "static"
PICTURED = ("+SN", "+whitening", "+flow (target)")


def before_after(lesson: Lesson05) -> Report:
    """§9: the STS-B test cosines of the static view raw and after SN, whitening and the flow; the projections."""
    stsb, fitted = lesson.stsb, lesson.results["fitted"][PICTURE_VIEW]
    u1, u2 = lesson.bank.get(PICTURE_VIEW, stsb.sentences1), lesson.bank.get(PICTURE_VIEW, stsb.sentences2)
    after = {"raw": cosine_similarity(u1, u2)}
    for label in PICTURED:
        calibrator = fitted[(label, "stsb")]
        after[label] = cosine_similarity(calibrator.transform(u1), calibrator.transform(u2))
    sample = list(dict.fromkeys(stsb.sentences1))[: lesson.sizes.PICTURE_SENTENCES]
    lengths = [len(s.split()) for s in sample]
    raw = lesson.bank.get(PICTURE_VIEW, sample)
    views = {"raw": raw, **{label: fitted[(label, "stsb")].transform(raw) for label in PICTURED[1:]}}
    return Report(plots.similarity_histogram_figure(after, title=f"{lesson.described.split(' (')[0]}, {PICTURE_VIEW} view: "
                                                                 "STS-B test cosines before and after"),
                  plots.projection_figure(views, color=lengths, dims=2),
                  plots.projection_figure({k: views[k] for k in ("raw", "+flow (target)")}, color=lengths, dims=3))


def training_curves(lesson: Lesson05):
    """§9: the log-likelihood curve of every view's STS-B target flow, and of the static view's NLI flow."""
    fitted = lesson.results["fitted"]
    curves = {f"{view}, STS-B target": fitted[view][("+flow (target)", "stsb")].fit_.log_likelihood for view in lesson.views}
    curves[f"{lesson.views[0]}, NLI"] = fitted[lesson.views[0]][("+flow (NLI)", "nli")].fit_.log_likelihood
    return plots.log_likelihood_figure(curves)


def flow_explorer(lesson: Lesson05):
    """§10: re-fit a flow with another architecture, source or length; each run adds a curve named with its STS-B score."""
    import ipywidgets as widgets

    from sbert_workbook.teaching.widgets import interactive_figure

    runs, stsb = {}, lesson.stsb

    def flow_run(view, source, levels, depth, coupling, epochs):
        fit_on = lesson.fit_sentences["stsb" if source == "target" else "nli"]
        calibrator = calibrators.FlowCalibrator(levels=levels, depth=depth, coupling=coupling, epochs=epochs,
                                                seed=lesson.seed, progress=False).fit(lesson.bank.get(view, fit_on))
        z1, z2 = (calibrator.transform(lesson.bank.get(view, s)) for s in (stsb.sentences1, stsb.sentences2))
        spearman = correlations(cosine_similarity(z1, z2), stsb.scores)["spearman"]
        runs[f"{view}/{source} {levels}x{depth} {coupling} {epochs}ep: STS-B {spearman:.1f}"] = calibrator.fit_.log_likelihood
        return plots.log_likelihood_figure(runs)

    return interactive_figure(
        flow_run,
        view=widgets.Dropdown(options=list(lesson.views), value=PICTURE_VIEW, description="view"),
        source=widgets.Dropdown(options=["target", "nli"], value="target", description="fit on"),
        levels=widgets.IntSlider(value=2, min=1, max=3, description="levels"),
        depth=widgets.IntSlider(value=2, min=1, max=4, description="depth"),
        coupling=widgets.Dropdown(options=list(COUPLINGS), value="additive", description="coupling"),
        epochs=widgets.IntSlider(value=1, min=1, max=3, description="epochs"))
