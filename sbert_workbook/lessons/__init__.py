"""One home per lesson: each notebook's set-up, experiments and reports (``nbNN``), and its manifest
(``manifests/nbNN``: sizes per mode, equations, paper map).

A notebook's cells are the lesson: the equation made code, the experiment's one call, the exercise. What sets the
lesson up, runs an experiment and reports it lives here, one module per notebook, built from the layers below
(encoding, evaluation, training, calibration, ...): ``setup.begin`` (mode, device, seed, sizes), ``report.Report``
(a table with its caption, computed sentences, figures and recorded verdicts), ``manifest`` (the manifests' shape).
The top layer: nothing in the package imports it. Introduced in ``00_start_here.ipynb``; docs/adding-a-lesson.md
says how to add a lesson.
Imported by: nothing in the package.
"""
