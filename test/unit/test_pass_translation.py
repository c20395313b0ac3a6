"""Translation validation: every pass that changes IR keeps what kernels compute.

Each kernel runs in the reference interpreter before and after the pass (and
after the default pipeline) on the same seeded random inputs; the outputs
must be identical (these passes change no arithmetic). The example kernel is
also checked against a NumPy oracle.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS, REPO

import spyre_mlir
from spyre_mlir.passes import SPYRE_PASSES

F16 = np.float16


def rand(rng, shape, dtype=F16):
    return rng.standard_normal(shape).astype(dtype)


def corpus_args(name: str, rng) -> dict:
    """Seeded arguments for the corpus kernels (shapes from their comments)."""
    match name:
        case "add-with-control-flow":
            return {"hbm": {1024: rand(rng, (96, 64)), 12288: rand(rng, (96, 64)), 18432: np.zeros((96, 64), F16)}}
        case "layernorm_fwd_ktir":
            big = (1151, 8192)
            return dict(X=rand(rng, big), Y=np.zeros(big, F16), W=rand(rng, big), B=rand(rng, big),
                        Mean=np.zeros(1151, F16), Rstd=np.zeros(1151, F16), N=8192, eps=1e-5, BLOCK_SIZE=1024)
        case "reduce_generic":
            return dict(arg0=rand(rng, (1, 4)))
        case "scalar_broadcast":
            return dict(in_ptr=rand(rng, (1, 1)), out_ptr=np.zeros((4, 64), F16))
        case "softmax_fwd_ktir":
            return dict(output_ptr=np.zeros((4096, 1024), F16), input_ptr=rand(rng, (4096, 1024)), n_rows=4096)
        case "softmax_small":
            return dict(output_ptr=np.zeros((64, 64), F16), input_ptr=rand(rng, (64, 64)), n_rows=64)
        case "vector_add_ktir":
            return dict(x_ptr=rand(rng, 4096), y_ptr=rand(rng, 4096), output_ptr=np.zeros(4096, F16), BLOCK_SIZE=128)
        case "matmul_fwd_ktir":
            return dict(a_ptr=rand(rng, (64, 2048)), b_ptr=rand(rng, (2048, 8192)), c_ptr=np.zeros((64, 8192), F16),
                        K=2048, BLOCK_SIZE_M=32, BLOCK_SIZE_N=512, BLOCK_SIZE_K=128)
    raise KeyError(name)


EXAMPLE = REPO / "examples" / "softmax_rows.mlir"


def kernels():
    out = [pytest.param(EXAMPLE, id="example-softmax_rows")]
    if CORPUS.is_dir():
        # matmul_fwd_ktir (64x2048x8192 in f16) is left to the interpreter's own tests.
        out += [pytest.param(p, id=p.stem) for p in sorted(CORPUS.glob("*.mlir")) if p.stem != "matmul_fwd_ktir"]
    return out


def args_for(path, seed=0) -> dict:
    rng = np.random.default_rng(seed)
    if path == EXAMPLE:
        return dict(out=np.zeros((256, 128), F16), **{"in": rand(rng, (256, 128))})
    return corpus_args(path.stem, rng)


def run(module, path) -> dict:
    args = args_for(path)
    hbm = args.pop("hbm", None)
    (fn,) = [op for op in module.walk() if op.name == "func.func"]
    result = spyre_mlir.interpret(module, fn.sym_name.data, hbm=hbm, **args)
    return {k: np.asarray(v) for k, v in result.items()}


def assert_same(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=f"output {k!r} changed")


@pytest.mark.parametrize("path", kernels())
@pytest.mark.parametrize("pipeline", [*sorted(SPYRE_PASSES), "pipeline:default"])
def test_pass_preserves_results(path, pipeline):
    module = spyre_mlir.parse(path)
    before = run(module, path)
    pm = (spyre_mlir.PassManager.from_pipeline(pipeline.split(":")[1]) if pipeline.startswith("pipeline:")
          else spyre_mlir.PassManager.parse(pipeline))
    pm.run(module)
    assert_same(before, run(module, path))


def test_the_passes_change_the_example():
    """The example kernel really exercises every pass of the default pipeline."""
    from spyre_mlir import ir

    for name in SPYRE_PASSES:
        module = spyre_mlir.parse(EXAMPLE)
        text = ir.print_ir(module)
        spyre_mlir.PassManager.parse(name).run(module)
        assert ir.print_ir(module) != text, f"{name} left the example unchanged"


def test_example_matches_numpy():
    module = spyre_mlir.parse(EXAMPLE)
    spyre_mlir.PassManager.from_pipeline("default").run(module)
    args = args_for(EXAMPLE)
    out = run(module, EXAMPLE)["out"]
    x = args["in"].astype(np.float32)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(out.astype(np.float32), expected, rtol=1e-2, atol=2e-3)  # f16 arithmetic per op
