"""The read-only edition: every notebook executed and exported as static pages (``./workbook book``).

``build`` runs the notebooks (or reads executed copies) and writes ``build/book/``, a contents page with each
notebook's purpose and objectives (every notebook from ``00_start_here.ipynb`` to the last); ``assets`` copies the
JavaScript the pages need out of the repository's ``book/`` folder (npm's ``package.json`` and ``node_modules/``), so
the book opens with no network; ``handouts`` writes one printable page per notebook. Not to be confused with the
repository's ``book/`` (the npm folder) or ``build/book/`` (the output). Layer 7.
Imported by: cli and installs.
"""
