"""The manifest of ``02_anisotropy.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb02.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_SENTENCE
from sbert_workbook.forecast.work import EMBEDDED, encode, load, measured_cpu
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """The set-up reads every sentence through every layer of MODEL (and of the embedded model beside a raw one); the
    sections measure the vectors on the CPU: nearest neighbours, UMAP (full mode), uniformity, bootstraps."""
    n, models = 3 * sizes["N_PER_DATASET"], 1 if plan.embedded else 2
    sentences = n + (2552 if sizes["STSB_PAIRS"] is None else 1.85 * sizes["STSB_PAIRS"])
    queries = 1000 if sizes["QUERIES_PER_BUCKET"] is not None else 26535
    steps = [encode("setup", "begin(", "every sentence, every layer", sentences, TOKENS_PER_SENTENCE["stsb test"]),
             load("setup", "begin(", plan.model),
             measured_cpu("setup", "begin(", "word frequencies and views, per model", "02 set-up word",
                          models * sizes["N_WORDS"]),
             measured_cpu("4", "frequency_buckets(", "nearest neighbours of the ranked tokens, per model", "02 knn query",
                          models * queries * plan.model.hidden / 384),
             measured_cpu("rest", "", "the sections' reports, figures and bootstraps, per model", "02 rest", models)]
    if not plan.embedded:
        steps += [encode("setup", "begin(", "the same, through the embedded model beside MODEL", sentences,
                         TOKENS_PER_SENTENCE["stsb test"], model="embedded"),
                  load("setup", "begin(", EMBEDDED)]
    if plan.mode != "quick":
        steps.append(measured_cpu("3", "umap_view(", "UMAP of the sentence cloud", "umap point", n))
    return steps


MANIFEST = Manifest(
    notebook="02_anisotropy",
    objectives=(
        "measure anisotropy as the mean cosine of unrelated sentences",
        "show how a word's frequency biases its vector's norm and neighbours",
        "compute the alignment and uniformity of a set of embeddings",
    ),
    sizes={
        "N_PER_DATASET": Size("sentences per data set (STS-B, SICK, SNLI) in the 3-D view", quick=100, full=800, standin=16),
        "STSB_PAIRS": Size("STS-B test pairs for the cone, the spectrum and alignment/uniformity (None: all 1379)",
                           quick=None, full=None, standin=40),
        "N_WORDS": Size("words of the wordfreq list mapped onto WordPiece tokens (the frequency ranks of §4-§5)",
                        quick=30_000, full=100_000),
        "QUERIES_PER_BUCKET": Size("k-NN queries per frequency bucket in §4's table (None: every ranked token)",
                                   quick=300, full=None, standin=50),
        "GLOVE_WORDS": Size("GloVe's most frequent words in §4's GloVe table (about BERT's 30,522-token vocabulary)",
                            quick=30_000, full=30_000),
        "NORM_SAMPLE": Size("ranked tokens drawn for §4's norm-against-frequency figure", quick=6000, full=6000),
        "RANKED_SAMPLE": Size("ranked tokens drawn for §5's k-NN distance figure", quick=1500, full=6000),
        "WORD_MAP_TOKENS": Size("tokens drawn per frequency bucket for §5's 2-D word map", quick=(100, 400, 700, 800),
                                full=(100, 400, 700, 800)),
        "MAX_TOKENS": Size("contextual token vectors kept per layer (§1's token line, §6's tokens column)",
                           quick=2000, full=8000),
        "HISTOGRAM_PAIRS": Size("random sentence pairs per view in §1's cosine histogram", quick=3000, full=3000),
    },
    equations=(
        Equation('mean cosine of random pairs (the cone), in one pass',
                 'cos̄ = (‖Σ_i x̂_i‖² − n) / (n(n − 1)), x̂_i = x_i / ‖x_i‖',
                 'sbert_workbook.evaluation.similarity:mean_cosine', '1'),
        Equation('share of the k-th principal direction (uncentred: the common direction)',
                 'r_k = σ_k² / Σ_j σ_j², σ the singular values of X (centred: PCA)',
                 'sbert_workbook.evaluation.geometry:principal_variance_ratios', '2'),
        Equation('mean norm and mean k-NN distance per frequency bucket (BERT-flow Table 1)',
                 'norm(B) = (1/|B|) Σ_{t∈B} ‖w_t‖, kNN(B) = (1/|B|) Σ_{t∈B} (1/k) Σ_{u∈N_k(t)} ‖w_t − w_u‖',
                 'sbert_workbook.anisotropy.metrics:frequency_bucket_table', '4'),
    ),
    paper_map=(
        PaperLink('BERT-flow 2011.05864', '§1 anisotropy hypothesis: the cone', '1'),
        PaperLink('BERT-flow 2011.05864', '§2.2 Observation 1 (word frequency biases the embedding space), Table 1 upper '
                  'half: word-embedding norm by frequency', '4', 'BERT_FLOW_TABLE1'),
        PaperLink('BERT-flow 2011.05864', '§2.2 Observation 2 (low-frequency words disperse sparsely), Table 1 lower '
                  'half: k-NN distances', '5', 'BERT_FLOW_TABLE1'),
        PaperLink('BERT-flow 2011.05864', '§2.2 Observations 1 and 2 carried to sentences (assumed there, measured here: '
                  'frequency and length vs distance from the mean, Observation 1, and Gaussian density, Observation 2)', '5'),
        PaperLink('SimCSE 2104.08821', 'alignment and uniformity (Wang & Isola 2020), the lens SimCSE uses', '7'),
    ),
    story_in_full_mode=True,
    work=work,
)
