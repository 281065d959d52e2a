"""Your model, diagnosed: the workbook's measurements and fixes on any embedding model (``07_your_model.ipynb``).

``cone`` measures how narrow the space is (the mean cosine of random pairs, the top direction's share, the effective
rank, Rudman et al.'s IsoScore), ``rogue`` finds the few dimensions that dominate cosine (Timkey & van Schijndel), the
``fixes`` are 05's calibrators (with Rajaee & Pilehvar's per-cluster all-but-the-top) as the rungs of a ladder, ``ladder``
scores every fix on the seven STS sets with its paired-bootstrap interval and computes the verdict, ``subjects`` loads
what can be diagnosed (a model folder or hub id, GloVe, 01's tiny MLM), ``run`` does it all with a progress bar, and
``page`` writes the one-page report (HTML and JSON) that ``python -m sbert_workbook diagnose MODEL`` leaves behind;
``frequency`` and ``plane`` are 02's frequency reading and 06's alignment–uniformity plane, on the model diagnosed.
A layer above the lessons it reuses (anisotropy, calibration, training): nothing below imports it.
Imported by: cost, cli and lessons.
"""
