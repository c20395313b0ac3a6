"""Translation validation: every pass that changes IR keeps what kernels compute.

Each pass runs where it has work: after its prerequisites, in the order of the
named pipeline it belongs to (a *chain* below: ktdf-build-pipelines after
ktdp-extract-compute-groups, spyre-coarse-tile after the extraction,
spyre-plan-scratchpad after the coarse tiling and the work split,
spyre-unroll-loops after a tiling into loops, spatial-verify on a synthesized
spatial program, spyre-physicalize-layouts on kernels with layout markers).
At every step of a chain the kernel is interpreted before and after the pass
on the same seeded inputs; the outputs must be identical (these passes change
no arithmetic). And every pass of ours must change the IR exactly on the
kernels where `CHANGES` says it has work, and leave the others as they were:
a pass that silently became a no-op (or started rewriting what it should not
touch) fails here, not only a pass that computes wrong numbers.

Passes whose output is not the kernel they were given (spyre-emit-bundle, the
spatial phases before verification) run as prefixes only: their results are
validated by executing what they write against the source in their own tests
(test_spyre_coarse_tile.py, test_bundle_interpreter.py, test_ktir_to_spatial.py).
The example kernel is also checked against a NumPy oracle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, CORPUS_INTER_TILE, CORPUS_SCALARS, REPO, kernel_arguments
from test_physicalize_layouts import add_markers

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.passes import BEYOND_THE_KERNEL, SPYRE_PASSES, get_all_passes
from spyre_mlir.passes.pipelines import PIPELINES

EXAMPLE = REPO / "examples" / "softmax_rows.mlir"
KERNELS_DIR = REPO / "test" / "unit" / "kernels"
RAISE_LIT = REPO / "test" / "lit" / "passes" / "frontend" / "spyre-raise-counted-loops.mlir"


# -- kernels ------------------------------------------------------------------------


@dataclass(frozen=True)
class Kernel:
    id: str
    path: Path
    func: str | None = None
    given: dict = field(default_factory=dict)
    """Argument values the kernel's views do not imply (its scalars)."""
    markers: bool = False
    """With generated `spyre.tensor_layout` markers on its global row-major views
    (test_physicalize_layouts.add_markers), run on small integers (exact whatever
    the order of a reduction, which physicalization may change)."""

    def text(self) -> str:
        text = self.path.read_text()
        return add_markers(text)[0] if self.markers else text

    def arguments(self) -> tuple[str, dict, dict]:
        try:
            name, args, hbm = kernel_arguments(self.path, seed=0, func_name=self.func, given=self.given)
        except pytest.skip.Exception as exc:  # a kernel listed here must run: no silent skip
            pytest.fail(f"{self.id}: {exc}")
        if self.markers:
            rng = np.random.default_rng(0)
            args = {k: (rng.integers(-3, 4, v.shape).astype(v.dtype) if isinstance(v, np.ndarray) and v.dtype.kind == "f"
                        else v) for k, v in args.items()}
        return name, args, hbm


def _base_kernels() -> list[Kernel]:
    out = [Kernel("example-softmax_rows", EXAMPLE)]
    # matmul_fwd_ktir (64x2048x8192 in f16) is left to the interpreter's own tests.
    out += [Kernel(p.stem, p) for p in sorted(CORPUS.glob("*.mlir")) if p.stem != "matmul_fwd_ktir"]
    out += [Kernel(p.stem, p) for p in sorted(CORPUS_INTER_TILE.glob("*.mlir"))]
    # Kernels of this repository that give the passes work the corpus does not.
    out.append(Kernel("tiling/seed000_add_mul", KERNELS_DIR / "tiling" / "seed000_add_mul.mlir"))  # spyre.slices hint
    out.append(Kernel("tiling@two_groups", KERNELS_DIR / "tiling" / "kernels.mlir", "two_groups"))
    return out


