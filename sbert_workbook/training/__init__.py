"""Siamese fine-tuning, Sentence-BERT style (``04_siamese_finetuning.ipynb``).

``siamese`` is the network (one transformer, a pooling, an optional classifier), ``losses`` the
losses written on embeddings (classification, regression, triplet, in-batch negatives),
``objectives`` the registry ``fit`` reads (one function and one entry per objective),
``examples`` builds training pairs and triplets from NLI and STS, ``fitting`` is ``fit``, the one
training loop, on top of accelerate, ``cross_encoder`` is the cross-encoder trained beside the
bi-encoder by the same ``fit`` (§1), ``checkpoints``
makes runs resumable, ``ablations`` runs the paper's Table 6 ablations, ``plots`` draws SBERT's two
architectures, training curves and the before/after table.

Contrastive learning (``06_contrastive_simcse.ipynb``): ``contrastive`` holds InfoNCE and SimCSE (fit's
``simcse`` objective, its MLP, dropout and the unsupervised pairs), ``gradient_cache`` keeps every in-batch
negative when ``fit`` must split a batch, ``isotropy`` scores trained models and calibrators as rows of one
table, ``contrastive_plots`` draws a run's alignment–uniformity path and the singular spectra, ``bag_of_words``
is 06's cone start (word vectors averaged). ``seeds`` runs one recipe over several seeds and ``scratch`` gives
folders removed when the process exits.
Imported by: manifests, diagnosis, lessons and the package's __init__.
"""
