"""Analysis views of loops and accesses (spyre_mlir.analysis.loops and .access, issue 12 part 3).

Iteration domains of nested loops (constant and dynamic bounds); accesses
through KTDP views and tiles as byte addresses (a row-tile loop touches
[i*2048, i*2048 + 2048) of its buffer at iteration i); dependence verdicts
with their three values: a proven loop-carried dependence (an accumulator
row loaded and stored every iteration), proven independence (disjoint rows
per iteration), and no proof for distinct pointer parameters (unless the
calling convention is assumed), a pointer computed from a loaded value or
an unknown op, strides that are not injective, a runtime-shaped view.
"""

from __future__ import annotations

import pytest

import spyre_mlir
from spyre_mlir.analysis.access import (
    ABSOLUTE,
    UNKNOWN,
    Verdict,
    access_of,
    accesses,
    dependence,
    injective,
    interchange_dependence,
)
from spyre_mlir.analysis.loops import iteration_domains

PI, PD, PNE = Verdict.PROVEN_INDEPENDENT, Verdict.PROVEN_DEPENDENT, Verdict.PROOF_NOT_ESTABLISHED

HEADER = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#blk = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#row = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
"""

VIEW = (
    "ktdp.construct_memory_view {base}, sizes: [{sizes}], strides: [{strides}] "
    "{{coordinate_set = {set}, memory_space = #ktdp.memory_space<{space}>}} : memref<{shape}>"
)


def view(base: str, sizes="32, 128", strides="128, 1", shape="32x128xf32", cset="#all", space="global") -> str:
    return VIEW.format(base=base, sizes=sizes, strides=strides, set=cset, space=space, shape=shape)


# Row tiles: y[4i:4i+4] = exp(x[4i:4i+4]); acc[0:4] += x[4i:4i+4] (loaded and stored each iteration).
ROWS = (
    HEADER
    + f"""
