"""linalg in buffer form (interpreter/ops_linalg.py): memref operands, no results.

Every linalg op the interpreter runs on tensors also runs on memrefs, as
dataflow-scheduler's public-form schedules use them (`memref.alloc` buffers,
`linalg.fill ins(%c : f16) outs(%buf : memref<...>)`, `linalg.add ins(memrefs)
outs(memref)`, ...): the same computation, its outs written in place. Kernels
here run on a grid of 4 cores, each core on its own row of the arguments and
its own L1 buffers, batched and per core, and equal NumPy on seeded inputs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED

import spyre_mlir
from spyre_mlir.interpreter import InterpreterOptions

BATCHED = InterpreterOptions(execution="batched")
PER_CORE = InterpreterOptions(execution="per-core")
MODES = [pytest.param(BATCHED, id="batched"), pytest.param(PER_CORE, id="per-core")]
CORES = 4


def _kernel(body: str, ins: dict[str, tuple[int, ...]], out: tuple[int, ...], dtype: str = "f32") -> str:
    """A kernel on `CORES` cores: core i copies row i of each input into an L1
    buffer of its own (`%NAME`), runs `body` (which writes the L1 buffer `%O`),
    and copies `%O` into row i of the output `%out`."""

    def ty(shape: tuple[int, ...], space: str = "") -> str:
        dims = "".join(f"{n}x" for n in shape)
        return f"memref<{dims}{dtype}{', ' + space if space else ''}>"

    def row(shape: tuple[int, ...]) -> tuple[str, str]:
        """The subview of row %id of a [CORES, *shape] argument: its indices and type."""
        strides, running = [], 1
        for n in reversed(shape):
            strides.append(running)
            running *= n
        offsets = ", ".join(["%id"] + ["0"] * len(shape))
        sizes = ", ".join(["1", *map(str, shape)])
        steps = ", ".join(["1"] * (len(shape) + 1))
        layout = f"strided<[{', '.join(map(str, reversed(strides)))}], offset: ?>"
        dims = "".join(f"{n}x" for n in shape)
        return f"[{offsets}] [{sizes}] [{steps}]", f"memref<{dims}{dtype}, {layout}>"

    params = ", ".join([f"%{n}_arg: {ty((CORES, *s))}" for n, s in ins.items()] + [f"%out: {ty((CORES, *out))}"])
    lines = [f"func.func @k({params}) attributes {{grid = [{CORES}]}} {{", "  %id = ktdp.get_compute_tile_id : index"]
    for name, shape in ins.items():
        at, sub = row(shape)
        lines += [
            f"  %{name}_row = memref.subview %{name}_arg{at} : {ty((CORES, *shape))} to {sub}",
            f"  %{name} = memref.alloc() : {ty(shape, chr(34) + 'L1' + chr(34))}",
            f"  linalg.copy ins(%{name}_row : {sub}) outs(%{name} : {ty(shape, chr(34) + 'L1' + chr(34))})",
        ]
    at, sub = row(out)
    lines += [
        f"  %O = memref.alloc() : {ty(out, chr(34) + 'L1' + chr(34))}",
        body,
        f"  %out_row = memref.subview %out{at} : {ty((CORES, *out))} to {sub}",
        f"  linalg.copy ins(%O : {ty(out, chr(34) + 'L1' + chr(34))}) outs(%out_row : {sub})",
        "  return",
        "}",
    ]
    return "\n".join(lines)


def _inputs(names, shape, dtype=np.float32, seed=0, positive=False) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for n in names:
        x = rng.standard_normal((CORES, *shape))
        out[f"{n}_arg"] = (np.abs(x) + 0.5 if positive else x).astype(dtype)
    return out


def _run(text: str, options, out_shape, dtype=np.float32, **args) -> np.ndarray:
    result = spyre_mlir.interpret(text, "k", options=options, out=np.zeros((CORES, *out_shape), dtype), **args)
    return result["out"]


def _line_of(text: str, needle: str) -> int:
    return [i + 1 for i, line in enumerate(text.splitlines()) if needle in line][0]


L1 = 'memref<2x8xf32, "L1">'


@pytest.mark.parametrize("options", MODES)
def test_fill_writes_the_value_into_the_buffer(options):
    body = f"  %c = arith.constant 2.5 : f32\n  linalg.fill ins(%c : f32) outs(%O : {L1})"
    got = _run(_kernel(body, {}, (2, 8)), options, (2, 8))
    assert np.array_equal(got, np.full((CORES, 2, 8), 2.5, np.float32))


@pytest.mark.parametrize("options", MODES)
def test_fill_of_a_value_that_differs_between_cores(options):
    body = (
        "  %i = arith.index_cast %id : index to i32\n  %c = arith.sitofp %i : i32 to f32\n"
        f"  linalg.fill ins(%c : f32) outs(%O : {L1})"
    )
    got = _run(_kernel(body, {}, (2, 8)), options, (2, 8))
    assert np.array_equal(got, np.broadcast_to(np.arange(CORES, dtype=np.float32)[:, None, None], (CORES, 2, 8)))


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize(
    ("op", "numpy"),
    [("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide), ("max", np.maximum)],
)
def test_elementwise_named_ops_write_their_outs(op, numpy, options):
    body = f"  linalg.{op} ins(%A, %B : {L1}, {L1}) outs(%O : {L1})"
    args = _inputs("AB", (2, 8), positive=op == "div")
    got = _run(_kernel(body, {"A": (2, 8), "B": (2, 8)}, (2, 8)), options, (2, 8), **args)
    assert np.array_equal(got, numpy(args["A_arg"], args["B_arg"]))


@pytest.mark.parametrize("options", MODES)
def test_f16_add_rounds_like_the_tensor_form(options):
    l1 = 'memref<2x8xf16, "L1">'
    body = f"  linalg.add ins(%A, %B : {l1}, {l1}) outs(%O : {l1})"
    args = _inputs("AB", (2, 8), np.float16, seed=3)
    got = _run(_kernel(body, {"A": (2, 8), "B": (2, 8)}, (2, 8), "f16"), options, (2, 8), np.float16, **args)
    assert got.dtype == np.float16
    assert np.array_equal(got, args["A_arg"] + args["B_arg"])


GENERIC_ELEMENTWISE = f"""  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%A, %B : {L1}, {L1}) outs(%O : {L1}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  }}"""


@pytest.mark.parametrize("options", MODES)
def test_generic_elementwise_into_a_fresh_buffer(options):
    """Its body ignores the out argument: the fresh `%O` is never read (no uninitialized read)."""
    args = _inputs("AB", (2, 8), seed=1)
    got = _run(_kernel(GENERIC_ELEMENTWISE, {"A": (2, 8), "B": (2, 8)}, (2, 8)), options, (2, 8), **args)
    a, b = args["A_arg"], args["B_arg"]
    assert np.array_equal(got, a * b + a)


def _row_reduction(combiner: str, op_name: str = "O") -> str:
    return f"""  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%A : {L1}) outs(%{op_name} : memref<2xf32, "L1">) {{
  ^bb0(%x: f32, %acc: f32):
    %s = {combiner} %x, %acc : f32
    linalg.yield %s : f32
  }}"""


FILL_ROWS = '  %zero = arith.constant 1.0 : f32\n  linalg.fill ins(%zero : f32) outs(%O : memref<2xf32, "L1">)'


@pytest.mark.parametrize("options", MODES)
def test_generic_with_a_reduction_iterator_accumulates_into_its_out(options):
    args = _inputs("A", (2, 8), seed=2)
    text = _kernel(FILL_ROWS + "\n" + _row_reduction("arith.addf"), {"A": (2, 8)}, (2,))
    got = _run(text, options, (2,), **args)
    assert np.allclose(got, 1.0 + args["A_arg"].sum(axis=-1), rtol=1e-6)


@pytest.mark.parametrize("options", MODES)
def test_generic_with_a_sequential_reduction(options):
    """`acc * 0.5 + x` is no associative combiner: folded element by element."""
    body = (
        FILL_ROWS
        + f"""
  %half = arith.constant 0.5 : f32
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%A : {L1}) outs(%O : memref<2xf32, "L1">) {{
  ^bb0(%x: f32, %acc: f32):
    %h = arith.mulf %acc, %half : f32
    %s = arith.addf %h, %x : f32
    linalg.yield %s : f32
  }}"""
    )
    args = _inputs("A", (2, 8), seed=4)
    got = _run(_kernel(body, {"A": (2, 8)}, (2,)), options, (2,), **args)
    want = np.ones((CORES, 2), np.float32)
    for j in range(8):
        want = (want * np.float32(0.5) + args["A_arg"][:, :, j]).astype(np.float32)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize(("combiner", "numpy"), [("arith.addf", np.sum), ("arith.maximumf", np.max)])
def test_reduce_accumulates_into_its_init(combiner, numpy, options):
    body = (
        FILL_ROWS
        + f"""
  linalg.reduce ins(%A : {L1}) outs(%O : memref<2xf32, "L1">) dimensions = [1]
    (%x: f32, %acc: f32) {{
      %s = {combiner} %x, %acc : f32
      linalg.yield %s : f32
    }}"""
    )
    args = _inputs("A", (2, 8), seed=5)
    got = _run(_kernel(body, {"A": (2, 8)}, (2,)), options, (2,), **args)
    a = args["A_arg"]
    want = 1.0 + a.sum(axis=-1) if combiner == "arith.addf" else np.maximum(1.0, numpy(a, axis=-1))
    assert np.allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("options", MODES)
def test_matmul_accumulates_into_its_out(options):
    body = f"""  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%O : memref<2x3xf32, "L1">)
  linalg.matmul ins(%A, %B : {L1}, memref<8x3xf32, "L1">) outs(%O : memref<2x3xf32, "L1">)"""
    args = {**_inputs("A", (2, 8), seed=6), **_inputs("B", (8, 3), seed=7)}
    got = _run(_kernel(body, {"A": (2, 8), "B": (8, 3)}, (2, 3)), options, (2, 3), **args)
    assert np.allclose(got, args["A_arg"] @ args["B_arg"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("options", MODES)
def test_transpose_and_broadcast_write_their_outs(options):
    body = """  %T = memref.alloc() : memref<8x2xf32, "L1">
  linalg.transpose ins(%A : memref<2x8xf32, "L1">) outs(%T : memref<8x2xf32, "L1">) permutation = [1, 0]
  %R = memref.alloc() : memref<2xf32, "L1">
  linalg.copy ins(%V : memref<2xf32, "L1">) outs(%R : memref<2xf32, "L1">)
  %Bc = memref.alloc() : memref<8x2xf32, "L1">
  linalg.broadcast ins(%R : memref<2xf32, "L1">) outs(%Bc : memref<8x2xf32, "L1">) dimensions = [0]
  linalg.add ins(%T, %Bc : memref<8x2xf32, "L1">, memref<8x2xf32, "L1">) outs(%O : memref<8x2xf32, "L1">)"""
    text = _kernel(body, {"A": (2, 8), "V": (2,)}, (8, 2))
    args = {**_inputs("A", (2, 8), seed=8), **_inputs("V", (2,), seed=9)}
    got = _run(text, options, (8, 2), **args)
    assert np.array_equal(got, args["A_arg"].transpose(0, 2, 1) + args["V_arg"][:, None, :])


@pytest.mark.parametrize("options", MODES)
def test_an_op_whose_ins_and_outs_are_one_buffer(options):
    """`outs(%A)` also read as an input: every input is read before the out is written."""
    body = f"  linalg.add ins(%A, %A : {L1}, {L1}) outs(%A : {L1})\n  linalg.copy ins(%A : {L1}) outs(%O : {L1})"
    args = _inputs("A", (2, 8), seed=10)
    got = _run(_kernel(body, {"A": (2, 8)}, (2, 8)), options, (2, 8), **args)
    assert np.array_equal(got, args["A_arg"] * 2)


@pytest.mark.parametrize("options", MODES)
def test_each_core_computes_in_its_own_buffers(options):
    """Every core's row differs; a shared buffer would give every row the last core's."""
    args = _inputs("AB", (2, 8), seed=11)
    text = _kernel(GENERIC_ELEMENTWISE, {"A": (2, 8), "B": (2, 8)}, (2, 8))
    result = spyre_mlir.interpret(text, "k", options=options, out=np.zeros((CORES, 2, 8), np.float32), **args)
    assert result.report.mode == options.execution  # batched stays batched: no fallback to one core at a time
    got = result["out"]
    assert len({got[i].tobytes() for i in range(CORES)}) == CORES
    assert np.array_equal(got, args["A_arg"] * args["B_arg"] + args["A_arg"])


@pytest.mark.parametrize("options", MODES)
def test_cores_that_diverge_each_write_their_own_buffers(options):
    """Cores 0 and 1 add, cores 2 and 3 subtract: each side runs on its subset of the batch."""
    body = f"""  %c2 = arith.constant 2 : index
  %low = arith.cmpi ult, %id, %c2 : index
  scf.if %low {{
    linalg.add ins(%A, %B : {L1}, {L1}) outs(%O : {L1})
  }} else {{
    linalg.sub ins(%A, %B : {L1}, {L1}) outs(%O : {L1})
  }}"""
    args = _inputs("AB", (2, 8), seed=13)
    text = _kernel(body, {"A": (2, 8), "B": (2, 8)}, (2, 8))
    result = spyre_mlir.interpret(text, "k", options=options, out=np.zeros((CORES, 2, 8), np.float32), **args)
    assert result.report.mode == options.execution
    assert result.report.divergent_regions == (1 if options.execution == "batched" else 0)
    got = result["out"]
    a, b = args["A_arg"], args["B_arg"]
    assert np.array_equal(got[:2], a[:2] + b[:2])
    assert np.array_equal(got[2:], a[2:] - b[2:])


@pytest.mark.parametrize("options", MODES)
def test_reading_a_buffer_nobody_wrote_is_a_located_error(options):
    """A reduction reads its out: `%O` was never filled."""
    text = _kernel(_row_reduction("arith.addf"), {"A": (2, 8)}, (2,))
    args = _inputs("A", (2, 8))
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        _run(text, options, (2,), **args)
    d = info.value.diagnostic
    assert "internal error" not in d.message
    assert d.message.startswith("read of uninitialized L1 buffer %O")
    assert d.location is not None and d.location.line == _line_of(text, "linalg.generic")


def test_tensor_ins_with_memref_outs_is_a_located_error():
    text = """func.func @k(%t: tensor<2x8xf32>, %m: memref<2x8xf32>) {
  linalg.add ins(%t, %t : tensor<2x8xf32>, tensor<2x8xf32>) outs(%m : memref<2x8xf32>)
  return
}"""
    zeros = np.zeros((2, 8), np.float32)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpret(text, "k", t=zeros, m=zeros)
    d = info.value.diagnostic
    assert "internal error" not in d.message
    assert d.location is not None and d.location.line == 2


def test_memref_ops_on_tensors_still_give_results():
    """The tensor form is unchanged: a fill of a tensor is its result."""
    text = """func.func @k(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = arith.constant 4.0 : f32
  %r = linalg.fill ins(%c : f32) outs(%x : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}"""
    got = spyre_mlir.interpret(text, "k", x=np.zeros((2, 3), np.float32))
    assert np.array_equal(got["return_0"], np.full((2, 3), 4.0, np.float32))


# -- StageCoarsening's outputs: linalg.add on SFU_REG buffers -----------------------------------------

STAGE_COARSENING = SHARED / "corpus" / "dataflow-scheduler" / "test" / "Transforms" / "StageCoarsening"


A_AT, B_AT, C_AT = 1024, 12288, 18432  # their kernels' views: 96x64xf16 each, row `id * 32 + i` per core


def _their_hbm() -> dict[int, np.ndarray]:
    rng = np.random.default_rng(12)
    return {at: rng.integers(-3, 4, 96 * 64).astype(np.float16) for at in (A_AT, B_AT, C_AT)}


def _their_output(name: str) -> str:
    from test_ktdf_public_interpreter import checked_output

    path = STAGE_COARSENING / f"{name}.mlir"
    if not path.is_file():
        pytest.skip("../shared/corpus/dataflow-scheduler not present")
    text = checked_output(Path(path))
    assert text is not None
    return text


def _check_rows_added(result, hbm, rows: list[int]) -> None:
    a, b, c = (hbm[at].reshape(96, 64) for at in (A_AT, B_AT, C_AT))
    got = result[f"hbm@{C_AT}"].reshape(96, 64)
    assert np.array_equal(got[rows], a[rows] + b[rows])
    assert np.array_equal(np.delete(got, rows, 0), np.delete(c, rows, 0))  # no other row written


@pytest.mark.filterwarnings("ignore::spyre_mlir.interpreter.InterpreterWarning")
@pytest.mark.parametrize("options", MODES)
def test_their_basic_fifo_output_adds_on_sfu_buffers_as_its_input_does(options):
    """StageCoarsening/basic-fifo: their pass's CHECKed output (linalg.add on SFU_REG
    buffers) runs to the end on 3 cores and writes C = A + B on each core's row,
    the HBM its input leaves (translation validation of their pass)."""
    text = _their_output("basic-fifo")
    hbm = _their_hbm()
    got = spyre_mlir.interpreter.Interpreter(text, options).run("local_schedule_1", {"ARG0": 1}, hbm, grid=3)
    _check_rows_added(got, hbm, [1, 33, 65])
    before = spyre_mlir.interpreter.Interpreter(STAGE_COARSENING / "basic-fifo.mlir", options)
    want = before.run("local_schedule_1", {"i": 1}, hbm, grid=3)
    for at in hbm:
        assert np.array_equal(got[f"hbm@{at}"], want[f"hbm@{at}"])


@pytest.mark.filterwarnings("ignore::spyre_mlir.interpreter.InterpreterWarning")
@pytest.mark.parametrize("options", MODES)
def test_their_basic_fifo_tiled_output_adds_on_sfu_buffers(options):
    """StageCoarsening/basic-fifo-tiled: its tile loop reads rows 0 and 1 of 1x64
    views (their input does too), so as written it stops at a located out-of-bounds
    transfer, before any linalg; with the views widened to the 2 rows the loop
    covers, it runs to the end and writes C = A + B on both rows of each core."""
    text = _their_output("basic-fifo-tiled")
    hbm = _their_hbm()
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        spyre_mlir.interpreter.Interpreter(text, options).run("local_schedule_1", {"ARG0": 1}, hbm, grid=3)
    assert info.value.diagnostic.message.startswith("access outside the view: coordinate (1, 0)")
    widened = text.replace("sizes: [1, 64], strides: [64, 1]", "sizes: [2, 64], strides: [64, 1]").replace(
        "memref<1x64xf16, strided<[64, 1], offset: ?>", "memref<2x64xf16, strided<[64, 1], offset: ?>"
    )
    got = spyre_mlir.interpreter.Interpreter(widened, options).run("local_schedule_1", {"ARG0": 1}, hbm, grid=3)
    _check_rows_added(got, hbm, [1, 2, 33, 34, 65, 66])


@pytest.mark.parametrize("options", MODES)
def test_memref_copy_moves_a_buffer_into_another(options):
    # memref.copy (MLIR's custom form) between two L1 buffers, each core its own: %O = 2 * %a via a copy.
    body = (
        f"  %T = memref.alloc() : {L1}\n"
        f"  memref.copy %a, %T : {L1} to {L1}\n"
        f"  linalg.add ins(%a, %T : {L1}, {L1}) outs(%O : {L1})"
    )
    args = _inputs("a", (2, 8), seed=3)
    got = _run(_kernel(body, {"a": (2, 8)}, (2, 8)), options, (2, 8), **args)
    np.testing.assert_array_equal(got, args["a_arg"] * 2)


def test_memref_copy_prints_as_mlir_and_checks_its_shapes():
    text = 'func.func @f(%a: memref<2x8xf32>, %b: memref<2x8xf32, "L1">) {\n  memref.copy %a, %b : memref<2x8xf32> to memref<2x8xf32, "L1">\n  return\n}'
    assert 'memref.copy %a, %b : memref<2x8xf32> to memref<2x8xf32, "L1">' in spyre_mlir.ir.print_ir(spyre_mlir.parse(text))
    with pytest.raises(spyre_mlir.DiagnosticError, match="same shape"):
        spyre_mlir.parse(text.replace('memref<2x8xf32, "L1">', 'memref<2x4xf32, "L1">'))
