"""Siamese fine-tuning, Sentence-BERT style (``04_siamese_finetuning.ipynb``).

``siamese`` is the network (one transformer, a pooling, an optional classifier), ``losses`` the
losses written on embeddings (classification, regression, triplet, in-batch negatives),
``objectives`` the registry ``fit`` reads (one function and one entry per objective),
``examples`` builds training pairs and triplets from NLI and STS, ``fitting`` is ``fit``, the one
training loop, on top of accelerate, ``cross_encoder`` is the cross-encoder trained beside the
bi-encoder by the same ``fit`` (§1), ``checkpoints``
makes runs resumable, ``ablations`` runs the paper's Table 6 ablations, ``plots`` draws SBERT's two
architectures, training curves and the before/after table.
"""
