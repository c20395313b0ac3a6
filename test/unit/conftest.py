"""Shared fixtures: the corpus of real KTIR beside the repo (skipped when absent);
the fuzzer and the kernel generator (`test/fuzz/spyre_fuzz`, not in the
installed package) on the path; `find_iree_opt`, upstream MLIR for parity tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "test" / "fuzz"))

from spyre_fuzz.upstream import find_iree_opt  # the tests compare with upstream MLIR through it

SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "ktir"
CORPUS_INTER_TILE = SHARED / "corpus" / "ktir-inter-tile"
"""Kernels with inter-tile ops (issue 8): the interpreter cannot run them yet, so
only the parse / verify / round-trip / real-MLIR tests ask for them."""


def corpus_files(include_inter_tile: bool = False) -> list[Path]:
    folders = [CORPUS, CORPUS_INTER_TILE] if include_inter_tile else [CORPUS]
    return [f for folder in folders if folder.is_dir() for f in sorted(folder.glob("*.mlir"))]


def corpus_params(include_inter_tile: bool = False):
    """Parametrize over corpus files; one skipped case when ../shared is absent."""
    files = corpus_files(include_inter_tile)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/ktir not present"))]
    return [pytest.param(f, id=f.name) for f in files]


# -- arguments of corpus kernels, shared by every test that runs them ----------

CORPUS_SCALARS: dict[str, dict] = {
    # kernel file stem: values that cannot be derived from the kernel (sizes the
    # kernel's comments or its Triton source give). Pointer data is derived from
    # the memory views (spyre_mlir.interpreter.sample_args).
    "layernorm_fwd_ktir": dict(N=8192, eps=1e-5, BLOCK_SIZE=1024),
    "matmul_fwd_ktir": dict(K=2048, BLOCK_SIZE_M=32, BLOCK_SIZE_N=512, BLOCK_SIZE_K=128),
    "softmax_fwd_ktir": dict(n_rows=4096),
    "ring_reduce_inner_loop": dict(n_iters=3),
    "softmax_small": dict(n_rows=64),
    "vector_add_ktir": dict(BLOCK_SIZE=128),
}

CORPUS_ARRAYS: dict[str, dict[str, tuple[tuple[int, ...], str]]] = {
    # pointer parameters whose arrays the views do not imply (a base computed
    # from the tile id): name -> (shape, dtype), filled with seeded data
    "ring_reduce": {"in_ptr": ((4, 128), "f2"), "out_ptr": ((1, 128), "f2")},
    "ring_reduce_inner_loop": {"in_ptr": ((4, 128), "f2"), "out_ptr": ((1, 128), "f2")},
}

CORPUS_HBM: dict[str, dict[int, tuple[tuple[int, ...], str]]] = {
    # kernels with constant base addresses: element address -> (shape, dtype)
    "add-with-control-flow": {1024: ((96, 64), "f2"), 12288: ((96, 64), "f2"), 18432: ((96, 64), "f2")},
}


CORPUS_GRID: dict[str, tuple[int, ...]] = {
    # kernels written for a grid that their `grid` attribute does not give
    "add-with-control-flow": (32,),
}


def kernel_arguments(path: Path, seed: int = 0, func_name: str | None = None,
                     given: dict | None = None) -> tuple[str, dict, dict]:
    """(function, keyword arguments of `interpret`, hbm preloads) to run a kernel
    file on seeded data; the keywords include `grid` where CORPUS_GRID gives one.

    Arguments come from CORPUS_SCALARS, CORPUS_ARRAYS, `given` (values of this call,
    e.g. a function's scalars) and what the kernel's views imply; a kernel whose
    arguments cannot be derived is skipped, naming what to add."""
    import numpy as np

    import spyre_mlir
    from spyre_mlir.interpreter import Interpreter
    from spyre_mlir.interpreter.sample_args import MissingArgument, sample_arguments

    func_op = Interpreter(spyre_mlir.parse(path)).kernel(func_name)
    rng = np.random.default_rng(seed)
    given = {**CORPUS_SCALARS.get(path.stem, {}), **(given or {})}
    given.update(
        {name: rng.standard_normal(shape).astype(dtype) for name, (shape, dtype) in CORPUS_ARRAYS.get(path.stem, {}).items()}
    )
    try:
        args = sample_arguments(func_op, given, seed)
    except MissingArgument as exc:
        pytest.skip(f"{path.name}: {exc} in test/unit/conftest.py CORPUS_SCALARS (or CORPUS_ARRAYS)")
    hbm = {a: rng.standard_normal(shape).astype(dtype) for a, (shape, dtype) in CORPUS_HBM.get(path.stem, {}).items()}
    if path.stem in CORPUS_GRID:
        args["grid"] = CORPUS_GRID[path.stem]
    return func_op.sym_name.data, args, hbm


def upstream_parse(text: str) -> str:
    """Real MLIR (iree-opt, `find_iree_opt`) parses and verifies `text`, unregistered dialects
    allowed; its generic print. The caller skips when there is no iree-opt."""
    import subprocess

    exe = find_iree_opt()
    assert exe is not None, "no iree-opt: skip the test before calling upstream_parse"
    proc = subprocess.run(
        [exe, "--allow-unregistered-dialect", "--mlir-print-op-generic", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"upstream MLIR rejected our output:\n{proc.stderr}\n--- input ---\n{text}"
    return proc.stdout
