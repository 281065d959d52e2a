"""The lessons' manifests, one module per notebook (``nbNN``), each holding ``MANIFEST`` (a
:class:`sbert_workbook.lessons.manifest.Manifest`). Introduced in ``00_start_here.ipynb``. Data, not code: layer 4,
just above what they read, so 07's diagnosis, the forecast and the command line take a lesson's sizes from them.
Imported by: forecast, diagnosis, runner, book, cli, installs and lessons.
"""
