"""ktir-to-spatial, issue 18: deep nests lower in linear time, a single-result
tile id is the linear tile id, a kernel without a grid warns and its program
refuses a run grid it was not built for, missing scalars are named at once,
data-dependent loop counts are refused for what they are, and unused
arguments keep their types.

Every program here runs equal to its source (the interpreter) and to NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CORPUS

import spyre_mlir
from spyre_mlir import DiagnosticError
from spyre_mlir.deep import call_deep
from spyre_mlir.diagnostics import collect
from spyre_mlir.dialects import spatial
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.interpreter.ops_spatial import spatial_stats

SPATIAL_PASSES = ("spatial-tile,spatial-place,spatial-fuse-readers,spatial-size-buffers,"
                  "spatial-synthesize-handshakes,spatial-verify")


def _copy(args: dict) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def _lower(text: str, spec: str = "ktir-to-spatial"):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.from_pipeline(spec).run(module)
    return module


def _view(name: str, rows: int, cols: int, ty: str = "f32") -> str:
    return (f"  %{name}v = ktdp.construct_memory_view %{name}, sizes: [{rows}, {cols}], strides: [{cols}, 1] {{\n"
            f"    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, "
            f"-d1 + {cols - 1} >= 0)>,\n    memory_space = #ktdp.memory_space<global>}} : memref<{rows}x{cols}x{ty}>\n")


def _tile(view: str, name: str, row: str, rows: int, cols: int, ty: str = "f32") -> str:
    return (f"  %{name} = ktdp.construct_access_tile %{view}v[{row}, %c0] {{\n"
            f"    access_tile_set = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + {cols - 1} >= 0)>,\n"
            f"    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : memref<{rows}x{cols}x{ty}> -> "
            f"!ktdp.access_tile<1x{cols}xindex>\n")


# ---------------------------------------------------------------------------
# (a) deep nests: spatial-tile is linear in the nesting depth
# ---------------------------------------------------------------------------


def _nested(depth: int) -> str:
    head = ("func.func @k(%a: index, %c: index) attributes {grid = [2]} {\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            "  %id = ktdp.get_compute_tile_id : index\n" + _view("a", 2, 8) + _view("c", 2, 8))
    opens = "".join(f"  scf.for %i{i} = %c0 to %c1 step %c1 {{\n" for i in range(depth))
    body = (_tile("a", "at", "%id", 2, 8) + "  %x = ktdp.load %at : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>\n"
            "  %y = arith.addf %x, %x : tensor<1x8xf32>\n" + _tile("c", "ct", "%id", 2, 8)
            + "  ktdp.store %y, %ct : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>\n")
    return head + opens + body + "  }\n" * depth + "  return\n}\n"


def _attach_walk(depth: int, monkeypatch) -> int:
    """Parent links xDSL walks (its cycle check on attaching an op) while spatial-tile runs."""
    from xdsl.ir import core

    module = spyre_mlir.parse(_nested(depth))
    steps = [0]
    original = core._IRNode.is_ancestor

    def counting(self, op):
        node = op
        while node is not None:
            steps[0] += 1
            if node is self:
                break
            node = node.parent_node
        return original(self, op)

    monkeypatch.setattr(core._IRNode, "is_ancestor", counting)
    call_deep(spyre_mlir.PassManager.parse("spatial-tile", verify_each=False).run, module)
    monkeypatch.undo()
    return steps[0]


def test_spatial_tile_attaches_deep_loop_nests_in_linear_time(monkeypatch):
    """Each engine loop was attached to its parent block before its body was built,
    so xDSL's cycle check walked the whole nest above it: quadratic in the depth
    (a 2000-deep nest took 19 s). Attached on the way up, every walk is short."""
    small, large = _attach_walk(100, monkeypatch), _attach_walk(400, monkeypatch)
    assert large < 6 * small  # linear: 4x the depth, about 4x the walk (quadratic would be 16x)


def test_a_deep_loop_nest_lowers_and_runs_equal_to_its_source():
    text = _nested(120)
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse(SPATIAL_PASSES).run(module)
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    args = dict(a=a, c=np.zeros((2, 8), np.float32))
    source = spyre_mlir.interpret(spyre_mlir.parse(text), "k", **_copy(args))
    got = spyre_mlir.interpret(module, "k", **_copy(args))
    np.testing.assert_array_equal(got["c"], source["c"])
    np.testing.assert_array_equal(got["c"], 2 * a)


# ---------------------------------------------------------------------------
# (b) a single-result tile id on a multi-dimensional grid is the linear tile id
# ---------------------------------------------------------------------------

LINEAR_ID = (
    "func.func @k(%a: index, %c: index) attributes {grid = [2, 2]} {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %id = ktdp.get_compute_tile_id : index\n" + _view("a", 4, 8) + _view("c", 4, 8)
    + _tile("a", "at", "%id", 4, 8) + "  %x = ktdp.load %at : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>\n"
    "  %y = arith.addf %x, %x : tensor<1x8xf32>\n" + _tile("c", "ct", "%id", 4, 8)
    + "  ktdp.store %y, %ct : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>\n  return\n}\n"
)


@pytest.mark.parametrize("order", ["col-major", "row-major"])
def test_a_single_result_tile_id_on_a_2x2_grid_is_the_linear_id(order):
    """Every block reads and writes row `id`: with coords[0] as the id (before), two
    blocks wrote rows 0 and 1 twice and rows 2 and 3 stayed zero."""
    spec = "ktir-to-spatial" if order == "col-major" else f"ktir-to-spatial{{grid-order={order}}}"
    out = _lower(LINEAR_ID, spec)
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    args = dict(a=a, c=np.zeros((4, 8), np.float32))
    source = spyre_mlir.interpret(spyre_mlir.parse(LINEAR_ID), "k", **_copy(args),
                                  options=InterpreterOptions(grid_order=order))
    got = spyre_mlir.interpret(out, "k", **_copy(args))
    np.testing.assert_array_equal(got["c"], source["c"])
    np.testing.assert_array_equal(got["c"], 2 * a)


def test_the_linear_id_follows_grid_py():
    from spyre_mlir.analysis.grid import linear_id

    module = spyre_mlir.parse(LINEAR_ID)
    spyre_mlir.PassManager.parse("spatial-tile").run(module)
    origins = {}
    program = next(op for op in module.walk() if isinstance(op, spatial.ProgramOp))
    sites = {s.sym_name.data: tuple(s.coordinates) for s in program.of_kind(spatial.SiteOp)}
    for stage in program.of_kind(spatial.StageOp):
        if stage.kind.data == "load":
            site = stage.site.root_reference.data
            origins[sites[site]] = stage.origin_map.results[0].value  # a constant row
    assert origins == {c: linear_id(c, (2, 2)) for c in sites.values()}
    assert origins[(1, 0)] == 1 and origins[(0, 1)] == 2  # col-major: grid dim 0 fastest


# ---------------------------------------------------------------------------
# (c) no grid: a warning when built, a run grid it was not built for refused
# ---------------------------------------------------------------------------

ADD_CF = CORPUS / "add-with-control-flow.mlir"


def _lower_collecting(path, spec="ktir-to-spatial"):
    def work():
        with collect() as diagnostics:
            module = spyre_mlir.parse(path)
            spyre_mlir.PassManager.from_pipeline(spec).run(module)
        return module, list(diagnostics)

    return call_deep(work)


@pytest.mark.skipif(not ADD_CF.exists(), reason="corpus not present")
def test_a_kernel_reading_the_tile_id_without_a_grid_warns_at_the_tile_id():
    _, diagnostics = _lower_collecting(ADD_CF)
    (w,) = [d for d in diagnostics if d.severity == "warning"]
    assert "reads the tile id but has no 'grid' attribute" in w.message
    assert "built for one block" in w.message
    assert w.location is not None and w.location.line == 13  # %id = ktdp.get_compute_tile_id
    _, diagnostics = _lower_collecting(ADD_CF, "ktir-to-spatial{grid=32}")
    assert not [d for d in diagnostics if d.severity == "warning"]


@pytest.mark.skipif(not ADD_CF.exists(), reason="corpus not present")
def test_a_program_refuses_a_run_grid_it_was_not_built_for():
    out, _ = _lower_collecting(ADD_CF)
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.interpret(out, "add", grid=32)
    message = info.value.diagnostic.render()
    assert "error: program @add was built for grid [1] (its sites); it cannot run on grid [32]" in message
    assert info.value.diagnostic.location is not None


GRID2 = (
    "func.func @k(%a: index, %c: index) attributes {grid = [2]} {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %id = ktdp.get_compute_tile_id : index\n" + _view("a", 2, 8) + _view("c", 2, 8)
    + _tile("a", "at", "%id", 2, 8) + "  %x = ktdp.load %at : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>\n"
    "  %y = arith.addf %x, %x : tensor<1x8xf32>\n" + _tile("c", "ct", "%id", 2, 8)
    + "  ktdp.store %y, %ct : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>\n  return\n}\n"
)


def test_the_grid_a_program_was_built_for_runs_it_once():
    out = _lower(GRID2)
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    plain = spyre_mlir.interpret(out, "k", a=a.copy(), c=np.zeros((2, 8), np.float32))
    gridded = spyre_mlir.interpret(out, "k", a=a.copy(), c=np.zeros((2, 8), np.float32), grid=2)
    np.testing.assert_array_equal(gridded["c"], 2 * a)
    np.testing.assert_array_equal(plain["c"], 2 * a)
    assert spatial_stats(gridded).hbm_bytes == spatial_stats(plain).hbm_bytes  # once, not once per core
    with pytest.raises(DiagnosticError, match=r"built for grid \[2\] .* cannot run on grid \[4\]"):
        spyre_mlir.interpret(out, "k", a=a.copy(), c=np.zeros((2, 8), np.float32), grid=4)


# ---------------------------------------------------------------------------
# (c) the README's matmul: every missing scalar named at once
# ---------------------------------------------------------------------------

MATMUL = CORPUS / "matmul_fwd_ktir.mlir"


@pytest.mark.skipif(not MATMUL.exists(), reason="corpus not present")
def test_every_missing_scalar_is_named_at_once():
    module = spyre_mlir.parse(MATMUL)
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.PassManager.parse('spatial-tile{scalars="K=2048,BLOCK_SIZE_K=128"}').run(module)
    message = info.value.diagnostic.message
    assert "2 of them have no value: %BLOCK_SIZE_M (index), %BLOCK_SIZE_N (index)" in message
    assert 'scalars="BLOCK_SIZE_M=...,BLOCK_SIZE_N=..."' in message
    assert info.value.diagnostic.location is not None


# ---------------------------------------------------------------------------
# (c) a loop count read from data: refused for what it is
# ---------------------------------------------------------------------------

DATA_COUNT = (
    "func.func @k(%x: index, %n: index, %z: index) attributes {grid = [1]} {\n"
    "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
    "  %nv = ktdp.construct_memory_view %n, sizes: [1], strides: [1] {\n"
    "    coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<global>} : memref<1xi32>\n"
    "  %nt = ktdp.construct_access_tile %nv[%c0] {\n"
    "    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : "
    "memref<1xi32> -> !ktdp.access_tile<1xindex>\n"
    "  %nd = ktdp.load %nt : !ktdp.access_tile<1xindex> -> tensor<1xi32>\n"
    "  %e = tensor.extract %nd[%c0] : tensor<1xi32>\n"
    "  %count = arith.index_cast %e : i32 to index\n" + _view("x", 4, 8) + _view("z", 4, 8)
    + "  scf.for %i = %c0 to %count step %c1 {\n" + _tile("x", "t", "%i", 4, 8)
    + "  %a = ktdp.load %t : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>\n"
    "  %b = arith.addf %a, %a : tensor<1x8xf32>\n" + _tile("z", "u", "%i", 4, 8)
    + "  ktdp.store %b, %u : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>\n  }\n  return\n}\n"
)


def test_a_loop_count_read_from_data_is_refused_for_what_it_is():
    module = spyre_mlir.parse(DATA_COUNT)
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.PassManager.from_pipeline("ktir-to-spatial").run(module)
    d = info.value.diagnostic
    assert d.message.startswith("spatial-tile: this loop's upper bound is read from data")
    assert "compute nothing" not in d.message
    assert d.location is not None and d.location.line == DATA_COUNT.splitlines().index(
        "  scf.for %i = %c0 to %count step %c1 {") + 1
    assert [n.message for n in d.notes] == ["computed from data here"]


# ---------------------------------------------------------------------------
# (d) unused arguments keep their types
# ---------------------------------------------------------------------------


def _axpy(use_alpha: bool) -> str:
    compute = ("  %s = tensor.splat %alpha : tensor<1x8xf32>\n  %ax = arith.mulf %s, %x : tensor<1x8xf32>\n"
               "  %r = arith.addf %ax, %y : tensor<1x8xf32>\n") if use_alpha else "  %r = arith.addf %x, %y : tensor<1x8xf32>\n"
    return (
        "func.func @axpy(%alpha: f32, %xp: index, %yp: index, %n: i32) attributes {grid = [2]} {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %id = ktdp.get_compute_tile_id : index\n" + _view("xp", 2, 8) + _view("yp", 2, 8)
        + _tile("xp", "xt", "%id", 2, 8) + "  %x = ktdp.load %xt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>\n"
        + _tile("yp", "yt", "%id", 2, 8) + "  %y = ktdp.load %yt : !ktdp.access_tile<1x8xindex> -> tensor<1x8xf32>\n"
        + compute + "  ktdp.store %r, %yt : tensor<1x8xf32>, !ktdp.access_tile<1x8xindex>\n  return\n}\n"
    )


def test_an_unused_float_parameter_keeps_its_type():
    """It became an index argument: the program refused alpha=2.0, which the source takes."""
    text = _axpy(use_alpha=False)
    out = _lower(text)
    program = next(op for op in out.walk() if isinstance(op, spatial.ProgramOp))
    assert [a.data for a in program.attributes["spatial.unused_args"].data] == ["alpha", "n"]
    assert [str(t) for t in program.attributes["spatial.unused_arg_types"].data] == ["f32", "i32"]
    x, y = np.arange(16, dtype=np.float32).reshape(2, 8), np.ones((2, 8), np.float32)
    args = dict(alpha=2.0, xp=x, yp=y, n=7)
    source = spyre_mlir.interpret(spyre_mlir.parse(text), "axpy", **_copy(args))
    got = spyre_mlir.interpret(out, "axpy", **_copy(args))
    np.testing.assert_array_equal(got["yp"], source["yp"])
    np.testing.assert_array_equal(got["yp"], x + y)


def test_a_used_float_scalar_is_specialized_and_checked():
    text = _axpy(use_alpha=True)
    out = _lower(text, 'ktir-to-spatial{scalars="alpha=2.0"}')
    x, y = np.arange(16, dtype=np.float32).reshape(2, 8), np.ones((2, 8), np.float32)
    args = dict(alpha=2.0, xp=x, yp=y, n=7)
    source = spyre_mlir.interpret(spyre_mlir.parse(text), "axpy", **_copy(args))
    got = spyre_mlir.interpret(out, "axpy", **_copy(args))
    np.testing.assert_array_equal(got["yp"], source["yp"])
    np.testing.assert_array_equal(got["yp"], 2 * x + y)
    with pytest.raises(DiagnosticError, match=r"specialized for alpha = 2\.0, called with alpha = 3\.0"):
        spyre_mlir.interpret(out, "axpy", **{**_copy(args), "alpha": 3.0})


def test_a_program_without_recorded_types_takes_index_arguments():
    """Programs written before `spatial.unused_arg_types` still run (their unused arguments are index)."""
    text = _axpy(use_alpha=False).replace("%alpha: f32", "%alpha: index").replace("%n: i32", "%n: index")
    out = _lower(text)
    program = next(op for op in out.walk() if isinstance(op, spatial.ProgramOp))
    del program.attributes["spatial.unused_arg_types"]
    x, y = np.arange(16, dtype=np.float32).reshape(2, 8), np.ones((2, 8), np.float32)
    got = spyre_mlir.interpret(out, "axpy", alpha=2, xp=x, yp=y.copy(), n=7)
    np.testing.assert_array_equal(got["yp"], x + y)



INDEX_FROM_DATA = """\
func.func @k(%x: index, %n: index) attributes {grid = [1]} {
  %c0 = arith.constant 0 : index
  %nv = ktdp.construct_memory_view %n, sizes: [1], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 == 0)>, memory_space = #ktdp.memory_space<global>} : memref<1xi32>
  %nt = ktdp.construct_access_tile %nv[%c0] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<1xi32> -> !ktdp.access_tile<1xindex>
  %nd = ktdp.load %nt : !ktdp.access_tile<1xindex> -> tensor<1xi32>
  %e0 = tensor.extract %nd[%c0] : tensor<1xi32>
  %e = arith.index_cast %e0 : i32 to index
  %xv = ktdp.construct_memory_view %x, sizes: [8], strides: [1] {
    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8xf32>
  %t = ktdp.construct_access_tile %xv[%e] {
    access_tile_set = affine_set<(d0) : (d0 == 0)>, access_tile_order = affine_map<(d0) -> (d0)>} : memref<8xf32> -> !ktdp.access_tile<1xindex>
  %a = ktdp.load %t : !ktdp.access_tile<1xindex> -> tensor<1xf32>
  %b = arith.addf %a, %a : tensor<1xf32>
  ktdp.store %b, %t : tensor<1xf32>, !ktdp.access_tile<1xindex>
  return
}
"""


def test_a_tile_index_read_from_data_is_refused_for_what_it_is():
    """The refusal named the op ("computed by 'tensor.extract', which is not evaluated
    per site"); it now says the index is read from data and points at where."""
    text = INDEX_FROM_DATA
    module = spyre_mlir.parse(text)
    with pytest.raises(DiagnosticError) as info:
        spyre_mlir.PassManager.parse("spatial-tile").run(module)
    d = info.value.diagnostic
    assert "this index is computed by 'tensor.extract' from a tensor: it is read from data" in d.message
    assert [n.message for n in d.notes] == ["computed here"]
    assert d.notes[0].location.line == 8
