"""The workbook as an application: command line, environment checks, headless runs, classroom app.

``cli`` is ``python -m sbert_workbook`` (``00_start_here.ipynb``); ``explorers`` are the classroom
explorers (``classroom/*.ipynb``) built on ``teaching.widgets.interactive_figure``, the one widget pattern every
notebook uses; ``classroom`` keeps those apps' set-up output (progress bars, logs, paths) off the
page. The top layer: it may import every other subpackage, and nothing imports it.
"""
