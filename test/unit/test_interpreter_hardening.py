"""The interpreter never gives a wrong answer silently, never hangs, never
exhausts memory (issue 6): exact parameter names, range-checked arguments,
undefined behaviour as located errors, loops whose induction variable would
wrap, timeouts, memory limits, scattered stores in linear time, type-checked
options and API calls, no leaked NumPy warnings, a warning for a tile id
without a grid, deep recursion and nesting, internal errors told apart from
bad input."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_params, kernel_arguments
from xdsl.dialects import arith

import spyre_mlir
from spyre_mlir.interpreter import Interpreter, InterpreterOptions, InterpreterWarning
from spyre_mlir.interpreter.core import HANDLERS
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.memory import AddressSpace, MemoryBudget, format_bytes
from spyre_mlir.tools import spyre_run as spyre_run_tool

KERNELS = Path(__file__).parent / "kernels"
HARD = KERNELS / "runaway" / "hardening.mlir"  # not a fuzzer seed: some kernels never end
f16, f32 = np.float16, np.float32
I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
GiB = 1 << 30

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def line_of(text: str, after: str = "", path: Path = HARD) -> int:
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i in range(start, len(lines)) if text in lines[i]) + 1


def run(func: str, *, options: InterpreterOptions | None = None, **args):
    return spyre_mlir.interpret(HARD, func, options=options, **args)


def returns(out) -> list:
    return [out[f"return_{i}"] for i in range(sum(k.startswith("return_") for k in out))]


def failure(func: str, options: InterpreterOptions | None = None, **args):
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(func, options=options, **args)
    return info.value.diagnostic


# -- 1. parameters are bound by their exact names ------------------------------------


def test_parameters_are_bound_by_exact_name():
    assert run("exact_names", a_1=10, a_2=3)["return_0"] == 7
    assert run("exact_names", a_2=10, a_1=3)["return_0"] == -7


@pytest.mark.parametrize("hints", [("same", "same"), ("arg1", None)], ids=["same-hint", "hint-like-a-position"])
def test_two_parameters_with_one_name_are_refused(hints):
    module = spyre_mlir.parse(HARD)
    func_op = Interpreter(module).kernel("exact_names")
    for arg, hint in zip(func_op.body.blocks[0].args, hints):
        arg.name_hint = hint
    name = hints[0]
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        Interpreter(module).run("exact_names", {name: 1})
    d = info.value.diagnostic
    assert f"parameters #0 and #1 of @exact_names are both named '{name}'" in d.message
    assert "ambiguous" in d.message
    assert d.location is not None and d.location.line == line_of("func.func @exact_names")


# -- 2. ranges and undefined behaviour ---------------------------------------------------


@pytest.mark.parametrize(
    "func, args, message",
    [
        ("divisions", dict(a=2**31, b=1), "2147483648 does not fit in i32"),
        ("divisions", dict(a=I32_MIN - 1, b=1), "-2147483649 does not fit in i32"),
        ("floor_division", dict(a=2**63, b=1), "9223372036854775808 does not fit in index"),
        ("floor_division", dict(a=I64_MIN - 1, b=1), "does not fit in index"),
        ("floor_division", dict(a=np.uint64(2**63), b=1), "does not fit in index"),
        ("tensor_division", dict(a=np.array([1, 300, 2]), b=np.ones(3, np.int8)), "300 does not fit in i8"),
        ("tensor_division", dict(a=np.array([1.0, 2, 3]), b=np.ones(3, np.int8)), "expected integers for tensor<3xi8>"),
        ("float_to_int", dict(x=1e39), "out of the range of f32"),
        ("float_to_int", dict(x=10**400), "out of the range of f32"),
    ],
)
def test_out_of_range_arguments_are_errors_not_wrapped(func, args, message):
    d = failure(func, **args)
    assert message in d.message
    assert d.location.line == line_of(f"func.func @{func}")


def test_arguments_at_the_edges_of_their_range():
    assert run("floor_division", a=I64_MAX, b=1)["return_0"] == I64_MAX
    assert run("floor_division", a=I64_MIN, b=2)["return_0"] == I64_MIN // 2
    assert returns(run("divisions", a=I32_MIN, b=1)) == [I32_MIN, I32_MIN, I32_MIN, 0]
    assert run("float_to_int", x=float("nan") if False else 2.75)["return_0"] == 2


def test_division_results():
    assert returns(run("divisions", a=-7, b=2)) == [-3, -4, -3, -1]
    out = run("tensor_division", a=np.array([-128, 7, -7], np.int8), b=np.array([1, 2, 2], np.int8))
    np.testing.assert_array_equal(out["return_0"], [-128, 4, -3])


@pytest.mark.parametrize(
    "func, args, op",
    [
        ("divisions", dict(a=I32_MIN, b=-1), "arith.divsi"),
        ("floor_division", dict(a=I64_MIN, b=-1), "arith.floordivsi"),
        ("remainder", dict(a=I32_MIN, b=-1), "arith.remsi"),
        ("tensor_division", dict(a=np.array([5, -128, 1], np.int8), b=np.array([1, -1, 1], np.int8)), "arith.ceildivsi"),
    ],
)
def test_signed_division_overflow_is_a_located_error(func, args, op):
    d = failure(func, **args)
    assert d.message.startswith(f"signed division overflow in {op}")
    assert "undefined behavior" in d.message
    assert d.location.line == line_of(op, after=f"@{func}(")


@pytest.mark.parametrize(
    "func, args, op",
    [
        ("divisions", dict(a=1, b=0), "arith.divsi"),
        ("remainder", dict(a=1, b=0), "arith.remsi"),
        ("unsigned_division", dict(a=1, b=0), "arith.divui"),
        ("tensor_division", dict(a=np.ones(3, np.int8), b=np.array([1, 0, 1], np.int8)), "arith.ceildivsi"),
    ],
)
def test_division_by_zero_is_a_located_error(func, args, op):
    d = failure(func, **args)
    assert d.message == "integer division by zero"
    assert d.location.line == line_of(op, after=f"@{func}(")


def test_index_arithmetic_wraps_at_64_bits():
    loops = KERNELS / "loops.mlir"
    assert spyre_mlir.interpret(loops, "row_of", core=2**62, rows_per_core=4)["return_0"] == 0
    assert spyre_mlir.interpret(loops, "row_of", core=2**62 + 1, rows_per_core=2)["return_0"] == I64_MIN + 2


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_masked_gather_from_memory_nobody_wrote_reads_zero(execution):
    """Every point of the gather is unmapped: nothing to group by segment (was an internal IndexError)."""
    options = InterpreterOptions(check_uninitialized=False, mask_out_of_bounds=True, execution=execution)
    out = spyre_mlir.interpret(KERNELS / "errors.mlir", "out_of_bounds", x=64, y=1, options=options)
    np.testing.assert_array_equal(out.read_hbm(1, (20, 4), f32), np.zeros((20, 4), f32))
    space = AddressSpace("HBM", check_uninitialized=False)
    groups = space.locate_points(np.array([10, 5000], np.int64), 4, write=False)
    assert [(seg, list(sel)) for seg, sel in groups] == [(None, [0, 1])]


def test_overflow_flags_make_wrapping_an_error():
    assert returns(run("flags", a=3, b=2)) == [5, 6, 12, 5]
    d = failure("flags", a=100, b=100)
    assert d.message == "signed overflow in arith.addi with overflow<nsw> (poison in MLIR)"
    assert d.location.line == line_of("overflow<nsw> : i8", after="@flags")
    d = failure("flags", a=-1, b=2)  # 255 * 2 unsigned
    assert d.message.startswith("unsigned overflow in arith.muli with overflow<nuw>")
    d = failure("flags", a=64, b=1)  # 64 << 1 = 128 > 127
    assert d.message.startswith("signed overflow in arith.shli with overflow<nsw>")


def test_shifts_by_the_width_or_more_are_errors():
    assert run("shift", a=-1, b=15)["return_0"] == 1
    d = failure("shift", a=1, b=16)
    assert "shift amount out of range for i16 (poison in MLIR)" in d.message
    assert d.location.line == line_of("arith.shrui", after="@shift")
    assert "shift amount out of range" in failure("shift", a=1, b=-1).message


@pytest.mark.parametrize("x", [float("nan"), float("inf"), 3e9, -2.2e9])
def test_float_to_int_out_of_range_is_an_error(x):
    d = failure("float_to_int", x=x)
    assert "conversion out of range (poison in MLIR)" in d.message
    assert d.location.line == line_of("arith.fptosi")


# -- 3. loops whose induction variable would wrap ----------------------------------------


@pytest.mark.parametrize("execution", ["batched", "per-core"])
@pytest.mark.parametrize(
    "lo, hi, step, trips",
    [
        (I64_MAX, -2, 1, [0, 0]),  # lo - hi overflows int64
        (-4, I64_MAX, 2**62, [3, 3]),
        (0, I64_MAX, 2**62, [2, 2]),
        (I64_MIN + 1, I64_MAX, 2**62, [4, 4]),
        (3, 10, 2, [4, 4]),
    ],
)
def test_trip_counts_near_the_index_limits(execution, lo, hi, step, trips):
    options = InterpreterOptions(execution=execution, timeout=60)
    out = run("trips_index", lo=lo, hi=hi, step=step, out=np.zeros(2, np.int32), options=options)
    np.testing.assert_array_equal(out["out"], trips)


@pytest.mark.parametrize("execution", ["batched", "per-core"])
@pytest.mark.parametrize(
    "lo, hi, step, want",
    [
        (0, I32_MAX, 2**30, [[2, 2**30], [2, 2**30 - 1]]),
        (I32_MAX, -2, 1, [[0, 0], [0, 0]]),
        (I32_MIN + 1, I32_MAX, 2**30, [[4, 2**30 + 1], [4, 2**30]]),
    ],
)
def test_trip_counts_near_the_i32_limits(execution, lo, hi, step, want):
    options = InterpreterOptions(execution=execution, timeout=60)
    out = run("trips_i32", lo=lo, hi=hi, step=step, out=np.zeros((2, 2), np.int32), options=options)
    np.testing.assert_array_equal(out["out"], want)


# -- 4. timeouts and memory limits -------------------------------------------------------


def test_a_runaway_while_loop_times_out_at_the_loop():
    d = failure("spin", n=0, options=InterpreterOptions(timeout=0.5))
    assert d.message == "execution exceeded the 0.5 s timeout in this loop"
    assert d.location.line == line_of("scf.while", after="@spin")


@pytest.mark.parametrize("execution", ["batched", "per-core"])
def test_a_huge_for_loop_times_out_at_the_innermost_loop(execution):
    d = failure("long_loop", n=10**6, options=InterpreterOptions(timeout=0.3, execution=execution))
    assert d.message == "execution exceeded the 0.3 s timeout in this loop"
    assert d.location.line == line_of("scf.for %j", after="@long_loop")


def test_no_timeout_by_default():
    assert InterpreterOptions().timeout is None
    assert run("long_loop", n=30)["return_0"] == 900


@pytest.mark.parametrize("value, error", [(0, ValueError), (-1.0, ValueError), (float("nan"), ValueError),
                                          ("1", TypeError), (True, TypeError)])
def test_timeout_is_checked(value, error):
    with pytest.raises(error, match="timeout"):
        InterpreterOptions(timeout=value)


def test_memory_limit_default_and_checks():
    limit = InterpreterOptions().memory_limit
    assert 0 < limit <= 8 * GiB
    for bad, error in [(0, ValueError), (-5, ValueError), (1.5, TypeError), ("8GiB", TypeError), (None, TypeError)]:
        with pytest.raises(error, match="memory_limit"):
            InterpreterOptions(memory_limit=bad)


def test_a_huge_static_tensor_is_refused_before_it_is_made():
    d = failure("huge_empty", options=InterpreterOptions(memory_limit=8 * GiB))
    assert d.message == (
        "'tensor.empty' would allocate 37.3 GiB for its result tensor<100000x100000xf32>, over the 8 GiB memory limit"
    )
    assert d.location.line == line_of("tensor.empty()", after="@huge_empty")


def test_a_huge_dynamic_tensor_is_refused_before_it_is_made():
    d = failure("dynamic_empty", n=100000, options=InterpreterOptions(memory_limit=8 * GiB))
    assert "tensor.empty of shape 100000x100000 would allocate 37.3 GiB, over the 8 GiB memory limit" in d.message
    assert run("dynamic_empty", n=3)["return_0"].shape == (3, 3)
    assert "negative size" in failure("dynamic_empty", n=-1).message


def test_a_tile_of_a_hundred_million_points_is_refused_under_a_small_limit():
    d = failure("huge_tile", x=np.zeros(1, f32), options=InterpreterOptions(memory_limit=256 << 20))
    assert d.message == (
        "'ktdp.load' would allocate 381.5 MiB for its result tensor<10000x10000xf32>, over the 256 MiB memory limit"
    )


def test_a_tile_of_a_run_time_shape_is_refused_under_a_small_limit():
    np.testing.assert_array_equal(run("dynamic_tile", x=np.arange(5, dtype=f32), n=5)["return_0"], np.arange(5))
    d = failure("dynamic_tile", x=np.zeros(5, f32), n=10**8, options=InterpreterOptions(memory_limit=256 << 20))
    assert d.message == "loading a 100000000 tile would allocate 381.5 MiB, over the 256 MiB memory limit"
    assert d.location.line == line_of("ktdp.load", after="@dynamic_tile")


def test_a_reduction_over_a_huge_domain_is_refused_under_a_small_limit():
    a = np.zeros((256, 256), f32)
    assert run("wide_reduction", a=a)["return_0"][0, 0] == 256
    d = failure("wide_reduction", a=a, options=InterpreterOptions(memory_limit=64 << 20))
    assert d.message == (
        "evaluating the body of 'linalg.generic' over its 256x256x256 iteration domain would allocate 128 MiB, "
        "over the 64 MiB memory limit"
    )


def test_a_view_whose_stride_spans_terabytes_allocates_only_what_it_touches():
    out = run("wide_stride", options=InterpreterOptions(memory_limit=64 << 20))
    np.testing.assert_array_equal(out["return_0"], np.full((2, 2), 3, f32))
    assert out.report.hbm_bytes < 1 << 20
    np.testing.assert_array_equal(out.read_hbm(4096 + 2**40, (2,), f32), [3, 3])


def test_a_huge_grid_is_refused_before_its_cores_are_made():
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(HARD, "no_grid", out=np.zeros(1, np.int32), grid=10**9,
                             options=InterpreterOptions(memory_limit=8 * GiB))
    assert info.value.diagnostic.message == (
        "the grid [1000000000] of 1000000000 cores would allocate 238.4 GiB for its cores alone, "
        "over the 8 GiB memory limit"
    )


def test_memory_created_by_stores_counts_against_the_limit():
    d = failure("scattered_stores", n=1000, stride=4096, options=InterpreterOptions(memory_limit=1 << 20))
    assert "would allocate 8 KiB, over the 1 MiB memory limit" in d.message
    assert d.location.line == line_of("ktdp.store", after="@scattered_stores")


def test_memory_budget_messages():
    budget = MemoryBudget(8 * GiB)
    with pytest.raises(InterpreterError, match=r"^x would allocate 1 TiB, over the 8 GiB memory limit$"):
        budget.reserve(1 << 40, "x")
    budget.reserve(GiB, "y")
    with pytest.raises(InterpreterError, match=r"\(1 GiB already allocated\)"):
        budget.reserve(7 * GiB + 1, "z")
    assert [format_bytes(n) for n in (0, 1023, 1024, 1536, 8 * GiB, 1 << 50)] == [
        "0 bytes", "1023 bytes", "1 KiB", "1.5 KiB", "8 GiB", "1 PiB"]


BIT_COUNTS = """func.func @k(%x: tensor<?x{ty}>, %s: {ty}) -> (tensor<?x{ty}>, tensor<?x{ty}>, tensor<?x{ty}>, {ty}, {ty}, {ty}) {{
  %a = math.ctpop %x : tensor<?x{ty}>
  %b = math.ctlz %x : tensor<?x{ty}>
  %c = math.cttz %x : tensor<?x{ty}>
  %d = math.ctpop %s : {ty}
  %e = math.ctlz %s : {ty}
  %f = math.cttz %s : {ty}
  return %a, %b, %c, %d, %e, %f : tensor<?x{ty}>, tensor<?x{ty}>, tensor<?x{ty}>, {ty}, {ty}, {ty}
}}
"""


@pytest.mark.parametrize("ty, dtype", [("i8", np.int8), ("i16", np.int16), ("i32", np.int32), ("i64", np.int64)])
def test_bit_counts_on_tensors_are_vectorized(ty, dtype):
    """ctpop/ctlz/cttz on a tensor agree with the scalar ops, without a Python call per element."""
    info = np.iinfo(dtype)
    edges = np.array([0, 1, -1, 2, 3, info.min, info.max, 12, -64], dtype)
    kernel = BIT_COUNTS.format(ty=ty)
    tensors = returns(spyre_mlir.interpret(kernel, x=edges, s=0))[:3]
    for i, v in enumerate(edges.tolist()):
        scalars = returns(spyre_mlir.interpret(kernel, x=edges, s=v))[3:]
        assert [int(t[i]) for t in tensors] == [int(c) for c in scalars], v
    big = np.random.default_rng(0).integers(info.min, info.max, 10**6, dtype=dtype, endpoint=True)
    counts = returns(spyre_mlir.interpret(kernel, x=big, s=0))[:3]
    assert all(len(c) == big.size for c in counts)


# -- 5. scattered stores are linear in their number ---------------------------------------


def test_twenty_thousand_scattered_stores():
    # Speed (was over 50 s with a linear scan per new page) is measured in benchmarks/scaling_bench.py.
    out = run("scattered_stores", n=20000, stride=2048)
    for i in (0, 1, 12345, 19999):
        assert out.read_hbm(i * 2048, (1,), f32)[0] == 1.5
    assert out.read_hbm(2048 * 5 + 1, (1,), f32)[0] == 0  # never written: reads back as zero


@pytest.mark.parametrize("order", ["ascending", "shuffled"])
def test_one_store_of_a_tile_with_scattered_addresses(order):
    idx = np.arange(20000, dtype=np.int64) * (2**25) + 7  # 20000 elements 128 MiB apart
    if order == "shuffled":
        idx = np.random.default_rng(0).permutation(idx)
    out = run("scattered_tile", idx=idx)
    np.testing.assert_array_equal(out["return_0"], np.full(20000, 2.5, f32))
    assert out.report.hbm_bytes < 8 << 20  # not one buffer spanning 2.5 TiB
    assert out.read_hbm(7 + 3 * 2**25, (1,), f32)[0] == 2.5


def test_a_scattered_tile_running_off_its_array_is_an_error():
    with pytest.raises(spyre_mlir.DiagnosticError, match="runs past the end of argument 'idx'"):
        spyre_mlir.interpret(
            "func.func @k(%idx: index) -> tensor<8xi64> {\n"
            "  %c0 = arith.constant 0 : index\n"
            "  %v = ktdp.construct_memory_view %idx, sizes: [8], strides: [1000] {\n"
            "    coordinate_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, memory_space = #ktdp.memory_space<global>}"
            " : memref<8xi64>\n"
            "  %t = ktdp.construct_access_tile %v[%c0] {\n"
            "    access_tile_set = affine_set<(d0) : (d0 >= 0, -d0 + 7 >= 0)>, access_tile_order = affine_map<(d0) -> (d0)>}"
            " : memref<8xi64> -> !ktdp.access_tile<8xindex>\n"
            "  %r = ktdp.load %t : !ktdp.access_tile<8xindex> -> tensor<8xi64>\n"
            "  return %r : tensor<8xi64>\n}\n",
            idx=np.zeros(4000, np.int64),
        )


def test_growing_scratch_is_amortized():
    space = AddressSpace("HBM")
    for i in range(20000):  # each write extends the same buffer by 8 bytes past its end
        space.locate(i * 8, i * 8 + 16, write=True)
    assert len(space.segments) == 1


# -- 6. options and API calls are type-checked --------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(grid="32"), "grid must be an int or a tuple of ints"),
        (dict(grid=3.0), "grid must be an int or a tuple of ints"),
        (dict(grid=["2", "3"]), "grid must be an int or a tuple of ints"),
        (dict(check_lx="yes"), "check_lx must be a bool"),
        (dict(verify=1), "verify must be a bool"),
        (dict(lx_limit=2.5), "lx_limit must be an int"),
        (dict(execution=1), "execution must be a str"),
        (dict(grid_order=None), "grid_order must be a str"),
    ],
)
def test_options_of_the_wrong_type_raise_type_error(kwargs, match):
    with pytest.raises(TypeError, match=match):
        InterpreterOptions(**kwargs)


def test_options_values_are_checked_and_grid_normalized():
    assert InterpreterOptions(grid=32).grid == (32,)
    assert InterpreterOptions(grid=[2, 3]).grid == (2, 3)
    assert InterpreterOptions(grid=(np.int64(4),)).grid == (4,)
    for bad in [(), (0,), (2, -1)]:
        with pytest.raises(ValueError, match="grid"):
            InterpreterOptions(grid=bad)
    with pytest.raises(ValueError, match="execution"):
        InterpreterOptions(execution="fast")
    options = InterpreterOptions()
    options.grid = "32"  # changed after construction: checked when used
    with pytest.raises(TypeError, match="grid must be"):
        Interpreter(HARD, options)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: spyre_mlir.interpret(123), "expected a ModuleOp, MLIR text or a path"),
        (lambda: spyre_mlir.interpret(HARD, 5), "func must be a function name"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", [1, 2]), "hbm must be a mapping"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", {"0": np.zeros(2)}, a_1=1, a_2=2), "hbm addresses must be ints"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", {0: [1.0, 2.0]}, a_1=1, a_2=2), r"hbm\[0\] must be a NumPy array"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", options={}, a_1=1, a_2=2), "options must be an InterpreterOptions"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", grid="4", a_1=1, a_2=2), "grid must be an int or a tuple"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", a_1=["x", "y"], a_2=2), "argument 'a_1' must be"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", a_1=None, a_2=2), "argument 'a_1' must be"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", a_1="3", a_2=2), "argument 'a_1' must be"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", a_1=np.array(["a"]), a_2=2), "must be a numeric array"),
        (lambda: spyre_mlir.interpret(HARD, "exact_names", a_1=1j, a_2=2), "argument 'a_1' must be"),
        (lambda: Interpreter(HARD).run("exact_names", [("a_1", 1)]), "args must be a mapping"),
        (lambda: Interpreter(HARD, {}), "options must be an InterpreterOptions"),
    ],
)
def test_api_calls_of_the_wrong_type_raise_type_error(call, match):
    with pytest.raises(TypeError, match=match):
        call()


def test_values_of_the_wrong_kind_for_a_parameter_stay_located_errors():
    d = failure("exact_names", a_1=1.5, a_2=2)
    assert d.message == "argument 'a_1': expected an integer for i32, got 1.5"
    assert d.location.line == line_of("func.func @exact_names")


# -- 7. no NumPy warnings leak ------------------------------------------------------------


@pytest.mark.parametrize("path", corpus_params(include_inter_tile=True))
def test_corpus_kernels_run_without_numpy_warnings(path):
    name, args, hbm = kernel_arguments(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spyre_mlir.interpret(path, name, hbm=hbm, **args)


def test_ieee_specials_are_semantics_and_raise_no_warning():
    x = np.array([0, -0.0, np.inf, -np.inf, np.nan, 60000, -1, 1e-8], f16)
    y = np.array([0, -1.5, np.inf, -np.inf, np.nan, 3.4e38, 1e-45, 1e30], f32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e, log, p, d, b, h = returns(run("math_on_specials", x=x, y=y))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(e, np.exp(x))
        np.testing.assert_array_equal(log, np.log(x))
        np.testing.assert_array_equal(p, np.power(y, y))
        np.testing.assert_array_equal(d, y / y)
        np.testing.assert_array_equal(h, y.astype(f16))  # 3.4e38 and 1e30 round to inf in f16
    assert np.isinf(b[5]) and np.isnan(b[4])


def test_warnings_as_errors_in_a_subprocess(tmp_path):
    """`python -W error`: every kernel of test/unit/kernels that needs no arguments, and the hardening kernels."""
    import subprocess
    import sys

    script = (
        "import numpy as np, spyre_mlir\n"
        f"K = {str(HARD)!r}\n"
        "spyre_mlir.interpret(K, 'math_on_specials', x=np.full(8, np.nan, np.float16), y=np.full(8, 1e39 * 0 + 3e38, np.float32))\n"
        "spyre_mlir.interpret(K, 'wide_stride')\n"
        f"spyre_mlir.interpret({str(KERNELS / 'elementwise.mlir')!r}, 'constants')\n"
        "try:\n"
        "    spyre_mlir.interpret(K, 'float_to_int', x=float('nan'))\n"
        "except spyre_mlir.DiagnosticError:\n"
        "    pass\n"
        "print('clean')\n"
    )
    proc = subprocess.run([sys.executable, "-W", "error", "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "clean" and "Warning" not in proc.stderr


# -- 8. a tile id without a grid ----------------------------------------------------------


def test_tile_id_without_a_grid_warns_and_runs_one_core():
    with pytest.warns(InterpreterWarning) as caught:
        out = run("no_grid", out=np.zeros(1, np.int32))
    line = line_of("ktdp.get_compute_tile_id", after="@no_grid")
    text = str(caught[0].message)
    assert text == (
        f"{HARD}:{line}:3: warning: @no_grid reads the tile id but has no 'grid' attribute "
        "(and no grid was given): it runs on a single core, core 0"
    )
    assert caught[0].filename == __file__  # attributed to the caller, not to the interpreter
    assert [w.render() for w in out.report.warnings] == [text]
    assert out["out"][0] == 0


def test_grid_keyword_runs_the_grid_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = spyre_mlir.interpret(HARD, "no_grid", out=np.zeros(1, np.int32), grid=4)
        assert out.report.grid == (4,) and out["out"][0] == 3  # the last core writes last
        out = spyre_mlir.interpret(HARD, "no_grid", out=np.zeros(1, np.int32), options=InterpreterOptions(grid=(2, 3)))
        assert out.report.grid == (2, 3) and not out.report.warnings
        out = Interpreter(HARD).run("no_grid", {"out": np.zeros(1, np.int32)}, grid=(5,))
        assert out["out"][0] == 4


def test_grid_keyword_overrides_the_attribute_and_the_option():
    out = spyre_mlir.interpret(HARD, "trips_index", lo=0, hi=4, step=1, out=np.zeros(2, np.int32), grid=1,
                               options=InterpreterOptions(grid=(2,)))
    assert out.report.grid == (1,)
    np.testing.assert_array_equal(out["out"], [4, 0])


# -- 9. deep recursion and deep nesting ---------------------------------------------------


def test_recursion_up_to_the_call_depth_limit():
    assert run("sum", n=1000)["return_0"] == 1000 * 1001 // 2  # 1000 nested calls


@pytest.mark.parametrize("func, n", [("sum", 1001), ("forever", 1)])
def test_deeper_recursion_is_a_located_error(func, n):
    d = failure(func, n=n)
    assert d.message.startswith("call depth exceeds 1000 nested calls")
    assert d.location.line == line_of("func.call", after=f"@{func}(")


def nested_ifs(depth: int, grid: str = "") -> str:
    lines = [f"func.func @deep(%c: i1, %x: i32) -> i32 {grid}{{"]
    lines += [f"  %r{i} = scf.if %c -> (i32) {{" for i in range(depth)]
    lines += ["  %y = arith.addi %x, %x : i32", "  scf.yield %y : i32"]
    for i in reversed(range(depth)):
        lines += ["  } else {", "  scf.yield %x : i32", "  }"]
        if i:
            lines.append(f"  scf.yield %r{i} : i32")
    lines += ["  return %r0 : i32", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("grid", ["", "attributes {grid = [4]} "], ids=["one-core", "batched"])
def test_two_thousand_nested_regions_decode_and_run(grid):
    out = spyre_mlir.interpret(nested_ifs(2000, grid), c=True, x=21)
    np.testing.assert_array_equal(out["return_0"], 42)
    np.testing.assert_array_equal(spyre_mlir.interpret(nested_ifs(2000, grid), c=False, x=21)["return_0"], 21)


# -- 10. internal errors are internal errors ----------------------------------------------


def test_a_handler_bug_is_an_internal_error_at_the_op(monkeypatch):
    original = HANDLERS[arith.SubiOp]

    def broken(fc, op):
        original(fc, op)

        def step(frame):
            raise ValueError("an invented bug")

        return step

    monkeypatch.setitem(HANDLERS, arith.SubiOp, broken)
    d = failure("exact_names", a_1=1, a_2=2)
    assert d.message.startswith("internal error: 'arith.subi' raised ValueError: an invented bug")
    assert "please report" in d.message
    assert d.location.line == line_of("arith.subi", after="@exact_names")


def test_a_decoder_bug_is_an_internal_error_at_the_op(monkeypatch):
    def broken(fc, op):
        raise KeyError("decoder")

    monkeypatch.setitem(HANDLERS, arith.SubiOp, broken)
    d = failure("exact_names", a_1=1, a_2=2)
    assert d.message.startswith("internal error: 'arith.subi' raised KeyError")
    assert d.location.line == line_of("arith.subi", after="@exact_names")


def test_spyre_run_reports_an_internal_error_without_traceback(monkeypatch, capsys):
    def broken(fc, op):
        def step(frame):
            raise IndexError("an invented bug")

        return step

    monkeypatch.setitem(HANDLERS, arith.SubiOp, broken)
    monkeypatch.delenv("SPYRE_RUN_TRACEBACK", raising=False)
    code = spyre_run_tool.main([str(HARD), "--func", "exact_names", "--arg", "a_1=1", "--arg", "a_2=2"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{HARD}:{line_of('arith.subi', after='@exact_names')}:3: error: internal error:" in err
    assert "please report" in err and "Traceback" not in err


def test_mismatched_dynamic_shapes_are_the_kernels_error():
    d = failure("dynamic_mismatch", a=np.zeros(3, f32), b=np.zeros(4, f32))
    assert d.message == "operands of 'arith.addf' have different shapes at run time: 3 and 4"
    out = run("dynamic_mismatch", a=np.ones(3, f32), b=np.ones(3, f32))
    np.testing.assert_array_equal(out["return_0"], [2, 2, 2])


# -- spyre-run ----------------------------------------------------------------------------


def spyre_run(capsys, *argv) -> tuple[int, str, str]:
    code = spyre_run_tool.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_spyre_run_timeout(capsys):
    code, _, err = spyre_run(capsys, HARD, "--func", "spin", "--arg", "n=0", "--timeout", "0.3")
    assert code == 1
    assert err.startswith(f"{HARD}:{line_of('scf.while', after='@spin')}:3: error: execution exceeded the 0.3 s timeout")


def test_spyre_run_refuses_a_huge_random_argument(capsys):
    code, _, err = spyre_run(capsys, HARD, "--func", "huge_tile", "--arg", "x=random:100000x100000xf32")
    assert code == 1
    assert "spyre-run: error: 'random:100000x100000xf32' would allocate 111.8 GiB, over the" in err
    code, _, err = spyre_run(capsys, HARD, "--func", "huge_tile", "--arg", "x=zeros:1000x1000xf32",
                             "--memory-limit", "1MiB")
    assert "'zeros:1000x1000xf32' would allocate 3.8 MiB, over the 1 MiB memory limit (--memory-limit)" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--timeout", "soon"], "bad timeout 'soon'"),
        (["--timeout", "0"], "bad timeout '0'"),
        (["--memory-limit", "lots"], "bad size 'lots'"),
        (["--memory-limit", "0"], "bad --memory-limit '0'"),
    ],
)
def test_spyre_run_bad_limits(capsys, argv, message):
    code, _, err = spyre_run(capsys, HARD, "--func", "spin", "--arg", "n=0", *argv)
    assert code == 1 and message in err and "Traceback" not in err


def test_spyre_run_index_arrays(capsys, tmp_path):
    code, _, err = spyre_run(capsys, HARD, "--func", "scattered_tile", "--arg", "idx=zeros:20000xindex",
                             "--out", tmp_path)
    assert code == 0, err
    assert np.load(tmp_path / "idx.npy").dtype == np.int64
