"""The extensions of the spatial dialect (dialects/spatial.py; docs/spatial.md):
`spatial.scalar`, local buffers, tile origins, index arguments of compute
bodies, multicast delivery rules, and verification linear in the program."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import AffineMapAttr, FloatAttr, IndexType, IntegerAttr, f32, i8
from xdsl.ir.affine import AffineExpr, AffineMap

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.dialects import spatial
from spyre_mlir.dialects.spatial import (
    BufferOp,
    ProgramOp,
    ScalarOp,
    StageOp,
    TileType,
    default_origin,
)

EXT = Path(__file__).resolve().parents[1] / "lit" / "dialects" / "spatial" / "ext.mlir"


def _parse(text: str):
    return ir.parse_module(text, "<test>", ir.make_context())


def _program(text: str, name: str | None = None) -> ProgramOp:
    found = [op for op in _parse(text).walk() if isinstance(op, ProgramOp)]
    return found[0] if name is None else next(p for p in found if p.sym_name.data == name)


def _verify_error(text: str) -> tuple[str, int]:
    """The message and line of the located error verifying `text`."""
    module = _parse(text)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        ir.verify(module)
    diagnostic = info.value.diagnostic
    assert diagnostic.location is not None
    return diagnostic.message, diagnostic.location.line


def _line_of(text: str, needle: str) -> int:
    (line,) = [i + 1 for i, t in enumerate(text.splitlines()) if needle in t]
    return line


def _round_trips(text: str) -> None:
    """Custom form and generic form both read back to the same print."""
    module = _parse(text)
    ir.verify(module)
    custom = ir.print_ir(module)
    assert ir.print_ir(_parse(custom)) == custom
    generic = ir.print_ir(module, generic_dialects=("spatial",))
    assert '"spatial.program"' in generic
    assert ir.print_ir(_parse(generic)) == custom


# -- spatial.scalar ---------------------------------------------------------------


def test_scalars_of_each_type_round_trip():
    text = """
