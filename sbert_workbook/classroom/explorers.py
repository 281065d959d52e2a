"""The two interactive explorers of the classroom app (``classroom/*.ipynb``).

Both are built on :func:`sbert_workbook.teaching.widgets.interactive_figure`: controls above a plain
plotly figure that is redrawn when a control moves. The figure builders are plain functions
of arrays, so tests can check their numbers; the explorers only wire them to an encoder.

* :func:`pair_explorer` (``classroom/pair_explorer.ipynb``): two sentences, typed or picked
  from STS-B; token-by-token cosine at one layer, and the sentences' cosine at every layer.
* :func:`embedding_explorer` (``classroom/embedding_explorer.ipynb``): many sentences at
  one layer; how similar *unrelated* sentences look (anisotropy) and what removing the
  common mean vector does to it.
"""
from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from sbert_workbook.teaching.widgets import interactive_figure
from sbert_workbook.evaluation.projection import project
from sbert_workbook.evaluation.similarity import all_pair_cosines, cosine_matrix, mean_cosine, unit_rows

OWN_PAIR = "(type your own sentences)"
OWN_PAIR_VALUE = -1  # the picker's value while the boxes hold typed sentences (None would show a blank picker)


# ----------------------------------------------------------------------------- numbers
def uncentred_2d(vectors: np.ndarray) -> np.ndarray:
    """Unit vectors projected on their top-2 singular directions, *without* centring.

    Unlike PCA this keeps the origin, so a narrow cone of directions shows up as a cloud
    far to one side of (0, 0); after centring the cloud surrounds the origin. (The
    projection is :func:`sbert_workbook.evaluation.projection.project`'s ``"svd"``, from ``02_anisotropy.ipynb``.)
    """
    return project(unit_rows(vectors, dtype=None), "svd", n_components=2)


def token_vectors(encoder, sentence: str) -> tuple[list[str], np.ndarray]:
    """The sentence's tokens and their vectors at every hidden state: (tokens, (layers, tokens, dim))."""
    if not sentence.strip():
        raise ValueError("a sentence box is empty: type a sentence in both boxes.")
    states, _mask = encoder.hidden_states([sentence])
    ids = encoder.tokenizer(sentence, truncation=True, max_length=encoder.max_length)["input_ids"]
    return encoder.tokenizer.convert_ids_to_tokens(ids), np.stack([s[0].numpy() for s in states])


