"""The interpreter on inter-tile communication (issue 8; docs/inter-tile.md §4).

Every kernel of test/unit/kernels/inter_tile/ states its expected result as a
NumPy expression of its inputs; each test computes that oracle from seeded
random inputs and compares. The fold is in ascending tile id, rounding in the
element type at each step, so f32 and f16 results compare bitwise with
`functools.reduce(np.add, rows)`. The error kernels must fail with located
errors at the op the kernel names."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.interpreter import Interpreter, InterpreterOptions

KERNELS = Path(__file__).parent / "kernels" / "inter_tile"
REPO_ROOT = Path(__file__).resolve().parents[2]
SEEDS = [0, 1]


def fold(rows) -> np.ndarray:
    """The reference fold: left to right, in the rows' own dtype."""
    return functools.reduce(np.add, list(rows))


def run(kernel: str, func: str, options: InterpreterOptions | None = None, **args):
    return spyre_mlir.interpret(KERNELS / kernel, func, options=options, **args)


def line_of(kernel: str, func: str, needle: str, nth: int = 0) -> int:
    """1-based line of the `nth` line containing `needle` after `func.func @func(`."""
    lines = (KERNELS / kernel).read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if f"func.func @{func}(" in line)
    hits = [i + 1 for i, line in enumerate(lines[start:], start) if needle in line]
    return hits[nth]


