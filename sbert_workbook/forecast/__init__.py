"""What a run will cost before it starts: a lesson's work, this machine's speed, the prediction and the mode that fits.

- :mod:`~sbert_workbook.forecast.work`: a lesson's long steps declared from its manifest's sizes, each in units a
  probe turns into seconds (tokens through the model without and with gradients, seconds of the reference CPU);
- :mod:`~sbert_workbook.forecast.probe`: a few seconds' probe of this device with the model that will run (or the
  stated throughput of a GPU no one has timed, named as such);
- :mod:`~sbert_workbook.forecast.predict`: the prediction per section and per mode, and the mode ``QUICK = "auto"``
  picks: the largest whose prediction fits the budget;
- :mod:`~sbert_workbook.forecast.cells`: the long cells' own lines, the prediction before and the time after;
- :mod:`~sbert_workbook.forecast.lessons`: a lesson's forecast per mode from its manifest, and the mode it runs.

Every lesson's set-up (:func:`sbert_workbook.lessons.setup.begin`) uses it, and ``doctor`` and ``classroom`` print
the path's prediction; introduced in ``00_start_here.ipynb``. It reads the lessons' manifests (their sizes and
``work``), never a lesson's code.
"""
