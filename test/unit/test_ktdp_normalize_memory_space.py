"""Unit tests of ktdp-normalize-memory-space (passes/frontend/ktdp_normalize_memory_space.py).

The pass rewrites the older `#ktdp.spyre_memory_space<...>` spelling of a
`ktdp.construct_memory_view` to `#ktdp.memory_space<...>` (HBM -> global,
LX and L0 -> ct_local, core = N -> ct_id = N), in the op's attribute and in
the memory space of its result type; `unspecified` has no equivalent and is
left as written with a located warning.

Tested: each spelling's rewrite (attribute and result type), the warning,
that a current spelling and a second run are left alone, translation
validation (the kernel before and after on seeded inputs, and a NumPy
oracle), and that the pass has no stage requirement (it runs on a kernel and
on its extracted compute groups alike).
"""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.diagnostics import collect
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp, MemorySpaceAttr, SpyreMemorySpaceAttr
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.contracts import CONTRACTS

PASS = "ktdp-normalize-memory-space"

VIEW = (
    "%{name} = ktdp.construct_memory_view %a, sizes: [8], strides: [1] {{coordinate_set = "
    "affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = {space}}} : memref<8xf32{type_space}>"
)


def _spellings(spaces: dict[str, tuple[str, bool]]) -> str:
    """A function of one view per entry: name -> (memory space, whether the result type carries it too)."""
    body = "\n".join(
        "  " + VIEW.format(name=name, space=space, type_space=f", {space}" if in_type else "")
        for name, (space, in_type) in spaces.items()
    )
    return f"func.func @spellings(%a: index) {{\n{body}\n  return\n}}\n"


def _views(module) -> list[ConstructMemoryViewOp]:
    return [op for op in module.walk() if isinstance(op, ConstructMemoryViewOp)]


def _normalized(text: str):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(PASS).run(module)
    return module


@pytest.mark.parametrize(
    "old, new",
    [
        ("#ktdp.spyre_memory_space<HBM>", "#ktdp.memory_space<global>"),
        ("#ktdp.spyre_memory_space<LX>", "#ktdp.memory_space<ct_local>"),
        ("#ktdp.spyre_memory_space<L0>", "#ktdp.memory_space<ct_local>"),
        ("#ktdp.spyre_memory_space<LX, core = 3>", "#ktdp.memory_space<ct_local, ct_id = 3>"),
    ],
)
def test_old_spelling_becomes_the_current_one_in_the_attribute_and_the_result_type(old, new):
    module = _normalized(_spellings({"v": (old, True), "w": (old, False)}))
    v, w = _views(module)
    expected = spyre_mlir.parse(_spellings({"v": (new, True)}))
    (want,) = _views(expected)
    for view in (v, w):
        assert isinstance(view.memory_space, MemorySpaceAttr)
        assert view.memory_space == want.memory_space
    assert v.result.type.memory_space == want.memory_space  # the type followed the attribute
    assert "spyre_memory_space" not in print_ir(module)


def test_unspecified_is_left_as_written_with_a_located_warning():
    text = _spellings({"u": ("#ktdp.spyre_memory_space<unspecified>", False)})
    with collect() as diagnostics:
        module = _normalized(text)
    (view,) = _views(module)
    assert isinstance(view.memory_space, SpyreMemorySpaceAttr)
    (warning,) = diagnostics
    assert warning.severity == "warning"
    assert "'unspecified' has no #ktdp.memory_space equivalent" in warning.message
    assert warning.location is not None and "%u = ktdp.construct_memory_view" in text.splitlines()[warning.location.line - 1]


def test_current_spelling_and_a_second_run_change_nothing():
    current = _spellings({"g": ("#ktdp.memory_space<global>", False), "l": ("#ktdp.memory_space<ct_local>", False)})
    module = spyre_mlir.parse(current)
    before = print_ir(module)
    spyre_mlir.PassManager.parse(PASS).run(module)
    assert print_ir(module) == before
    once = _normalized(_spellings({"h": ("#ktdp.spyre_memory_space<HBM>", False)}))
    text = print_ir(once)
    spyre_mlir.PassManager.parse(PASS).run(once)
    assert print_ir(once) == text


# A kernel reading through the old spelling: out = exp(x) + y, over 4 rows of 32.
KERNEL = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 31 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_add(%x: index, %y: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.spyre_memory_space<HBM>} : memref<4x32xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.spyre_memory_space<HBM>} : memref<4x32xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 32], strides: [32, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x32xf32>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %yt = ktdp.construct_access_tile %yv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x32xf32> -> !ktdp.access_tile<4x32xindex>
  %a = ktdp.load %xt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %b = ktdp.load %yt : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>
  %e = math.exp %a : tensor<4x32xf32>
  %s = arith.addf %e, %b : tensor<4x32xf32>
  ktdp.store %s, %ot : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>
  return
}
"""


def _arguments(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {n: rng.standard_normal((4, 32)).astype(np.float32) for n in ("x", "y")} | {
        "out": np.zeros((4, 32), np.float32)
    }


def _run(module, args: dict[str, np.ndarray]) -> np.ndarray:
    return np.asarray(spyre_mlir.interpret(module, "exp_add", **{k: v.copy() for k, v in args.items()})["out"])


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_computes_the_same_before_and_after_and_matches_numpy(seed):
    args = _arguments(seed)
    before = _run(spyre_mlir.parse(KERNEL), args)
    module = _normalized(KERNEL)
    assert {type(v.memory_space) for v in _views(module)} == {MemorySpaceAttr}
    after = _run(module, args)
    np.testing.assert_array_equal(after, before)
    np.testing.assert_allclose(after, np.exp(args["x"]) + args["y"], rtol=1e-6)


def test_no_stage_requirement_it_normalizes_extracted_groups_too():
    assert not CONTRACTS[PASS].requires
    module = spyre_mlir.parse(KERNEL)
    spyre_mlir.PassManager.parse(f"ktdp-extract-compute-groups,{PASS}").run(module)
    assert _views(module) and all(isinstance(v.memory_space, MemorySpaceAttr) for v in _views(module))
    np.testing.assert_array_equal(_run(module, _arguments(2)), _run(spyre_mlir.parse(KERNEL), _arguments(2)))
