"""Interpreter speed against the same computation written directly in NumPy.

    python benchmarks/interpreter_bench.py [--repeat 5] [--corpus DIR] [KERNEL ...]

For each kernel (the corpus's softmax_fwd_ktir, layernorm_fwd_ktir,
vector_add_ktir, and the inter-tile ring_reduce_inner_loop and
allreduce_32core_f16 by default; matmul_fwd_ktir on request), both sides run in this process on
the same seeded inputs and their outputs are compared. Times are the best of
`--repeat` runs:

- numpy:  the kernel's computation as plain NumPy on whole arrays, with the
          interpreter's numerics (f16 ops in float16, reductions in float32);
- run:    `Interpreter.run` (argument placement, decoding, execution,
          reading results back), the module parsed and verified once before;
- parse:  parsing and verifying the module, paid once per file.

For the inter-tile kernels the NumPy side is the same sums in one call:
`np.add.reduce(rows, axis=0)` on the f16 rows (row by row in f16, the
interpreter's ascending-tile-id fold), plus, for the loop kernel, its
accumulation over `n_iters` = 100 iterations (one reduce call per iteration,
as the kernel all-reduces in every iteration).

The ratio is run / numpy. This is a benchmark, not a test: it asserts
nothing about time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spyre_mlir.interpreter import Interpreter

f16, f32 = np.float16, np.float32
DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "ktir"
OWN_KERNELS = Path(__file__).resolve().parents[1] / "test" / "unit" / "kernels"


@dataclass
class Case:
    file: str
    args: Callable[[np.random.Generator], dict]
    numpy: Callable[[dict], dict[str, np.ndarray]]  # outputs by argument name
    func: str | None = None  # default: the module's only kernel

    def path(self, corpus: Path) -> Path:
        """`file` is relative to the corpus's ktir/ folder, or starts with `own/` (test/unit/kernels/)."""
        if self.file.startswith("own/"):
            return OWN_KERNELS / self.file.removeprefix("own/")
        return corpus / self.file


def _softmax_args(rng):
    x = rng.standard_normal((4096, 1024)).astype(f16)
    return dict(output_ptr=np.zeros_like(x), input_ptr=x, n_rows=4096)


def _softmax_numpy(a):
    x = a["input_ptr"]
    e = np.exp(x - np.fmax.reduce(x, axis=1, keepdims=True))
    return {"output_ptr": e / np.add.reduce(e, axis=1, dtype=f32, keepdims=True).astype(f16)}


def _layernorm_args(rng):
    shape = (1151, 8192)
    x, w, b = (rng.standard_normal(shape).astype(f16) for _ in range(3))
    return dict(X=x, Y=np.zeros_like(x), W=w, B=b, Mean=np.zeros(1151, f16), Rstd=np.zeros(1151, f16),
                N=8192, eps=1e-5, BLOCK_SIZE=1024)


