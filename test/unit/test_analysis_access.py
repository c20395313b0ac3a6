"""The one memory analysis (spyre_mlir.analysis.access): may-alias of whole views,
the scratch rule, and where the two former analyses disagreed, the sound answer.

Dependence in loop nests is tested in test_loop_analysis.py; here the coarse
`view_of` / `may_alias` reading the compute-group extraction asks, and the
answers that changed when the two analyses became one (each test fails on the
old code): one parameter read in two element sizes, a tile-less local space
against a numbered one, an address computed from the scratch parameter."""

from __future__ import annotations

import spyre_mlir
from spyre_mlir.analysis.access import (
    ABSOLUTE,
    UNKNOWN,
    Verdict,
    access_of,
    computed_from_scratch,
    dependence,
    is_scratch,
    may_alias,
    view_of,
)

SETS = """
#s = affine_set<(d0) : (d0 >= 0, -d0 + 63 >= 0)>
#t = affine_set<(d0) : (d0 >= 0, -d0 + 9 >= 0)>
#id = affine_map<(d0) -> (d0)>
"""


def view(name: str, base: str, elem="f32", n=64, cset="#s", space="global") -> str:
    return (
        f"%{name} = ktdp.construct_memory_view {base}, sizes: [{n}], strides: [1] "
        f"{{coordinate_set = {cset}, memory_space = #ktdp.memory_space<{space}>}} : memref<{n}x{elem}>\n"
        f"  %t{name} = ktdp.construct_access_tile %{name}[%c0] {{access_tile_set = {cset}, access_tile_order = #id}}"
        f" : memref<{n}x{elem}> -> !ktdp.access_tile<{n}xindex>\n"
    )


def tiles(body: str, params: str = "%p: index, %q: index") -> dict:
    module = spyre_mlir.parse(
        SETS + f"func.func @k({params}) {{\n  %c0 = arith.constant 0 : index\n{body}  return\n}}\n"
    )
    return {op.results[0].name_hint[1:]: op.results[0] for op in module.walk() if op.name == "ktdp.construct_access_tile"}


def test_address_ranges_buffers_and_spaces():
    t = tiles(
        "  %c32 = arith.constant 32 : index\n  %c64 = arith.constant 64 : index\n"
        "  %c4096 = arith.constant 4096 : index\n  %c8192 = arith.constant 8192 : index\n"
        "  %p32 = arith.addi %p, %c32 : index\n  %p64 = arith.addi %p, %c64 : index\n"
        + view("a", "%p") + view("b", "%p64") + view("c", "%p32") + view("d", "%q")
        + view("e", "%c4096") + view("f", "%c8192") + view("g", "%p", space="ct_local")
    )
    v = {k: view_of(x) for k, x in t.items()}
    assert v["a"].root.name_hint == "p" and v["e"].root is ABSOLUTE
    assert not may_alias(v["a"], v["b"])  # %p and %p + 64 elements: disjoint
    assert may_alias(v["a"], v["c"])  # %p and %p + 32: overlap
    assert not may_alias(v["a"], v["d"])  # two parameters: two buffers
    assert not may_alias(v["e"], v["f"])  # constant bases, disjoint
    assert may_alias(v["a"], v["e"])  # a parameter and a constant address: not provably apart
    assert not may_alias(v["a"], v["g"])  # HBM and LX


def test_one_parameter_in_two_element_sizes_may_alias():
    # %p is an address in elements of the array's type: as f16 and as f32 it names different bytes
    # (2p + 200 .. vs 4p .. 4p + 39 meet for p >= 81): comparing the offsets as bytes of one base is wrong.
    t = tiles(
        "  %c100 = arith.constant 100 : index\n  %p100 = arith.addi %p, %c100 : index\n"
        + view("a", "%p100", elem="f16") + view("b", "%p", n=10, cset="#t")
    )
    assert may_alias(view_of(t["a"]), view_of(t["b"]))


def test_local_space_without_a_tile_may_be_any_tiles():
    t = tiles(view("a", "%p", space="ct_local") + view("b", "%p", space="ct_local, ct_id = 3"))
    assert may_alias(view_of(t["a"]), view_of(t["b"]))  # the current tile may be tile 3
    t = tiles(view("a", "%p", space="ct_local, ct_id = 1") + view("b", "%p", space="ct_local, ct_id = 3"))
    assert not may_alias(view_of(t["a"]), view_of(t["b"]))


SCRATCH = "%p: index, %q: index, %s: index {spyre.scratch_bytes = 1024 : i64}"


def test_scratch_is_reached_only_from_its_parameter():
    t = tiles(
        "  %c4 = arith.constant 4 : index\n  %c64 = arith.constant 64 : index\n"
        "  %byte = arith.addi %s, %c64 : index\n  %e = arith.divui %byte, %c4 : index\n"
        "  %pe = arith.muli %p, %c4 : index\n  %pp = arith.addi %p, %q : index\n"
        + view("a", "%e") + view("b", "%p") + view("c", "%c64") + view("d", "%pe") + view("f", "%pp"),
        SCRATCH,
    )
    a, b, c, d, f = (view_of(t[k]) for k in "abcdf")
    assert is_scratch(a.root) and not is_scratch(b.root)
    assert computed_from_scratch(t["a"]) and not computed_from_scratch(t["b"])
    assert not may_alias(a, b) and not may_alias(a, c)  # a parameter's buffer, a constant address
    assert d.root is ABSOLUTE and not d.may_be_scratch and not may_alias(a, d)  # 4 * %p: no parameter's value
    assert f.root is UNKNOWN and not f.may_be_scratch and not may_alias(a, f)  # %p + %q: two parameters' values


def test_dependence_on_an_address_computed_from_scratch_is_not_proven_independent():
    # %e is (%s + 64) / 4: the analysis of affine forms cannot root it at %s (a division), but it is
    # computed from the scratch parameter, so it may lie in scratch: no proof against a view of %s.
    module = spyre_mlir.parse(
        SETS
        + f"""func.func @k({SCRATCH}) {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant dense<1.0> : tensor<64xf32>
  %byte = arith.addi %s, %c64 : index
  %e = arith.divui %byte, %c4 : index
  {view("a", "%e")}  {view("b", "%s")}  ktdp.store %z, %ta : tensor<64xf32>, !ktdp.access_tile<64xindex>
  ktdp.store %z, %tb : tensor<64xf32>, !ktdp.access_tile<64xindex>
  return
}}
"""
    )
    stores = [access_of(op) for op in module.walk() if op.name == "ktdp.store"]
    assert stores[0].may_be_scratch and is_scratch(stores[1].root)
    verdict, why = dependence(*stores, assume_distinct_params=True)
    assert verdict is Verdict.PROOF_NOT_ESTABLISHED, why
