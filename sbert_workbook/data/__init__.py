"""Benchmark data: the one registry, where files are found, how they are read (``00`` and ``03``).

Data flows one way: ``registry`` (what each data set is and where it comes from) → finding local
files, reading them, or fetching them from the hub → the public loaders ``load_sts`` / ``load_nli``.
Introduced in ``00_start_here.ipynb`` (the registry table) and ``03_pooling_and_sts.ipynb`` (STS).
"""
