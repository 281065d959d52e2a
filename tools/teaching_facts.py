"""What TEACHING.md's generated tables are made of, besides the notebooks themselves (see ``tools/teaching_guide.py``).

Each entry names the code or the constant it stands for, so that ``tools/teaching_guide.py`` resolves it (an
import, a ``published.py`` constant, a notebook section) and fails when it moved: nothing here is a number.
Sections are given by their number in the notebook (``"3"`` for ``## 3 · …``); the guide prints the heading.
"""
from __future__ import annotations

#: The planning allowance for discussion, counted from the notebooks (stated in TEACHING.md).
MINUTES_PER_EXERCISE = 3  #: each code cell tagged ``exercise``: try it, read the check, discuss
MINUTES_PER_PREDICT = 2  #: each cell tagged ``predict``: vote, run, explain
READING_WORDS_PER_MINUTE = 150  #: the section's markdown, read or presented aloud
SESSION_MINUTES = 90

#: The equation sheet: (what, equation, implemented by "module:attribute", notebook, section).
EQUATIONS = [
    ("MLM softmax (BERT-flow Eq. 1)", "p(x | c) = exp(h_cᵀw_x) / Σ_x′ exp(h_cᵀw_x′)",
     "sbert_workbook.mlm.tiny:TinyMlm.word_logits", "01_mlm_to_similarity", "1"),
    ("logit ≈ PMI + log p(x) (BERT-flow Eq. 2–3, up to λ_c per context)", "h_cᵀw_x ≈ PMI(x, c) + log p(x) + λ_c, "
     "PMI(x, c) = log p(x | c) − log p(x)", "sbert_workbook.mlm.tiny:logit_fit", "01_mlm_to_similarity", "5"),
    ("exact PMI of the toy language", "PMI(x, c) = log p(x | c) − log p(x)",
     "sbert_workbook.mlm.toy_language:MarkovLanguage.pmi", "01_mlm_to_similarity", "3"),
    ("mean pooling", "u = (1/n) Σ_{t: mask_t = 1} h_t", "sbert_workbook.encoding.pooling:mean_pooling",
     "03_pooling_and_sts", "2"),
    ("CLS pooling", "u = h_[CLS]", "sbert_workbook.encoding.pooling:cls_pooling", "03_pooling_and_sts", "2"),
    ("max pooling", "u_d = max_{t: mask_t = 1} h_{t,d}", "sbert_workbook.encoding.pooling:max_pooling",
     "03_pooling_and_sts", "2"),
    ("classification objective (SBERT §3)", "o = softmax(W_t (u, v, |u − v|)), W_t ∈ ℝ^{3d × k} (d: embedding size, "
     "k: number of labels, 3 for NLI); cross-entropy",
     "sbert_workbook.training.losses:classification_loss", "04_siamese_finetuning", "3"),
    ("regression objective (SBERT §3)", "L = mean_i (cos(u_i, v_i) − y_i)², y scaled to [0, 1]",
     "sbert_workbook.training.losses:cosine_regression_loss", "04_siamese_finetuning", "3"),
    ("triplet objective (SBERT §3)", "L = max(‖a − p‖ − ‖a − n‖ + ε, 0), ε = 1",
     "sbert_workbook.training.losses:triplet_loss", "04_siamese_finetuning", "3"),
    ("multiple-negatives ranking (in-batch negatives; Henderson et al. 2017, arXiv 1705.00652)",
     "L_i = −log softmax_j(s · cos(a_i, c_j))|_{j = i}, s = 20: InfoNCE with temperature τ = 1/s = 0.05",
     "sbert_workbook.training.losses:multiple_negatives_ranking_loss", "04_siamese_finetuning", "3"),
    ("change of variables (flow; f maps u to z = f(u), the paper's f_φ⁻¹)",
     "log p_U(u) = log p_Z(f(u)) + log |det ∂f/∂u|, p_Z = N(0, I)",
     "sbert_workbook.calibration.flow:Glow.log_prob", "05_bert_flow", "6"),
    ("whitening (Su et al. 2021)", "x̃ = (x − μ) W, W = U Λ^{−1/2} from Σ = U Λ Uᵀ (first k columns: whitening-k)",
     "sbert_workbook.calibration.calibrators:Whitening", "05_bert_flow", "5"),
    ("InfoNCE (SimCSE Eq. 1; 04's in-batch negatives at s = 1/τ)",
     "ℓ_i = −log e^{sim(h_i, h_i⁺)/τ} / Σ_j e^{sim(h_i, h_j⁺)/τ}, sim = cosine, τ = 0.05",
     "sbert_workbook.training.contrastive:info_nce_loss", "06_contrastive_simcse", "1"),
    ("alignment and uniformity (Wang & Isola 2020, SimCSE §5)",
     "ℓ_align = E‖f̂(x) − f̂(x⁺)‖², ℓ_uniform = log E e^{−2‖f̂(x) − f̂(y)‖²}, on unit vectors",
     "sbert_workbook.evaluation.geometry:alignment", "06_contrastive_simcse", "2"),
    ("Spearman's ρ (× 100)", "ρ = Pearson(rank(cos(u, v)), rank(gold)) = 1 − 6 Σ d_i² / (n(n² − 1)) without ties",
     "sbert_workbook.evaluation.sts:correlations", "03_pooling_and_sts", "1"),
]

