"""The manifest of ``08_what_an_embedding_costs.ipynb``: its sizes per mode, the equations it teaches and the results
it puts on the cost–quality plane.

Read by the notebook's set-up (``sbert_workbook.lessons.nb08.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_EXAMPLE, TOKENS_PER_SENTENCE, seven_set_sentences
from sbert_workbook.forecast.work import EMBEDDED, encode, load, measured_cpu, train
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """The set-up reads the STS sample, the queries, the corpus and the calibration sentences once through MODEL; §2-§5
    store, search and score those vectors on the CPU; §3.1 trains MODEL (full mode), §4 distils it (on the CPU), §5.1
    reads more sentences to grow the corpus, §5.2 times MODEL at each precision, §6 trains a cross-encoder."""
    width, pairs, resampled = plan.model.hidden / 384, 7 * (sizes["PAIRS_PER_SET"] or 2690), sizes["RESAMPLES"] / 2000
    s7, corpus = seven_set_sentences(sizes["PAIRS_PER_SET"]), sizes["CORPUS_SIZE"]
    read = s7 + 338 + corpus + sizes["CALIBRATION_SENTENCES"]
    extra = max(0, max(sizes["SWEEP_SIZES"]) - corpus)
    precisions = 3 if plan.device == "cpu" else 2
    timed = precisions * (2 * (1 + sizes["ENCODER_REPEATS"]) * sizes["ENCODER_TIMED_SENTENCES"] + s7)
    rerank_model = "embedded" if sizes["RERANK_START"] == "embedded" else "lesson"
    queries = min(sizes["RERANK_QUERIES"] or 338, 338)
    steps = [load("setup", "begin(", plan.model),
             encode("setup", "begin(", "the STS sample, the queries, the corpus and the calibration sentences", read, 14.2),
             measured_cpu("setup", "begin(", "one query at a time, timed", "08 timed query", sizes["TIMED_QUERIES"] * width),
             measured_cpu("2", "quantized(", "int8 and binary storages, searched and scored", "08 storage",
                           5 * corpus / 1000 * width * (sizes["REPEATS"] + 1)),
             measured_cpu("2", "quantized(", "four paired bootstraps", "bootstrap pair", 4 * pairs * resampled),
             measured_cpu("3", "fewer_dimensions(", "first k, PCA-k and whitening-k storages", "08 storage",
                          17 * corpus / 1000 * width * (sizes["REPEATS"] + 1)),
             measured_cpu("3", "fewer_dimensions(", "sixteen paired bootstraps", "bootstrap pair", 16 * pairs * resampled),
             measured_cpu("4", "static_model(", "model2vec's distillation (on the CPU) and the static model's rows",
                          "08 distillation", plan.model.parameters / EMBEDDED.parameters),
             measured_cpu("5", "approximate_index(", "HNSW indexes over the corpus", "08 hnsw vector", 2 * corpus * width),
             encode("5.1", "corpus_growth(", "the sentences that grow the corpus", extra, 15.4),
             measured_cpu("5.1", "corpus_growth(", "each size searched four ways (HNSW built anew)", "08 hnsw vector",
                          sum(sizes["SWEEP_SIZES"]) * width * (sizes["SWEEP_REPEATS"] + 1) / 3),
             encode("5.2", "encoder_precisions(", "MODEL at each precision and sentence-transformers, timed", timed, 14.2),
             load("5.2", "encoder_precisions(", plan.model, precisions),
             measured_cpu("6", "reranked(", "the cross-encoder's training run", "fit call"),
             train("6", "reranked(", "the cross-encoder on STS-B train", sizes["RERANK_STEPS"] or 360, 16,
                   TOKENS_PER_EXAMPLE["cross pair"], model=rerank_model),
             encode("6", "reranked(", "the reranked (query, sentence) pairs", queries * sum(sizes["RERANK_KS"]),
                    TOKENS_PER_EXAMPLE["cross pair"] / 2, model=rerank_model),
             measured_cpu("rest", "", "the reports and the plane", "08 rest")]
    if sizes["MATRYOSHKA_STEPS"]:
        runs = 2 * sizes["MATRYOSHKA_SEEDS"]
        steps += [train("3.1", "matryoshka(", "plain and Matryoshka training, per seed", runs * sizes["MATRYOSHKA_STEPS"],
                        sizes["MATRYOSHKA_BATCH"], TOKENS_PER_EXAMPLE["matryoshka pair"]),
                  encode("3.1", "matryoshka(", "the seven sets after each run", runs * s7, TOKENS_PER_SENTENCE["seven sets"]),
                  load("3.1", "matryoshka(", plan.model, runs),
                  measured_cpu("3.1", "matryoshka(", "the runs' start and end", "fit call", runs)]
    return steps


MANIFEST = Manifest(
    notebook="08_what_an_embedding_costs",
    objectives=(
        "measure what a vector costs in bytes and milliseconds, and what int8, binary and fewer dimensions keep",
        "pick a saving for a given budget from the cost–quality plane",
    ),
    sizes={
        "PAIRS_PER_SET": Size("test pairs sampled from each of the seven STS sets (None: all)", quick=300, full=None,
                              suite=12, standin=4),
        "CALIBRATION_SENTENCES": Size("NLI sentences (not the corpus) that fit int8's ranges, PCA-k and whitening-k "
                                      "(full: 5,000 of the 7,000 or so the full corpus leaves)",
                                      quick=2000, full=5_000, suite=60, standin=40),
        "CORPUS_SIZE": Size("§1: sentences the retrieval queries search: every match, then SNLI/MultiNLI sentences (the "
                            "shipped data holds about 27,000: full mode keeps some for calibration; §5.1 grows past it)",
                            quick=5000, full=20_000, suite=120, standin=40),
        "QUERIES": Size("§1: paraphrase queries from STS-B test pairs scored 4 or more (None: all)", quick=None,
                        full=None, suite=12, standin=4),
        "TIMED_QUERIES": Size("§1: queries encoded one at a time to time a query's encoding", quick=100, full=300,
                              suite=4, standin=2),
        "REPEATS": Size("timing repeats; each search time is the fastest", quick=5, full=9, suite=1),
        "RESAMPLES": Size("paired-bootstrap resamples per interval", quick=2000, full=2000, suite=200, standin=100),
        "DIMENSIONS": Size("§3: the k of first-k, PCA-k and whitening-k", quick=(256, 128, 64, 32),
                           full=(256, 128, 64, 32), standin=(64, 32)),
        "MATRYOSHKA_STEPS": Size("§3.1: steps of each training run, plain and Matryoshka (None: left out; quick mode "
                                 "leaves it out: two objectives × MATRYOSHKA_SEEDS runs are minutes each on a CPU; "
                                 "full_on_cpu leaves it out too: full mode's runs take hours on 2 cores; the suite "
                                 "takes quick mode's path, the stand-in runs it for a step)",
                                 quick=None, full=1000, suite=None, standin=1, full_on_cpu=None),
        "MATRYOSHKA_SEEDS": Size("§3.1: seeds per objective (the interval is over them)", quick=3, full=3, suite=2,
                                 standin=2),
        "MATRYOSHKA_BATCH": Size("§3.1: (anchor, entailment) pairs per step; the others in a batch are its negatives",
                                 quick=32, full=32, suite=4, standin=2),
        "STATIC_LONGEST_TOKEN": Size("§4: distil only tokens up to this many characters (None: the whole vocabulary)",
                                     quick=None, full=None, suite=3, standin=2),
        "SWEEP_SIZES": Size("§5.1: corpus sizes searched, §1's corpus grown with further shipped sentences (SNLI and "
                            "MultiNLI, then STS and SICK); the largest is encoded once (quick: the first tenfold, "
                            "5,000 sentences more to encode)", quick=(1000, 2000, 5000, 10_000),
                            full=(1000, 2000, 5000, 10_000, 20_000, 50_000), suite=(40, 80, 160), standin=(20, 40, 60)),
        "SWEEP_QUERIES": Size("§5.1: §1's queries each size is searched with (None: all)", quick=100, full=None, suite=6,
                              standin=3),
        "SWEEP_REPEATS": Size("§5.1: repeats of each search (the fastest is kept)", quick=2, full=5, suite=1),
        "RESCORE_MULTIPLIERS": Size("§5.1: binary candidates read per result kept, rescored with the float query",
                                    quick=(1, 2, 4, 8, 16), full=(1, 2, 4, 8, 16), suite=(1, 4)),
        "ENCODER_TIMED_SENTENCES": Size("§5.2: STS sentences each precision's encode is timed on, against "
                                        "sentence-transformers' encode on the same", quick=300, full=2000, suite=16,
                                        standin=8),
        "ENCODER_REPEATS": Size("§5.2: alternating rounds of the two encodes (the fastest of each is kept)", quick=2,
                                full=4, suite=1),
        "RERANK_START": Size("§6: the model the cross-encoder starts from (\"embedded\": the small embedded model, "
                             "trained in a minute or two on a CPU whatever MODEL is; None: MODEL itself, which with "
                             "bert-base-uncased took over 30 minutes on 2 cores)", quick="embedded", full=None, suite=None),
        "RERANK_QUERIES": Size("§6: queries the cross-encoder reranks for", quick=60, full=None, suite=6, standin=3),
        "RERANK_STEPS": Size("§6: steps training the cross-encoder on STS-B train, batch 16 (None: one epoch)",
                             quick=100, full=None, suite=4, standin=2),
        "RERANK_LEARNING_RATE": Size("§6: the cross-encoder's learning rate (a few hundred steps take a larger one "
                                     "than SBERT's 2e-5)", quick=1e-4, full=2e-5),
        "RERANK_KS": Size("§6: candidates the cross-encoder reads per query", quick=(10, 50), full=(10, 50),
                          standin=(5,)),
    },
    equations=(
        Equation("int8 quantization (per dimension, calibrated range)",
                 "Δ_j = (hi_j − lo_j)/255, q_ij = clip(⌊(x_ij − lo_j)/Δ_j⌋, 0, 255) − 128",
                 "sbert_workbook.cost.quantization:int8_vectors", "2"),
        Equation("binary quantization", "b_ij = [x_ij > 0], eight to a byte; hamming(a, b) = popcount(a XOR b)",
                 "sbert_workbook.cost.quantization:binary_vectors", "2"),
        Equation("Matryoshka representation learning (Kusupati et al. 2022; sentence-transformers' MatryoshkaLoss)",
                 "L = Σ_m c_m · L_MNRL(u_{1..m}, v_{1..m}), m ∈ {d, 256, 128, 64, 32}, c_m = 1",
                 "sbert_workbook.training.losses:matryoshka_loss", "3"),
        Equation("PCA-k", "u ↦ (u − μ) V_k, V_k the top k eigenvectors of the covariance",
                 "sbert_workbook.calibration.dimensions:PrincipalComponents", "3"),
    ),
    paper_map=(
        PaperLink("Embedding quantization (Shakir, Aarsen & Lee, Hugging Face, 2024)",
                  "binary and int8 vectors; binary search rescored with the float query", "2"),
        PaperLink("Matryoshka representation learning (Kusupati et al., NeurIPS 2022)", "the first k dimensions, and a "
                  "model trained so that they suffice", "3"),
        PaperLink("model2vec (Tulkens & van Dongen, 2024)", "a static model distilled from the transformer", "4"),
        PaperLink("HNSW (Malkov & Yashunin, 2018)", "an approximate index against exact search", "5"),
        PaperLink("Sentence-BERT 1908.10084", "§1: finding the most similar pair takes a cross-encoder a pass per pair, a "
                  "bi-encoder one per sentence; retrieve-then-rerank combines them, a common recipe, not SBERT's "
                  "proposal", "6"),
    ),
    own_session=True,
    story_in_full_mode=True,
    work=work,
)
