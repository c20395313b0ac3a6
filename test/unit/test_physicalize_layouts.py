"""spyre-physicalize-layouts: translation validation, oracles, and the pass's own checks.

A `spyre.tensor_layout` marker is a statement about memory, honored by the
interpreter: the marked kernel and the physicalized kernel run on the *same*
HBM bytes and must leave the same HBM bytes. Both must also equal the logical
kernel (markers stripped) on the host arrays, read through the layouts, and a
NumPy oracle. Inputs are small integers so that reductions and contractions
are exact whatever their order (the pass reorders reduction loops).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, kernel_arguments

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.analysis.layout import Layout, LayoutError, from_device, to_device
from spyre_mlir.interpreter import InterpreterOptions
from spyre_mlir.passes.frontend.spyre_physicalize_layouts import LAST_RUN, Physicalizer

RULES = Path(__file__).parent / "kernels" / "layout" / "rules.mlir"
S2, S1 = Layout.stick_last(2), Layout.stick_last(1)
Y_ON_M = Layout.from_arrays([0, 1, 0], [1, 0, 2], [32, 0, 32], 2)


def ints(rng, shape) -> np.ndarray:
    return rng.integers(-4, 5, shape).astype(np.float32)


def strip_markers(text: str) -> str:
    return re.sub(r"^\s*spyre\.tensor_layout .*$", "", text, flags=re.M)


def physicalize(module, options: str = "") -> object:
    spyre_mlir.PassManager.parse(f"spyre-physicalize-layouts{options}").run(module)
    return module


# Per kernel: the host arrays' (shape, layout) and the NumPy oracle of its outputs.
def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


CASES = {
    "broadcast_row_and_column": (
        {"x": ((32, 128), S2), "w": ((128,), S1), "c": ((32,), None), "out": ((32, 128), S2)},
        lambda a: {"out": a["x"] * a["w"][None, :] + a["c"][:, None]},
    ),
    "reduce_both_axes": (
        {"x": ((32, 128), S2), "row_sum": ((32,), None), "col_max": ((128,), S1)},
        lambda a: {"row_sum": a["x"].sum(axis=1), "col_max": a["x"].max(axis=0)},
    ),
    "transpose_into_stick_layout": (
        {"x": ((64, 128), S2), "out": ((128, 64), S2)},
        lambda a: {"out": a["x"].T},
    ),
    "transpose_into_logical": (
        {"x": ((64, 128), S2), "out": ((128, 64), None)},
        lambda a: {"out": a["x"].T},
    ),
    "matmul_sticks_agree": (
        {"a": ((32, 128), S2), "b": ((128, 64), S2), "c": ((32, 64), S2)},
        lambda a: {"c": a["a"] @ a["b"]},
    ),
    "loop_carried_physical": (
        {"x": ((32, 128), S2), "out": ((4, 128), S2)},
        lambda a: {"out": a["x"].reshape(8, 4, 128).sum(axis=0)},
    ),
    "softmax_rows": (
        {"x": ((32, 128), S2), "out": ((32, 128), S2)},
        lambda a: {"out": _softmax(a["x"])},
    ),
    "extract_element": (
        {"x": ((32, 128), S2), "out": ((1,), None)},
        lambda a: {"out": a["x"][1, 65:66]},
    ),
    "if_results": (
        {"x": ((32, 128), S2), "out": ((32, 128), S2)},
        lambda a: {"out": np.exp(a["x"])},  # run with c = 1
    ),
    "generic_row_sum_of_squares": (
        {"x": ((32, 128), S2), "row_sum": ((32,), None)},
        lambda a: {"row_sum": (a["x"] * a["x"]).sum(axis=1)},
    ),
    "broadcast_conflict": (
        {"x": ((32, 128), S2), "w": ((128,), None), "out": ((32, 128), S2)},
        lambda a: {"out": a["x"] * a["w"][None, :]},
    ),
    "matmul_sticks_disagree": (
        {
            "a": ((64, 128), S2),
            "b": ((128, 64), Layout.from_arrays([0, 1, 0], [1, 0, 2], [32, 0, 32], 2)),
            "c": ((64, 64), S2),
        },
        lambda a: {"c": a["a"] @ a["b"]},
    ),
    "pointwise_conflict": (
        {"x": ((32, 128), S2), "y": ((32, 128), Y_ON_M), "out": ((32, 128), S2)},
        lambda a: {"out": a["x"] + a["y"]},
    ),
}


SCALARS = {"if_results": {"c": 1}}


def host_and_device(spec, seed):
    rng = np.random.default_rng(seed)
    host = {name: ints(rng, shape) for name, (shape, _) in spec.items()}
    device = {name: to_device(host[name], layout) if layout else host[name] for name, (_, layout) in spec.items()}
    return host, device


@pytest.fixture(scope="module")
def modules():
    text = RULES.read_text()
    marked = spyre_mlir.parse(text)
    physical = physicalize(spyre_mlir.parse(text))
    logical = spyre_mlir.parse(strip_markers(text))
    return marked, physical, logical


@pytest.mark.parametrize("func", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_marked_and_physical_kernels_leave_the_same_bytes(modules, func, seed):
    marked, physical, logical = modules
    spec, oracle = CASES[func]
    host, device = host_and_device(spec, seed)
    scalars = SCALARS.get(func, {})
    before = spyre_mlir.interpret(marked, func, **device, **scalars)
    after = spyre_mlir.interpret(physical, func, **device, **scalars)
    for name in spec:
        np.testing.assert_array_equal(after[name], before[name], err_msg=f"@{func} {name}")
    # ... and both are the logical kernel on the host arrays, read through the layouts.
    reference = spyre_mlir.interpret(logical, func, **host, **scalars)
    expected = oracle(host)
    for name, (shape, layout) in spec.items():
        got = from_device(after[name], shape, layout) if layout else after[name]
        np.testing.assert_array_equal(got, reference[name], err_msg=f"@{func} {name} vs the logical kernel")
        if name in expected:
            np.testing.assert_allclose(got, expected[name], rtol=1e-6, atol=1e-6, err_msg=f"@{func} {name} vs NumPy")


@pytest.mark.parametrize("func", sorted(CASES))
def test_host_layout_option_reads_through_the_recorded_layouts(modules, func):
    """After the pass the pointers keep `spyre.host_layout`: host arrays in, host arrays out."""
    _, physical, logical = modules
    spec, _ = CASES[func]
    host, _ = host_and_device(spec, 3)
    scalars = SCALARS.get(func, {})
    out = spyre_mlir.interpret(physical, func, options=InterpreterOptions(host_layout=True), **host, **scalars)
    reference = spyre_mlir.interpret(logical, func, **host, **scalars)
    for name in spec:
        np.testing.assert_array_equal(out[name], reference[name], err_msg=f"@{func} {name}")


def test_the_rules_kernels_exercise_every_rule():
    physicalize(spyre_mlir.parse(RULES.read_text()))
    counts = LAST_RUN[-1].counts
    for rule in (
        "view",
        "access-tile",
        "load",
        "elementwise",
        "splat",
        "broadcast",
        "reshape",
        "reduce",
        "transpose",
        "contraction",
        "extract",
        "loop",
        "if",
    ):
        assert counts[rule] > 0, f"no kernel exercises the {rule} rule"
    # Real conversions (the transposes, the pointwise and matmul conflicts) and
    # free ones (a logical row vector is already its one-dim stick layout).
    assert LAST_RUN[-1].relayouts >= 4 and counts["reshape-conversion"] > 0


def test_output_verifies_round_trips_and_parses_in_real_mlir(modules, tmp_path):
    _, physical, _ = modules
    text = ir.print_ir(physical)
    assert "spyre.tensor_layout" not in text
    assert ir.print_ir(spyre_mlir.parse(text)) == text
    generic = ir.print_ir(physical, generic_dialects=("ktdp", "spyre"))
    from conftest import find_iree_opt

    iree = find_iree_opt()
    if iree is None:
        pytest.skip("iree-opt (iree-base-compiler) not installed")
    proc = subprocess.run([iree, "--allow-unregistered-dialect", "-"], input=generic, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:2000]


# -- the pass's own checks -------------------------------------------------------


def test_the_agreement_check_catches_a_broken_rule(monkeypatch):
    """An analysis that records the wrong layout for an elementwise result is
    caught when the rewrite derives another type (internal error, not wrong IR)."""
    original = Physicalizer._a_elementwise

    def broken(self, op):
        original(self, op)
        for r in op.results:
            if isinstance(self.layout.get(r), Layout):
                self.layout[r] = None  # claims logical; the rewrite will derive physical

    monkeypatch.setattr(Physicalizer, "_a_elementwise", broken)
    with pytest.raises(spyre_mlir.DiagnosticError, match="the analysis recorded .* for a result the rewrite types"):
        physicalize(spyre_mlir.parse(RULES.read_text()))


def test_the_agreement_check_catches_an_over_claim(monkeypatch):
    """The other direction: the analysis claims physical where the rewrite stays logical."""
    original = Physicalizer._a_reduce

    def broken(self, op):
        original(self, op)
        if list(op.results[0].type.get_shape()) == [32]:  # logical in truth
            self.layout[op.results[0]] = Layout.stick_last(1, 32)

    monkeypatch.setattr(Physicalizer, "_a_reduce", broken)
    with pytest.raises(spyre_mlir.DiagnosticError, match="the analysis recorded"):
        physicalize(spyre_mlir.parse(RULES.read_text()))


UNHANDLED = """
#s = affine_set<(d0, d1) : (d0 == 0, d1 >= 0, -d1 + 63 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_rule(%x: index) -> tensor<1x32xf32> {
  %c0 = arith.constant 0 : index
  %v = ktdp.construct_memory_view %x, sizes: [1, 64], strides: [64, 1] {coordinate_set = #s, memory_space = #ktdp.memory_space<global>} : memref<1x64xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<1x64xf32>
  %t = ktdp.construct_access_tile %v[%c0, %c0] {access_tile_set = #s, access_tile_order = #id} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
  %d = ktdp.load %t : !ktdp.access_tile<1x64xindex> -> tensor<1x64xf32>
  %s = tensor.extract_slice %d[0, 0] [1, 32] [1, 1] : tensor<1x64xf32> to tensor<1x32xf32>
  return %s : tensor<1x32xf32>
}
"""


def test_an_op_without_a_rule_is_reported_not_skipped():
    with pytest.raises(spyre_mlir.DiagnosticError, match="'tensor.extract_slice' has no physicalization rule") as info:
        physicalize(spyre_mlir.parse(UNHANDLED))
    assert info.value.diagnostic.location.line == 10
    # Measurement mode: counted, warned, and still correct (the op gets a logical value).
    from spyre_mlir.diagnostics import collect
    from spyre_mlir.passes.frontend.spyre_physicalize_layouts import SpyrePhysicalizeLayoutsPass

    module = spyre_mlir.parse(UNHANDLED)
    with collect() as diagnostics:
        SpyrePhysicalizeLayoutsPass(report_unhandled=True).apply(None, module)  # type: ignore[arg-type]
    assert [d.message.split(" has")[0] for d in diagnostics] == ["'tensor.extract_slice'"]
    assert len(LAST_RUN[-1].unhandled) == 1
    x = np.arange(64, dtype=np.float32)[None]
    out = spyre_mlir.interpret(module, x=x)
    np.testing.assert_array_equal(out["return_0"], x[:, :32])


# -- the corpus, with generated markers -------------------------------------------


def add_markers(text: str, stick: int = 64) -> tuple[str, dict[int, tuple[tuple[int, ...], Layout]]]:
    """Mark every global, row-major (contiguous), statically sized view whose last
    dim is a stick multiple with the default stick layout; returns the marked
    text and, by the line of each marked view, its sizes and layout."""
    module = spyre_mlir.parse(text)
    from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp, normalized_memory_space

    lines = text.splitlines()
    insert: dict[int, str] = {}
    marked: dict[int, tuple[tuple[int, ...], Layout]] = {}
    for op in module.walk():
        if not isinstance(op, ConstructMemoryViewOp):
            continue
        sizes = tuple(int(s) for s in op.result.type.get_shape())
        strides = tuple(int(s) for s in op.static_strides.get_values())
        contiguous = tuple(int(np.prod(sizes[k + 1 :])) for k in range(len(sizes)))
        space = normalized_memory_space(op.memory_space)
        if space is None or not space.is_global or any(s <= 0 for s in sizes):
            continue
        if strides != contiguous or sizes[-1] % stick:
            continue
        layout = Layout.stick_last(len(sizes), stick)
        src, ops, args = layout.arrays()
        line = op.location.line.data  # the view's first line; the marker goes after the op's last line
        end = line - 1
        while not re.search(r":\s*memref<[^>]*>\s*$", lines[end]):
            end += 1
        name = lines[line - 1].split("=")[0].strip()
        ty = re.search(r"memref<[^>]*>\s*$", lines[end]).group(0).strip()
        insert[end] = (
            f"  spyre.tensor_layout {name} {{phys_src = array<i64: {', '.join(map(str, src))}>, "
            f"phys_op = array<i64: {', '.join(map(str, ops))}>, phys_arg = array<i64: {', '.join(map(str, args))}>}} : {ty}"
        )
        marked[line] = (sizes, layout)
    out = []
    for k, line in enumerate(lines):
        out.append(line)
        if k in insert:
            out.append(insert[k])
    return "\n".join(out) + "\n", marked


def corpus_cases():
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/ktir not present"))]
    return [pytest.param(p, id=p.stem) for p in sorted(CORPUS.glob("*.mlir"))]  # matmul_fwd_ktir: ~7 s


# Corpus kernels the generated markers leave unmarked: no global, row-major view whose
# last dim is a stick multiple (asserted: a kernel that gains one must physicalize).
UNMARKABLE = {"reduce_generic": "its views are 1x4"}
# Corpus kernels that spyre-physicalize-layouts refuses once marked: stem -> the
# located error's message (asserted; every other marked kernel must physicalize).
REFUSED: dict[str, str] = {}


@pytest.mark.parametrize("path", corpus_cases())
def test_corpus_kernels_with_generated_markers(path):
    """Every corpus kernel with a markable view: marked = physicalized on the same
    bytes, and = the logical kernel read through the layouts; a refusal only where
    REFUSED expects it, with its message and location."""
    text, marked = add_markers(path.read_text())
    if path.stem in UNMARKABLE:
        assert not marked, f"{path.name} now has a markable view: remove it from UNMARKABLE"
        return
    assert marked, f"{path.name}: no global row-major view with a stick-multiple last dim (add it to UNMARKABLE?)"
    name, args, hbm = kernel_arguments(path, seed=0)
    # Small integers: exact whatever the reduction order.
    rng = np.random.default_rng(0)
    args = {
        k: (rng.integers(-3, 4, v.shape).astype(v.dtype) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v)
        for k, v in args.items()
    }
    module = spyre_mlir.parse(text, verify=True)
    if path.stem in REFUSED:
        with pytest.raises(spyre_mlir.DiagnosticError) as info:
            physicalize(spyre_mlir.parse(text))
        assert info.value.diagnostic.location is not None, info.value.diagnostic.render()
        assert REFUSED[path.stem] in info.value.diagnostic.message
        return
    physical = physicalize(spyre_mlir.parse(text))  # a refusal here is a failure (or belongs in REFUSED)
    assert ir.print_ir(physical) != ir.print_ir(module), f"{path.name}: the markers were not physicalized"
    before = spyre_mlir.interpret(module, name, hbm=hbm, **args)
    after = spyre_mlir.interpret(physical, name, hbm=hbm, **args)
    for key in before:
        np.testing.assert_array_equal(after[key], before[key], err_msg=f"{path.name} {key}")
    # Through the layouts: host arrays in and out (pointer parameters that are
    # exactly a marked view's base), against the logical kernel.
    logical = spyre_mlir.interpret(strip_markers(text), name, hbm=hbm, **args)
    through = spyre_mlir.interpret(physical, name, options=InterpreterOptions(host_layout=True), hbm=hbm, **args)
    for key in logical:
        np.testing.assert_array_equal(through[key], logical[key], err_msg=f"{path.name} {key} (host layout)")


# -- partial sticks (issue 22) ------------------------------------------------------


def test_padded_device_arrays():
    """A partial last stick: zero-filled on the way to the device, dropped on the way back;
    without `pad` it is refused, as before."""
    layout = Layout.stick_last(2, 4)  # [M, N] -> [ceil(N/4), M, 4]
    host = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], np.float32)
    assert layout.padded_shape(host.shape) == (2, 8)
    assert layout.physical_shape(host.shape, pad=True) == (2, 2, 4)
    device = to_device(host, layout, pad=True)
    expected = [[[1, 2, 3, 4], [6, 7, 8, 9]], [[5, 0, 0, 0], [10, 0, 0, 0]]]
    np.testing.assert_array_equal(device, np.array(expected, np.float32))
    np.testing.assert_array_equal(from_device(device.reshape(-1), host.shape, layout, pad=True), host)
    # Element (1, 4) is in the second stick, row 1, lane 0: 1 * 8 + 1 * 4 + 0.
    assert layout.element_offsets(np.array([1, 4]), host.shape, pad=True) == 12
    with pytest.raises(LayoutError, match="partial sticks"):
        to_device(host, layout)


PARTIAL = Path(__file__).parent / "kernels" / "layout" / "partial_sticks.mlir"
S32 = Layout.stick_last(2, 32)  # f32: 32 elements a 128-byte stick
S64 = Layout.stick_last(2, 64)  # f16: 64
R64 = Layout.from_arrays([0, 1, 0], [1, 0, 2], [64, 0, 64], 2)  # f16, sticks on the rows


def _spanning(a):
    out = a["out"].copy()
    out[:, 20:44] = a["x"][:, 20:44] * 2
    return {"out": out}


def _offset_box(a):
    x, out = a["x"].copy(), a["out"].copy()
    for j in (0, 8):
        box = (slice(j + 2, j + 6), slice(j + 4, j + 8))
        out[box] = x[box] = np.exp(a["x"][box])
    return {"x": x, "out": out}


# Per kernel: the host arrays' (shape, dtype, layout) and the NumPy oracle.
PARTIAL_CASES = {
    "matmul_f32_tiles16": (
        {"a": ((64, 64), np.float32, S32), "b": ((64, 64), np.float32, S32), "c": ((64, 64), np.float32, S32)},
        lambda a: {"c": a["a"] @ a["b"]},
    ),
    "grid4x2_f16_rows32": (
        {"x": ((128, 64), np.float16, R64), "y": ((128, 64), np.float16, S64), "out": ((128, 64), np.float16, S64)},
        lambda a: {"out": np.exp(a["x"].astype(np.float32)) + a["y"]},
    ),
    "store_spanning_two_sticks": (
        {"x": ((8, 64), np.float32, S32), "out": ((8, 64), np.float32, S32)},
        _spanning,
    ),
    "tiles96_at_run_time_offsets": (
        {"x": ((4, 384), np.float32, S64), "y": ((4, 384), np.float32, None), "out": ((4, 384), np.float32, S64)},
        lambda a: {"out": a["x"] - a["y"]},
    ),
    "offset_box": (
        {"x": ((16, 64), np.float32, S32), "out": ((16, 64), np.float32, S32)},
        _offset_box,
    ),
    "anchor_arithmetic": (
        {"x": ((4, 64), np.float32, S32), "out": ((4, 64), np.float32, S32)},
        lambda a: {"out": 3 * a["x"]},
    ),
    "padded_view_elementwise": (
        {"x": ((8, 48), np.float32, S32), "out": ((8, 48), np.float32, S32)},
        lambda a: {"out": a["x"] + 1},
    ),
}


@pytest.fixture(scope="module")
def partial_modules():
    text = PARTIAL.read_text()
    return spyre_mlir.parse(text), physicalize(spyre_mlir.parse(text)), spyre_mlir.parse(strip_markers(text))


@pytest.mark.parametrize("func", sorted(PARTIAL_CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_partial_sticks_compute_what_the_source_computes(partial_modules, func, seed):
    """Loads of part of a stick read whole sticks and slice, stores write only
    the covered elements, a partial last stick is padded: marked
    = physicalized on the same bytes = the logical kernel = NumPy, on random inputs,
    and the padding still holds zeros afterwards."""
    marked, physical, logical = partial_modules
    spec, oracle = PARTIAL_CASES[func]
    rng = np.random.default_rng(seed)
    host = {name: rng.standard_normal(shape).astype(dtype) for name, (shape, dtype, _) in spec.items()}
    device = {
        name: to_device(host[name], layout, pad=True) if layout else host[name] for name, (_, _, layout) in spec.items()
    }
    after = spyre_mlir.interpret(physical, func, **device)
    before = spyre_mlir.interpret(marked, func, **device)
    for name in spec:
        np.testing.assert_array_equal(after[name], before[name], err_msg=f"@{func} {name}")
    reference = spyre_mlir.interpret(logical, func, **host)
    expected = oracle(host)
    for name, (shape, dtype, layout) in spec.items():
        got = from_device(after[name], shape, layout, pad=True) if layout else after[name]
        np.testing.assert_array_equal(got, reference[name], err_msg=f"@{func} {name} vs the logical kernel")
        if name in expected:
            tol = 1e-2 if dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got, expected[name], rtol=tol, atol=tol, err_msg=f"@{func} {name} vs NumPy")
        padded = layout.padded_shape(shape) if layout else shape
        if padded != shape:
            wide = from_device(after[name], padded, layout)
            outside = np.ones(padded, bool)
            outside[tuple(slice(0, s) for s in shape)] = False
            assert not wide[outside].any(), f"@{func} {name}: the padding was written"


def test_partial_stick_tiles_read_whole_sticks_and_write_only_the_covered_elements(partial_modules):
    _, physical, _ = partial_modules
    text = ir.print_ir(physical)
    # 16x16 f32 tiles: the loads read the 1x16x32 sticks, the store writes a 1x16x16 box.
    matmul = text.split("func.func @matmul_f32_tiles16")[1].split("func.func")[0]
    assert matmul.count("ktdp.load") == 2 and matmul.count("-> !ktdp.access_tile<1x16x32xindex>") == 2
    assert matmul.count("tensor.extract_slice") == 2 and "-> !ktdp.access_tile<1x16x16xindex>" in matmul
    # Columns 20..43 of sticks of 32: two sticks, the store masked to the covered elements.
    mask = re.search(r"(#set\d+) = affine_set<[^\n]*d0 \* 32 \+ d2 - 20 >= 0, d0 \* -32 - d2 \+ 43 >= 0\)>", text)
    assert mask is not None, "no tile set masked to columns 20..43"
    spanning = text.split("func.func @store_spanning_two_sticks")[1].split("func.func")[0]
    assert f"access_tile_set = {mask.group(1)}}}" in spanning


def test_padded_host_layout_is_the_padded_shape(partial_modules):
    """A parameter whose view has a partial last stick holds the padded tensor:
    `spyre.host_layout` records the padded logical shape, so host arrays are given padded."""
    _, physical, _ = partial_modules
    rng = np.random.default_rng(5)
    x = np.zeros((8, 64), np.float32)
    x[:, :48] = rng.standard_normal((8, 48))
    out = spyre_mlir.interpret(
        physical, "padded_view_elementwise", options=InterpreterOptions(host_layout=True), x=x, out=np.zeros_like(x)
    )
    np.testing.assert_array_equal(out["out"][:, :48], x[:, :48] + 1)
    assert not out["out"][:, 48:].any()


STRADDLE = """
#t = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 23 >= 0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @straddle(%x: index) attributes {grid = [2, 1]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %p = ktdp.get_compute_tile_id : index
  %col = arith.muli %p, %c16 : index
  %v = ktdp.construct_memory_view %x, sizes: [8, 64], strides: [64, 1] {coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 7 >= 0, d1 >= 0, -d1 + 63 >= 0)>, memory_space = #ktdp.memory_space<global>} : memref<8x64xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 32, 0, 32>} : memref<8x64xf32>
  %t = ktdp.construct_access_tile %v[%c0, %col] {access_tile_set = #t, access_tile_order = #id} : memref<8x64xf32> -> !ktdp.access_tile<8x24xindex>
  %d = ktdp.load %t : !ktdp.access_tile<8x24xindex> -> tensor<8x24xf32>
  ktdp.store %d, %t : tensor<8x24xf32>, !ktdp.access_tile<8x24xindex>
  return
}
"""


def test_a_tile_straddling_sticks_at_a_run_time_offset_is_refused():
    """24 columns from a multiple of 16 cross a stick boundary or not depending on
    the core: which sticks to read and which elements to mask is not static."""
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        physicalize(spyre_mlir.parse(STRADDLE))
    d = info.value.diagnostic
    assert (
        "covers 24 elements of d1 (sticks of 32) from an offset in a stick known only modulo 16: it touches 1 or 2"
        in d.message
    )
    assert d.location is not None and d.location.line == 11
