"""Post-hoc calibration of sentence embeddings: BERT-flow and its rivals (``05_bert_flow.ipynb``).

``flow`` is the Glow-style normalizing flow, ``flow_fit`` fits it by maximum likelihood on frozen
embeddings, ``calibrators`` gives standard normalisation, nulling top singular directions,
whitening and the flow one ``fit``/``transform`` interface, ``compare`` makes calibrators over
frozen pooled views rows of :mod:`sbert_workbook.evaluation.comparison`'s table, ``change_of_variables`` shows why the
flow must be invertible (the 1-D change of variables; what NATSV's projection loses), ``toy_flow`` fits
the flow on a 2-D cloud you can see, ``lexical`` is the edit-distance analysis (BERT-flow Table 6,
Figure 2), ``plots`` draws the figures.
``word_vectors`` has the same fixes two years earlier, on averaged GloVe: SIF and all-but-the-top;
``all_but_the_top`` is all-but-the-top and its per-cluster form as calibrators (07's ladder climbs them), ``dimensions``
keeps fewer dimensions as calibrators (the first k, centred or not, and PCA-k: 08 sets them beside whitening-k), ``family``
reads SN, whitening, whitening-k and the flow as densities, ``protocol`` compares the two aggregations (all vs wmean).
Layer 4, one lesson's room: it imports no other lesson's.
Imported by: checks, diagnosis, solutions and lessons.
"""