spatial.program @p attributes {spatial.phase = "tiled"} {
  spatial.scalar @K : index = 2048
  spatial.scalar @eps : f32 = 1.000000e-05
  spatial.scalar @n : i8 = -3
  spatial.scalar @h : f16 = 2.5
}
"""
    _round_trips(text)
    program = _program(text)
    scalars = {op.sym_name.data: op for op in program.declarations() if isinstance(op, ScalarOp)}
    assert scalars["K"].number == 2048 and isinstance(scalars["K"].number, int)
    assert scalars["K"].scalar_type == IndexType() and isinstance(scalars["K"].value, IntegerAttr)
    assert isinstance(scalars["eps"].value, FloatAttr) and scalars["eps"].number == pytest.approx(1e-5)
    assert scalars["n"].number == -3
    assert "spatial.scalar @eps : f32 = 1.000000e-05" in ir.print_ir(program)
    assert spatial.ScalarOp in spatial.DECLARATIONS


def test_scalar_constructors_build_the_value_of_the_type():
    k = ScalarOp("K", IndexType(), 2048)
    eps = ScalarOp("eps", f32, 1e-5)
    n = ScalarOp.create(properties={"sym_name": k.sym_name, "type": i8, "value": IntegerAttr(-3, i8)})
    for op in (k, eps, n):
        op.verify()
    assert str(k) == "spatial.scalar @K : index = 2048"
    assert str(eps) == "spatial.scalar @eps : f32 = 1.000000e-05"
    assert n.number == -3


@pytest.mark.parametrize(
    "decl, message",
    [
        ("spatial.scalar @K : index = 2.5", "a scalar of type index takes an integer value, got 2.5"),
        ("spatial.scalar @K : memref<4xf32> = 1", "a scalar has an index, integer or float type, got memref<4xf32>"),
        ("spatial.scalar @K : i8 = 300", "out of range"),
        ("spatial.scalar @K : index = @x", "expected the scalar's value, an integer or float literal"),
    ],
)
def test_a_malformed_scalar_is_a_located_parse_error(decl, message):
    text = f'spatial.program @p attributes {{spatial.phase = "tiled"}} {{\n  {decl}\n}}\n'
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(text)
    assert message in info.value.diagnostic.message
    assert info.value.diagnostic.location.line == 2


def test_an_unknown_stage_kind_is_a_located_parse_error_at_the_kind():
    text = ('spatial.program @p attributes {spatial.phase = "tiled"} {\n'
            '  spatial.stage @ld fetch @x -> @b on @s engine "load"\n}\n')
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.parse(text)
    diagnostic = info.value.diagnostic
    assert diagnostic.message == "unknown stage kind 'fetch', expected one of: load, store, receive, compute"
    assert (diagnostic.location.line, diagnostic.location.col) == (2, 21)


# -- local buffers --------------------------------------------------------------


def test_a_local_buffer_round_trips_and_says_so():
    local = BufferOp("acc", "s0", TileType([32, 512], f32), 1, 0, local=True)
    fifo = BufferOp("b", "s0", TileType([32, 512], f32), 2, 0)
    assert local.is_local and not fifo.is_local
    assert str(local) == "spatial.buffer @acc on @s0 : !spatial.tile<32x512xf32> depth 1 local offset 0"
    unplaced = BufferOp("acc", "s0", TileType([8], f32), 1, local=True)
    assert str(unplaced) == "spatial.buffer @acc on @s0 : !spatial.tile<8xf32> depth 1 local"


def test_local_before_or_after_the_offset_reads_the_same():
    before = _program(_LOCALS.format(acc="depth 1 local offset 0"))
    after = _program(_LOCALS.format(acc="depth 1 offset 0 local"))
    assert ir.print_ir(before) == ir.print_ir(after)
    acc = before.lookup("acc")
    assert isinstance(acc, BufferOp) and acc.is_local and acc.offset_value == 0


_LOCALS = """
spatial.program @p attributes {{spatial.phase = "sized"}} {{
  spatial.site @s0 at [0] engines ["compute"]
  spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> {acc}
  spatial.buffer @tmp on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 0
  spatial.stage @init compute() -> @acc on @s0 engine "compute"
  spatial.stage @use compute(@acc) -> @tmp on @s0 engine "compute"
}}
"""


def test_two_locals_of_one_engine_may_share_bytes():
    text = _LOCALS.format(acc="depth 1 local offset 0")
    _round_trips(text)


def test_a_local_and_a_fifo_buffer_may_not_share_bytes():
    text = _LOCALS.format(acc="depth 1 offset 0")
    message, line = _verify_error(text)
    assert "buffer @tmp at LX bytes [0, 4096) overlaps buffer @acc at [0, 4096) on site @s0" in message
    assert line == _line_of(text, "spatial.buffer @tmp")


def test_a_local_touched_by_two_engines_is_refused_at_the_buffer():
    text = """
