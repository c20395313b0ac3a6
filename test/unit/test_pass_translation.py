"""Translation validation: every pass that changes IR keeps what kernels compute.

Each kernel runs in the reference interpreter before and after the pass (and
after the default pipeline) on the same seeded random inputs; the outputs
must be identical (these passes change no arithmetic). The example kernel is
also checked against a NumPy oracle.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS, REPO, kernel_arguments

import spyre_mlir
from spyre_mlir.passes import BEYOND_THE_KERNEL, SPYRE_PASSES

F16 = np.float16
EXAMPLE = REPO / "examples" / "softmax_rows.mlir"
# Passes whose output is not the kernel: validated by executing what they
# write (the bundle, the spatial program) against the source in their own tests.
OWN_VALIDATION = BEYOND_THE_KERNEL


def kernels():
    out = [pytest.param(EXAMPLE, id="example-softmax_rows")]
    if CORPUS.is_dir():
        # matmul_fwd_ktir (64x2048x8192 in f16) is left to the interpreter's own tests.
        out += [pytest.param(p, id=p.stem) for p in sorted(CORPUS.glob("*.mlir")) if p.stem != "matmul_fwd_ktir"]
    inter_tile = CORPUS.parent / "ktir-inter-tile"
    if inter_tile.is_dir():
        out += [pytest.param(p, id=p.stem) for p in sorted(inter_tile.glob("*.mlir"))]
    return out


def run(module, path) -> dict:
    """Outputs of the kernel of `path`, on the same seeded arguments every time."""
    name, args, hbm = kernel_arguments(path, seed=0)
    result = spyre_mlir.interpret(module, name, hbm=hbm, **args)
    return {k: np.asarray(v) for k, v in result.items()}


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=f"output {k!r} changed")


@pytest.mark.parametrize("path", kernels())
@pytest.mark.parametrize("pipeline", [*sorted(set(SPYRE_PASSES) - OWN_VALIDATION), "pipeline:default"])
def test_pass_preserves_results(path, pipeline):
    module = spyre_mlir.parse(path)
    before = run(module, path)
    pm = (spyre_mlir.PassManager.from_pipeline(pipeline.split(":")[1]) if pipeline.startswith("pipeline:")
          else spyre_mlir.PassManager.parse(pipeline))
    pm.run(module)
    assert_same(before, run(module, path))


# Passes that act on what the example does not have: the kernels they act on
# (whose translation validation is in the pass's own test file).
OWN_EXAMPLES = {
    "spatial-verify": REPO / "test" / "lit" / "passes" / "spatial-verify.mlir",
    "spyre-physicalize-layouts": REPO / "test" / "unit" / "kernels" / "layout" / "rules.mlir",
    "spyre-coarse-tile": REPO / "test" / "unit" / "kernels" / "tiling" / "seed000_add_mul.mlir",
    "spyre-raise-counted-loops": REPO / "test" / "lit" / "passes" / "spyre-raise-counted-loops.mlir",
    "spyre-unroll-loops": REPO / "test" / "lit" / "passes" / "spyre-unroll-loops.mlir",
}
# Passes that act on what an earlier pass produces: run those first.
PREREQUISITES = {
    "ktdf-build-pipelines": "ktdp-extract-compute-groups",
    "spyre-coarse-tile": "spyre-physicalize-layouts,ktdp-extract-compute-groups",
    "spyre-distribute-work": "ktdp-extract-compute-groups",
    "spyre-plan-scratchpad": "ktdp-extract-compute-groups",
}


def test_the_passes_change_the_example():
    """The example kernel (or the pass's own kernels) really exercises every pass."""
    from spyre_mlir import ir

    for name in SPYRE_PASSES:
        if name in OWN_VALIDATION:
            continue
        if not getattr(SPYRE_PASSES[name](), "changes_ir", True):
            continue  # a check (ktdp-check-inter-tile): changes no IR by design
        module = spyre_mlir.parse(OWN_EXAMPLES.get(name, EXAMPLE))
        if name in PREREQUISITES:
            spyre_mlir.PassManager.parse(PREREQUISITES[name]).run(module)
        text = ir.print_ir(module)
        spyre_mlir.PassManager.parse(name).run(module)
        assert ir.print_ir(module) != text, f"{name} left the example unchanged"


def test_example_matches_numpy():
    module = spyre_mlir.parse(EXAMPLE)
    spyre_mlir.PassManager.from_pipeline("default").run(module)
    _, args, _ = kernel_arguments(EXAMPLE, seed=0)
    out = run(module, EXAMPLE)["out"]
    x = args["in"].astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=1e-2, atol=2e-3)  # f16 arithmetic per op