#: Key numbers: (published.py constant, row, column or None for a scalar/dict entry).
KEY_NUMBERS = [
    ("SBERT_TABLE1", "Avg. GloVe embeddings", "avg"), ("SBERT_TABLE1", "Avg. BERT embeddings", "avg"),
    ("SBERT_TABLE1", "BERT CLS-vector", "avg"), ("SBERT_TABLE1", "SBERT-NLI-base", "avg"),
    ("SBERT_TABLE2", "BERT-NLI-STSb-base", "stsb"), ("SBERT_TABLE2", "SBERT-NLI-STSb-base", "stsb"),
    ("SBERT_TABLE6", "MEAN", "nli"), ("SBERT_TABLE6", "MAX", "stsb"), ("SBERT_TABLE6", "MEAN", "stsb"),
    ("SBERT_TABLE6", "(u, v)", "nli"), ("SBERT_TABLE6", "(u, v, |u-v|)", "nli"),
    ("BERT_FLOW_TABLE2", "BERT-base", "stsb"), ("BERT_FLOW_TABLE2", "BERT-base-last2avg", "stsb"),
    ("BERT_FLOW_TABLE2", "BERT-base-flow (NLI)", "stsb"), ("BERT_FLOW_TABLE2", "BERT-base-flow (target)", "stsb"),
    ("BERT_FLOW_TABLE3", "BERT-base-NLI", "stsb"), ("BERT_FLOW_TABLE3", "BERT-base-NLI-flow (target)", "stsb"),
    ("BERT_FLOW_TABLE5", "+ SN", "stsb"), ("BERT_FLOW_TABLE5", "+ SN + NATSV (k=6)", "stsb"),
    ("BERT_FLOW_TABLE6", "BERT-induced similarity", "edit distance"),
    ("BERT_FLOW_TABLE6", "Flow-induced similarity", "edit distance"),
    ("SIMCSE_TABLE_C1", "BERT-flow (target)", "stsb"), ("SIMCSE_TABLE_C1", "BERT-whitening (target)", "stsb"),
    ("BERT_FLOW_TABLE1", "mean L2 norm", None), ("SBERT_TABLE7", "SBERT-base - smart batching", None),
    ("SBERT_CLUSTERING_COST", "BERT (cross-encoder) hours", None), ("SBERT_CLUSTERING_COST", "SBERT seconds", None),
    ("SIMCSE_TABLE3", "Unsup. SimCSE-BERT-base", "p=0.0"), ("SIMCSE_TABLE3", "Unsup. SimCSE-BERT-base", "p=0.1"),
    ("SIMCSE_TABLE5", "Unsup. SimCSE-BERT-base", "avg"), ("SIMCSE_TABLE5", "Sup. SimCSE-BERT-base", "avg"),
    ("ALL_MINILM_STSB", None, None),
]
#: Source lines of the published.py constants that are not PublishedTables.
PLAIN_SOURCES = {"BERT_FLOW_TABLE1": "BERT_FLOW_TABLE1_SOURCE", "SIMCSE_TABLE_C1": "SIMCSE_TABLE_C1_SOURCE",
                 "ALL_MINILM_STSB": "ALL_MINILM_SOURCE"}
PLAIN_NOTES = {"SBERT_TABLE7": "SBERT Table 7: sentences/s (CPU i7-5820K, GPU V100)",
               "SBERT_CLUSTERING_COST": "SBERT §8 (Conclusion): hierarchical clustering of 10,000 sentences"}