def layer_sentence_vectors(encoder, sentences: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """Mean-pooled sentence vectors at every hidden state, as the NumPy array (layers, n, dim) the figures read.

    The encoding is :func:`sbert_workbook.encoding.views.layer_vectors`'s (``02_anisotropy.ipynb``).
    """
    from sbert_workbook.encoding.views import layer_vectors

    return layer_vectors(encoder, sentences, ("mean",), batch_size, progress=False)["mean"].numpy()


# ----------------------------------------------------------------------------- figures
def pair_figure(tokens_a: list[str], vectors_a: np.ndarray, tokens_b: list[str], vectors_b: np.ndarray,
                layer: int, gold: float | None = None, model_name: str = "") -> go.Figure:
    """Heatmap of token cosines at ``layer`` and the mean-pooled sentence cosine per layer.

    ``vectors_*`` are (layers, tokens, dim) from :func:`token_vectors`. Traces: the heatmap,
    the per-layer line and a marker on ``layer``.
    """
    layers = np.arange(len(vectors_a))
    sentence_cos = [float(cosine_matrix(vectors_a[i].mean(0, keepdims=True), vectors_b[i].mean(0, keepdims=True))[0, 0])
                    for i in layers]
    figure = make_subplots(rows=1, cols=2, column_widths=[0.58, 0.42], horizontal_spacing=0.14,
                        subplot_titles=(f"token cosine at layer {layer}", "sentence cosine (mean pooling) per layer"))
    figure.add_trace(go.Heatmap(z=cosine_matrix(vectors_a[layer], vectors_b[layer]), x=_unique(tokens_b), y=_unique(tokens_a),
                             zmin=-1, zmax=1, colorscale="RdBu", reversescale=True, colorbar=dict(x=0.5, len=0.9),
                             hovertemplate="%{y} / %{x}: %{z:.2f}<extra></extra>"), row=1, col=1)
    figure.add_trace(go.Scatter(x=layers, y=sentence_cos, mode="lines+markers", name="cosine"), row=1, col=2)
    figure.add_trace(go.Scatter(x=[layer], y=[sentence_cos[layer]], mode="markers", name=f"layer {layer}",
                             marker=dict(size=14, color="crimson")), row=1, col=2)
    figure.update_yaxes(autorange="reversed", row=1, col=1)
    figure.update_yaxes(range=[-1.05, 1.05], title_text="cosine", row=1, col=2)
    figure.update_xaxes(title_text="hidden state (0 = embeddings)", dtick=1, row=1, col=2)
    gold_text = f"; gold score {gold:.1f} / 5" if gold is not None else ""
    figure.update_layout(title=f"{model_name}: cosine {sentence_cos[layer]:.3f} at layer {layer}{gold_text}",
                      height=460, showlegend=False, margin=dict(t=80))
    return figure


def embedding_figure(layer_vectors: np.ndarray, layer: int, centre: bool = False,
                     sentences: Sequence[str] | None = None, model_name: str = "") -> go.Figure:
    """Anisotropy at one layer: cosines of different sentences, a 2-D view, mean cosine per layer.

    ``layer_vectors`` is (layers, n, dim) from :func:`layer_sentence_vectors`; ``centre``
    subtracts each layer's mean vector first. Traces: histogram, 2-D scatter, per-layer
    line, marker on ``layer``.
    """
    if centre:
        layer_vectors = layer_vectors - layer_vectors.mean(axis=1, keepdims=True)
    means = [mean_cosine(v) for v in layer_vectors]
    cosines, points = all_pair_cosines(layer_vectors[layer]), uncentred_2d(layer_vectors[layer])
    figure = make_subplots(rows=1, cols=3, horizontal_spacing=0.08, subplot_titles=(
        "cosine of different sentences", "directions, top-2 singular axes (origin at the cross)", "mean cosine per layer"))
    figure.add_trace(go.Histogram(x=cosines, xbins=dict(start=-1, end=1, size=0.05), name="pairs"), row=1, col=1)
    figure.add_trace(go.Scatter(x=points[:, 0], y=points[:, 1], mode="markers", name="sentences", marker=dict(size=6),
                             text=list(sentences) if sentences is not None else None, hoverinfo="text"), row=1, col=2)
    figure.add_trace(go.Scatter(x=np.arange(len(means)), y=means, mode="lines+markers", name="mean cosine"), row=1, col=3)
    figure.add_trace(go.Scatter(x=[layer], y=[means[layer]], mode="markers", name=f"layer {layer}",
                             marker=dict(size=14, color="crimson")), row=1, col=3)
    figure.add_hline(y=0, line=dict(color="grey", width=1), row=1, col=2)
    figure.add_vline(x=0, line=dict(color="grey", width=1), row=1, col=2)
    figure.update_xaxes(range=[-1, 1], title_text="cosine", row=1, col=1)
    figure.update_xaxes(range=[-1.05, 1.05], row=1, col=2)
    figure.update_yaxes(range=[-1.05, 1.05], scaleanchor="x2", row=1, col=2)
    figure.update_xaxes(title_text="hidden state (0 = embeddings)", dtick=1, row=1, col=3)
    figure.update_yaxes(range=[-0.2, 1.05], row=1, col=3)
    how = "mean vector removed" if centre else "raw"
    figure.update_layout(title=f"{model_name}, layer {layer} ({how}): mean cosine of different sentences {means[layer]:.3f} "
                            f"over {len(cosines)} pairs", title_font_size=14, height=440, showlegend=False, margin=dict(t=80))
    return figure


def _unique(tokens: list[str]) -> list[str]:
    """Heatmap axis labels must differ: repeated tokens get their position appended."""
    return [f"{token} ({i})" if tokens.count(token) > 1 else token for i, token in enumerate(tokens)]


# ----------------------------------------------------------------------------- explorers
def pair_explorer(encoder, pairs=None, first: tuple[str, str] = ("A man is playing a guitar.", "A person plays the guitar.")) -> widgets.VBox:
    """Two sentence boxes, a layer slider and (with ``pairs``, an :class:`~sbert_workbook.data.records.StsData`) a pair picker.

    The picker starts on :data:`OWN_PAIR` with ``first`` in the boxes. Picking a pair fills the
    boxes; typing in a box sets the picker back to :data:`OWN_PAIR`. The figure is
    :func:`pair_figure`, with the gold score shown while the boxes hold a picked pair. Token
    vectors are cached per sentence.
    """
    known = {} if pairs is None else {(a, b): float(s) for a, b, s in zip(pairs.sentences1, pairs.sentences2, pairs.scores)}
    cache: dict[str, tuple[list[str], np.ndarray]] = {}

    def vectors(sentence: str):
        if sentence not in cache:
            cache[sentence] = token_vectors(encoder, sentence)
        return cache[sentence]

    def make_figure(sentence_a: str, sentence_b: str, layer: int) -> go.Figure:
        (tokens_a, vectors_a), (tokens_b, vectors_b) = vectors(sentence_a), vectors(sentence_b)
        return pair_figure(tokens_a, vectors_a, tokens_b, vectors_b, layer, known.get((sentence_a, sentence_b)), encoder.name)

    boxes = [widgets.Text(value=text, description=label, continuous_update=False, layout=widgets.Layout(width="48%"))
             for text, label in zip(first, ("sentence A", "sentence B"))]
    last = encoder.num_hidden_states - 1
    layer = widgets.IntSlider(value=last, min=0, max=last, description="layer", continuous_update=False)
    figure = interactive_figure(make_figure, sentence_a=boxes[0], sentence_b=boxes[1], layer=layer)
    if not known:
        return figure
    picker = widgets.Dropdown(options=_pair_options(pairs), value=OWN_PAIR_VALUE, description="STS-B pair",
                              layout=widgets.Layout(width="98%"))
    _link_picker_to_boxes(picker, boxes, pairs)
    return widgets.VBox([picker, figure])


def _link_picker_to_boxes(picker: widgets.Dropdown, boxes: list[widgets.Text], pairs) -> None:
    """A picked pair fills the boxes; a box then typed in sets the picker back to :data:`OWN_PAIR`."""
    filling = []

    def fill(change) -> None:
        if change["new"] != OWN_PAIR_VALUE:
            filling.append(True)
            try:
                boxes[0].value, boxes[1].value = pairs.sentences1[change["new"]], pairs.sentences2[change["new"]]
            finally:
                filling.pop()

    def typed(_change) -> None:
        if not filling and picker.value != OWN_PAIR_VALUE:
            picker.value = OWN_PAIR_VALUE

    picker.observe(fill, names="value")
    for box in boxes:
        box.observe(typed, names="value")


def _pair_options(pairs) -> list[tuple[str, int]]:
    order = np.argsort(-pairs.scores, kind="stable")
    shorten = lambda text: text if len(text) <= 45 else text[:44] + "…"  # noqa: E731
    return [(OWN_PAIR, OWN_PAIR_VALUE)] + [
        (f"gold {pairs.scores[i]:.1f}: {shorten(pairs.sentences1[i])} | {shorten(pairs.sentences2[i])}", int(i)) for i in order
    ]


def embedding_explorer(encoder, sentences: Sequence[str], batch_size: int = 32) -> widgets.VBox:
    """A layer slider and a "remove the mean vector" switch over :func:`embedding_figure`.

    All layers of all ``sentences`` are encoded once up front, so moving a control only
    redraws.
    """
    sentences = list(dict.fromkeys(sentences))  # duplicates would add cosines of exactly 1
    if len(sentences) < 3:
        raise ValueError(f"embedding_explorer needs at least 3 different sentences, got {len(sentences)}.")
    vectors = layer_sentence_vectors(encoder, sentences, batch_size)
    last = len(vectors) - 1
    layer = widgets.IntSlider(value=last, min=0, max=last, description="layer", continuous_update=False)
    centre = widgets.Checkbox(value=False, description="remove the mean vector")

    def make_figure(layer: int, centre: bool) -> go.Figure:
        return embedding_figure(vectors, layer, centre, sentences, encoder.name)

    return interactive_figure(make_figure, layer=layer, centre=centre)
