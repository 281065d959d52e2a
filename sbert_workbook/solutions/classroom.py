"""Model answers for the questions at the end of the two classroom apps, ``classroom/pair_explorer.ipynb`` and
``classroom/embedding_explorer.ipynb`` (``./workbook classroom``).

Written for the teacher: what the room will see, why, and what to draw out. Each answer first describes the
offline app (the embedded all-MiniLM-L6-v2, already trained for similarity, so even its layer 0 is not raw BERT's),
with the app's own sentences (the pair explorer's first pair and its STS-B dev picker, the embedding explorer's
STS-B dev sentences, mean pooling at every hidden state), then what changes online with bert-base-uncased.
Every statement about the offline app is measured by ``tests/test_classroom_answers.py``; the numbers themselves
are on the app's screen and in the notebooks named here, never typed in.
"""
from __future__ import annotations

DISCUSSION = {
    "pair_explorer_1": (
        "What the room sees: at the last layer the sentence and its negation score high, far above the near-0 "
        "cosine of two unrelated sentences (the embedding explorer's last layer), and only a little below the app's "
        "first pair, the paraphrase 'A man is playing a guitar.' / 'A person plays the guitar.'. Why: the two "
        "sentences share every content word, and mean pooling averages them; 'don't' adds three word pieces (don, ', "
        "t) that move the average only a little. In the heatmap every shared word matches itself, at layer 0 and at "
        "the last layer. Should they be similar? It depends on the task, and that is the point to draw out: they are "
        "about the same thing (topic, search: yes), but they say opposite things (STS-B's annotation guidelines score "
        "a pair that differs in an important point below an equivalent one; NLI calls it a contradiction). "
        "One cosine cannot be both; a model trained on paraphrase and "
        "question-answer pairs measures 'about the same thing'. Online, with bert-base-uncased, the raw vectors sit "
        "in a narrow cone (BERT-flow, Li et al. 2020), so this pair, the paraphrase and unrelated pairs all score "
        "high and close together: the slider's line barely separates them (02 §1 prints the cone for the model "
        "that ran; 04 trains it away)."),
    "pair_explorer_2": (
        "What the room sees: for every STS-B pair in the picker with gold below 1, the last layer's cosine is lower "
        "than layer 0's, for most by a wide margin, and well below the last-layer cosines of the high-gold pairs "
        "(gold 4 and up). At layer 0 the same unrelated pairs look moderately similar. Why: layer 0 is a bag of "
        "word vectors (word + position + segment embedding, before any attention), and the mean of a sentence's "
        "word vectors shares a large common direction with any other sentence's (the embedding explorer shows it at "
        "layer 0); the trained last layer was pushed so that unrelated sentences point apart. What to draw out: a "
        "cosine is only 'low' relative to what unrelated sentences get at that layer, so read it against the "
        "embedding explorer's mean cosine, not against 0. If the room finds a low-gold pair that stays fairly high "
        "at the last layer, ask what the two share (a topic, a word, a sentence shape): STS gold grades equivalence "
        "of meaning, the cosine grades relatedness. Online, bert-base-uncased's raw vectors give unrelated pairs a "
        "high cosine at the last layer too (BERT-flow's anisotropy), so gold-below-1 pairs do not drop to near 0; "
        "ranking them against better pairs still partly works, which is why raw BERT's Spearman is not zero "
        "(03 §3 prints the table)."),
    "pair_explorer_3": (
        "What the room sees, on the app's first pair: at layer 0 every token that occurs in both sentences (a, "
        "guitar, the full stop, [CLS], [SEP]) has that same word as its brightest cell, and the rest of the map is "
        "cool; a word with no twin still finds its nearest relative (man finds person, playing finds plays). At "
        "the last layer the identical words light up less than at layer 0, the map as a whole gets warmer, man and "
        "person move closer, and not every repeated word keeps itself as best match (one 'a' finds 'the'). Why: at "
        "layer 0 a token's vector is its word embedding plus a position embedding, so the same word differs only by "
        "position; each transformer layer mixes in the rest of the sentence, so the last layer's token vectors "
        "carry context, role and meaning, not just identity. What to draw out: layer 0 is a same-word detector, "
        "the last layer a same-meaning-in-context one; mean pooling of the last layer is what the model was trained "
        "on. Online, bert-base-uncased should show the same layer-0 picture (same-word cells brightest), but its upper "
        "layers are anisotropic (Ethayarajh 2019, 02 §6): almost every cell turns warm, so the map shows less "
        "contrast, not more meaning."),
    "embedding_explorer_1": (
        "What the room sees: the mean cosine of different sentences is highest in the early layers (1 and 2, close "
        "to each other), every middle layer stays above layer 0, and only the last layer drops to near 0. Why: "
        "all-MiniLM-L6-v2 was trained through its last layer's mean pooling only; the intermediate layers were "
        "never asked to spread sentences apart, and they keep a large shared direction. What this does to a "
        "similarity search: when every pair scores high, a threshold ('related if the cosine is above one half') "
        "returns everything, and the ranking lives in small differences on top of a common offset, so noise and "
        "sentence length (02 §3) can reorder it; a search should use the layer that was trained (the last). Online, "
        "bert-base-uncased is not trained for similarity at any layer: BERT-flow (2011.05864) finds its sentence "
        "vectors anisotropic, and the high mean cosine does not fall at the last layer; 02 §6 prints the per-layer "
        "mean cosines for the model that ran, and 05 shows the fixes (SN, whitening, the flow)."),
    "embedding_explorer_2": (
        "What the room sees: with the switch off, at every layer but the last the cloud of directions sits far to "
        "one side of the origin (the cross) in the 2-D view; with the switch on it surrounds the origin and the "
        "mean cosine drops to just below 0 at every layer. Why one vector is enough: the mean cosine of unit "
        "vectors is almost exactly the squared length of their average (02 §1: the double sum collapses to "
        "||sum of unit vectors||^2 - n), so a cone is nothing but a large shared component, and subtracting the "
        "mean removes it. What is left sums to zero by construction, so the mean cosine cannot stay high; it "
        "lands typically just below 0 when the norms are similar, as they are here: for UNIT vectors that sum to "
        "zero it would be exactly -1/(n - 1) for n sentences, and the centred sentences land near that value. "
        "Centring zeroes the raw sum, not the sum of the directions, so with very unequal norms the mean cosine "
        "need not be negative at all ((10, 0) and ten copies of (-1, 0) sum to zero, yet their mean cosine is "
        "+0.64). None of this needed training. Draw out what centring does not do: it does not change how the "
        "sentences are arranged around their centre, only where the origin is; whether the cosines then mean "
        "something is a separate question (05 §3 standard normalisation, 05 §5 whitening, which also rescales the "
        "directions). Online, bert-base-uncased shows the same switch effect, with a cone that persists at the last "
        "layer: that is why SN and whitening help raw BERT (BERT-flow Table 5 and Su et al., quoted in 05)."),
    "embedding_explorer_3": (
        "What the room sees: at the last layer the mean cosine of different sentences is near 0 and the cloud sits "
        "around the origin even with the switch off, so by the cone measure it is close to isotropic. It is not "
        "isotropic in the strict sense, every direction equal: after removing the mean, half of the variance lies "
        "in far fewer directions than an even spread over the sentences would need (02 §2 counts them), though in "
        "more than at any earlier layer. What training did: all-MiniLM-L6-v2 was trained with a contrastive "
        "objective with in-batch negatives, which pulls each sentence towards its pair and pushes it away from the "
        "other sentences in the batch, the 'uniformity' of Wang and Isola (02 §7); that removes the shared offset "
        "of the pooled output. The leftover unevenness is content: topics and sentence types are not spread "
        "uniformly, and an embedding that is useful must keep them. Training fine-tuned the weights of every "
        "layer, but the loss constrained only the pooled output of the last layer: nothing asked the outputs of "
        "layers 1 to 5 to spread sentences apart, and they still form a cone. Online, bert-base-uncased's last "
        "layer is the anisotropic one (BERT-flow's starting point): 04 trains it with SBERT's objectives, 05 "
        "calibrates it without labels."),
}
