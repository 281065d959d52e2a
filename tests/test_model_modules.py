"""Models read as their authors meant (issue 41, item 2): ``load_encoder`` on a sentence-transformers folder runs its own
Pooling, WeightedLayerPooling, Dense, Normalize and prompts, and its vectors equal ``SentenceTransformer(folder).encode``.

The folders are written by sentence-transformers itself around the embedded model's transformer, in a temporary folder,
one per pooling mode, so the reference is independent of the workbook's code.
"""
from __future__ import annotations

import json
import shutil

import pytest
import torch

from sbert_workbook import load_encoder
from sbert_workbook.encoding.st_folder import UnsupportedModelError, pooling_modes, read_model_modules
from sbert_workbook.encoding.st_modules import UnreadableModuleError

SENTENCES = ["A man is playing a guitar.", "Someone plays an instrument on a stage, loudly and for a long time.",
             "The cat sleeps.", "Two dogs run through a field of tall grass near the old farmhouse."]
TOLERANCE = 1e-5


def st_modules():
    """sentence-transformers' module classes, where this version keeps them (6.x moved them out of ``models``)."""
    try:
        from sentence_transformers.base.modules import Dense, Normalize, Transformer
        from sentence_transformers.sentence_transformer.modules import Pooling, WeightedLayerPooling
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Dense, Normalize, Pooling, Transformer, WeightedLayerPooling
    return Transformer, Pooling, WeightedLayerPooling, Dense, Normalize


@pytest.fixture(scope="module")
def write_st_folder(encoder, tmp_path_factory):
    """``write(name, pooling_mode, *after, include_prompt=True, prompts=None, layers=None)``: a folder saved by
    sentence-transformers around the embedded transformer (written once per name); returns (folder, the
    SentenceTransformer that wrote it)."""
    from sentence_transformers import SentenceTransformer

    Transformer, Pooling, WeightedLayerPooling, Dense, Normalize = st_modules()
    root, written = tmp_path_factory.mktemp("st-folders"), {}
    transformers = {flag: transformer_module(Transformer, encoder.resolved.path, flag) for flag in (False,)}

    def write(name, pooling_mode, *after, include_prompt=True, prompts=None, default_prompt=None, layers=None):
        if name in written:
            return written[name]
        transformer = transformers[False] if layers is None else transformer_module(Transformer, encoder.resolved.path, True)
        modules = [transformer]
        if layers is not None:
            modules.append(WeightedLayerPooling(384, num_hidden_layers=6, layer_start=layers[0],
                                                layer_weights=torch.nn.Parameter(torch.tensor(layers[1], dtype=torch.float))))
        modules.append(Pooling(384, pooling_mode=pooling_mode, include_prompt=include_prompt))
        built = {"dense": lambda: seeded_dense(Dense, 384), "normalize": Normalize}
        modules += [built[step]() for step in after]
        model = SentenceTransformer(modules=modules, device="cpu", prompts=prompts, default_prompt_name=default_prompt)
        model.save(str(root / name))
        written[name] = root / name, model
        return written[name]

    return write


def transformer_module(Transformer, path, all_hidden_states: bool):
    """sentence-transformers' Transformer over ``path``; with every hidden state out when a WeightedLayerPooling reads them
    (the keyword is ``config_kwargs`` from sentence-transformers 6 on, ``config_args`` before)."""
    import inspect

    keyword = "config_kwargs" if "config_kwargs" in inspect.signature(Transformer).parameters else "config_args"
    return Transformer(str(path), max_seq_length=64, **{keyword: {"output_hidden_states": all_hidden_states}})


def seeded_dense(Dense, in_features: int):
    torch.manual_seed(0)
    return Dense(in_features, 96, activation_function=torch.nn.Tanh())


def ours_and_theirs(folder, model, **encode_kwargs):
    ours = load_encoder(str(folder), device="cpu").encode(SENTENCES, **encode_kwargs)
    theirs = torch.as_tensor(model.encode(SENTENCES, **encode_kwargs))
    return ours, theirs


ALL_MODES = ("cls", "max", "mean", "mean_sqrt_len_tokens", "weightedmean", "lasttoken")


@pytest.fixture(scope="module")
def every_mode(write_st_folder):
    """One folder whose Pooling concatenates all six modes: each 384-wide slice is one mode's vectors, ours and theirs."""
    folder, model = write_st_folder("every-mode", ALL_MODES)
    ours, theirs = ours_and_theirs(folder, model)
    return {mode: (ours[:, 384 * i:384 * (i + 1)], theirs[:, 384 * i:384 * (i + 1)]) for i, mode in enumerate(ALL_MODES)}


def test_the_embedded_model_encodes_as_sentence_transformers_does(encoder, st_model):
    ours = encoder.encode(SENTENCES)
    theirs = torch.as_tensor(st_model.encode(SENTENCES))
    assert (ours - theirs).abs().max() <= TOLERANCE
    assert torch.allclose(ours.norm(dim=1), torch.ones(len(SENTENCES)), atol=1e-5), "its Normalize module ran"
    assert encoder.modules.describe() == "pooling: mean, from the model's 1_Pooling/config.json; then Normalize"
    raw_mean = encoder.encode(SENTENCES, pooling="mean")
    assert not torch.allclose(raw_mean, ours, atol=1e-3), "a named pooling pools the hidden states and runs nothing after it"


