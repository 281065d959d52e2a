"""Notebooks run headless, each in a kernel of its own: how the tests, the book and the checks execute a lesson.

``notebooks`` runs a notebook or all of them in quick or full mode and keeps the executed copies under ``build/``
(``python -m sbert_workbook notebooks``, every notebook from ``00_start_here.ipynb`` on); ``transport`` is how every
kernel the workbook starts talks to its client (ipc sockets or tcp ports); ``replies`` is issue 21's fix for kernel
replies nbclient never notices; ``kernel_memory`` samples a kernel's resident memory per cell while it runs.
Layer 6.
Imported by: book, classroom, cli and installs.
"""
