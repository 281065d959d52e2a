"""What makes a notebook a lesson rather than a script: exercises that grade themselves (``exercises``), conclusions
recorded as computed verdicts (``story``), live figures the kernel alone writes (``live_output``), controls wired to a
figure (``widgets.interactive_figure``) and predict-then-run questions (``predict``).

Met in ``00_start_here.ipynb`` (the first exercise) and ``01_mlm_to_similarity.ipynb`` (the first verdict); every
lesson uses them. Layer 0: nothing here imports the rest of the package.
Imported by: calibration, training, solutions, runner, book, classroom, installs and lessons.
"""
