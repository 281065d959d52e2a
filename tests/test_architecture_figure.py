"""04 §2's diagram of SBERT's two architectures: every box drawn, every label where the paper's structure puts it."""
from __future__ import annotations

from sbert_workbook.training.plots import sbert_architectures_figure


def test_both_architectures_have_two_siamese_towers_and_their_own_head():
    figure = sbert_architectures_figure()
    boxes = {}
    for shape in figure.layout.shapes:
        assert shape.type == "rect"
        boxes.setdefault(shape.name, []).append(((shape.x0 + shape.x1) / 2, (shape.y0 + shape.y1) / 2))
    # per architecture: sentence, BERT, pooling and vector for each of the two sentences, plus two head boxes
    assert len(figure.layout.shapes) == 2 * (2 * 4 + 2)
    for label in ("BERT", "pooling"):
        assert len(boxes[label]) == 4  # two towers in each of the two architectures
    assert {name: len(boxes[name]) for name in ("Sentence A", "Sentence B", "u", "v")} == dict.fromkeys(
        ("Sentence A", "Sentence B", "u", "v"), 2)
    classification, regression = boxes["(u, v, |u−v|)"][0], boxes["cosine-sim(u, v)"][0]
    assert classification[0] < regression[0]  # classification on the left, regression / inference on the right
    assert boxes["softmax classifier"][0][1] > classification[1]  # the softmax sits on top of the concatenation
    assert boxes["score in [−1, 1]"][0][1] > regression[1]
    assert all(y_bert < y_pool < y_vec for (_, y_bert), (_, y_pool), (_, y_vec) in
               zip(boxes["BERT"], boxes["pooling"], boxes["u"] + boxes["v"]))
    texts = [annotation.text for annotation in figure.layout.annotations]
    assert sum("shared" in text for text in texts) == 2  # the Siamese weight sharing is marked in both
    assert any("classification" in text for text in texts) and any("inference" in text for text in texts)
    arrows = [annotation for annotation in figure.layout.annotations if annotation.showarrow]
    assert len(arrows) == 2 * (2 * 3 + 2 + 1)  # up each tower, both vectors into the head, through the head