BASE = _base_kernels()
# Marked kernels: spyre-physicalize-layouts has work on these (a sample: the
# physicalization of every marked corpus kernel is in test_physicalize_layouts.py).
MARKED = [Kernel(f"{k.id}+markers", k.path, markers=True) for k in BASE if k.id in ("vector_add_ktir", "softmax_small")]
# Counted scf.while loops (spyre-raise-counted-loops has work), and one that is not counted.
RAISE = [
    Kernel("raise@const_ne", RAISE_LIT, "const_ne", {"x": 1.5}),
    Kernel("raise@dynamic_ub", RAISE_LIT, "dynamic_ub", {"n": 5, "x": 2.0}),
    Kernel("raise@nested", RAISE_LIT, "nested", {"x": 2}),
    Kernel("raise@tensor_acc", RAISE_LIT, "tensor_acc"),
    Kernel("loops@branches", KERNELS_DIR / "loops.mlir", "branches"),
]
INTER_TILE = [k for k in BASE if k.path.parent == CORPUS_INTER_TILE]
# Kernels that spyre-coarse-tile{slices=2} divides into loops (and the example, which it leaves).
TILED = [k for k in BASE if k.id in ("example-softmax_rows", "scalar_broadcast", "vector_add_ktir", "tiling/seed000_add_mul")]
# layernorm_fwd_ktir: the default pipeline has no work in it.
SAMPLE = [k for k in BASE if k.id != "layernorm_fwd_ktir"]
# A sample for the spatial path (each is lowered through every spatial phase).
SPATIAL = [k for k in BASE if k.id in ("example-softmax_rows", "vector_add_ktir", "softmax_small")]


# -- chains: passes in the order of their pipeline --------------------------------------


def _passes(pipeline: str) -> list[str]:
    return PIPELINES[pipeline][0].split(",")


def _bundle() -> list[str]:
    """ktir-to-bundle up to the bundle itself, tiling every group that can be into 2 slices."""
    passes = [p for p in _passes("ktir-to-bundle") if p != "spyre-emit-bundle"]
    return [("spyre-coarse-tile{slices=2}" if p == "spyre-coarse-tile" else p) for p in passes]


def _unroll() -> list[str]:
    passes = _bundle()
    return [*passes[: passes.index("spyre-coarse-tile{slices=2}") + 1], "spyre-unroll-loops"]


CHAINS: dict[str, tuple[list[str], list[Kernel]]] = {
    "default": (_passes("default"), SAMPLE),
    "ktir-to-schedule": (_passes("ktir-to-schedule"), BASE),
    "ktir-to-bundle": (_bundle(), BASE),
    "unroll": (_unroll(), TILED),
    "ktir-to-spatial": (_passes("ktir-to-spatial"), SPATIAL),
    "physicalize": (_passes("physicalize"), MARKED),
    "raise": (["spyre-raise-counted-loops"], RAISE),
    # No pipeline runs it since ktir-to-schedule keeps a group's computes in one compute stage.
    "hbm-roundtrip": (["ktdp-hbm-roundtrip"], BASE),
    "inter-tile": (["ktdp-check-inter-tile"], INTER_TILE),
    # Kernels V1 lowers (the others are refused: iter_args, a named op it lacks).
    "legality": (["ktir-legality-check"], [k for k in BASE if k.id in ("example-softmax_rows", "reduce_generic",
                                                                       "softmax_small", "vector_add_ktir")]),
    # The schedule's rules as warnings, on the schedule ktir-to-schedule gives (a check: changes nothing).
    "check-schedule": ([*_passes("ktir-to-schedule"), "ktdf-check-schedule"],
                       [k for k in BASE if k.id in ("vector_add_ktir", "softmax_small")]),
    # Declaring the default device (the target it states is Spyre's) keeps every kernel's meaning.
    "device": ([f"ensure-device-declaration{{device-filename={REPO / 'spyre_mlir' / 'devices' / 'spyre.mlir'}}}"],
               [k for k in BASE if k.id in ("vector_add_ktir", "softmax_small")]),
}
"""Chain name -> (its passes in order, the kernels it runs on)."""

