"""What makes a notebook a lesson rather than a script: exercises that grade themselves (``exercises``), conclusions
recorded as computed verdicts (``story``) and live figures the kernel alone writes (``live_output``).

Met in ``00_start_here.ipynb`` (the first exercise) and ``01_mlm_to_similarity.ipynb`` (the first verdict); every
lesson uses them. Layer 0: nothing here imports the rest of the package.
"""
