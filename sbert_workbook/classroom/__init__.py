"""The classroom app: two explorer pages a room opens at once, served by Voilà (``classroom/*.ipynb``).

``room`` is ``./workbook classroom``: Voilà's command line, the room's capacity and its kernel manager; ``room_pool``
keeps a room's preheated kernels for their visitors; ``voila_server`` is Voilà with the runner's reply fix and those
kernels installed; ``explorers`` draws the embedding and pair explorers on ``teaching.widgets.interactive_figure``;
``page_setup`` keeps an explorer's set-up output (progress bars, logs, paths) off the page; ``pages`` opens the app
in headless Chromium and times each page to its first figure (the browser tests, binder-check, the load tools).
The repository's ``classroom/`` folder holds the two notebooks this package serves. Layer 7.
Imported by: cli and installs.
"""