func.func @rows(%x: index, %y: index, %acc: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %xv = {view("%x")}
  %yv = {view("%y")}
  %av = {view("%acc", sizes="4, 128", shape="4x128xf32", cset="#blk")}
  scf.for %i = %c0 to %c8 step %c1 {{
    %row = arith.muli %i, %c4 : index
    %xt = ktdp.construct_access_tile %xv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %a = ktdp.load %xt : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %e = math.exp %a : tensor<4x128xf32>
    %yt = ktdp.construct_access_tile %yv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    ktdp.store %e, %yt : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
    %at = ktdp.construct_access_tile %av[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<4x128xf32> -> !ktdp.access_tile<4x128xindex>
    %s = ktdp.load %at : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %t = arith.addf %s, %a : tensor<4x128xf32>
    ktdp.store %t, %at : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  }}
  return
}}
"""
)


def kernel(text: str, name: str | None = None):
    module = spyre_mlir.parse(text)
    funcs = [op for op in module.walk() if op.name == "func.func" and op.body.blocks]
    return next(f for f in funcs if name is None or f.sym_name.data == name)


def by_tile(found, name: str, kind: str):
    """The load or store whose access tile is %name."""
    for a in found:
        if a.op.name not in ("ktdp.load", "ktdp.store"):
            continue
        tile = a.op.operands[0 if a.op.name == "ktdp.load" else 1]
        if tile.name_hint == name and a.kind == kind:
            return a
    raise AssertionError(f"no {kind} of %{name}")


# -- iteration domains ---------------------------------------------------------

DOMAINS = """
func.func @nest(%x: index, %n: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c3 {
    scf.for %j = %c0 to %n step %c1 {
      %lo = arith.addi %c1, %c1 : index
      scf.for %k = %lo to %c2 step %c1 {
      }
    }
  }
  spyre_loop.loop count(3) tiled_dims [0] tile_sizes [4] {
  ^bb0(%t: index):
  }
  return
}
"""


def test_domains_of_nested_loops_constant_and_dynamic():
    f = kernel(DOMAINS)
    doms = iteration_domains(f)
    assert [d.iv.name_hint for d in doms] == ["i", "j", "k", "t"]
    assert [d.kind for d in doms] == ["scf.for", "scf.for", "scf.for", "spyre_loop.loop"]
    i, j, k, t = doms
    assert (i.lower, i.upper, i.step, i.trip_count) == (0, 10, 3, 4)
    assert (j.lower, j.upper, j.step, j.trip_count) == (0, None, 1, None) and not j.static
    assert (k.lower, k.upper, k.step, k.trip_count) == (2, 2, 1, 0)  # the bound folded from arith.addi
    assert (t.lower, t.upper, t.step, t.trip_count) == (0, 3, 1, 3)
    assert [d.depth for d in doms] == [0, 1, 2, 0]
    assert i.parent is None and j.parent is i and k.parent is j and t.parent is None
    assert [d.path for d in doms] == [("nest", 0), ("nest", 1), ("nest", 2), ("nest", 3)]


# -- accesses and byte ranges -----------------------------------------------------


def test_row_tile_byte_ranges_per_iteration():
    f = kernel(ROWS)
    (loop,) = iteration_domains(f)
    found = accesses(f)
    assert [a.kind for a in found] == ["read", "write", "read", "write"]
    x = by_tile(found, "xt", "read")
    assert x.root is f.body.block.args[0] and x.element_bytes == 4
    assert x.exact and x.in_bounds and x.injective and not x.runtime_shaped
    assert x.offset.terms == {f.body.block.args[0]: 4, loop.iv: 2048}  # 4 * %x + 2048 * %i
    for i in range(8):
        assert x.byte_range({loop: i}) == (i * 2048, i * 2048 + 2048)
    assert x.byte_range() == (0, 8 * 2048)
    acc = by_tile(found, "at", "write")
    assert acc.byte_range({loop: 5}) == (0, 2048) == acc.byte_range()


def test_dependence_verdicts_of_the_row_loop():
    f = kernel(ROWS)
    (loop,) = iteration_domains(f)
    found = accesses(f)
    x, y = by_tile(found, "xt", "read"), by_tile(found, "yt", "write")
    acc_r, acc_w = by_tile(found, "at", "read"), by_tile(found, "at", "write")
    # an accumulator row loaded and stored every iteration: carried, proven
    assert dependence(acc_r, acc_w, loop)[0] is PD
    assert dependence(acc_w, acc_w, loop)[0] is PD
    # disjoint rows per iteration: the store of y never meets itself across iterations
    verdict, why = dependence(y, y, loop)
    assert verdict is PI and "disjoint" in why
    assert dependence(x, x, loop) == (PI, "both read")
    # distinct pointer parameters: no proof, unless the calling convention is assumed
    verdict, why = dependence(x, y, loop)
    assert verdict is PNE and "distinct pointer parameters are not proven distinct buffers" in why
    assert dependence(x, y, loop, assume_distinct_params=True)[0] is PI
    assert dependence(y, acc_w, loop, assume_distinct_params=True)[0] is PI
    # without a loop: may they meet at all? the acc tile is one fixed range
    assert dependence(acc_r, acc_w)[0] is PD


IN_PLACE = (
    HEADER
    + f"""