ALL = "every kernel"
CHANGES: dict[str, set[str] | str] = {
    # our pass -> the kernels (ids above) where it has work and must change the IR;
    # on every other kernel of a chain it runs in, it must leave the IR as it was.
    "ktdp-normalize-memory-space": {"example-softmax_rows"},  # spyre_memory_space spellings
    "spyre-fold-reshapes": {"example-softmax_rows"},  # an expand/collapse round trip
    "spyre-raise-counted-loops": {"raise@const_ne", "raise@dynamic_ub", "raise@nested", "raise@tensor_acc"},
    "spyre-physicalize-layouts": {k.id for k in MARKED} | {"tiling/seed000_add_mul"},  # it has markers
    # compute -> compute tensor edges
    "ktdp-hbm-roundtrip": {"example-softmax_rows", "layernorm_fwd_ktir", "reduce_generic", "softmax_fwd_ktir",
                           "softmax_small", "ring_reduce", "ring_reduce_inner_loop", "tiling@two_groups",
                           "tiling/seed000_add_mul"},  # physicalized: relayouts between computes
    "ktdp-extract-compute-groups": ALL,
    "ktdf-build-pipelines": ALL,
    # groups with a loop carrying a tensor: its carried values go to LX buffers
    "ktdf-expose-reduction-loops": {"layernorm_fwd_ktir"},
    # groups whose dim 0 divides in 2 (the others reduce along it or have one row), and a hint
    "spyre-coarse-tile": {"scalar_broadcast", "vector_add_ktir", "tiling/seed000_add_mul", "tiling@two_groups"},
    "spyre-distribute-work": ALL,
    "spyre-plan-scratchpad": ALL,
    "spyre-unroll-loops": {"scalar_broadcast", "vector_add_ktir", "tiling/seed000_add_mul"},
    "spatial-verify": ALL,  # the phase becomes `verified`, with a certificate
    "ktdp-check-inter-tile": set(),  # a check: changes no IR by design
    "ktir-legality-check": set(),  # a check: changes no IR by design
    "ktdf-check-schedule": set(),  # a check: changes no IR by design
    "ensure-device-declaration": ALL,  # a module without a device gets one
}

KNOWN_FAILURES: dict[tuple[str, str], str] = {
    # (chain, kernel): the bug, until it is fixed (the case is a strict xfail: fixed, it must be removed)
}


def _name(spec: str) -> str:
    return spec.split("{")[0]


def _cases():
    out = []
    for chain, (_, kernels) in CHAINS.items():
        for k in kernels:
            marks = ()
            if (chain, k.id) in KNOWN_FAILURES:
                marks = pytest.mark.xfail(reason=KNOWN_FAILURES[chain, k.id], strict=True,
                                          raises=spyre_mlir.DiagnosticError)
            out.append(pytest.param(chain, k, id=f"{chain}-{k.id}", marks=marks))
    return out


# -- running ------------------------------------------------------------------------


def run(module, kernel: Kernel, arguments: tuple[str, dict, dict], *, spatial: bool = False) -> dict:
    """Outputs of `kernel` in `module` on `arguments` (its seeded ones, the same every time)."""
    name, args, hbm = arguments
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    if spatial:  # a spatial program is built for its grid (spatial-tile{grid=...})
        args.pop("grid", None)
    # Strict bounds: a pass that makes an access leave its view is an error here, not a masked zero.
    strict = InterpreterOptions(mask_out_of_bounds=False)
    result = spyre_mlir.interpret(module, name, hbm={a: v.copy() for a, v in hbm.items()}, options=strict, **args)
    return {k: np.asarray(v) for k, v in result.items()}


def assert_same(before: dict, after: dict, what: str) -> None:
    assert before.keys() == after.keys(), what
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=f"{what}: output {k!r} changed")


