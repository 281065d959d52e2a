"""This machine, as a lesson needs it: what it has, what will fit, what to fetch before going offline.

``doctor`` checks Python, torch, the device, the model and the data, each with its fix (``00_start_here.ipynb``);
``predownload`` fills the Hugging Face caches for an offline room; ``memory`` says before anything loads whether a
notebook's measured peak (``notebook_peaks.json``) fits in what ``free_memory`` finds (a container's limit included);
``resident`` reads a process's resident memory; ``bert_base_standin`` writes a bert-base-uncased-shaped model offline.
Layer 5.
Imported by: runner, classroom, cli, installs, lessons and the package's __init__.
"""
