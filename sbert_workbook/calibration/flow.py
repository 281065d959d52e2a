"""A Glow-style normalizing flow for sentence embeddings, as in BERT-flow (``05_bert_flow.ipynb``).

The contract every layer here keeps, written once (as zuko does)::

    forward(u) -> (z, logdet)      z = f(u),  logdet = log |det ∂f/∂u|, one value per row
    inverse(z) -> u                u = f⁻¹(z)
    log_prob(u) = log N(f(u); 0, I) + log |det ∂f/∂u|      (change of variables)

``u`` is an embedding (batch, dim); "forward" always means embedding → Gaussian latent.

A :class:`Glow` is ``levels`` levels of ``depth`` steps; a step is
:class:`ActNorm` → a fixed permutation (or an :class:`InvertibleLinear` map) → a coupling
(:class:`AdditiveCoupling`, the paper's choice, or :class:`AffineCoupling`) whose shift and
scale come from a small :class:`ResidualNet` (width 32). After every level but the last,
half of the coordinates are factored out (multi-scale): they go straight to the latent with
a standard-normal prior, as in the BERT-flow code, whose prior on them is N(0, I).
"""
from __future__ import annotations

import math

import torch
from torch import nn

COUPLINGS = ("additive", "affine")
PERMUTATIONS = ("random", "reverse", "linear")


class ActNorm(nn.Module):
    """z = (u + b) ⊙ exp(s); log|det| = Σ s. Identity until :meth:`initialize_from` sets b, s from data."""

    def __init__(self, dim: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(dim))
        self.log_scale = nn.Parameter(torch.zeros(dim))

    @torch.no_grad()
    def initialize_from(self, u: torch.Tensor) -> None:
        """Data-dependent init: the output of ``u`` gets zero mean and unit variance per dimension.

        A (near-)constant dimension keeps scale 1: dividing by its ~0 spread would multiply it
        by ~10⁶ in every step and overflow after the first update.
        """
        std = u.std(dim=0, unbiased=False)
        constant = std <= 1e-6 * std.max().clamp(min=1e-12)
        self.bias.copy_(-u.mean(dim=0))
        self.log_scale.copy_(torch.where(constant, torch.zeros_like(std), -torch.log(std.clamp(min=1e-12))))

    def forward(self, u):
        return (u + self.bias) * torch.exp(self.log_scale), self.log_scale.sum().expand(u.shape[0])

    def inverse(self, z):
        return z * torch.exp(-self.log_scale) - self.bias


class Permutation(nn.Module):
    """z = u[:, π]: a fixed reordering ("random" with a seed, or "reverse" as the BERT-flow code); log|det| = 0."""

    def __init__(self, dim: int, kind: str = "random", seed: int = 0):
        super().__init__()
        if kind == "reverse":
            order = torch.arange(dim - 1, -1, -1)
        else:
            order = torch.randperm(dim, generator=torch.Generator().manual_seed(seed))
        self.register_buffer("order", order)
        self.register_buffer("inverse_order", torch.argsort(order))

    def forward(self, u):
        return u[:, self.order], u.new_zeros(u.shape[0])

    def inverse(self, z):
        return z[:, self.inverse_order]


