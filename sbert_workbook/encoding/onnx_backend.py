"""The same transformer run by ONNX Runtime on the CPU: the same vectors, faster.

``load_encoder(name, backend="onnx")`` uses it for the last-layer poolings (cls, mean,
max); everything that reads other layers (``hidden_states``, ``first_last_avg``…) still runs
in PyTorch. The model is exported in memory (no file is written) and exported again if its
weights change afterwards, e.g. by fine-tuning, so the vectors never go stale.
Taught in ``03_pooling_and_sts.ipynb`` §7. ``benchmarks/encode_throughput.py`` measures the speed-up against sentence-transformers.
"""
from __future__ import annotations

import copy
import io
import warnings

import torch

BACKENDS = ("torch", "onnx")
ONNX_OPSET = 17


class OnnxLastHiddenState:
    """``model(**batch).last_hidden_state`` computed by an ONNX Runtime session of ``model``."""

    def __init__(self, model: torch.nn.Module, threads: int | None = None):
        self.model = model
        self.threads = threads or torch.get_num_threads()
        self._session = None
        self._exported_for = None  # (input names, weights fingerprint) the session was exported with

    def __call__(self, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        """(batch, tokens, hidden) float32 on the CPU, for a batch of CPU tensors from the tokenizer."""
        inputs = {name: tensor.numpy() for name, tensor in batch.items()}
        (last_hidden_state,) = self._current_session(list(inputs)).run(None, inputs)
        return torch.from_numpy(last_hidden_state)

    def __deepcopy__(self, memo) -> OnnxLastHiddenState:
        """A copy over the copied model; its session is made on first use (sessions cannot be copied)."""
        return OnnxLastHiddenState(copy.deepcopy(self.model, memo), self.threads)

    def _current_session(self, input_names: list[str]):
        wanted = (input_names, weights_fingerprint(self.model))
        if self._session is None or wanted != self._exported_for:
            self._session = onnx_session(export_to_onnx(self.model, input_names), self.threads)
            self._exported_for = wanted
        return self._session


def weights_fingerprint(model: torch.nn.Module) -> tuple:
    """Changes whenever a parameter or buffer is replaced or modified in place (optimizer steps, load_state_dict)."""
    tensors = list(model.parameters()) + list(model.buffers())
    return tuple((id(tensor), tensor._version) for tensor in tensors)


def export_to_onnx(model: torch.nn.Module, input_names: list[str]) -> bytes:
    """The model's ``last_hidden_state`` as a serialised ONNX graph with dynamic batch and length."""
    padded = torch.tensor([[1, 1, 1], [1, 1, 0]])  # with padding, so the mask stays in the traced graph
    example = {name: padded if name == "attention_mask" else torch.ones_like(padded) for name in input_names}
    dynamic_axes = {name: {0: "batch", 1: "tokens"} for name in [*input_names, "last_hidden_state"]}
    graph = io.BytesIO()
    was_training = model.training
    model.eval()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about Python control flow: shapes are dynamic axes here
            torch.onnx.export(_LastHiddenState(model, input_names), tuple(example.values()), graph,
                              input_names=input_names, output_names=["last_hidden_state"],
                              dynamic_axes=dynamic_axes, opset_version=ONNX_OPSET, dynamo=False)
    finally:
        model.train(was_training)
    return graph.getvalue()


def onnx_session(graph: bytes, threads: int):
    """A CPU ONNX Runtime session with all graph optimisations (fused attention, layer norm, GELU)."""
    onnxruntime = import_onnxruntime()
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.log_severity_level = 3  # errors only
    return onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def import_onnxruntime():
    try:
        import onnx  # noqa: F401  (torch.onnx.export needs it)
        import onnxruntime
    except ImportError as error:
        raise ImportError(
            f"backend='onnx' needs the packages onnx and onnxruntime ({error}). Install them with "
            "`pip install onnx onnxruntime`, or use backend='torch' (the same vectors, slower on the CPU)."
        ) from error
    return onnxruntime


def checked_backend(backend: str, device: torch.device) -> str:
    """``backend`` if it can run on ``device``; a clear error otherwise."""
    if backend not in BACKENDS:
        raise ValueError(f"Unknown backend {backend!r}: use 'torch' (any device) or 'onnx' (CPU only, faster).")
    if backend == "onnx":
        if device.type != "cpu":
            raise ValueError(f"backend='onnx' runs on the CPU, but the device is {device}. "
                             "Use backend='torch' on a GPU (it is fast there), or device='cpu'.")
        import_onnxruntime()
    return backend


class _LastHiddenState(torch.nn.Module):
    """Keyword-calling wrapper: the exporter passes inputs by position, Hugging Face models want names."""

    def __init__(self, model: torch.nn.Module, input_names: list[str]):
        super().__init__()
        self.model = model
        self.input_names = input_names

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.model(**dict(zip(self.input_names, inputs))).last_hidden_state
