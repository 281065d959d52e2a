"""From masked-LM pre-training to similarity, on a toy language with exact statistics (``01_mlm_to_similarity.ipynb``).

``toy_language`` is a Markov-chain language whose p(x), p(x | c) and PMI are known exactly,
``tiny`` trains a small ``BertForMaskedLM`` on it live and compares its logits with
PMI(x, c) + log p(x), ``head`` reads top-k [MASK] predictions from a real model's MLM head,
``plots`` draws the figures.
Imported by: checks, diagnosis, solutions and lessons.
"""
