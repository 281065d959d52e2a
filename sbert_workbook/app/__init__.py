"""What is left of the application drawer while it is split into rooms: the command line.

``cli`` is ``python -m sbert_workbook`` (``00_start_here.ipynb``). Layer 8: nothing in the package imports it.
"""
