"""Reference solutions of the notebooks' exercises, out of the student's sight (``00_start_here.ipynb`` to ``06_contrastive_simcse.ipynb``).

One module per notebook (``nb01.py`` for ``01_mlm_to_similarity``), one function ``exNN_K`` per checked exercise,
each listing plausible wrong answers, and a ``DISCUSSION`` dict of model answers to the open questions.
Notebooks reach them only through :func:`sbert_workbook.teaching.exercises.solution_or` when ``SOLUTIONS = True`` or
``SBERT_WORKBOOK_SOLUTIONS=1``; ``./workbook solutions`` writes the solved notebooks to ``build/solutions/``.
``classroom`` holds the classroom explorers' model answers. Layer 5, below the lessons: a reference computes from
what the check passes it and imports no lesson (``teaching.exercises`` loads it by name).
Imported by: nothing in the package.
"""
