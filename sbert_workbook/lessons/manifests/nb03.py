"""The manifest of ``03_pooling_and_sts.ipynb``: its sizes per mode, the equations it teaches and the paper results it shows.

Read by the notebook's set-up (``sbert_workbook.lessons.nb03.begin``), the tests' notebook runs, tools/story_check.py
and tools/teaching_guide.py (docs/adding-a-lesson.md).
"""
from __future__ import annotations

from sbert_workbook.forecast.reference import TOKENS_PER_EXAMPLE, TOKENS_PER_SENTENCE, seven_set_sentences
from sbert_workbook.forecast.work import EMBEDDED, encode, load, measured_cpu, train
from sbert_workbook.lessons.manifest import Equation, Manifest, PaperLink, Size


def work(sizes, plan):
    """§3 reads the seven sets through every layer of MODEL once (every pooling reads the same pass), §6 trains and
    runs a cross-encoder from the trained model (the embedded one when MODEL is raw), §7-§9 time and probe."""
    trained = "lesson" if plan.embedded else "embedded"
    s7 = seven_set_sentences(sizes["PAIRS_PER_SET"])
    rerank_pairs = 1379 if sizes["RERANK_PAIRS"] is None else sizes["RERANK_PAIRS"]
    queries = 338 if sizes["RERANK_QUERIES"] is None else sizes["RERANK_QUERIES"]
    reranked = queries * sum(sizes["RERANK_KS"]) + (1379 if sizes["PAIRS_PER_SET"] is None else sizes["PAIRS_PER_SET"])
    rerank_steps = 360 if sizes["RERANK_STEPS"] is None else sizes["RERANK_STEPS"]
    probe_pairs = 4906 + 4439 if sizes["PROBE_PAIRS"] is None else 2 * sizes["PROBE_PAIRS"]
    steps = [load("setup", "begin(", plan.model),
             encode("3", "recompute_table1(", "the seven sets, every layer", s7, TOKENS_PER_SENTENCE["seven sets"]),
             measured_cpu("3", "recompute_table1(", "GloVe rows and the bootstraps over the seven sets", "03 table1 pair",
                          7 * (sizes["PAIRS_PER_SET"] or 2690)),
             measured_cpu("4", "all_and_wmean(", "the aggregation's bootstraps", "03 aggregation"),
             measured_cpu("6", "retrieve_and_rerank(", "the training run's start and end", "fit call"),
             train("6", "retrieve_and_rerank(", "the cross-encoder on STS-B train", rerank_steps, 16,
                   TOKENS_PER_EXAMPLE["cross pair"], model=trained),
             encode("6", "retrieve_and_rerank(", "the judges and the reranked (query, sentence) pairs",
                    reranked + 2 * rerank_pairs, TOKENS_PER_EXAMPLE["cross pair"], model=trained),
             measured_cpu("6", "retrieve_and_rerank(", "loading the cross-encoders and the search", "03 search"),
             encode("8", "smart_batching_report(", "the timed encodes", (1 + 2 * sizes["TIMING_ROUNDS"]) * 1.87 *
                    sizes["TIMING_PAIRS"], TOKENS_PER_SENTENCE["stsb test"]),
             encode("9", "sick_views(", "SICK's probe sentences, every layer", 1.2 * probe_pairs, TOKENS_PER_SENTENCE["sick"]),
             measured_cpu("rest", "", "the set-up, reports, figures and GloVe", "03 rest")]
    if plan.device == "cpu":  # §7 compares engines on the CPU only
        steps += [encode("7", "compare_engines(", "the timed sentences through PyTorch and ONNX Runtime",
                         4 * sizes["ENGINE_SENTENCES"], TOKENS_PER_SENTENCE["stsb test"]),
                  measured_cpu("7", "compare_engines(", "the ONNX export", "03 onnx export per Mweight",
                               plan.model.weights / 1e6)]
    if not plan.embedded:
        steps += [encode("3", "recompute_table1(", "the trained row: the embedded model on the seven sets", s7,
                         TOKENS_PER_SENTENCE["seven sets"], model="embedded"), load("3", "recompute_table1(", EMBEDDED)]
    return steps


