"""What is left of the application drawer while it is split into rooms: the command line and the install checks.

``cli`` is ``python -m sbert_workbook`` (``00_start_here.ipynb``); ``colab_check``, ``binder_check``, ``binder_memory``, ``release`` and ``release_check`` install the
workbook as Colab, Binder and a students' release do. Layer 8: nothing in the package imports it.
"""
