"""Scoring embeddings: STS correlations, similarity functions, baselines, search, provenance (``03_pooling_and_sts.ipynb``).

``similarity`` holds every similarity (cosine, dot, negated distances; row by row, as matrices,
their mean over all pairs), ``arrays`` turns embeddings into one array or tensor type,
``projection`` gives embeddings 2-D or 3-D coordinates for pictures (``02``, ``05``), ``sts`` computes
Spearman/Pearson against gold scores with both aggregations, ``baselines``
recomputes SBERT's Table 1 rows, ``comparison`` is the one table comparing any methods that turn
sentences into vectors (``05``), ``geometry`` the singular spectrum, alignment and uniformity (``02``),
``probes`` the logistic-regression probes on pair features, ``search`` is semantic search with a bi-encoder and what a
cross-encoder would cost instead (taught in ``04``), ``provenance``
makes every table say which model, pooling, aggregation and split produced it (``00``), ``plots``
draws STS results. ``thresholds`` chooses a threshold on one split and reads it on another, ``probabilities`` makes a
score a probability (isotonic, logistic) and measures its calibration (reliability, ECE), ``minimal_pairs`` builds
CheckList-style perturbations of a sentence against its paraphrase (all three taught in ``09``). ``uncertainty`` gives
the 95 % intervals (paired bootstrap over test pairs, seeds, σ/√n), ``interval_plots`` the forest plot of differences,
``geometry_intervals`` intervals for changes in alignment and uniformity, ``rerank`` retrieval then reranking (``08``).
Reads from ``data`` and ``encoding``; the lesson subpackages build on it.
Imported by: anisotropy, calibration, mlm, training, checks, cost, diagnosis, environment, solutions, classroom, cli,
lessons and the package's __init__.
"""
