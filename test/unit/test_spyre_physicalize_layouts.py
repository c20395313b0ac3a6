"""spyre-physicalize-layouts: the pass's own facts (the translation validation of every rule and of
the corpus is test_physicalize_layouts.py; the printed IR is in test/lit/passes/frontend/)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ComplexType, DictionaryAttr, IndexType, IntegerAttr, TensorType, f16, f32

import spyre_mlir
from spyre_mlir.analysis.layout import Layout
from spyre_mlir.dialects.spyre import HOST_LAYOUT_ATTR, TARGET_ATTR, host_layout_of_attr
from spyre_mlir.passes.frontend.spyre_physicalize_layouts import Physicalizer

# A 1x64 f32 view stick-laid on its last dim: loaded, then doubled.
KERNEL = """
#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @double(%x: index) -> tensor<1x64xf32> {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf32>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %e = arith.addf %d, %d : tensor<1x64xf32>
  return %e : tensor<1x64xf32>
}
"""
STICK = Layout.from_arrays([1, 0, 1], [1, 0, 2], [64, 0, 64], 2)


def _physicalized():
    module = spyre_mlir.parse(KERNEL)
    spyre_mlir.PassManager.parse("spyre-physicalize-layouts").run(module)
    return module


def test_markers_are_erased_and_the_parameter_keeps_its_host_layout():
    module = _physicalized()
    assert not any(op.name == "spyre.tensor_layout" for op in module.walk())
    func_op = next(op for op in module.walk() if op.name == "func.func")
    attr = func_op.arg_attrs.data[0].data[HOST_LAYOUT_ATTR]  # pyright: ignore[reportOptionalMemberAccess]
    assert host_layout_of_attr(attr) == (STICK, (1, 64))


def test_the_physical_kernel_computes_what_the_marked_one_does():
    x = np.arange(64, dtype=np.float32)[None]
    # The device holds the stick layout of x; with one stick of 64 it is x itself.
    out = spyre_mlir.interpret(_physicalized(), x=x)
    np.testing.assert_array_equal(np.asarray(out["return_0"]).reshape(1, 64), 2 * x)


def test_bytes_moved_are_element_bytes_of_the_module_target():
    module = spyre_mlir.parse(KERNEL)
    at = next(op for op in module.walk() if op.name == "arith.addf")
    default = Physicalizer(module, report_unhandled=False, check_agreement=False)
    assert default.nbytes(TensorType(f16, [2, 64]), at) == 256
    assert default.nbytes(TensorType(IndexType(), [4]), at) == 32
    module.attributes[TARGET_ATTR] = DictionaryAttr({"index_bytes": IntegerAttr(4, 64)})
    assert Physicalizer(module, False, False).nbytes(TensorType(IndexType(), [4]), at) == 16
    # An element without a byte width is a located error, not a 32-bit guess.
    with pytest.raises(spyre_mlir.DiagnosticError, match="no byte width for element type complex<f32>") as info:
        default.nbytes(TensorType(ComplexType(f32), [4]), at)
    assert info.value.diagnostic.location is not None and info.value.diagnostic.location.line == 10
