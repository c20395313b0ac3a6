"""Strided and transposed views through `ktir-to-spatial` (issue 22, item 2).

A kernel's memory view with non-row-major strides becomes a strided
`spatial.tensor` (`memref<32x64xf32, strided<[1, 32]>>`): its load and store
steps move the elements at the view's strides, so a transposed store is a
strided store. Each program is interpreted on seeded inputs before and after
the pipeline and compared bit for bit with its source and with NumPy. What
cannot be said (two elements at one address) is refused, located.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType, StridedLayoutAttr
from xdsl.dialects.builtin import f32 as F32
from xdsl.utils.exceptions import VerifyException

import spyre_mlir
from spyre_mlir import DiagnosticError
from spyre_mlir.dialects import spatial

f32 = np.float32
M, N = 32, 64


def _view(name: str, ptr: str, strides: tuple[int, int]) -> str:
    return (
        f"%{name} = ktdp.construct_memory_view %{ptr}, sizes: [{M}, {N}], strides: [{strides[0]}, {strides[1]}] "
        f"{{coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {M - 1} >= 0, d1 >= 0, -d1 + {N - 1} >= 0)>, "
        f"memory_space = #ktdp.memory_space<global>}} : memref<{M}x{N}xf32>"
    )


def _tile(name: str, view: str) -> str:
    return (
        f"%{name} = ktdp.construct_access_tile %{view}[%r, %c0] "
        "{access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 63 >= 0)>, "
        f"access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : memref<{M}x{N}xf32> -> "
        "!ktdp.access_tile<16x64xindex>"
    )


# Grid [2], 16-row blocks. @x is read every other element of every row of a
# 32x128 array (strides [128, 2]); @w is read transposed from a 64x32 array
# (strides [1, 32]); @out is stored transposed into a 64x32 array (strides
# [1, 32]); @gap is stored at every other element of a 32x129 array (strides
# [129, 2]), the elements between kept.
KERNEL = f"""
func.func @strided(%x: index, %w: index, %out: index, %gap: index) attributes {{grid = [2]}} {{
  %pid = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  {_view("xv", "x", (2 * N, 2))}
  {_view("wv", "w", (1, M))}
  {_view("ov", "out", (1, M))}
  {_view("gv", "gap", (2 * N + 1, 2))}
  %r = arith.muli %pid, %c16 : index
  {_tile("xt", "xv")}
  %xd = ktdp.load %xt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  {_tile("wt", "wv")}
  %wd = ktdp.load %wt : !ktdp.access_tile<16x64xindex> -> tensor<16x64xf32>
  %two = arith.constant dense<2.0> : tensor<16x64xf32>
  %m = arith.mulf %xd, %two : tensor<16x64xf32>
  %y = arith.addf %m, %wd : tensor<16x64xf32>
  {_tile("ot", "ov")}
  ktdp.store %y, %ot : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  %z = arith.subf %xd, %wd : tensor<16x64xf32>
  {_tile("gt", "gv")}
  ktdp.store %z, %gt : tensor<16x64xf32>, !ktdp.access_tile<16x64xindex>
  return
}}
"""


def _args(seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return dict(
        x=rng.standard_normal((M, 2 * N)).astype(f32),
        w=rng.standard_normal((N, M)).astype(f32),
        out=rng.standard_normal((N, M)).astype(f32),
        gap=rng.standard_normal((M, 2 * N + 1)).astype(f32),
    )


def _numpy(args: dict) -> dict:
    x, w = args["x"][:, ::2], args["w"].T
    out = (x * f32(2) + w).T
    gap = args["gap"].copy()
    gap[:, : 2 * N : 2] = x - w
    return dict(out=out, gap=gap)


def _copy(args: dict) -> dict:
    return {k: v.copy() for k, v in args.items()}


def _lower(text: str, multicast: bool = True):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.from_pipeline("ktir-to-spatial" + ("" if multicast else "{multicast=false}")).run(module)
    return module


@pytest.mark.parametrize("multicast", [True, False], ids=["multicast", "no-multicast"])
@pytest.mark.parametrize("seed", [0, 1])
def test_strided_and_transposed_views_run_equal_to_source_and_numpy(seed, multicast):
    args = _args(seed)
    source = spyre_mlir.interpret(spyre_mlir.parse(KERNEL), "strided", **_copy(args))
    module = _lower(KERNEL, multicast)
    (program,) = [op for op in module.walk() if isinstance(op, spatial.ProgramOp)]
    assert program.phase == "verified"
    got = spyre_mlir.interpret(module, "strided", **_copy(args))
    expected = _numpy(args)
    for name in ("out", "gap"):
        np.testing.assert_array_equal(got[name], source[name])
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got["x"], args["x"])  # loads write nothing


def test_views_become_strided_tensors():
    module = _lower(KERNEL)
    tensors = {op.sym_name.data: op for op in module.walk() if isinstance(op, spatial.TensorOp)}
    assert {name: t.element_strides for name, t in tensors.items()} == {
        "x": (2 * N, 2),
        "w": (1, M),
        "out": (1, M),
        "gap": (2 * N + 1, 2),
    }
    assert tensors["out"].span == M * N
    assert tensors["gap"].span == (M - 1) * (2 * N + 1) + 2 * (N - 1) + 1


def test_a_too_short_argument_of_a_strided_tensor_is_refused():
    args = _args(0)
    args["gap"] = args["gap"][:, :N].copy()  # 32x64: the view reaches element 4125
    with pytest.raises(DiagnosticError, match=r"argument 'gap' must be a f32 \(at least 4126 elements"):
        spyre_mlir.interpret(_lower(KERNEL), "strided", **args)


def test_overlapping_view_is_refused_where_it_is_written():
    text = KERNEL.replace(f"strides: [{2 * N + 1}, 2]", "strides: [32, 1]")
    with pytest.raises(DiagnosticError) as info:
        _lower(text)
    message = str(info.value)
    assert "is not one address per element" in message and "strides [32, 1]" in message
    location = info.value.diagnostic.location
    assert location is not None
    line = next(i for i, text in enumerate(text.splitlines(), 1) if "%gv = ktdp.construct_memory_view" in text)
    assert location.line == line


@pytest.mark.parametrize(
    ("shape", "strides", "overlaps"),
    [
        ((32, 256), (1, 32), False),
        ((16, 64), (128, 1), False),
        ((4, 8), (4, 1), True),
        ((4, 8), (0, 1), True),
        ((1, 8), (0, 1), False),
        ((4, 8), (-8, 1), True),
        ((2, 3, 4), (1, 8, 2), False),
        ((2, 3, 4), (1, 4, 2), True),
    ],
)
def test_overlap(shape, strides, overlaps):
    assert (spatial.overlap(shape, strides) is not None) == overlaps
    if not overlaps:  # every element its own address: as many distinct addresses as elements
        index = np.indices(shape).reshape(len(shape), -1).T
        assert len({int(i @ np.array(strides)) for i in index}) == int(np.prod(shape))


def test_strided_tensor_verifier():
    good = spatial.TensorOp("z", MemRefType(F32, [32, 256], StridedLayoutAttr([1, 32], 0)))
    good.verify_()
    with pytest.raises(VerifyException, match="place two of its elements"):
        spatial.TensorOp("z", MemRefType(F32, [4, 8], StridedLayoutAttr([4, 1], 0))).verify_()
    with pytest.raises(VerifyException, match="offset 0"):
        spatial.TensorOp("z", MemRefType(F32, [4, 8], StridedLayoutAttr([1, 4], 3))).verify_()


# A loop over 8-row blocks of a 13-row view on one site, stored transposed
# (strides [1, 13]) into a 64x13 array: the second block is a tail tile (rows
# [8, 16) of 13), masked in the view's coordinates, so no element past the
# view's 13 rows is written through the strides.
TAIL = """
func.func @tail(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %xv = ktdp.construct_memory_view %x, sizes: [13, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 12 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<13x64xf32>
  %ov = ktdp.construct_memory_view %out, sizes: [13, 64], strides: [1, 13] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 12 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<13x64xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %r = arith.muli %i, %c8 : index
    %xt = ktdp.construct_access_tile %xv[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<13x64xf32> -> !ktdp.access_tile<8x64xindex>
    %xd = ktdp.load %xt : !ktdp.access_tile<8x64xindex> -> tensor<8x64xf32>
    %e = math.exp %xd : tensor<8x64xf32>
    %ot = ktdp.construct_access_tile %ov[%r, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<13x64xf32> -> !ktdp.access_tile<8x64xindex>
    ktdp.store %e, %ot : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>
  }
  return
}
"""


def test_a_masked_tail_tile_of_a_transposed_store_writes_only_the_view():
    rng = np.random.default_rng(3)
    args = dict(x=rng.standard_normal((13, 64)).astype(f32), out=rng.standard_normal((64, 13)).astype(f32))
    source = spyre_mlir.interpret(spyre_mlir.parse(TAIL), "tail", **_copy(args))
    module = _lower(TAIL)
    assert any(isinstance(op, spatial.StageOp) and "masked" in op.attributes for op in module.walk())
    got = spyre_mlir.interpret(module, "tail", **_copy(args))
    np.testing.assert_array_equal(got["out"], source["out"])
    np.testing.assert_allclose(got["out"], np.exp(args["x"]).T, rtol=1e-6)