def _spatial_options(kernel: Kernel, args: dict) -> str:
    """spatial-tile's options for `kernel`: its scalars and the grid it runs on."""
    scalars = {**CORPUS_SCALARS.get(kernel.path.stem, {}), **kernel.given}
    options = []
    if scalars:
        options.append('scalars="' + ",".join(f"{k}={v}" for k, v in scalars.items()) + '"')
    if "grid" in args:
        options.append("grid=" + ",".join(map(str, args["grid"])))
    return "{" + ",".join(options) + "}" if options else ""


def _must_change(pass_name: str, kernel: Kernel) -> bool:
    expected = CHANGES[pass_name]
    return expected == ALL or kernel.id in expected


@pytest.mark.parametrize("chain, kernel", _cases())
def test_each_pass_preserves_results_and_does_its_work(chain, kernel):
    """Each step of the chain: the IR changed exactly where CHANGES says, and the outputs
    after a pass of ours are those before it. A module left unchanged computes what it did
    (not run again); an upstream clean-up is compared with the next pass of ours."""
    passes, _ = CHAINS[chain]
    arguments = kernel.arguments()
    module = spyre_mlir.parse(kernel.text())
    before = run(module, kernel, arguments)
    dirty = False  # changed since `before` was computed
    spatial = False  # the module is a spatial program
    for i, spec in enumerate(passes):
        name = _name(spec)
        if name == "spatial-tile":
            spec += _spatial_options(kernel, arguments[1])
        text = ir.print_ir(module)
        spyre_mlir.PassManager.parse(spec).run(module)
        changed = ir.print_ir(module) != text
        spatial = spatial or name.startswith("spatial-")
        last = i + 1 == len(passes)
        if name in BEYOND_THE_KERNEL:
            # What it was given is not comparable (validated in its own tests); the
            # next pass of ours is compared with what this one produced.
            before = None if last or _name(passes[i + 1]) in BEYOND_THE_KERNEL else run(module, kernel, arguments, spatial=True)
            dirty = False
            continue
        if name in SPYRE_PASSES:
            if _must_change(name, kernel):
                assert changed, f"{chain}: {spec} left {kernel.id} unchanged, where it has work (CHANGES)"
            else:
                assert not changed, f"{chain}: {spec} changed {kernel.id}, where CHANGES says it has nothing to do"
        dirty = dirty or changed
        if not dirty or name not in SPYRE_PASSES and not last:
            continue
        after = run(module, kernel, arguments, spatial=spatial)
        assert_same(before, after, f"{chain}: {spec} (and the clean-ups before it) on {kernel.id}")
        before, dirty = after, False


def test_every_pass_is_validated_somewhere():
    """Each pass of ours that keeps the kernel runs in a chain, and has an entry in CHANGES that
    a kernel of its chains meets (a pass that must change nothing: ktdp-check-inter-tile)."""
    ours = set(SPYRE_PASSES) - BEYOND_THE_KERNEL - {"spyre-emit-bundle"}
    in_chains = {_name(p) for passes, _ in CHAINS.values() for p in passes} & set(SPYRE_PASSES)
    assert ours <= in_chains, f"passes in no chain: {sorted(ours - in_chains)}"
    assert set(CHANGES) == ours, f"CHANGES lacks {sorted(ours - set(CHANGES))}, has extra {sorted(set(CHANGES) - ours)}"
    for name in ours:
        cls = get_all_passes()[name]()
        if not getattr(cls, "changes_ir", True):
            assert CHANGES[name] == set(), f"{name} changes no IR by design"
            continue
        kernels = {k.id for passes, ks in CHAINS.values() if name in map(_name, passes) for k in ks}
        expected = CHANGES[name]
        assert expected == ALL and kernels or expected & kernels, (
            f"{name}: no kernel of its chains is one it must change ({expected} vs {sorted(kernels)})")


def test_example_matches_numpy():
    module = spyre_mlir.parse(EXAMPLE)
    spyre_mlir.PassManager.from_pipeline("default").run(module)
    kernel = Kernel("example", EXAMPLE)
    arguments = kernel.arguments()
    out = run(module, kernel, arguments)["out"]
    args = arguments[1]
    x = args["in"].astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=1e-2, atol=2e-3)  # f16 arithmetic per op
