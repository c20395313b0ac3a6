"""A new pass needs one file, a registry line and a contract line (issue 19's measure).

`ToyPass` below is the pass the issue names: it asks an alias query, a dim map
and an LX allocation. Written against the analysis layer it imports only
public names of `spyre_mlir.analysis`, `spyre_mlir.target` and the dialects,
and it is registered and given its stage by data (`SPYRE_PASSES`,
`CONTRACTS`): nothing else in the tree changes. Before issue 19 the same pass
had to import `_may_alias`/`_view_of` from the extraction pass, copy coarse
tiling's dim rules (there was no interface) and import the scratchpad pass's
private `_align` and first fit, or make them public first: three more files.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.passes import ModulePass

import spyre_mlir
from spyre_mlir.analysis.access import may_alias, view_of
from spyre_mlir.analysis.allocation import Slot, allocate
from spyre_mlir.analysis.dim_maps import dim_map
from spyre_mlir.analysis.liveness import live_ranges, value_bytes
from spyre_mlir.dialects.ktdp import LoadOp, StoreOp
from spyre_mlir.dialects.spyre import TARGET_ATTR
from spyre_mlir.passes import SPYRE_PASSES
from spyre_mlir.passes.contracts import CONTRACTS, Contract, group_functions
from spyre_mlir.target import target_of
from spyre_mlir.walk import walk_ops

TOY_ATTR = "test.toy"


@dataclass(frozen=True)
class ToyPass(ModulePass):
    """Record on each compute group: load/store pairs that may alias, reduction loops, LX peak.

    Before: `func.func @g() attributes {spyre.compute_group}`
    After:  `func.func @g() attributes {spyre.compute_group, test.toy = [pairs, reductions, peak]}`
    """

    name = "test-toy"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = target_of(op)
        for group in group_functions(op):
            ops = list(walk_ops(group))
            loads = [view_of(o.operands[0]) for o in ops if isinstance(o, LoadOp)]
            stores = [view_of(o.operands[1]) for o in ops if isinstance(o, StoreOp)]
            pairs = sum(may_alias(a, b) for a in loads for b in stores)
            maps = [m for m in map(dim_map, ops) if m is not None]
            reductions = sum(len(m.reductions) for m in maps)
            peak = 0
            for inner in ops:
                for region in inner.regions:
                    for block in region.blocks:
                        ranges = live_ranges(block, lambda v: value_bytes(v, target))
                        slots = [Slot(r.size, r.start, r.end) for v, r in ranges.items() if isinstance(v.type, TensorType)]
                        peak = max(peak, allocate(slots, target.alignment_bytes, capacity=target.lx_bytes).peak)
            group.attributes[TOY_ATTR] = ArrayAttr([IntegerAttr(n, i64) for n in (pairs, reductions, peak)])


# Row i of @A summed along its row into @S[i]; @D = 2 * @A. @D's address is DADDR: placed over @A, the
# load of @A may read what the store to @D writes.
KERNEL = """
func.func @k() attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4 : index
  %a0 = arith.constant 0 : index
  %d0 = arith.constant DADDR : index
  %s0 = arith.constant 65536 : index
  %A = ktdp.construct_memory_view %a0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %D = ktdp.construct_memory_view %d0, sizes: [4, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x64xf16>
  %S = ktdp.construct_memory_view %s0, sizes: [4, 1], strides: [1, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<4x1xf16>
  scf.for %i = %c0 to %n step %c1 {
    %ta = ktdp.construct_access_tile %A[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %td = ktdp.construct_access_tile %D[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 63 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x64xf16> -> !ktdp.access_tile<1x64xindex>
    %ts = ktdp.construct_access_tile %S[%i, %c0] {access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 >= 0)>, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>} : memref<4x1xf16> -> !ktdp.access_tile<1x1xindex>
    %a = ktdp.load %ta : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf16>
    %e = tensor.empty() : tensor<1x64xf16>
    %r = linalg.add ins(%a, %a : tensor<1x64xf16>, tensor<1x64xf16>) outs(%e : tensor<1x64xf16>) -> tensor<1x64xf16>
    ktdp.store %r, %td : tensor<1x64xf16>, !ktdp.access_tile<1x64xindex>
    %z = arith.constant 0.0 : f16
    %e1 = tensor.empty() : tensor<1xf16>
    %init = linalg.fill ins(%z : f16) outs(%e1 : tensor<1xf16>) -> tensor<1xf16>
    %sum = linalg.reduce ins(%a : tensor<1x64xf16>) outs(%init : tensor<1xf16>) dimensions = [1]
      (%x: f16, %acc: f16) {
        %y = arith.addf %x, %acc : f16
        linalg.yield %y : f16
      }
    %s2 = tensor.expand_shape %sum [[0, 1]] output_shape [1, 1] : tensor<1xf16> into tensor<1x1xf16>
    ktdp.store %s2, %ts : tensor<1x1xf16>, !ktdp.access_tile<1x1xindex>
  }
  return
}
"""


def _toy(monkeypatch, d_address: int, target: str = "") -> list[int]:
    monkeypatch.setitem(SPYRE_PASSES, ToyPass.name, f"{__name__}:ToyPass")
    monkeypatch.setitem(CONTRACTS, ToyPass.name, Contract(requires=("grouped",)))
    text = KERNEL.replace("DADDR", str(d_address))
    if target:
        text = f"module attributes {{{TARGET_ATTR} = {target}}} {{\n{text}\n}}"
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(f"ktdp-extract-compute-groups,{ToyPass.name}").run(module)
    (group,) = group_functions(module)
    return [a.value.data for a in group.attributes[TOY_ATTR].data]  # pyright: ignore[reportAttributeAccessIssue]


def test_the_toy_pass_asks_the_analysis_layer(monkeypatch):
    pairs, reductions, peak = _toy(monkeypatch, 8192)
    assert pairs == 0  # @A, @D and @S are disjoint
    assert reductions == 1  # the row sum
    # Each tensor starts at an aligned offset (128 bytes, one stick); the peak is the end of the highest,
    # which may be a small one (the 2-byte sum). Three 128-byte rows are live together at the add (the
    # row, the doubled row, ...); seven tensors in all bound what first fit can need.
    assert 3 * 128 <= peak <= 7 * 128


def test_the_allocation_reads_the_target(monkeypatch):
    peak = _toy(monkeypatch, 8192, target="{alignment_bytes = 1024 : i64}")[2]
    # Slots start on 1024 bytes now; the peak is where the highest one ends (128 or 2 bytes past a start).
    assert peak % 1024 in (2, 128) and 2 * 1024 + 2 <= peak <= 6 * 1024 + 128


def test_the_alias_query_sees_a_store_over_a_loaded_view(monkeypatch):
    assert _toy(monkeypatch, 64)[0] == 1  # @D overlaps @A


def test_the_toy_pass_is_refused_out_of_stage(monkeypatch):
    import pytest

    from spyre_mlir.diagnostics import DiagnosticError

    monkeypatch.setitem(SPYRE_PASSES, ToyPass.name, f"{__name__}:ToyPass")
    monkeypatch.setitem(CONTRACTS, ToyPass.name, Contract(requires=("grouped",)))
    module = spyre_mlir.parse(KERNEL.replace("DADDR", "8192"))
    with pytest.raises(DiagnosticError, match="run 'ktdp-extract-compute-groups' first"):
        spyre_mlir.PassManager.parse(ToyPass.name).run(module)


def test_the_toy_pass_imports_only_public_names_of_lower_layers():
    tree = ast.parse(Path(__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("spyre_mlir"):
            layer = node.module.split(".")[1] if "." in node.module else ""
            assert layer in ("", "analysis", "dialects", "target", "walk", "passes", "diagnostics"), node.module
            if layer == "passes":
                assert node.module in ("spyre_mlir.passes", "spyre_mlir.passes.contracts"), node.module
            assert not any(a.name.startswith("_") for a in node.names), node.module