def _layernorm_numpy(a):
    x, w, b, n, block = a["X"], a["W"], a["B"], a["N"], a["BLOCK_SIZE"]
    blocks = x.reshape(x.shape[0], n // block, block)
    acc = np.zeros((x.shape[0], block), f16)
    for k in range(n // block):  # the kernel accumulates its column blocks in f16
        acc += blocks[:, k]
    mean = np.add.reduce(acc, axis=1, dtype=f32).astype(f16) / f16(n)
    centered = x - mean[:, None]
    sq = (centered * centered).reshape(blocks.shape)
    acc = np.zeros((x.shape[0], block), f16)
    for k in range(n // block):
        acc += sq[:, k]
    var = np.add.reduce(acc, axis=1, dtype=f32).astype(f16) / f16(n)
    rstd = f16(1) / np.sqrt(var + f16(a["eps"]))
    return {"Y": centered * rstd[:, None] * w + b, "Mean": mean, "Rstd": rstd}


def _vector_add_args(rng):
    x, y = rng.standard_normal(4096).astype(f16), rng.standard_normal(4096).astype(f16)
    return dict(x_ptr=x, y_ptr=y, output_ptr=np.zeros(4096, f16), BLOCK_SIZE=128)


def _vector_add_numpy(a):
    return {"output_ptr": a["x_ptr"] + a["y_ptr"]}


def _matmul_args(rng):
    a, b = rng.standard_normal((64, 2048)).astype(f16), rng.standard_normal((2048, 8192)).astype(f16)
    return dict(a_ptr=a, b_ptr=b, c_ptr=np.zeros((64, 8192), f16), K=2048, BLOCK_SIZE_M=32, BLOCK_SIZE_N=512,
                BLOCK_SIZE_K=128)


def _matmul_numpy(a):
    acc = np.zeros((64, 8192), f16)
    for k in range(0, 2048, 128):
        acc += (a["a_ptr"][:, k : k + 128].astype(f32) @ a["b_ptr"][k : k + 128].astype(f32)).astype(f16)
    return {"c_ptr": acc}


def _ring_loop_args(rng):
    rows = rng.standard_normal((4, 128)).astype(f16)
    return dict(in_ptr=rows, out_ptr=np.zeros((1, 128), f16), n_iters=100)


def _ring_loop_numpy(a):
    acc = np.zeros(128, f16)
    for _ in range(a["n_iters"]):  # the kernel all-reduces again in every iteration
        acc = acc + np.add.reduce(a["in_ptr"], axis=0)
    return {"out_ptr": acc[None]}


def _allreduce32_args(rng):
    x = rng.standard_normal((32, 8192)).astype(f16)
    return dict(x=x, out=np.zeros((1, 8192), f16))


def _allreduce32_numpy(a):
    return {"out": np.add.reduce(a["x"], axis=0)[None]}


CASES = {
    "softmax_fwd_ktir": Case("softmax_fwd_ktir.mlir", _softmax_args, _softmax_numpy),
    "layernorm_fwd_ktir": Case("layernorm_fwd_ktir.mlir", _layernorm_args, _layernorm_numpy),
    "vector_add_ktir": Case("vector_add_ktir.mlir", _vector_add_args, _vector_add_numpy),
    "matmul_fwd_ktir": Case("matmul_fwd_ktir.mlir", _matmul_args, _matmul_numpy),
    "ring_reduce_inner_loop": Case("../ktir-inter-tile/ring_reduce_inner_loop.mlir", _ring_loop_args, _ring_loop_numpy),
    "allreduce_32core_f16": Case(
        "own/inter_tile/allreduce_32core_f16.mlir", _allreduce32_args, _allreduce32_numpy, "allreduce_32core_f16"
    ),
}


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "kernels",
        nargs="*",
        default=["softmax_fwd_ktir", "layernorm_fwd_ktir", "vector_add_ktir", "ring_reduce_inner_loop", "allreduce_32core_f16"],
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()

    header = f"{'kernel':<22} {'numpy ms':>9} {'run ms':>9} {'ratio':>7} {'parse ms':>9}  {'mode':<8} outputs"
    print(header)
    print("-" * len(header))
    for name in args.kernels:
        case = CASES[name]
        path = case.path(args.corpus)
        inputs = case.args(np.random.default_rng(0))
        parse_time, interpreter = best_of(1, lambda: Interpreter(path))
        numpy_time, expected = best_of(args.repeat, lambda: case.numpy(inputs))
        run_time, result = best_of(args.repeat, lambda: interpreter.run(case.func, inputs))
        agree = all(
            np.allclose(result[k].astype(f32), v.astype(f32), rtol=2e-3, atol=2e-3, equal_nan=True)
            for k, v in expected.items()
        )
        print(
            f"{name:<22} {numpy_time * 1e3:9.2f} {run_time * 1e3:9.2f} {run_time / numpy_time:6.2f}x "
            f"{parse_time * 1e3:9.1f}  {result.report.mode:<8} {'match' if agree else 'DIFFER'}"
        )


if __name__ == "__main__":
    main()
