"""Runtime scalars through `ktir-to-spatial` (issue 22, item 1, the spatial back end).

A float or integer scalar argument is a runtime input of the spatial program
(`spatial.scalar @alpha : f32`, no value; compute stages read it through
`scalars(@alpha)`), never a reason to specialize; `scalars=` still folds it.
An index scalar that bounds a loop is a trip (`spatial.trip @t from @n_rows
...`) whose admitted range comes from `!ktdp.runtime_arg`, `spyre.admit` or the
views the loop's tiles overlap; without one, a located refusal naming what
to add. A value outside the admitted range (or off its granularity) is refused
before anything runs.

Translation validation: the source kernel and the program run on the same
seeded arguments for several scalar values, agree exactly, and agree with a
NumPy oracle.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import CORPUS, CORPUS_SCALARS, kernel_arguments
from xdsl.dialects.builtin import IndexType

import spyre_mlir
from spyre_mlir import DiagnosticError
from spyre_mlir.dialects import spatial

f32 = np.float32


def _view(name: str, rows: int, cols: int) -> str:
    return (
        f"  %{name}v = ktdp.construct_memory_view %{name}, sizes: [{rows}, {cols}], strides: [{cols}, 1] {{\n"
        f"    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, -d1 + {cols - 1} >= 0)>,\n"
        f"    memory_space = #ktdp.memory_space<global>}} : memref<{rows}x{cols}xf32>\n"
    )


def _tile(name: str, view: str, at: str, rows: int, cols: int, vrows: int) -> str:
    return (
        f"  %{name} = ktdp.construct_access_tile %{view}v[{at}, %c0] {{\n"
        f"    access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {rows - 1} >= 0, d1 >= 0, -d1 + {cols - 1} >= 0)>,\n"
        f"    access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : memref<{vrows}x{cols}xf32> -> "
        f"!ktdp.access_tile<{rows}x{cols}xindex>\n"
    )


AXPY = (
    "func.func @axpy(%x: index, %y: index, %alpha: f32) attributes {grid = [2]} {\n"
    "  %c = ktdp.get_compute_tile_id : index\n  %c32 = arith.constant 32 : index\n"
    "  %row = arith.muli %c, %c32 : index\n  %c0 = arith.constant 0 : index\n"
    + _view("x", 64, 16)
    + _view("y", 64, 16)
    + _tile("xt", "x", "%row", 32, 16, 64)
    + _tile("yt", "y", "%row", 32, 16, 64)
    + "  %a = ktdp.load %xt : !ktdp.access_tile<32x16xindex> -> tensor<32x16xf32>\n"
    "  %b = ktdp.load %yt : !ktdp.access_tile<32x16xindex> -> tensor<32x16xf32>\n"
    "  %s = tensor.splat %alpha : tensor<32x16xf32>\n"
    "  %ax = arith.mulf %s, %a : tensor<32x16xf32>\n  %r = arith.addf %ax, %b : tensor<32x16xf32>\n"
    "  ktdp.store %r, %yt : tensor<32x16xf32>, !ktdp.access_tile<32x16xindex>\n  return\n}\n"
)


def rows_kernel(n_param: str = "%n_rows: index", extract: str = "", rows: int = 128) -> str:
    """exp of the 8-row blocks of a `rows`x16 view that start below %n_rows; block i on
    core i mod 2 (`scf.for %i = core * 8 to %n_rows step 16`)."""
    return (
        f"func.func @rows(%x: index, %z: index, {n_param}) attributes {{grid = [2]}} {{\n"
        "  %c = ktdp.get_compute_tile_id : index\n  %c8 = arith.constant 8 : index\n"
        "  %c16 = arith.constant 16 : index\n  %c0 = arith.constant 0 : index\n"
        "  %lb = arith.muli %c, %c8 : index\n"
        + extract
        + _view("x", rows, 16)
        + _view("z", rows, 16)
        + "  scf.for %i = %lb to %n_rows step %c16 {\n"
        + _tile("xt", "x", "%i", 8, 16, rows)
        + _tile("zt", "z", "%i", 8, 16, rows)
        + "  %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>\n"
        "  %e = math.exp %a : tensor<8x16xf32>\n"
        "  ktdp.store %e, %zt : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>\n  }\n  return\n}\n"
    )


RUNTIME_ARG = "!ktdp.runtime_arg<index, granularity=16, upperbound=96>"
ROWS_RUNTIME_ARG = rows_kernel(
    f"%M: {RUNTIME_ARG}", f"  %n_rows = ktdp.runtime_arg_extract value from %M : {RUNTIME_ARG} -> index\n"
)
ROWS_ADMIT = rows_kernel("%n_rows: index {spyre.admit = {upperbound = 64 : i64, granularity = 16 : i64}}")

REPEAT = (
    "func.func @repeat(%x: index, %z: index, %n: index) {\n"
    "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
    + _view("x", 8, 16)
    + _view("z", 8, 16)
    + _tile("xt", "x", "%c0", 8, 16, 8)
    + _tile("zt", "z", "%c0", 8, 16, 8)
    + "  %zero = arith.constant 0.0 : f32\n  %init = tensor.splat %zero : tensor<8x16xf32>\n"
    "  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<8x16xf32>) {\n"
    "    %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>\n"
    "    %s = arith.addf %acc, %a : tensor<8x16xf32>\n    scf.yield %s : tensor<8x16xf32>\n  }\n"
    "  ktdp.store %sum, %zt : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>\n  return\n}\n"
)
"""z = n * x, summed n times over one tile: no tile moves along the loop, so no view bounds n."""


def lower(text: str, options: str = ""):
    module = spyre_mlir.parse(text)
    spyre_mlir.PassManager.from_pipeline("ktir-to-spatial" + options).run(module)
    return module


def program_of(module) -> spatial.ProgramOp:
    (program,) = [op for op in module.walk() if isinstance(op, spatial.ProgramOp)]
    return program


def of(module, kind) -> list:
    return [op for op in module.walk() if isinstance(op, kind)]


def run_both(text: str, module, name: str, grid=None, **args):
    """(source outputs, program outputs) on copies of the same arguments."""
    copy = lambda: {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}  # noqa: E731
    source = spyre_mlir.interpret(spyre_mlir.parse(text), name, grid=grid, **copy())
    return source, spyre_mlir.interpret(module, name, **copy())


# -- float scalars: runtime inputs ----------------------------------------------


def test_axpy_alpha_is_a_runtime_input_equal_to_source_and_numpy():
    module = lower(AXPY)
    program = program_of(module)
    assert program.phase == "verified"
    (alpha,) = of(module, spatial.ScalarOp)
    assert alpha.sym_name.data == "alpha" and alpha.is_runtime and alpha.number is None
    computes = [s for s in of(module, spatial.StageOp) if s.kind_name == "compute"]
    assert len(computes) == 2 and all(s.scalar_names == ("alpha",) for s in computes)
    rng = np.random.default_rng(22)
    x, y = rng.standard_normal((64, 16)).astype(f32), rng.standard_normal((64, 16)).astype(f32)
    for a in (2.5, -0.75, 0.0, 1e-3):
        source, got = run_both(AXPY, module, "axpy", grid=(2,), x=x, y=y, alpha=a)
        np.testing.assert_array_equal(got["y"], source["y"])
        np.testing.assert_allclose(got["y"], f32(a) * x + y, rtol=1e-6, atol=1e-6)


def test_scalars_option_still_folds_the_value_and_refuses_another():
    module = lower(AXPY, '{scalars="alpha=2.5"}')
    (alpha,) = of(module, spatial.ScalarOp)
    assert alpha.number == 2.5
    assert all(s.scalars is None for s in of(module, spatial.StageOp))
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((64, 16)).astype(f32), rng.standard_normal((64, 16)).astype(f32)
    got = spyre_mlir.interpret(module, "axpy", x=x, y=y.copy(), alpha=2.5)
    np.testing.assert_allclose(got["y"], f32(2.5) * x + y, rtol=1e-6)
    with pytest.raises(DiagnosticError, match=r"specialized for alpha = 2.5, called with alpha = 1.0"):
        spyre_mlir.interpret(module, "axpy", x=x, y=y.copy(), alpha=1.0)


# -- index scalars bounding a loop: trips ------------------------------------------


def _rows_oracle(x: np.ndarray, z: np.ndarray, n: int) -> np.ndarray:
    want = z.copy()
    blocks = max(0, -(-n // 8))  # every 8-row block starting below n
    want[: 8 * blocks] = np.exp(x[: 8 * blocks])
    return want


def test_row_loop_bounded_by_views_is_a_trip_equal_to_source_and_numpy():
    module = lower(rows_kernel())
    (n_rows,) = of(module, spatial.ScalarOp)
    assert n_rows.is_runtime
    trips = of(module, spatial.TripOp)
    assert len(trips) == 2  # one per site (bias -lb), the admitted range the same
    assert {t.source_name for t in trips} == {"n_rows"} and {t.admitted for t in trips} == {(0, 128)}
    assert sorted(t.bias_value for t in trips) == [-8, 0] and {t.per_value for t in trips} == {16}
    assert all(op.trip_name is not None for op in of(module, spatial.LoopOp))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((128, 16)).astype(f32)
    for n in (0, 1, 8, 40, 97, 128):
        z = rng.standard_normal((128, 16)).astype(f32)
        source, got = run_both(rows_kernel(), module, "rows", grid=(2,), x=x, z=z, n_rows=n)
        np.testing.assert_array_equal(got["z"], source["z"])
        np.testing.assert_allclose(got["z"], _rows_oracle(x, z, n), rtol=1e-6)


def test_a_value_above_the_proven_bound_is_refused_before_running():
    module = lower(rows_kernel())
    x = np.ones((128, 16), f32)
    for n in (129, 4096):
        with pytest.raises(DiagnosticError) as info:
            spyre_mlir.interpret(module, "rows", x=x, z=np.zeros_like(x), n_rows=n)
        message = info.value.diagnostic.message
        assert f"reads n_rows = {n}, outside the admitted range [0, 128]" in message
        assert "never clamped or wrapped" in message
        assert info.value.diagnostic.location is not None


def test_a_tail_tile_is_admitted_and_masked_as_in_the_source():
    """100 rows: the last 8-row block starting below n (rows 96..103) reaches past the
    view; it is admitted (it overlaps the view) and masked, as the source's access is."""
    text = rows_kernel(rows=100)
    module = lower(text)
    assert {t.admitted for t in of(module, spatial.TripOp)} == {(0, 104)}  # site 1: 8 + 16 * 6
    assert any(spatial.MASKED_ATTR in s.attributes for s in of(module, spatial.StageOp))
    rng = np.random.default_rng(11)
    x = rng.standard_normal((100, 16)).astype(f32)
    for n in (96, 97, 100, 104):
        z = rng.standard_normal((100, 16)).astype(f32)
        source, got = run_both(text, module, "rows", grid=(2,), x=x, z=z, n_rows=n)
        np.testing.assert_array_equal(got["z"], source["z"])
        want = z.copy()
        want[: min(100, 8 * -(-n // 8))] = np.exp(x[: min(100, 8 * -(-n // 8))])
        np.testing.assert_allclose(got["z"], want, rtol=1e-6)
    with pytest.raises(DiagnosticError, match=r"reads n_rows = 105, outside the admitted range \[0, 104\]"):
        spyre_mlir.interpret(module, "rows", x=x, z=np.zeros_like(x), n_rows=105)


def test_spyre_admit_states_the_range_and_granularity():
    module = lower(ROWS_ADMIT)
    trips = of(module, spatial.TripOp)
    assert {(t.admitted, t.granularity_value) for t in trips} == {((0, 64), 16)}
    rng = np.random.default_rng(7)
    x = rng.standard_normal((128, 16)).astype(f32)
    for n in (0, 16, 48, 64):
        z = rng.standard_normal((128, 16)).astype(f32)
        source, got = run_both(ROWS_ADMIT, module, "rows", grid=(2,), x=x, z=z, n_rows=n)
        np.testing.assert_array_equal(got["z"], source["z"])
        np.testing.assert_allclose(got["z"], _rows_oracle(x, z, n), rtol=1e-6)
    for n, why in ((40, "not a multiple of the admitted granularity 16"), (80, "outside the admitted range [0, 64]")):
        with pytest.raises(DiagnosticError, match=re.escape(f"reads n_rows = {n}, {why}")):
            spyre_mlir.interpret(module, "rows", x=x, z=np.zeros_like(x), n_rows=n)


def test_runtime_arg_upperbound_and_granularity_admit_the_trip():
    module = lower(ROWS_RUNTIME_ARG)
    (m,) = of(module, spatial.ScalarOp)
    assert m.sym_name.data == "M" and m.is_runtime and m.scalar_type == IndexType()
    assert {(t.source_name, t.admitted, t.granularity_value) for t in of(module, spatial.TripOp)} == {
        ("M", (0, 96), 16)
    }
    rng = np.random.default_rng(9)
    x = rng.standard_normal((128, 16)).astype(f32)
    for n in (0, 32, 96):
        z = rng.standard_normal((128, 16)).astype(f32)
        source, got = run_both(ROWS_RUNTIME_ARG, module, "rows", grid=(2,), x=x, z=z, M=n)
        np.testing.assert_array_equal(got["z"], source["z"])
        np.testing.assert_allclose(got["z"], _rows_oracle(x, z, n), rtol=1e-6)
    with pytest.raises(DiagnosticError, match=r"reads M = 112, outside the admitted range \[0, 96\]"):
        spyre_mlir.interpret(module, "rows", x=x, z=np.zeros_like(x), M=112)


def test_an_unbounded_trip_is_refused_naming_what_to_add():
    with pytest.raises(DiagnosticError) as info:
        lower(REPEAT)
    diagnostic = info.value.diagnostic
    message = diagnostic.message
    assert "this loop runs to %n, a runtime scalar, and nothing bounds it" in message
    assert "!ktdp.runtime_arg<index, upperbound = U[, granularity = G]>" in message
    assert "{spyre.admit = {upperbound = U[, granularity = G]}}" in message
    assert 'scalars="n=..."' in message
    assert diagnostic.location is not None
    assert "scf.for %i = %c0 to %n" in REPEAT.splitlines()[diagnostic.location.line - 1]


def test_an_admitted_loop_without_tiles_along_it_runs_equal_including_zero_trips():
    text = REPEAT.replace("%n: index)", "%n: index {spyre.admit = {upperbound = 5 : i64}})")
    module = lower(text)
    (trip,) = of(module, spatial.TripOp)
    assert trip.admitted == (0, 5) and trip.greatest_count == 5
    x = np.random.default_rng(1).standard_normal((8, 16)).astype(f32)
    for n in range(6):
        source, got = run_both(text, module, "repeat", x=x, z=np.zeros_like(x), n=n)
        np.testing.assert_array_equal(got["z"], source["z"])
        want = np.zeros_like(x)
        for _ in range(n):
            want = want + x
        np.testing.assert_allclose(got["z"], want, rtol=1e-6)
    with pytest.raises(DiagnosticError, match=r"reads n = 6, outside the admitted range \[0, 5\]"):
        spyre_mlir.interpret(module, "repeat", x=x, z=np.zeros_like(x), n=6)


def test_a_malformed_admit_attribute_is_a_located_error():
    text = REPEAT.replace("%n: index)", "%n: index {spyre.admit = {upper = 5 : i64}})")
    with pytest.raises(DiagnosticError, match=r"%n's spyre.admit must be \{upperbound = U\[, granularity = G\]\}"):
        lower(text)


def test_an_index_scalar_in_an_address_still_needs_a_value():
    text = AXPY.replace("%alpha: f32", "%alpha: f32, %off: index").replace(
        "%row = arith.muli %c, %c32 : index",
        "%row0 = arith.muli %c, %c32 : index\n  %row = arith.addi %row0, %off : index",
    )
    with pytest.raises(DiagnosticError) as info:
        lower(text)
    assert '1 of them has no value: %off (index); pass scalars="off=..."' in info.value.diagnostic.message
    module = lower(text, '{scalars="off=0"}')
    assert [s.sym_name.data for s in of(module, spatial.ScalarOp) if s.is_runtime] == ["alpha"]


# -- the dialect: a trip from a scalar ---------------------------------------------


def test_trip_from_a_scalar_round_trips_and_is_verified():
    text = (
        'spatial.program @p attributes {spatial.phase = "tiled"} {\n'
        "  spatial.scalar @n : index\n"
        "  spatial.trip @t from @n per 8 bias -4 admit [0, 64] granularity 8\n}\n"
    )
    module = spyre_mlir.parse(text)
    (trip,) = of(module, spatial.TripOp)
    assert trip.reads_scalar and trip.count(20) == 2 and trip.greatest_count == 8
    assert trip.refusal(12) == "not a multiple of the admitted granularity 8" and trip.refusal(16) is None
    assert "spatial.trip @t from @n per 8 bias -4 admit [0, 64] granularity 8" in str(module)
    assert "spatial.scalar @n : index\n" in str(module)
    for bad, why in (
        ("spatial.scalar @n : f32", "scalar @n must be an index or integer"),
        (
            "spatial.scalar @n : index = 3\n  spatial.trip @u from @n[0] per 1 bias 0 admit [0, 1]",
            r"@n is a scalar: it has no element \[0\]",
        ),
    ):
        with pytest.raises(Exception, match=why):
            spyre_mlir.parse(text.replace("spatial.scalar @n : index", bad))


# -- the corpus: softmax runs to its row count -----------------------------------


@pytest.mark.parametrize("stem", ["softmax_fwd_ktir", "softmax_small"])
def test_corpus_softmax_lowers_without_scalars_and_equals_its_source(stem):
    path = CORPUS / f"{stem}.mlir"
    if not path.exists():
        pytest.skip("../shared/corpus/ktir not present")
    name, args, _ = kernel_arguments(path)
    grid = args.pop("grid", None)
    module = lower(path.read_text())
    (trip, *_) = of(module, spatial.TripOp)
    rows = CORPUS_SCALARS[stem]["n_rows"]
    assert trip.source_name == "n_rows" and trip.admitted == (0, rows)  # the rows of its views
    copy = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    source = spyre_mlir.interpret(spyre_mlir.parse(path), name, grid=grid, **copy)
    got = spyre_mlir.interpret(module, name, **args)
    assert "output_ptr" in args
    np.testing.assert_array_equal(got["output_ptr"], source["output_ptr"])
    with pytest.raises(DiagnosticError, match=f"reads n_rows = {rows + 1}, outside the admitted range"):
        spyre_mlir.interpret(module, name, **{**args, "n_rows": rows + 1})


def test_a_runtime_arg_in_an_address_is_refused_at_its_use():
    """A launch-time value cannot be specialized: computing a view's size from it is
    refused at the view, naming what a program may do with it."""
    text = ROWS_RUNTIME_ARG.replace("sizes: [128, 16]", "sizes: [%n_rows, 16]", 1)
    with pytest.raises(DiagnosticError) as info:
        lower(text)
    diagnostic = info.value.diagnostic
    assert "this op is computed from %M, a !ktdp.runtime_arg (a launch-time value)" in diagnostic.message
    assert "only as a loop's upper bound (a trip) or in compute ops" in diagnostic.message
    assert diagnostic.location is not None
    assert "%xv = ktdp.construct_memory_view" in text.splitlines()[diagnostic.location.line - 1]


def test_nested_loops_to_two_runtime_scalars_are_two_trips():
    """`for r to %n_rows step 8 { for c to %n_cols step 16 }` over 8x16 tiles of a 64x64
    view: each count is proven from the coordinate that moves along its loop."""
    tiles = (_tile("xt", "x", "%r", 8, 16, 64) + _tile("zt", "z", "%r", 8, 16, 64)).replace("%c0]", "%c]")
    text = (
        "func.func @g(%x: index, %z: index, %n_rows: index, %n_cols: index) {\n"
        "  %c0 = arith.constant 0 : index\n  %c8 = arith.constant 8 : index\n  %c16 = arith.constant 16 : index\n"
        + _view("x", 64, 64)
        + _view("z", 64, 64)
        + "  scf.for %r = %c0 to %n_rows step %c8 {\n  scf.for %c = %c0 to %n_cols step %c16 {\n"
        + tiles.replace("memref<64x16xf32>", "memref<64x64xf32>")
        + "  %a = ktdp.load %xt : !ktdp.access_tile<8x16xindex> -> tensor<8x16xf32>\n"
        "  %e = math.exp %a : tensor<8x16xf32>\n"
        "  ktdp.store %e, %zt : tensor<8x16xf32>, !ktdp.access_tile<8x16xindex>\n  }\n  }\n  return\n}\n"
    )
    module = lower(text)
    trips = {t.source_name: (t.per_value, t.admitted) for t in of(module, spatial.TripOp)}
    assert trips == {"n_rows": (8, (0, 64)), "n_cols": (16, (0, 64))}
    rng = np.random.default_rng(13)
    x = rng.standard_normal((64, 64)).astype(f32)
    for n_rows, n_cols in ((20, 40), (64, 64), (0, 10), (63, 1)):
        z = rng.standard_normal((64, 64)).astype(f32)
        source, got = run_both(text, module, "g", x=x, z=z, n_rows=n_rows, n_cols=n_cols)
        np.testing.assert_array_equal(got["z"], source["z"])
        want = z.copy()
        r, c = min(64, 8 * -(-n_rows // 8)), min(64, 16 * -(-n_cols // 16))
        want[:r, :c] = np.exp(x[:r, :c])
        np.testing.assert_allclose(got["z"], want, rtol=1e-6)