@pytest.mark.parametrize("mode", ALL_MODES)
def test_each_pooling_mode_equals_sentence_transformers(every_mode, mode):
    ours, theirs = every_mode[mode]
    assert (ours - theirs).abs().max() <= TOLERANCE


def test_the_modes_really_differ_so_the_comparison_can_fail(every_mode):
    for a in ALL_MODES:
        for b in ALL_MODES:
            if a < b and {a, b} != {"mean", "mean_sqrt_len_tokens"}:  # those two differ only in scale, row by row
                assert (every_mode[a][0] - every_mode[b][0]).abs().max() > 1e-2, f"{a} and {b} give the same vectors"


def test_a_single_mode_folder_says_which_pooling_ran_and_why(write_st_folder, capsys):
    folder, model = write_st_folder("pool-cls", "cls")
    ours, theirs = ours_and_theirs(folder, model)
    assert (ours - theirs).abs().max() <= TOLERANCE
    assert "pooling: cls, from the model's 1_Pooling/config.json" in capsys.readouterr().out


def test_dense_then_normalize_equals_sentence_transformers(write_st_folder, capsys):
    folder, model = write_st_folder("dense-normalize", "mean", "dense", "normalize")
    ours, theirs = ours_and_theirs(folder, model)
    assert ours.shape == (len(SENTENCES), 96) and (ours - theirs).abs().max() <= TOLERANCE
    assert "then Dense 384→96 (Tanh), then Normalize" in capsys.readouterr().out


def test_weighted_layer_pooling_equals_sentence_transformers(write_st_folder):
    folder, model = write_st_folder("layers", "mean", layers=(1, [1, 0, 0, 0, 0, 1]))
    ours, theirs = ours_and_theirs(folder, model)
    assert (ours - theirs).abs().max() <= TOLERANCE


def test_prompts_are_prepended_and_left_out_of_the_pooling_when_the_model_says(write_st_folder):
    prompts = {"query": "query: ", "passage": "passage: "}
    folder, model = write_st_folder("prompts", "mean", include_prompt=False, prompts=prompts, default_prompt="query")
    encoder = load_encoder(str(folder), device="cpu")
    for prompt_name in (None, "passage"):
        ours = encoder.encode(SENTENCES, prompt_name=prompt_name)
        theirs = torch.as_tensor(model.encode(SENTENCES, prompt_name=prompt_name))
        assert (ours - theirs).abs().max() <= TOLERANCE, prompt_name
    assert "prompt 'query: ' (query)" in encoder.modules.describe()
    with pytest.raises(KeyError, match="no prompt 'title'"):
        encoder.encode(SENTENCES, prompt_name="title")


def test_a_raw_transformer_gets_the_workbooks_mean_pooling_and_says_so(encoder, tmp_path, capsys):
    encoder.model.save_pretrained(tmp_path)
    encoder.tokenizer.save_pretrained(tmp_path)
    raw = load_encoder(str(tmp_path), device="cpu")
    assert "pooling: mean, the workbook's default for a raw transformer" in capsys.readouterr().out
    assert torch.equal(raw.encode(SENTENCES), raw.encode(SENTENCES, pooling="mean"))


def test_both_forms_of_the_pooling_config_are_read():
    assert pooling_modes({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": True}) == ("cls", "mean")
    assert pooling_modes({"pooling_mode": "mean_tokens"}) == ("mean",)
    assert pooling_modes({"pooling_mode": ["lasttoken"]}) == ("lasttoken",)
    assert pooling_modes({"word_embedding_dimension": 384}) == ("mean",)
    with pytest.raises(UnsupportedModelError, match="does not have"):
        pooling_modes({"pooling_mode": "median"})


def test_a_pickle_only_dense_is_refused_with_the_conversion_to_do(write_st_folder, tmp_path):
    folder, _ = write_st_folder("dense-pickle", "mean", "dense")
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    dense = next(p for p in copy.iterdir() if p.name.endswith("_Dense"))
    from safetensors.torch import load_file
    torch.save(load_file(str(dense / "model.safetensors")), dense / "pytorch_model.bin")
    (dense / "model.safetensors").unlink()
    with pytest.raises(UnreadableModuleError, match="never loads .*SentenceTransformer\\(model_folder\\).save"):
        load_encoder(str(copy), device="cpu")


def test_a_module_the_workbook_does_not_run_is_refused(write_st_folder, tmp_path):
    folder, _ = write_st_folder("pool-mean", "mean")
    copy = tmp_path / "custom"
    shutil.copytree(folder, copy)
    listed = json.loads((copy / "modules.json").read_text())
    listed.append({"idx": 2, "name": "2", "path": "2_Custom", "type": "my_package.modules.Custom"})
    (copy / "modules.json").write_text(json.dumps(listed))
    with pytest.raises(UnsupportedModelError, match="never code shipped with a model"):
        load_encoder(str(copy), device="cpu")


def test_baselines_reads_the_pooling_through_the_one_reader(encoder, write_st_folder):
    from sbert_workbook.evaluation.baselines import sentence_transformers_pooling

    assert sentence_transformers_pooling(encoder) == "mean"
    assert sentence_transformers_pooling(load_encoder(str(write_st_folder("pool-cls", "cls")[0]), device="cpu")) == "cls"
