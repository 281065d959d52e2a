"""The manifest of ``01_mlm_to_similarity.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb01.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.work import load, measured_cpu
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """§4 trains the tiny MLM (on the CPU, whatever MODEL is); §5 fits its logits; §7 loads MODEL's MLM head."""
    return [measured_cpu("4", "tiny.train(", "the tiny MLM's training steps and snapshots", "01 tiny MLM step",
                         sizes["TRAIN_STEPS"]),
            measured_cpu("5", "logit_fit(", "the exact targets and the fit", "01 fit context", sizes["FIT_CONTEXTS"]),
            load("7", "real_head_or_none(", plan.model),
            measured_cpu("rest", "", "the set-up, the reports and figures", "01 rest")]


MANIFEST = Manifest(
    notebook="01_mlm_to_similarity",
    objectives=(
        "say why a masked LM's logits h_cᵀw_x should track PMI(x, c) + log p(x)",
        "check that claim on a tiny BERT trained on a language whose PMI is known",
    ),
    sizes={
        "TRAIN_STEPS": Size("training steps of the tiny MLM (batch 128)", quick=400, full=4000, standin=40),
        "HIDDEN_SIZE": Size("width of the tiny BERT", quick=64, full=64),
        "FIT_CONTEXTS": Size("fresh toy-language contexts the logit fit (§5) reads", quick=300, full=1000),
        "CONTEXT_PAIRS": Size("contexts whose pairs the similarity check (§5) compares", quick=120, full=300),
    },
    equations=(
        Equation('MLM softmax (BERT-flow Eq. 1)',
                 'p(x | c) = exp(h_cᵀw_x) / Σ_x′ exp(h_cᵀw_x′)',
                 'sbert_workbook.mlm.tiny:TinyMlm.word_logits', '1'),
        Equation('logit ≈ PMI + log p(x) (BERT-flow Eq. 2–3, up to λ_c per context)',
                 'h_cᵀw_x ≈ PMI(x, c) + log p(x) + λ_c, PMI(x, c) = log p(x | c) − log p(x)',
                 'sbert_workbook.mlm.tiny:logit_fit', '5'),
        Equation('exact PMI of the toy language',
                 'PMI(x, c) = log p(x | c) − log p(x)',
                 'sbert_workbook.mlm.toy_language:MarkovLanguage.pmi', '3'),
    ),
    paper_map=(
        PaperLink('BERT-flow 2011.05864', '§2.1 Eq. 1–3: MLM softmax, h_cᵀw_x ≈ PMI(x, c) + log p(x)', '2'),
        PaperLink('BERT-flow 2011.05864', '§2.1 the logits checked against exact PMI on a toy language', '5'),
    ),
    story_in_full_mode=True,
    work=work,
)
