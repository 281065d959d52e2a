"""Post-hoc calibration of sentence embeddings: BERT-flow and its rivals (``05_bert_flow.ipynb``).

``flow`` is the Glow-style normalizing flow, ``flow_fit`` fits it by maximum likelihood on frozen
embeddings, ``calibrators`` gives standard normalisation, nulling top singular directions,
whitening and the flow one ``fit``/``transform`` interface, ``lexical`` is the edit-distance analysis
(BERT-flow Table 6), ``plots`` draws the figures.
"""
