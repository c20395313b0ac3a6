"""spyre-plan-scratchpad: which values it places in LX, and what the planned kernels compute.

Only tensors passed between the group's compute ops (at its top level or in
its loops and branches) are intermediates. What is computed inside another
op's own region (an inter_tile_reduce combiner, an inter_tile_produce body, a
linalg body) is not: a combiner must stay pure, so a ktdp.store there is
invalid IR.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS_INTER_TILE, kernel_arguments

import spyre_mlir
from spyre_mlir.dialects.ktdp import InterTileProduceOp, InterTileReduceOp, StoreOp
from spyre_mlir.passes.pipelines import PIPELINES
from spyre_mlir.passes.spyre_plan_scratchpad import LX_OFFSET_ATTR

PREFIX = ",".join(
    "spyre-coarse-tile{slices=2}" if p == "spyre-coarse-tile" else p
    for p in PIPELINES["ktir-to-bundle"][0].split(",")
    if p not in ("spyre-plan-scratchpad", "spyre-emit-bundle")
)


def _run(module, arguments) -> dict:
    name, args, hbm = arguments
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    result = spyre_mlir.interpret(module, name, hbm={a: v.copy() for a, v in hbm.items()}, **args)
    return {k: np.asarray(v) for k, v in result.items()}


def _inside(op, kinds) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parent_op()
    return False


@pytest.mark.parametrize("stem", ["ring_reduce", "ring_reduce_inner_loop"])
def test_inter_tile_regions_are_not_planned(stem):
    path = CORPUS_INTER_TILE / f"{stem}.mlir"
    if not path.exists():
        pytest.skip(f"{path} not present")
    arguments = kernel_arguments(path, seed=0)
    source = spyre_mlir.parse(path.read_text())
    expected = _run(source, arguments)

    module = spyre_mlir.parse(path.read_text())
    spyre_mlir.PassManager.parse(PREFIX).run(module)
    spyre_mlir.PassManager.parse("spyre-plan-scratchpad").run(module)  # raised on invalid IR before the fix
    module.verify()

    stores = [op for op in module.walk() if isinstance(op, StoreOp)]
    assert not [s for s in stores if _inside(s, (InterTileReduceOp, InterTileProduceOp))]
    lx = [s for s in stores if LX_OFFSET_ATTR in s.operands[1].owner.operands[0].owner.attributes]
    assert lx, "the intermediates between the group's computes (outside the combiner) are still planned"

    got = _run(module, arguments)
    assert got.keys() == expected.keys()
    for k in expected:
        np.testing.assert_array_equal(got[k], expected[k], err_msg=f"{stem}: output {k!r}")