class InvertibleLinear(nn.Module):
    """z = u Wᵀ with W = P L (U + diag(sign · eᵃ)) (Glow's LU "1x1 convolution"); log|det| = Σ a."""

    def __init__(self, dim: int, seed: int = 0):
        super().__init__()
        import scipy.linalg

        generator = torch.Generator().manual_seed(seed)
        rotation = torch.linalg.qr(torch.randn(dim, dim, generator=generator, dtype=torch.float64))[0]
        p, lower, upper = (torch.as_tensor(m) for m in scipy.linalg.lu(rotation.numpy()))
        diagonal = torch.diagonal(upper)
        self.register_buffer("permutation", p.float())
        self.register_buffer("sign", torch.sign(diagonal).float())
        self.register_buffer("lower_mask", torch.tril(torch.ones(dim, dim), -1))
        self.lower = nn.Parameter(lower.float() * self.lower_mask)
        self.upper = nn.Parameter(torch.triu(upper, 1).float())
        self.log_diagonal = nn.Parameter(torch.log(diagonal.abs()).float())

    def weight(self) -> torch.Tensor:
        eye = torch.eye(len(self.sign), device=self.sign.device, dtype=self.lower.dtype)
        lower = self.lower * self.lower_mask + eye
        upper = self.upper * self.lower_mask.T + torch.diag(self.sign * torch.exp(self.log_diagonal))
        return self.permutation @ lower @ upper

    def forward(self, u):
        return u @ self.weight().T, self.log_diagonal.sum().expand(u.shape[0])

    def inverse(self, z):
        return torch.linalg.solve(self.weight(), z.T).T


class ResidualNet(nn.Module):
    """h = relu(W₁x); h = h + relu(W₂h); out = W₃h, with W₃ = 0 at init so the coupling starts as the identity."""

    def __init__(self, in_dim: int, out_dim: int, width: int = 32):
        super().__init__()
        self.inp, self.hidden, self.out = nn.Linear(in_dim, width), nn.Linear(width, width), nn.Linear(width, out_dim)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        return self.out(h + torch.relu(self.hidden(h)))


class AdditiveCoupling(nn.Module):
    """(u₁, u₂) → (u₁, u₂ + t(u₁)): volume-preserving, log|det| = 0 (NICE; the BERT-flow default)."""

    def __init__(self, dim: int, width: int = 32):
        super().__init__()
        self.split = dim - dim // 2
        self.net = ResidualNet(self.split, dim - self.split, width)

    def forward(self, u):
        u1, u2 = u[:, :self.split], u[:, self.split:]
        return torch.cat([u1, u2 + self.net(u1)], dim=1), u.new_zeros(u.shape[0])

    def inverse(self, z):
        z1, z2 = z[:, :self.split], z[:, self.split:]
        return torch.cat([z1, z2 - self.net(z1)], dim=1)


class AffineCoupling(nn.Module):
    """(u₁, u₂) → (u₁, (u₂ + t(u₁)) ⊙ σ(s(u₁) + 2)); log|det| = Σ log σ(s + 2) (Glow, as coded in BERT-flow)."""

    def __init__(self, dim: int, width: int = 32):
        super().__init__()
        self.split = dim - dim // 2
        self.net = ResidualNet(self.split, 2 * (dim - self.split), width)

    def _shift_and_log_scale(self, x1):
        raw = self.net(x1)
        return raw[:, 0::2], nn.functional.logsigmoid(raw[:, 1::2] + 2.0)

    def forward(self, u):
        u1, u2 = u[:, :self.split], u[:, self.split:]
        shift, log_scale = self._shift_and_log_scale(u1)
        return torch.cat([u1, (u2 + shift) * torch.exp(log_scale)], dim=1), log_scale.sum(dim=1)

    def inverse(self, z):
        z1, z2 = z[:, :self.split], z[:, self.split:]
        shift, log_scale = self._shift_and_log_scale(z1)
        return torch.cat([z1, z2 * torch.exp(-log_scale) - shift], dim=1)