func.func @inplace(%y: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant 8 : index
  %yv = {view("%y")}
  scf.for %i = %c0 to %n step %c1 {{
    %row = arith.muli %i, %c4 : index
    %t = ktdp.construct_access_tile %yv[%row, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
    %a = ktdp.load %t : !ktdp.access_tile<4x128xindex> -> tensor<4x128xf32>
    %e = math.exp %a : tensor<4x128xf32>
    ktdp.store %e, %t : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
    %nxt = arith.addi %row, %c4 : index
    %u = ktdp.construct_access_tile %yv[%nxt, %c0] {{access_tile_set = #row, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<1x128xindex>
    %b = ktdp.load %u : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf32>
  }}
  return
}}
"""
)


def test_same_iteration_vs_loop_carried():
    """y[4i:4i+4] = exp(y[4i:4i+4]): the load and store meet in one iteration,
    never across two; a load of row 4i+4 meets the store of the next iteration."""
    f = kernel(IN_PLACE)
    (loop,) = iteration_domains(f)
    found = accesses(f)
    load, store = by_tile(found, "t", "read"), by_tile(found, "t", "write")
    ahead = by_tile(found, "u", "read")
    assert dependence(load, store, loop)[0] is PI
    assert dependence(load, store)[0] is PD
    # row 4i+4 is read at iteration i and written at iteration i+1 (the last read, row 32, is out of the view)
    assert not ahead.in_bounds
    verdict, why = dependence(ahead, store, loop)
    assert verdict is PNE and "not provably inside its view" in why


def test_dynamic_trip_count_still_proves_disjoint_rows():
    text = IN_PLACE.replace("%n = arith.constant 8 : index\n", "").replace("@inplace(%y: index)", "@inplace(%y: index, %n: index)")
    f = kernel(text)
    (loop,) = iteration_domains(f)
    assert loop.trip_count is None
    found = accesses(f)
    store = by_tile(found, "t", "write")
    assert dependence(store, store, loop)[0] is PI
    assert dependence(by_tile(found, "t", "read"), store, loop)[0] is PI
    # the fixed range is never proven dependent when the loop may not run
    assert dependence(store, store)[0] is PNE


# -- no proof --------------------------------------------------------------------------

LOADED_POINTER = (
    HEADER
    + f"""
#one = affine_set<(d0) : (d0 >= 0, -d0 >= 0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @loaded(%x: index, %table: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tv = ktdp.construct_memory_view %table, sizes: [1], strides: [1] {{coordinate_set = #one, memory_space = #ktdp.memory_space<global>}} : memref<1xi32>
  scf.for %i = %c0 to %c8 step %c1 {{
    %tt = ktdp.construct_access_tile %tv[%c0] {{access_tile_set = #one, access_tile_order = #id1}} : memref<1xi32> -> !ktdp.access_tile<1xindex>
    %tl = ktdp.load %tt : !ktdp.access_tile<1xindex> -> tensor<1xi32>
    %off = tensor.extract %tl[%c0] : tensor<1xi32>
    %offi = arith.index_cast %off : i32 to index
    %base = arith.addi %x, %offi : index
    %v = {view("%base", sizes="1, 128", shape="1x128xf32", cset="#row")}
    %vt = ktdp.construct_access_tile %v[%c0, %c0] {{access_tile_set = #row, access_tile_order = #id2}} : memref<1x128xf32> -> !ktdp.access_tile<1x128xindex>
    %d = ktdp.load %vt : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf32>
    %e = math.exp %d : tensor<1x128xf32>
    ktdp.store %e, %vt : tensor<1x128xf32>, !ktdp.access_tile<1x128xindex>
  }}
  return
}}
"""
)


def test_pointer_from_a_loaded_value_is_unknown():
    f = kernel(LOADED_POINTER)
    (loop,) = iteration_domains(f)
    found = accesses(f)
    store = by_tile(found, "vt", "write")
    assert store.root is UNKNOWN
    verdict, why = dependence(store, store, loop, assume_distinct_params=True)
    assert verdict is PNE and "unknown pointer base" in why
    assert dependence(by_tile(found, "tt", "read"), store, loop, assume_distinct_params=True)[0] is PNE


UNKNOWN_OP = (
    HEADER
    + f"""
func.func private @somewhere() -> index
func.func @unknown(%x: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {{
    %p = func.call @somewhere() : () -> index
    %v = {view("%p", sizes="1, 128", shape="1x128xf32", cset="#row")}
    %vt = ktdp.construct_access_tile %v[%c0, %c0] {{access_tile_set = #row, access_tile_order = #id2}} : memref<1x128xf32> -> !ktdp.access_tile<1x128xindex>
    %d = ktdp.load %vt : !ktdp.access_tile<1x128xindex> -> tensor<1x128xf32>
    ktdp.store %d, %vt : tensor<1x128xf32>, !ktdp.access_tile<1x128xindex>
  }}
  return
}}
"""
)


def test_pointer_from_an_unknown_op_and_the_unknown_op_itself():
    f = kernel(UNKNOWN_OP, "unknown")
    (loop,) = iteration_domains(f)
    found = accesses(f)
    call = next(a for a in found if a.op.name == "func.call")
    assert call.root is UNKNOWN and call.is_write  # unknown effects
    store = by_tile(found, "vt", "write")
    assert store.root is UNKNOWN
    assert dependence(store, store, loop, assume_distinct_params=True)[0] is PNE
    assert dependence(call, by_tile(found, "vt", "read"), loop, assume_distinct_params=True)[0] is PNE


def strided_rows(strides: str) -> str:
    """Rows i of a [4, 128] view with `strides`, one store per iteration."""
    return (
        HEADER
        + f"""
#v4 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0, d1 >= 0, -d1 + 127 >= 0)>
func.func @strided(%y: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant dense<1.000000e+00> : tensor<1x128xf32>
  %yv = {view("%y", sizes="4, 128", strides=strides, shape="4x128xf32", cset="#v4")}
  scf.for %i = %c0 to %c4 step %c1 {{
    %t = ktdp.construct_access_tile %yv[%i, %c0] {{access_tile_set = #row, access_tile_order = #id2}} : memref<4x128xf32> -> !ktdp.access_tile<1x128xindex>
    ktdp.store %z, %t : tensor<1x128xf32>, !ktdp.access_tile<1x128xindex>
  }}
  return
}}
"""
    )


@pytest.mark.parametrize("strides", ["0, 1", "64, 1", "1, 1"])
def test_non_injective_strides_give_no_proof(strides):
    f = kernel(strided_rows(strides))
    (loop,) = iteration_domains(f)
    (store,) = accesses(f)
    assert not store.injective
    verdict, why = dependence(store, store, loop)
    assert verdict is PNE and "not provably injective" in why


@pytest.mark.parametrize("strides", ["128, 1", "200, 1", "1, 4"])
def test_injective_strides_prove_disjoint_rows(strides):
    f = kernel(strided_rows(strides))
    (loop,) = iteration_domains(f)
    (store,) = accesses(f)
    assert store.injective
    assert dependence(store, store, loop)[0] is PI


def test_injectivity_rule():
    assert injective([4, 128], [128, 1]) and injective([4, 128], [130, 1])  # padding is fine
    assert injective([128, 4], [1, 128]) and injective([1, 128], [0, 1])  # a unit dim's stride is irrelevant
    assert not injective([4, 128], [127, 1]) and not injective([4, 128], [0, 1])
    assert injective([2, 3, 4], [12, 4, 1]) and not injective([2, 3, 4], [12, 3, 1])


RUNTIME_SHAPED = (
    HEADER
    + """
#dyn = affine_set<(d0, d1)[s0] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + 127 >= 0)>
func.func @shaped(%y: index, %n: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant dense<1.000000e+00> : tensor<1x128xf32>
  %yv = ktdp.construct_memory_view %y, sizes: [%n, 128], strides: [128, 1] {coordinate_set = #dyn, memory_space = #ktdp.memory_space<global>} : memref<?x128xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %t = ktdp.construct_access_tile %yv[%i, %c0] {access_tile_set = #row, access_tile_order = #id2} : memref<?x128xf32> -> !ktdp.access_tile<1x128xindex>
    ktdp.store %z, %t : tensor<1x128xf32>, !ktdp.access_tile<1x128xindex>
  }
  return
}
"""
)


def test_runtime_shaped_view_gives_no_proof():
    f = kernel(RUNTIME_SHAPED)
    (loop,) = iteration_domains(f)
    (store,) = accesses(f)
    assert store.runtime_shaped and store.root is f.body.block.args[0]
    verdict, why = dependence(store, store, loop)
    assert verdict is PNE and "runtime-shaped" in why


def test_one_parameter_in_two_element_types_gives_no_proof():
    """%y as f32 elements and as f16 elements: two different byte addresses (4*%y vs 2*%y)."""
    text = (
        HEADER
        + f"""
func.func @widths(%y: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %a = arith.constant dense<1.000000e+00> : tensor<1x128xf32>
  %b = arith.constant dense<1.000000e+00> : tensor<1x128xf16>
  %v32 = {view("%y")}
  %v16 = {view("%y", shape="32x128xf16")}
  %t32 = ktdp.construct_access_tile %v32[%c0, %c0] {{access_tile_set = #row, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<1x128xindex>
  ktdp.store %a, %t32 : tensor<1x128xf32>, !ktdp.access_tile<1x128xindex>
  %t16 = ktdp.construct_access_tile %v16[%c0, %c0] {{access_tile_set = #row, access_tile_order = #id2}} : memref<32x128xf16> -> !ktdp.access_tile<1x128xindex>
  ktdp.store %b, %t16 : tensor<1x128xf16>, !ktdp.access_tile<1x128xindex>
  return
}}
"""
    )
    a, b = accesses(kernel(text))
    verdict, why = dependence(a, b)
    assert verdict is PNE and "%y" in why


def test_constant_bases_and_memory_spaces():
    text = (
        HEADER
        + f"""
func.func @consts() attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %b0 = arith.constant 0 : index
  %b1 = arith.constant 4096 : index
  %b2 = arith.constant 4000 : index
  %z = arith.constant dense<1.000000e+00> : tensor<4x128xf32>
  %v0 = {view("%b0")}
  %v1 = {view("%b1")}
  %v2 = {view("%b2")}
  %v3 = {view("%b0", space="ct_local")}
  %t0 = ktdp.construct_access_tile %v0[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %z, %t0 : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  %t1 = ktdp.construct_access_tile %v1[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %z, %t1 : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  %t2 = ktdp.construct_access_tile %v2[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %z, %t2 : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  %t3 = ktdp.construct_access_tile %v3[%c0, %c0] {{access_tile_set = #blk, access_tile_order = #id2}} : memref<32x128xf32> -> !ktdp.access_tile<4x128xindex>
  ktdp.store %z, %t3 : tensor<4x128xf32>, !ktdp.access_tile<4x128xindex>
  return
}}
"""
    )
    s0, s1, s2, s3 = accesses(kernel(text))
    assert s0.root is ABSOLUTE and s0.byte_range() == (0, 2048)
    assert s1.byte_range() == (16384, 18432) and s2.byte_range() == (16000, 18048)
    assert dependence(s0, s1)[0] is PI  # [0, 2048) vs [16384, 18432)
    assert dependence(s1, s2)[0] is PD  # overlapping fixed ranges
    assert dependence(s0, s0)[0] is PD
    verdict, why = dependence(s0, s3)
    assert verdict is PI and "memory spaces" in why


# -- interchange directions ---------------------------------------------------------


def nest(body: str, params: str = "%x: index, %y: index") -> str:
    return (
        HEADER
        + f"""
#px = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 >= 0)>
func.func @nest({params}) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %yv = {view("%y", sizes="9, 9", strides="9, 1", shape="9x9xf32", cset="#all")}
  scf.for %i = %c0 to %c8 step %c1 {{
    scf.for %j = %c0 to %c8 step %c1 {{
{body}
    }}
  }}
  return
}}
"""
    )


STENCIL = nest(
    """
      %i1 = arith.addi %i, %c1 : index
      %j1 = arith.addi %j, %c1 : index
      %src = ktdp.construct_access_tile %yv[%i, %j1] {access_tile_set = #px, access_tile_order = #id2} : memref<9x9xf32> -> !ktdp.access_tile<1x1xindex>
      %a = ktdp.load %src : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
      %dst = ktdp.construct_access_tile %yv[%i1, %j] {access_tile_set = #px, access_tile_order = #id2} : memref<9x9xf32> -> !ktdp.access_tile<1x1xindex>
      ktdp.store %a, %dst : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>""",
    "%y: index",
).replace("#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>",
          "#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 8 >= 0, d1 >= 0, -d1 + 8 >= 0)>")

COLUMN_SUMS = nest(
    """
      %src = ktdp.construct_access_tile %yv[%i, %j] {access_tile_set = #px, access_tile_order = #id2} : memref<9x9xf32> -> !ktdp.access_tile<1x1xindex>
      %a = ktdp.load %src : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
      %acc = ktdp.construct_access_tile %yv[%c8, %j] {access_tile_set = #px, access_tile_order = #id2} : memref<9x9xf32> -> !ktdp.access_tile<1x1xindex>
      %s = ktdp.load %acc : !ktdp.access_tile<1x1xindex> -> tensor<1x1xf32>
      %t = arith.addf %s, %a : tensor<1x1xf32>
      ktdp.store %t, %acc : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>""",
    "%y: index",
).replace("#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 31 >= 0, d1 >= 0, -d1 + 127 >= 0)>",
          "#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 8 >= 0, d1 >= 0, -d1 + 8 >= 0)>")


def test_stencil_has_a_dependence_interchange_would_reverse():
    """y[i+1][j] = y[i][j+1]: the value written at (i, j) is read at (i+1, j-1): direction (<, >)."""
    f = kernel(STENCIL)
    outer, inner = iteration_domains(f)
    load, store = accesses(f)
    assert dependence(load, store, outer)[0] is PD
    assert dependence(load, store, inner)[0] is PI  # same row i: [i][j+1] read vs [i+1][j'] written
    verdict, why = interchange_dependence(load, store, outer, inner)
    assert verdict is PD, why


def test_column_sums_are_carried_by_rows_only():
    """acc[j] += y[i][j]: carried by the row loop, direction (<, =): interchange keeps it."""
    f = kernel(COLUMN_SUMS)
    outer, inner = iteration_domains(f)
    found = accesses(f)
    acc_r, acc_w = by_tile(found, "acc", "read"), by_tile(found, "acc", "write")
    src = by_tile(found, "src", "read")
    assert dependence(acc_r, acc_w, outer)[0] is PD
    assert dependence(acc_r, acc_w, inner)[0] is PI
    for a in found:
        for b in found:
            if a.is_write or b.is_write:
                assert interchange_dependence(a, b, outer, inner)[0] is PI, (a.describe(), b.describe())
    # row 8 is read by the sums' source loop? no: i < 8, so y[i][j] never meets acc row 8
    assert dependence(src, acc_w)[0] is PI


def test_access_of_and_loop_argument_checks():
    f = kernel(ROWS)
    (loop,) = iteration_domains(f)
    store = next(op for op in f.walk() if op.name == "ktdp.store")
    assert access_of(store).kind == "write"
    with pytest.raises(ValueError):
        access_of(next(op for op in f.walk() if op.name == "math.exp"))
    outside = kernel(DOMAINS)
    other = iteration_domains(outside)[0]
    with pytest.raises(ValueError):
        dependence(access_of(store), access_of(store), other)


def skewed_rows(lower: int) -> str:
    """Iteration (i, j) reads row 2i-1 whole and writes y[i][j]."""
    return (
        HEADER
        + f"""
#v16 = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 3 >= 0)>
#r4 = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 + 3 >= 0)>
#px = affine_set<(d0, d1) : (d0 >= 0, -d0 >= 0, d1 >= 0, -d1 >= 0)>
func.func @skew(%y: index) attributes {{grid = [1]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lb = arith.constant {lower} : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %z = arith.constant dense<1.000000e+00> : tensor<1x1xf32>
  %yv = {view("%y", sizes="16, 4", strides="4, 1", shape="16x4xf32", cset="#v16")}
  scf.for %i = %lb to %c5 step %c1 {{
    scf.for %j = %c0 to %c4 step %c1 {{
      %r = affine.apply affine_map<(d0) -> (d0 * 2 - 1)>(%i)
      %rt = ktdp.construct_access_tile %yv[%r, %c0] {{access_tile_set = #r4, access_tile_order = #id2}} : memref<16x4xf32> -> !ktdp.access_tile<1x4xindex>
      %a = ktdp.load %rt : !ktdp.access_tile<1x4xindex> -> tensor<1x4xf32>
      %wt = ktdp.construct_access_tile %yv[%i, %j] {{access_tile_set = #px, access_tile_order = #id2}} : memref<16x4xf32> -> !ktdp.access_tile<1x1xindex>
      ktdp.store %z, %wt : tensor<1x1xf32>, !ktdp.access_tile<1x1xindex>
    }}
  }}
  return
}}
"""
    )


@pytest.mark.parametrize(("lower", "inner_verdict"), [(1, PD), (2, PI)])
def test_outer_loop_held_at_one_iteration(lower, inner_verdict):
    """Across iterations of j (i fixed), the write of y[i][j] meets the read of
    row 2i-1 only when i == 2i-1, i.e. i == 1. Across iterations of i (row 2i-1
    read at i, row i' written at i'), i' = 2i-1 has a solution either way
    (i = 2, i' = 3): different coefficients of the loop variable."""
    f = kernel(skewed_rows(lower))
    outer, inner = iteration_domains(f)
    load, store = accesses(f)
    assert dependence(load, store, inner)[0] is inner_verdict
    assert dependence(load, store, outer)[0] is PD
    assert dependence(store, store, inner)[0] is PI and dependence(store, store, outer)[0] is PI


def test_the_exact_sum_test_agrees_with_enumeration():
    """`_hits` (interval, gcd, progression, bitset) against brute force on random small sums."""
    import itertools
    import random

    from spyre_mlir.analysis.access import _hits

    rng = random.Random(0)
    for _ in range(3000):
        terms = []
        for _ in range(rng.randint(0, 4)):
            lo = rng.randint(-3, 3)
            terms.append((rng.choice([-9, -4, -3, -1, 0, 1, 2, 3, 4, 6, 8, 12]), lo, lo + rng.randint(-1, 4)))
        const = rng.randint(-20, 20)
        tlo = rng.randint(-6, 3)
        target = (tlo, tlo + rng.randint(0, 6))
        values = {const + sum(c * x for (c, _, _), x in zip(terms, xs))
                  for xs in itertools.product(*[range(lo, hi + 1) for _, lo, hi in terms])}
        expected = "some" if any(target[0] <= v <= target[1] for v in values) else "none"
        assert _hits(const, terms, target) == expected, (const, terms, target)
