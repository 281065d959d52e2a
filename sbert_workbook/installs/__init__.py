"""The workbook as others install it: Google Colab, Binder and a students' release, each checked as it is met.

``colab_check`` is ``./workbook colab-check`` (the built wheel at Colab's Python and versions, every notebook from
``00_start_here.ipynb`` on); ``binder_check`` is ``./workbook binder-check`` (a venv made from ``binder/``, every
notebook within Binder's memory through ``binder_memory``, one classroom page); ``release`` writes a students' release
without the answer key and ``release_check`` runs one from its own wheel. Layer 8.
Imported by: cli.
"""
