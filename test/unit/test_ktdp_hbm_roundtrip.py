"""ktdp-hbm-roundtrip: scratch slots on the target's alignment, sized by the target's element widths.

The pass's behaviour on kernels is in test/lit/passes/frontend/ktdp-hbm-roundtrip*.mlir
and, through the schedule pipeline, test_schedule_passes.py.
"""

from __future__ import annotations

import re

import pytest

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.ir import print_ir
from spyre_mlir.passes.frontend.ktdp_hbm_roundtrip import KtdpHbmRoundtripPass
from spyre_mlir.target import SPYRE, set_target

KERNEL = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 7 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @k(%x: index, %out: index) {
  %c0 = arith.constant 0 : index
  %xv = ktdp.construct_memory_view %x, sizes: [4, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x8xf16>
  %ov = ktdp.construct_memory_view %out, sizes: [4, 8], strides: [8, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<4x8xf16>
  %xt = ktdp.construct_access_tile %xv[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x8xf16> -> !ktdp.access_tile<4x8xindex>
  %d = ktdp.load %xt : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf16>
  %e = EXP
  %s = SQRT
  %r = math.exp %s : tensor<4x8xf16>
  %ot = ktdp.construct_access_tile %ov[%c0, %c0] {access_tile_set = #all, access_tile_order = #id2} : memref<4x8xf16> -> !ktdp.access_tile<4x8xindex>
  ktdp.store %r, %ot : tensor<4x8xf16>, !ktdp.access_tile<4x8xindex>
  return
}
"""

PLAIN = KERNEL.replace("EXP", "math.exp %d : tensor<4x8xf16>").replace("SQRT", "math.sqrt %e : tensor<4x8xf16>")


def _run(text: str, target=None) -> str:
    module = spyre_mlir.parse(text)
    if target is not None:
        set_target(module, target)
    KtdpHbmRoundtripPass().apply(None, module)  # pyright: ignore[reportArgumentType]
    return print_ir(module)


def _slots(printed: str) -> tuple[int, list[int]]:
    scratch = int(re.search(r"spyre.scratch_bytes = (\d+)", printed).group(1))  # pyright: ignore[reportOptionalMemberAccess]
    slots = [int(n) for n in re.findall(r"arith.constant (\d+) : index\n\s*%\S+ = arith.addi %hbm_scratch_core", printed)]
    return scratch, slots


def test_slots_start_on_the_target_alignment():
    # Two 64-byte edges: the second slot starts one alignment (128 bytes) in, not at 64.
    assert _slots(_run(PLAIN)) == (2 * SPYRE.alignment_bytes, [0, SPYRE.alignment_bytes])


def test_a_target_with_another_alignment():
    assert _slots(_run(PLAIN, SPYRE.replace(alignment_bytes=256))) == (512, [0, 256])


def test_an_element_type_without_a_width_is_a_located_error():
    text = KERNEL.replace("EXP", '"test.op"(%d) : (tensor<4x8xf16>) -> tensor<4x8xcomplex<f32>>').replace(
        "SQRT", '"test.op"(%e) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xf16>'
    )
    with pytest.raises(DiagnosticError, match=r"cannot size a tensor<4x8xcomplex<f32>>: no byte width") as info:
        _run(text)
    assert info.value.diagnostic.location.line == 10  # pyright: ignore[reportOptionalMemberAccess] - %e's producer
