"""The manifest of ``05_bert_flow.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb05.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.work import encode, load, measured_cpu
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """§1 reads every sentence the lesson needs through every layer of MODEL, once; every later section works on those
    vectors on the CPU (flows stay on the CPU on any device): SVDs, whitening, flows, bootstraps."""
    pairs = sizes["PAIRS_PER_SET"]
    share = 1.0 if pairs is None else min(1.0, pairs / 1000 * 20_955 / 67_971)
    bank = 67_971 * share
    stsb_fit = 15_487 if sizes["FIT_PAIRS"] is None else min(15_487, 5.66 * sizes["FIT_PAIRS"])
    flow_share = 1.0 if sizes["FIT_PAIRS"] is None else min(1.0, sizes["FIT_PAIRS"] / 1000 * 3_315 / 10_945)
    width = plan.model.hidden / 384
    test_pairs = 7 * (pairs or 2690)
    return [load("setup", "begin(", plan.model),
            encode("1", "encode_once(", "every sentence, every layer, once", bank, 14.7),
            measured_cpu("4", "choose_natsv_k(", "SVDs of the STS-B fit set, each view and k", "05 natsv sentence",
                         stsb_fit * width ** 2),
            measured_cpu("6.4", "fit_target_flow(", "a flow on the STS-B fit set", "flow step per 384 dims",
                         stsb_fit / 32 * width),
            measured_cpu("7", "seven_set_tables(", "8 flows per view (7 targets and NLI)", "flow step per 384 dims",
                         10_945 * flow_share * width),
            measured_cpu("7", "seven_set_tables(", "the linear fixes and the scoring", "05 seven-set pair", test_pairs),
            measured_cpu("7", "calibration_verdicts(", "12 paired bootstraps", "bootstrap pair", 12 * test_pairs),
            measured_cpu("7.1", "protocol_effects(", "the flow's seeds", "flow step per 384 dims",
                         sizes["FLOW_SEEDS"] * stsb_fit / 32 * width),
            measured_cpu("7.1", "protocol_effects(", "about 20 bootstraps", "bootstrap pair", 20 * test_pairs),
            measured_cpu("8", "lexical_table(", "10 paired bootstraps over STS-B dev", "bootstrap pair",
                         10 * (pairs or 1500)),
            measured_cpu("12", "gaussianisation_family(", "held-out likelihoods and scores of each fix", "05 family pair",
                         test_pairs * width),
            measured_cpu("12.1", "whitening_to_k(", "whitening to k: fits and 20 bootstraps", "bootstrap pair",
                         20 * test_pairs),
            measured_cpu("rest", "", "the reports, figures, GloVe (§11) and the banana flow (§6.2)", "05 rest")]


MANIFEST = Manifest(
    notebook="05_bert_flow",
    objectives=(
        "calibrate frozen embeddings with SN, NATSV, whitening and BERT-flow",
        "apply the change of variables to a flow's log-likelihood",
        "say from the seven-set table where calibration helps",
    ),
    sizes={
        "PAIRS_PER_SET": Size("STS pairs per test set, and STS-B dev pairs (NATSV's k, §8) (None: every pair)",
                              quick=1000, full=None, suite=20, standin=4),
        "FIT_PAIRS": Size("pairs read from each split for target fitting, beside the test pairs (None: all)",
                          quick=1000, full=None, suite=20, standin=4),
        "NLI_PAIRS": Size("SNLI and MultiNLI dev pairs each for the NLI fits (None: all)", quick=1000, full=None,
                          suite=50, standin=8),
        "ENCODE_BATCH": Size("sentences per forward pass in §1 (every layer's hidden states of a batch are held at once)",
                             quick=32, full=64, standin=8, full_on_cpu=32),
        "NATSV_MAX_K": Size("the largest k NATSV tries on STS-B dev (§4; the paper: 1 to 20)", quick=10, full=20),
        "FLOW_SEEDS": Size("seeds of the flow whose STS-B spread §7.1 prints", quick=3, full=3, suite=2),
        "TOY_POINTS": Size("points of the 2-D banana cloud, fitted on and again held out (§6.2)", quick=400, full=400),
        "GAUSSIAN_SAMPLES": Size("N(0, I) samples whose directions §6.2 draws", quick=2000, full=2000),
        "PICTURE_SENTENCES": Size("STS-B test sentences drawn in §9's projections", quick=400, full=400),
    },
    equations=(
        Equation("change of variables (flow; f maps u to z = f(u), the paper's f_φ⁻¹)",
                 'log p_U(u) = log p_Z(f(u)) + log |det ∂f/∂u|, p_Z = N(0, I)',
                 'sbert_workbook.calibration.flow:Glow.log_prob', '6'),
        Equation('whitening (Su et al. 2021)',
                 'x̃ = (x − μ) W, W = U Λ^{−1/2} from Σ = U Λ Uᵀ (first k columns: whitening-k)',
                 'sbert_workbook.calibration.calibrators:Whitening', '5'),
    ),
    paper_map=(
        PaperLink('BERT-flow 2011.05864', 'Table 5: SN and NATSV', '4', 'BERT_FLOW_TABLE5'),
        PaperLink('BERT-flow 2011.05864', '§3: change of variables, Glow, invertibility', '6'),
        PaperLink('BERT-flow 2011.05864', 'Table 7: the flow of its experiments (2 levels × depth 3, width 32)', '6'),
        PaperLink('BERT-flow 2011.05864', 'Tables 2 and 3: seven STS sets, flow (target / NLI)', '7', 'BERT_FLOW_TABLE2'),
        PaperLink('BERT-flow 2011.05864', 'Table 6, Figure 2: lexical similarity and edit distance', '8', 'BERT_FLOW_TABLE6'),
        PaperLink('BERT-flow 2011.05864', '§3.1: a flattened spectrum suppresses the frequency-related directions', '12'),
        PaperLink('Whitening 2103.15316', '§3.1: cosine assumes a standard orthogonal basis; W = U Λ^{−1/2}', '5'),
        PaperLink('Whitening 2103.15316', '§3.3, §4.4: whitening-k, smaller vectors and faster retrieval', '5'),
        PaperLink('Whitening 2103.15316', 'whitening beside the flow in the seven-set table (as re-run by SimCSE)', '7', 'SIMCSE_TABLE_C1'),
        PaperLink('SimCSE 2104.08821', 'Table C.1: BERT-flow and BERT-whitening under `all`', '7', 'SIMCSE_TABLE_C1'),
        PaperLink('SimCSE 2104.08821', '§4, Table 4: which positive pairs work best, and their lexical overlap', '8', 'SIMCSE_TABLE4'),
    ),
    read_at_home=('6.2', '6.3', '6.4', '7.1'),
    story_in_full_mode=True,
    work=work,
)
