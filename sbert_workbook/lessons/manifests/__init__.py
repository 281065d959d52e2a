"""The lessons' manifests, one module per notebook (``nbNN``), each holding ``MANIFEST`` (a
:class:`sbert_workbook.lessons.manifest.Manifest`). Introduced in ``00_start_here.ipynb``.
"""
