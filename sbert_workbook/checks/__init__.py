"""The truths some check cells compare with, computed here instead of in the cell (``01_mlm_to_similarity.ipynb``, 05, 06).

Where a check's reference is a one-line call the student could copy into the exercise (the package function the
exercise re-derives), the check cell calls ``check("exNN_K", answer, hint=...)`` with no expected value, and
:func:`sbert_workbook.teaching.exercises.check` computes it with ``exNN_K`` from ``checks/nbNN.py``, fed the notebook's
variables by name. Unlike ``solutions/``, these ship in every release: the checks must grade without the answer key.
One module per notebook (``nbNN``); layer 5, below the lessons: a reference receives what the check passes it and
imports no lesson (``teaching.exercises`` loads it by name).
Imported by: nothing in the package.
"""