def rand(seed: int, shape, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# -- all-reduce ----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_allreduce_one_group_f32_every_consumer_holds_the_fold(seed):
    x = rand(seed, (4, 64))
    out = run("allreduce_one_group.mlir", "allreduce_one_group", x=x, out=np.zeros((4, 64), np.float32))
    np.testing.assert_array_equal(out["out"], np.stack([fold(x)] * 4))


@pytest.mark.parametrize("seed", SEEDS)
def test_allreduce_one_group_f16_linalg_combiner_rounds_each_step(seed):
    x = rand(seed, (4, 64), np.float16) * np.float16(100)
    out = run("allreduce_one_group.mlir", "allreduce_one_group_linalg", x=x, out=np.zeros((4, 64), np.float16))
    np.testing.assert_array_equal(out["out"], np.stack([fold(x)] * 4))
    # The per-step rounding is visible: a fold in f32 rounded once differs somewhere.
    once = x.astype(np.float32).sum(axis=0).astype(np.float16)
    assert not np.array_equal(fold(x), once) or seed != 0


@pytest.mark.parametrize("func", ["allreduce_one_group_old_spelling", "allreduce_one_group_attr_spelling"])
@pytest.mark.parametrize("seed", SEEDS)
def test_allreduce_older_spellings_with_a_rank_reducing_result(func, seed):
    x = rand(seed, (4, 128), np.float16)
    out = run("allreduce_one_group.mlir", func, x=x, out=np.zeros(128, np.float16))
    np.testing.assert_array_equal(out["out"], fold(x))


@pytest.mark.parametrize("func", ["allreduce_contiguous", "allreduce_strided", "allreduce_strided_mod"])
@pytest.mark.parametrize("seed", SEEDS)
def test_allreduce_over_several_groups(func, seed):
    x = rand(seed, (16, 32))
    out = run("allreduce_groups.mlir", func, x=x, out=np.zeros((16, 32), np.float32))
    if func == "allreduce_contiguous":
        expected = np.stack([fold(x[4 * (c // 4) : 4 * (c // 4) + 4]) for c in range(16)])
    else:
        expected = np.stack([fold(x[c % 4 :: 4]) for c in range(16)])
    np.testing.assert_array_equal(out["out"], expected)


@pytest.mark.parametrize("order", ["row-major", "col-major"])
def test_groups_speak_of_linear_tile_ids_in_the_grid_order(order):
    x = rand(3, (2, 2, 16))
    out = run(
        "allreduce_grid2d_order.mlir", "allreduce_grid2d", InterpreterOptions(grid_order=order),
        x=x, out=np.zeros((2, 2, 16), np.float32),
    )
    if order == "row-major":  # linear id 2a + b: groups are the rows of the grid
        expected = np.stack([np.stack([x[a, 0] + x[a, 1]] * 2) for a in range(2)])
    else:  # linear id a + 2b: groups are the columns
        expected = np.stack([np.stack([x[0, b] + x[1, b] for b in range(2)])] * 2)
    np.testing.assert_array_equal(out["out"], expected)


@pytest.mark.parametrize("func", ["allreduce_32core_f16", "allreduce_32core_f16_all_store"])
def test_allreduce_32_cores_f16(func):
    x = rand(5, (32, 8192), np.float16)
    rows = 1 if func == "allreduce_32core_f16" else 32
    out = run("allreduce_32core_f16.mlir", func, x=x, out=np.zeros((rows, 8192), np.float16))
    expected = fold(x)
    np.testing.assert_array_equal(out["out"], np.stack([expected] * rows))
    np.testing.assert_array_equal(expected, np.add.reduce(x, axis=0))  # the benchmark's one-call baseline
    exact = x.astype(np.float64).sum(axis=0)
    bound = 31 * 2.0**-11 * np.abs(np.cumsum(x.astype(np.float64), axis=0)).max(axis=0) + 1e-3
    assert (np.abs(out["out"][0].astype(np.float64) - exact) <= bound).all()


# -- control flow --------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 3])
def test_reduce_inside_scf_for(n):
    x = rand(n, (4, 64))
    out = run("reduce_in_control_flow.mlir", "reduce_in_for", x=x, out=np.zeros((4, 64), np.float32), n=n)
    acc = np.zeros(64, np.float32)
    for k in range(n):
        acc = acc + fold(x * np.float32(k + 1))
    np.testing.assert_array_equal(out["out"], np.stack([acc] * 4))


def test_reduce_inside_scf_if_taken_by_one_group():
    x = rand(1, (8, 64))
    out = run("reduce_in_control_flow.mlir", "reduce_in_if", x=x, out=np.zeros((8, 64), np.float32))
    expected = np.concatenate([np.stack([fold(x[0:4])] * 4), x[4:]])
    np.testing.assert_array_equal(out["out"], expected)


def test_reduce_inside_scf_while_with_per_group_trip_counts():
    x = rand(2, (8, 64))
    out = run("reduce_in_control_flow.mlir", "reduce_in_while", x=x, out=np.zeros((8, 64), np.float32))
    expected = []
    for c in range(8):
        acc = np.zeros(64, np.float32)
        for _ in range(c // 4 + 1):
            acc = acc + fold(x[4 * (c // 4) : 4 * (c // 4) + 4])
        expected.append(acc)
    np.testing.assert_array_equal(out["out"], np.stack(expected))
    assert out.report.divergent_regions > 0  # the second round ran on group 1 alone


# -- dependency sets -----------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_reduce_with_a_prefix_dependency_set(seed):
    x = rand(seed, (8, 64))
    out = run("reduce_dependency_set.mlir", "reduce_prefix_scan", x=x, out=np.zeros((8, 64), np.float32))
    expected = np.stack([fold(x[4 * (c // 4) : c + 1]) for c in range(8)])
    np.testing.assert_array_equal(out["out"], expected)


def test_reduce_with_a_self_only_dependency_set():
    x = rand(4, (8, 64))
    out = run("reduce_dependency_set.mlir", "reduce_self_only", x=x, out=np.zeros((8, 64), np.float32))
    np.testing.assert_array_equal(out["out"], x)


def test_undeclared_producers_count_as_the_identity_at_their_position():
    x = rand(6, (8, 64))
    out = run("reduce_dependency_set.mlir", "reduce_dep_nonneutral_identity", x=x, out=np.zeros((8, 64), np.float32))
    half = np.full(64, 0.5, np.float32)
    expected = np.stack(
        [fold([x[p] if p <= c else half for p in range(4 * (c // 4), 4 * (c // 4) + 4)]) for c in range(8)]
    )
    np.testing.assert_array_equal(out["out"], expected)
    skipped = np.stack([fold(x[4 * (c // 4) : c + 1]) for c in range(8)])
    assert not np.array_equal(out["out"], skipped)  # the other reading is really different


@pytest.mark.parametrize("seed", SEEDS)
def test_consume_broadcast_and_routing(seed):
    x = rand(seed, (8, 32))
    zeros = np.zeros((8, 32), np.float32)
    out = run("consume_dependency_set.mlir", "consume_broadcast", x=x[:2], out=zeros)
    np.testing.assert_array_equal(out["out"], np.stack([x[c // 4] for c in range(8)]))
    out = run("consume_dependency_set.mlir", "consume_routing", x=x, out=zeros)
    np.testing.assert_array_equal(out["out"], np.stack([x[c - 2] if c % 4 >= 2 else zeros[0] for c in range(8)]))
    out = run("consume_dependency_set.mlir", "consume_butterfly", x=x, out=zeros)
    np.testing.assert_array_equal(out["out"], np.stack([x[8 * (c // 4) + 3 - c] for c in range(8)]))
    out = run("consume_dependency_set.mlir", "consume_multicast", x=x, out=zeros)
    np.testing.assert_array_equal(out["out"], np.stack([x[4 * (c // 4) + (c % 4) // 2] for c in range(8)]))


# -- two roles -----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_argmax_reduce_with_two_roles(seed):
    x = rand(seed, (4, 16))
    x[2, :4] = x[1, :4]  # ties keep the lowest tile id, as np.argmax does
    out = run(
        "two_roles.mlir", "argmax_reduce",
        x=x, out_v=np.zeros((4, 16), np.float32), out_i=np.zeros((4, 16), np.int32),
    )
    np.testing.assert_array_equal(out["out_v"], np.stack([x.max(axis=0)] * 4))
    np.testing.assert_array_equal(out["out_i"], np.stack([x.argmax(axis=0).astype(np.int32)] * 4))


def test_two_role_broadcast():
    x = rand(8, (4, 16))
    out = run(
        "two_roles.mlir", "two_role_broadcast",
        x=x, out_v=np.zeros((4, 16), np.float32), out_i=np.zeros((4, 16), np.int32),
    )
    np.testing.assert_array_equal(out["out_v"], np.stack([x[0]] * 4))
    np.testing.assert_array_equal(out["out_i"], np.full((4, 16), 7, np.int32))


# -- errors --------------------------------------------------------------------


def expect_error(kernel: str, func: str, at: str, pattern: str, nth: int = 0, **args) -> spyre_mlir.DiagnosticError:
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(kernel, func, **args)
    diagnostic = info.value.diagnostic
    assert re.search(pattern, diagnostic.message), diagnostic.message
    assert diagnostic.location is not None and diagnostic.location.line == line_of(kernel, func, at, nth), (
        diagnostic.render()
    )
    return info.value


def div_args():
    return {"x": rand(0, (4, 16)), "out": np.zeros((4, 16), np.float32)}


def test_a_producer_that_skips_the_reduce_is_a_divergence_error():
    expect_error(
        "divergent_control_flow.mlir", "producer_skips_reduce", "ktdp.inter_tile_reduce",
        r"^producer tile 3 of group 0 does not reach this ktdp\.inter_tile_reduce \(divergent control flow\): "
        r"consumer tiles 0, 1, 2 would wait for it forever$",
        **div_args(),
    )


def test_a_divergent_trip_count_is_a_divergence_error_naming_the_iteration():
    expect_error(
        "divergent_control_flow.mlir", "divergent_trip_count", "ktdp.inter_tile_reduce",
        r"^producer tile 0 of group 0 does not reach .*: consumer tiles 1, 2, 3 would wait for it forever "
        r"\(at %k = 1 of the enclosing scf\.for\)$",
        **div_args(),
    )


def test_a_consumer_whose_source_never_produces_is_a_divergence_error():
    expect_error(
        "divergent_control_flow.mlir", "consume_producer_missing", "ktdp.inter_tile_consume",
        r"^producer tile 0 of group 0 does not reach this ktdp\.inter_tile_consume .*: consumer tile 2 would wait",
        **div_args(),
    )


def test_an_absent_consumer_is_legal():
    args = div_args()
    out = run("divergent_control_flow.mlir", "consumer_absent_is_legal", **args)
    expected = np.zeros((4, 16), np.float32)
    expected[2] = args["x"][0]
    np.testing.assert_array_equal(out["out"], expected)


def test_storing_a_non_consumers_result_is_a_located_error_with_a_note():
    err = expect_error(
        "read_non_consumer.mlir", "reduce_to_one_unguarded", "ktdp.store",
        r"^%r has no value on tiles 1, 2, 3: they are not in consumer_tiles_per_group of the "
        r"ktdp\.inter_tile_reduce that defines it$",
        **div_args(),
    )
    (note,) = err.diagnostic.notes
    assert note.location.line == line_of("read_non_consumer.mlir", "reduce_to_one_unguarded", "ktdp.inter_tile_reduce")


def test_a_guarded_read_by_the_consumer_alone_is_fine():
    args = div_args()
    out = run("read_non_consumer.mlir", "reduce_to_one_guarded", **args)
    expected = np.zeros((4, 16), np.float32)
    expected[0] = fold(args["x"])
    np.testing.assert_array_equal(out["out"], expected)


def test_computing_on_a_non_consumers_result_is_a_located_error():
    expect_error(
        "read_non_consumer.mlir", "consume_result_used_by_non_consumer", "arith.addf",
        r"^%r has no value on tiles 0, 1: .*ktdp\.inter_tile_consume",
        **div_args(),
    )


def test_per_core_execution_is_refused_at_the_first_inter_tile_op():
    expect_error(
        "allreduce_one_group.mlir", "allreduce_one_group", "ktdp.inter_tile_produce",
        r"needs every core of the grid at once",
        options=InterpreterOptions(execution="per-core"),
        x=rand(0, (4, 64)), out=np.zeros((4, 64), np.float32),
    )


def test_a_grid_that_cuts_a_group_is_refused_before_running():
    # The kernel's sets name tiles 0..3; on a 2-core grid tiles 2 and 3 do not exist.
    with pytest.raises(spyre_mlir.DiagnosticError, match="outside the grid of 2 tiles"):
        spyre_mlir.interpret(
            KERNELS / "allreduce_one_group.mlir", "allreduce_one_group", grid=2,
            x=rand(0, (4, 64)), out=np.zeros((4, 64), np.float32),
        )


# -- communication bytes -------------------------------------------------------


def test_communication_bytes_per_core():
    x = rand(0, (8, 32))
    out = run("consume_dependency_set.mlir", "consume_routing", x=x, out=np.zeros((8, 32), np.float32))
    comm = out.runtime.stats.comm
    row = 32 * 4  # one tensor<1x32xf32>
    # Consumers 4g+2, 4g+3 receive one row each from 4g, 4g+1.
    np.testing.assert_array_equal(comm["received"], [0, 0, row, row, 0, 0, row, row])
    np.testing.assert_array_equal(comm["sent"], [row, row, 0, 0, row, row, 0, 0])
    x = rand(0, (16, 32))
    out = run("allreduce_groups.mlir", "allreduce_contiguous", x=x, out=np.zeros((16, 32), np.float32))
    comm = out.runtime.stats.comm
    np.testing.assert_array_equal(comm["received"], np.full(16, 3 * row))  # three others per group
    np.testing.assert_array_equal(comm["sent"], np.full(16, 3 * row))
    np.testing.assert_array_equal(comm["ring"], np.full(16, 15 * row))  # ktir-cpu: (cores - 1) x partial
    assert "inter-tile" in out.report.render()


ONE_CORE = """
func.func @self_reduce(%x: tensor<8xf32>) -> tensor<8xf32> attributes {grid = [1]} {
  %f = ktdp.inter_tile_produce producer_tiles_per_group = affine_set<(i)[g] : (i == 0)>
      -> <(tensor<8xf32>), groups = affine_set<(g) : (g == 0)>> {
  ^bb0(%gid: index):
    ktdp.yield_partial %x : tensor<8xf32>
  }
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %r = ktdp.inter_tile_reduce(%f) consumer_tiles_per_group = affine_set<(i)[g] : (i == 0)>,
      identity(%zero : tensor<8xf32>) : <(tensor<8xf32>), groups = affine_set<(g) : (g == 0)>> -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>, %b: tensor<8xf32>):
    %s = arith.addf %a, %b : tensor<8xf32>
    ktdp.yield_reduced %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
"""


def test_a_one_core_grid_runs_batched_and_a_single_producer_folds_nothing():
    # auto mode runs one core per-core, except a kernel that communicates.
    x = rand(0, 8)
    out = spyre_mlir.interpret(ONE_CORE, x=x)
    assert out.report.mode == "batched"
    np.testing.assert_array_equal(out["return_0"], x)  # k = 1: the result is v_0, the identity never folded


def test_the_legality_check_runs_before_anything_executes(tmp_path):
    text = (KERNELS / "read_non_consumer.mlir").read_text()
    # Make the reduce-to-one a reduce to a strict subset of two tiles (R14).
    text = text.replace("#tile0  = affine_set<(i)[g] : (i - 4*g == 0)>", "#tile0  = affine_set<(i)[g] : (i - 4*g >= 0, -i + 4*g + 1 >= 0)>")
    path = tmp_path / "subset.mlir"
    path.write_text(text)
    with pytest.raises(spyre_mlir.DiagnosticError, match="reduce-to-subset is unsupported"):
        Interpreter(path)


# -- translation validation ----------------------------------------------------

VALID_KERNELS = sorted(
    p for p in KERNELS.glob("*.mlir") if p.stem not in ("divergent_control_flow", "read_non_consumer")
)


def _passes():
    from spyre_mlir.passes import BEYOND_THE_KERNEL, SPYRE_PASSES, UPSTREAM_PASSES

    # scf-parallel-loop-tiling needs tile sizes and these kernels have no scf.parallel.
    # ktir-legality-check is dataflow-scheduler's V1 gate: it refuses these kernels' loop-carried
    # values by design (test_ktir_legality_check.py, test_pass_translation.py run it).
    # The passes beyond the kernel (the bundle, the spatial program) are run by their own tests.
    return sorted(n for n in {*SPYRE_PASSES, *UPSTREAM_PASSES}
                  if n not in ("scf-parallel-loop-tiling", "ktir-legality-check") and n not in BEYOND_THE_KERNEL)


def _spec(name: str) -> str:
    """`name` with the options it needs to have work to do."""
    if name == "ensure-device-declaration":  # declares the default device (Spyre's facts: nothing changes)
        return f"{name}{{device-filename={REPO_ROOT / 'spyre_mlir' / 'devices' / 'spyre.mlir'}}}"
    return name


def _prerequisites(name: str) -> list[str]:
    """The passes a pipeline runs before `name` when `name` needs them (the
    extraction before coarse tiling, coarse tiling before unrolling, ...):
    run alone, such a pass is a located error by design."""
    from spyre_mlir.passes.pipelines import PIPELINES

    if name == "spyre-unroll-loops":
        return [*_prerequisites("spyre-coarse-tile"), "spyre-coarse-tile"]
    if name not in ("spyre-coarse-tile", "spyre-distribute-work", "spyre-plan-scratchpad", "ktdf-build-pipelines"):
        return []
    for pipeline in ("ktir-to-schedule", "ktir-to-bundle"):
        passes = PIPELINES[pipeline][0].split(",")
        if name in passes:
            return passes[: passes.index(name)]
    raise AssertionError(f"no pipeline runs {name}")


@pytest.mark.parametrize("name", _passes())
def test_every_registered_pass_keeps_what_inter_tile_kernels_compute(name):
    """Each pass (after the passes it needs) on each of our inter-tile
    kernels, every function run before and after on the same seeded
    arguments: outputs identical."""
    from spyre_mlir.interpreter.sample_args import sample_arguments

    for path in VALID_KERNELS:
        if path.stem == "allreduce_32core_f16":
            continue  # the same code as allreduce_one_group, on 32 x 8192
        before_module = spyre_mlir.parse(path)
        after_module = spyre_mlir.parse(path)
        spyre_mlir.PassManager.parse(",".join([*_prerequisites(name), _spec(name)])).run(after_module)
        for func_op in before_module.ops:
            fn = func_op.sym_name.data
            given = {"n": 2} if any(a.name_hint == "n" for a in func_op.args) else {}
            args = sample_arguments(func_op, given, seed=0)
            before = spyre_mlir.interpret(before_module, fn, **args)
            after = spyre_mlir.interpret(after_module, fn, **args)
            for key in before:
                np.testing.assert_array_equal(after[key], before[key], err_msg=f"{path.name} @{fn} {key} after {name}")


def test_a_huge_groups_set_verifies_and_is_refused_to_run_not_enumerated():
    # Found by the fuzzer: a groups set spanning 2^31 points was enumerated
    # point by point while verifying (16 GiB). Now it is left unenumerated.
    text = ONE_CORE.replace("affine_set<(g) : (g == 0)>", "affine_set<(g) : (g >= 0, -g + 2147483647 >= 0)>")
    module = spyre_mlir.parse(text)  # verifies
    with pytest.raises(spyre_mlir.DiagnosticError, match=r"spans more than 2\^20 groups"):
        spyre_mlir.interpret(module, x=rand(0, 8))