class FlowStep(nn.Module):
    """One Glow step: actnorm → permutation (or invertible linear) → coupling."""

    def __init__(self, dim: int, coupling: str = "additive", permutation: str = "random", width: int = 32, seed: int = 0):
        super().__init__()
        mixing = InvertibleLinear(dim, seed) if permutation == "linear" else Permutation(dim, permutation, seed)
        coupling_layer = (AdditiveCoupling if coupling == "additive" else AffineCoupling)(dim, width)
        self.layers = nn.ModuleList([ActNorm(dim), mixing, coupling_layer])

    def forward(self, u):
        logdet = u.new_zeros(u.shape[0])
        for layer in self.layers:
            u, step_logdet = layer(u)
            logdet = logdet + step_logdet
        return u, logdet

    def inverse(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


class Glow(nn.Module):
    """``levels`` × ``depth`` flow steps with multi-scale factor-out (BERT-flow code default: 3 × 3, width 32)."""

    def __init__(self, dim: int, levels: int = 3, depth: int = 3, coupling: str = "additive",
                 permutation: str = "random", width: int = 32, seed: int = 0):
        super().__init__()
        _check_architecture(dim, levels, depth, coupling, permutation)
        self.config = {"dim": dim, "levels": levels, "depth": depth, "coupling": coupling,
                       "permutation": permutation, "width": width, "seed": seed}
        self.level_dims = level_dimensions(dim, levels)
        self.levels = nn.ModuleList(
            nn.ModuleList(FlowStep(d, coupling, permutation, width, seed + 1000 * level + step) for step in range(depth))
            for level, d in enumerate(self.level_dims)
        )

    @property
    def dim(self) -> int:
        return self.config["dim"]

    def forward(self, u):
        logdet, factored = u.new_zeros(u.shape[0]), []
        for level, steps in enumerate(self.levels):
            for step in steps:
                u, step_logdet = step(u)
                logdet = logdet + step_logdet
            if level < len(self.levels) - 1:
                keep = self.level_dims[level + 1]
                factored.append(u[:, keep:])
                u = u[:, :keep]
        return torch.cat(factored + [u], dim=1), logdet

    def inverse(self, z):
        sizes = [d - next_d for d, next_d in zip(self.level_dims, self.level_dims[1:])] + [self.level_dims[-1]]
        pieces = list(torch.split(z, sizes, dim=1))
        u = pieces[-1]
        for level in reversed(range(len(self.levels))):
            if level < len(self.levels) - 1:
                u = torch.cat([u, pieces[level]], dim=1)
            for step in reversed(self.levels[level]):
                u = step.inverse(u)
        return u

    def log_prob(self, u):
        """log p(u) = log N(z; 0, I) + log|det ∂z/∂u|, one value per row (nats)."""
        z, logdet = self.forward(u)
        return standard_normal_log_prob(z) + logdet

    @torch.no_grad()
    def initialize_from(self, u: torch.Tensor) -> None:
        """Glow's data-dependent init: each actnorm normalises what reaches it for this batch."""
        for level, steps in enumerate(self.levels):
            for step in steps:
                step.layers[0].initialize_from(u)
                u, _ = step(u)
            if level < len(self.levels) - 1:
                u = u[:, :self.level_dims[level + 1]]


def standard_normal_log_prob(z: torch.Tensor) -> torch.Tensor:
    """log N(z; 0, I) = −½‖z‖² − (d/2) log 2π, per row."""
    return -0.5 * (z ** 2).sum(dim=1) - 0.5 * z.shape[1] * math.log(2 * math.pi)


def level_dimensions(dim: int, levels: int) -> list[int]:
    """How many coordinates each level transforms: half (rounded up) is kept after each factor-out."""
    dims = [dim]
    for _ in range(levels - 1):
        dims.append(dims[-1] - dims[-1] // 2)
    return dims


def _check_architecture(dim, levels, depth, coupling, permutation) -> None:
    if coupling not in COUPLINGS:
        raise ValueError(f"Unknown coupling {coupling!r}: use one of {COUPLINGS}.")
    if permutation not in PERMUTATIONS:
        raise ValueError(f"Unknown permutation {permutation!r}: use one of {PERMUTATIONS}.")
    if levels < 1 or depth < 1:
        raise ValueError(f"levels and depth must be at least 1, got levels={levels}, depth={depth}.")
    if level_dimensions(dim, levels)[-1] < 2:
        raise ValueError(
            f"A {dim}-dimensional input cannot be split over {levels} levels: the last level would have fewer than "
            "2 coordinates, and a coupling needs 2. Use fewer levels."
        )