MANIFEST = Manifest(
    notebook="03_pooling_and_sts",
    objectives=(
        "score a model on STS (Spearman of cosines against gold) and tell `all` from `wmean`",
        "compare poolings and GloVe, calling two rows apart only when a 95 % interval excludes 0",
        "say why search retrieves with a bi-encoder and reranks with a cross-encoder",
    ),
    sizes={
        "PAIRS_PER_SET": Size("pairs per STS test set, §3's table and everything read from it (None: every pair)",
                              quick=500, full=None, suite=20, standin=8),
        "PAIRS_PER_SUBSET": Size("§4: random pairs from every STS12-16 subset (None: all)", quick=6, full=None, standin=2),
        "SEARCH_SIZE": Size("§6: sentences of STS-B test and SNLI to search over (None: the STS-B sample and demo "
                            "sentences already embedded)", quick=None, full=3000),
        "RERANK_PAIRS": Size("§6: STS-B test pairs the retrieval set is built from (None: all)", quick=150, full=None,
                             standin=40, full_on_cpu=150),
        "RERANK_QUERIES": Size("§6: queries kept from them (None: all)", quick=16, full=None, suite=8, standin=4,
                               full_on_cpu=16),
        "RERANK_STEPS": Size("§6: steps training the cross-encoder on STS-B train, batch 16 (None: one epoch)", quick=4,
                             full=None, suite=2, standin=2, full_on_cpu=4),
        "RERANK_LEARNING_RATE": Size("§6: the cross-encoder's learning rate (quick mode's few steps take a larger one)",
                                     quick=1e-4, full=2e-5),
        "RERANK_KS": Size("§6: candidates k the cross-encoder reranks", quick=(3, 10), full=(5, 10, 20)),
        "ENGINE_SENTENCES": Size("§7: sentences each engine encodes", quick=200, full=2000, standin=16),
        "TIMING_PAIRS": Size("§8: STS-B test pairs whose sentences are timed", quick=64, full=1000, standin=16),
        "TIMING_ROUNDS": Size("§8: timed runs per batching (the fastest is kept)", quick=1, full=3),
        "PROBE_PAIRS": Size("§9: the first pairs of each SICK split the probes read (None: all)", quick=200, full=None,
                            standin=24),
    },
    equations=(
        Equation('mean pooling',
                 'u = (1/n) Σ_{t: mask_t = 1} h_t',
                 'sbert_workbook.encoding.pooling:mean_pooling', '2'),
        Equation('CLS pooling',
                 'u = h_[CLS]',
                 'sbert_workbook.encoding.pooling:cls_pooling', '2'),
        Equation('max pooling',
                 'u_d = max_{t: mask_t = 1} h_{t,d}',
                 'sbert_workbook.encoding.pooling:max_pooling', '2'),
        Equation("Spearman's ρ (× 100)",
                 'ρ = Pearson(rank(cos(u, v)), rank(gold)) = 1 − 6 Σ d_i² / (n(n² − 1)) without ties',
                 'sbert_workbook.evaluation.sts:correlations', '1'),
    ),
    paper_map=(
        PaperLink('Sentence-BERT 1908.10084', 'Table 1: GloVe / BERT mean / CLS baselines vs trained', '3', 'SBERT_TABLE1'),
        PaperLink('Sentence-BERT 1908.10084', 'Table 7: smart batching', '8', 'SBERT_TABLE7'),
        PaperLink('Sentence-BERT 1908.10084', 'Table 5: SentEval probes vs cosine', '9', 'SBERT_TABLE5'),
        PaperLink('SimCSE 2104.08821', '`all` vs `wmean` aggregation: why published numbers disagree', '4'),
    ),
    read_at_home=('3a',),
    story_in_full_mode=True,
    work=work,
)