spatial.program @p attributes {spatial.phase = "placed"} {
  spatial.site @s0 at [0] engines ["compute", "store"]
  spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 1 local
  spatial.buffer @o on @s0 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @a compute() -> @acc on @s0 engine "compute"
  spatial.stage @b compute(@acc) -> @o on @s0 engine "store"
}
"""
    message, line = _verify_error(text)
    assert "buffer @acc is local" in message and "stage @a runs on engine \"compute\"" in message
    assert "stage @b on engine \"store\"" in message
    assert line == _line_of(text, "spatial.buffer @acc")


# -- tile origins ---------------------------------------------------------------


def test_an_origin_round_trips_from_the_constructor():
    origin = AffineMap(2, 0, (AffineExpr.dimension(0) * 128 + 640, AffineExpr.constant(0)))
    stage = StageOp("ld0", "load", ["x"], ["b0"], "s0", "load", origin=origin)
    assert stage.origin == AffineMapAttr(origin) and stage.origin_map == origin
    same = StageOp("ld0", "load", ["x"], ["b0"], "s0", "load", origin=AffineMapAttr(origin))
    assert same.origin == stage.origin
    text = ir.print_ir(stage)
    assert 'engine "load" origin affine_map<(d0, d1) -> (d0 * 128 + 640, 0)>' in text
    assert StageOp("ld0", "load", ["x"], ["b0"], "s0", "load").origin_map is None


def test_the_default_origin_is_the_tile_grid():
    grid = default_origin((16, 64))
    assert grid.num_dims == 2 and grid.num_symbols == 0
    assert grid.eval([3, 2], []) == (48, 128)
    assert default_origin((8,)).eval([5], []) == (40,)


# -- compute index arguments ------------------------------------------------------


def test_index_args_of_a_body_are_counted():
    program = _program(EXT.read_text())
    stages = {op.sym_name.data: op for op in program.declarations() if isinstance(op, StageOp)}
    assert stages["step0"].index_args == 1
    assert stages["fin0"].index_args == 0
    assert stages["init0"].index_args == 0
    assert stages["ldx0"].index_args is None


# -- the extensions' program round trips, and real MLIR reads it ------------------


def test_the_extensions_program_round_trips():
    _round_trips(EXT.read_text())


def test_the_generic_form_parses_in_real_mlir():
    real = pytest.importorskip("test_real_mlir")
    if real.IREE_OPT is None:
        pytest.skip("iree-opt (iree-base-compiler) not installed")
    module = _parse(EXT.read_text())
    ir.verify(module)
    real.check_against_mlir(module)


# -- verification is linear -------------------------------------------------------


def synthesized(sites: int = 32, tiles: int = 40) -> str:
    """A synthesized program of `sites` sites, each a load -> compute -> store
    pipeline of `tiles` tiles, every engine's choreography unrolled (a wait, a
    step and a signal per tile; the compute engine two waits and two signals):
    with 40 tiles, 200 choreography ops on each compute engine."""
    rows = sites * tiles * 8
    out = [
        'spatial.program @big attributes {spatial.phase = "synthesized"} {',
        f"  spatial.tensor @x : memref<{rows}x64xf32>",
        f"  spatial.tensor @z : memref<{rows}x64xf32>",
    ]
    for s in range(sites):
        out += [
            f'  spatial.site @s{s} at [{s}] engines ["load", "compute", "store"]',
            f"  spatial.buffer @bx{s} on @s{s} : !spatial.tile<8x64xf32> depth 2 offset 0",
            f"  spatial.buffer @bz{s} on @s{s} : !spatial.tile<8x64xf32> depth 2 offset 4096",
            f'  spatial.stage @ld{s} load @x -> @bx{s} on @s{s} engine "load"',
            f'  spatial.stage @cp{s} compute(@bx{s}) -> @bz{s} on @s{s} engine "compute" {{',
            "  ^bb0(%t: tensor<8x64xf32>):",
            "    %d = arith.addf %t, %t : tensor<8x64xf32>",
            "    spatial.yield %d : tensor<8x64xf32>",
            "  }",
            f'  spatial.stage @st{s} store @bz{s} -> @z on @s{s} engine "store"',
            f"  spatial.edge @ex{s} from @ld{s} to @cp{s} via @bx{s} : !spatial.tile<8x64xf32>",
            f"  spatial.edge @ez{s} from @cp{s} to @st{s} via @bz{s} : !spatial.tile<8x64xf32>",
            f"  spatial.semaphore @fx{s} on @s{s} init 0",
            f"  spatial.semaphore @ex{s}_free on @s{s} init 2",
            f"  spatial.semaphore @fz{s} on @s{s} init 0",
            f"  spatial.semaphore @ez{s}_free on @s{s} init 2",
        ]
    for s in range(sites):
        tile = s * tiles
        out.append(f'  spatial.engine @s{s} "load" {{')
        for i in range(tiles):
            out += [
                f"    spatial.loop %k = {tile + i} to {tile + i + 1} {{",
                f"      spatial.wait @ex{s}_free >= 1",
                f"      spatial.load_step @ld{s} [%k]",
                f"      spatial.signal @fx{s} += 1",
                "    }",
            ]
        out.append("  }")
        out.append(f'  spatial.engine @s{s} "compute" {{')
        for _ in range(tiles):
            out += [
                f"    spatial.wait @fx{s} >= 1",
                f"    spatial.wait @ez{s}_free >= 1",
                f"    spatial.compute_step @cp{s}",
                f"    spatial.signal @ex{s}_free += 1",
                f"    spatial.signal @fz{s} += 1",
            ]
        out.append("  }")
        out.append(f'  spatial.engine @s{s} "store" {{')
        for i in range(tiles):
            out += [
                f"    spatial.loop %k = {tile + i} to {tile + i + 1} {{",
                f"      spatial.wait @fz{s} >= 1",
                f"      spatial.store_step @st{s} [%k]",
                f"      spatial.signal @ez{s}_free += 1",
                "    }",
            ]
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("sites, tiles", [(4, 10), (32, 40)])
def test_verifying_a_program_walks_it_once(monkeypatch, sites, tiles):
    """Every wait asks whether its semaphore is signalled, every declaration
    asks about the others: one walk and one declaration index per program, not
    one per op, whatever its size (linear verification, counted: no clock; the
    time is measured in benchmarks). 32 sites of 40 tiles: 200 choreography
    ops per compute engine."""
    module = _parse(synthesized(sites=sites, tiles=tiles))
    program = next(op for op in module.walk() if isinstance(op, ProgramOp))
    compute = [e for e in program.declarations() if isinstance(e, spatial.EngineOp) and e.engine.data == "compute"]
    assert len(compute) == sites and all(len(list(e.body.block.ops)) == 5 * tiles for e in compute)
    walks, indexes = [], []
    original_walk, original_of = ProgramOp.walk, spatial._Declarations.of

    def walk(self, *args, **kwargs):
        walks.append(self)
        return original_walk(self, *args, **kwargs)

    def of(program):
        indexes.append(program)
        return original_of(program)

    monkeypatch.setattr(ProgramOp, "walk", walk)
    monkeypatch.setattr(spatial._Declarations, "of", staticmethod(of))
    module.verify()
    assert len(indexes) == 1
    assert len(walks) == 1  # the signal witnesses: found in one walk, then answered from it
    module.verify()  # again: the witnesses still stand, no walk; a new index for the new verification
    assert len(walks) == 1 and len(indexes) == 2


def test_a_removed_signal_is_seen_by_the_next_verification():
    """The witnesses are re-checked: never a stale answer."""
    text = synthesized(sites=2, tiles=2)
    module = _parse(text)
    module.verify()
    program = next(op for op in module.walk() if isinstance(op, ProgramOp))
    for op in list(program.walk()):
        if isinstance(op, spatial.SignalOp) and op.semaphore.root_reference.data == "fz1":
            op.detach()
            op.erase()
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        ir.verify(module)
    assert "no engine signals semaphore @fz1" in info.value.diagnostic.message


# The LX budget of a site: the program's `lx_bytes`, else the module's target.
BUDGET = """
module MODULE_ATTRS {
  spatial.program @p attributes {spatial.phase = "tiled"PROGRAM_ATTRS} {
    spatial.site @s0 at [0] engines ["load"]
    spatial.buffer @b on @s0 : !spatial.tile<64x64xf16> depth 2 offset 0
  }
}
"""


def _budget(module_attrs: str = "", program_attrs: str = "") -> str:
    return BUDGET.replace("MODULE_ATTRS", module_attrs).replace("PROGRAM_ATTRS", program_attrs)


def test_the_lx_budget_is_the_target_s_unless_the_program_gives_one():
    assert _program(_budget()).lx_bytes == 2 * 1024 * 1024
    small = "attributes {spyre.target = {lx_bytes = 8192 : i64}}"
    assert _program(_budget(small)).lx_bytes == 8192
    assert _program(_budget(small, ", lx_bytes = 65536")).lx_bytes == 65536
    message, _ = _verify_error(_budget(small))
    assert ("buffer @b occupies LX bytes [0, 16384) (2 x 8192 bytes from offset 0), past the 8192 bytes of LX of "
            "site @s0") in message
    ir.verify(_parse(_budget(small, ", lx_bytes = 16384")))


@pytest.mark.parametrize("element, size", [("i1", 1), ("i4", 1), ("i8", 1), ("bf16", 2), ("f32", 4), ("i64", 8)])
def test_tile_bytes_are_element_bytes_of_the_target(element, size):
    assert TileType((2, 3), _type(element)).bytes == 6 * size


def _type(text: str):
    module = _parse(f"spatial.program @p attributes {{spatial.phase = \"tiled\"}} {{\n"
                    f"  spatial.tensor @x : memref<1x{text}>\n}}")
    tensor = next(op for op in module.walk() if op.name == "spatial.tensor")
    return tensor.tensor_type.get_element_type()