#: Paper → notebook: (paper, what the notebook shows, notebook, section, published.py constant or "").
PAPER_MAP = [
    ("BERT-flow 2011.05864", "§2.1 Eq. 1–3: MLM softmax, h_cᵀw_x ≈ PMI(x, c) + log p(x)", "01_mlm_to_similarity", "2", ""),
    ("BERT-flow 2011.05864", "§2.1 the logits checked against exact PMI on a toy language", "01_mlm_to_similarity", "5", ""),
    ("BERT-flow 2011.05864", "§1 anisotropy hypothesis: the cone", "02_anisotropy", "1", ""),
    ("BERT-flow 2011.05864", "Table 1: word-embedding norm by frequency", "02_anisotropy", "4", "BERT_FLOW_TABLE1"),
    ("BERT-flow 2011.05864", "Table 1: k-NN distances, sparse rare words", "02_anisotropy", "5", "BERT_FLOW_TABLE1"),
    ("BERT-flow 2011.05864", "§2, observation 2 carried to sentences (assumed there, measured here: frequency and "
     "length vs distance from the mean and Gaussian density)", "02_anisotropy", "5", ""),
    ("BERT-flow 2011.05864", "Table 5: SN and NATSV", "05_bert_flow", "4", "BERT_FLOW_TABLE5"),
    ("BERT-flow 2011.05864", "§3: change of variables, Glow, invertibility", "05_bert_flow", "6", ""),
    ("BERT-flow 2011.05864", "Tables 2 and 3: seven STS sets, flow (target / NLI)", "05_bert_flow", "7", "BERT_FLOW_TABLE2"),
    ("BERT-flow 2011.05864", "Table 6, Figure 2: lexical similarity and edit distance", "05_bert_flow", "8", "BERT_FLOW_TABLE6"),
    ("Sentence-BERT 1908.10084", "Table 1: GloVe / BERT mean / CLS baselines vs trained", "03_pooling_and_sts", "3", "SBERT_TABLE1"),
    ("Sentence-BERT 1908.10084", "Table 7: smart batching", "03_pooling_and_sts", "8", "SBERT_TABLE7"),
    ("Sentence-BERT 1908.10084", "Table 5: SentEval probes vs cosine", "03_pooling_and_sts", "9", "SBERT_TABLE5"),
    ("Sentence-BERT 1908.10084", "Table 2 and §8: cross- vs bi-encoder, accuracy and cost", "04_siamese_finetuning", "1",
     "SBERT_TABLE2"),
    ("Sentence-BERT 1908.10084", "Figures 1–2: the Siamese architectures", "04_siamese_finetuning", "2", ""),
    ("Sentence-BERT 1908.10084", "§3: classification, regression, triplet objectives", "04_siamese_finetuning", "3", ""),
    ("Sentence-BERT 1908.10084", "§3.1 recipe: batch 16, Adam 2e-5, 10 % warm-up, 1 epoch", "04_siamese_finetuning", "4", ""),
    ("Sentence-BERT 1908.10084", "Table 6: pooling and concatenation ablations", "04_siamese_finetuning", "6", "SBERT_TABLE6"),
    ("Whitening 2103.15316", "W = U Λ^{−1/2}, whitening-k", "05_bert_flow", "5", ""),
    ("Whitening 2103.15316", "whitening beside the flow in the seven-set table (as re-run by SimCSE)", "05_bert_flow", "7",
     "SIMCSE_TABLE_C1"),
    ("SimCSE 2104.08821", "`all` vs `wmean` aggregation: why published numbers disagree", "03_pooling_and_sts", "4", ""),
    ("SimCSE 2104.08821", "alignment and uniformity (Wang & Isola 2020), the lens SimCSE uses", "02_anisotropy", "7", ""),
    ("SimCSE 2104.08821", "Table C.1: BERT-flow and BERT-whitening under `all`", "05_bert_flow", "7", "SIMCSE_TABLE_C1"),
    ("SimCSE 2104.08821", "§4, Table 4: which positive pairs work best, and their lexical overlap", "05_bert_flow", "8",
     "SIMCSE_TABLE4"),
    ("SimCSE 2104.08821", "Eq. 1 and Table D.1: InfoNCE, temperature τ = 0.05", "06_contrastive_simcse", "1", "SIMCSE_TABLE_D1"),
    ("SimCSE 2104.08821", "§3, Figure 2: unsupervised SimCSE, alignment and uniformity while training", "06_contrastive_simcse",
     "2", ""),
    ("SimCSE 2104.08821", "Tables 3 and 1: dropout p, discrete augmentations", "06_contrastive_simcse", "3", "SIMCSE_TABLE3"),
    ("SimCSE 2104.08821", "§4, Table 6: supervised SimCSE (entailment +, contradiction −)", "06_contrastive_simcse", "4",
     "SIMCSE_TABLE6"),
    ("SimCSE 2104.08821", "Table 5, §5: seven STS sets and the singular spectrum", "06_contrastive_simcse", "5", "SIMCSE_TABLE5"),
    ("SimCSE 2104.08821", "Appendix E, Table E.1: transfer probes; flow and whitening hurt", "06_contrastive_simcse", "6",
     "SIMCSE_TABLE_E1"),
]

#: The 90-minute path: the core sections less these subsections (by number: "6.2" is ``### 6.2 · …``), which the room
#: reads at home; the path's exercises are homework too (their check cells grade them there), its predict questions
#: stay in class. What is left is planned to end SLACK_MINUTES early, for set-up and questions.
PATH_LEAVES_FOR_READING = {
    "03_pooling_and_sts": ("3a",),  # which GloVe ran and why its row differs from the paper's
    "05_bert_flow": ("6.2", "6.3"),  # the bent 2-D cloud and invertible-vs-projection: 6.1's idea and 6.4's Glow stay
    "06_contrastive_simcse": ("5.1", "5.2"),  # the start model's rows and the frequency test: the plane itself stays
}
SLACK_MINUTES = 15
#: (notebook, section) the path must teach, whatever else changes: the flow and SimCSE's alignment-uniformity plane.
PATH_MUST_TEACH = (("05_bert_flow", "6"), ("06_contrastive_simcse", "5"))
