"""Layouts in the interpreter (issue 9): `spyre.tensor_layout` places a view's
elements, `spyre.relayout` converts tensors (and counts its bytes), host
layouts of parameters (`spyre.host_layout`, `InterpreterOptions.host_layout`,
`spyre-run --host-layout`), and `spyre_mlir.analysis.layout` itself.

A marked view's logical element c sits at `base + layout.element_offsets(c,
sizes)`: the physical tensor stored contiguously from its base. Every check
here compares the HBM bytes a kernel leaves against NumPy (`to_device` of
the logical result), in batched and per-core execution.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import DictionaryAttr

import spyre_mlir
from spyre_mlir.analysis.layout import Layout, LayoutError, from_device, to_device
from spyre_mlir.dialects.spyre import HOST_LAYOUT_ATTR, host_layout_attr, host_layout_of_attr, host_layouts
from spyre_mlir.interpreter import Interpreter, InterpreterOptions

STICK = Layout.stick_last(2)  # [d1 floordiv 64, d0, d1 mod 64]
ROWS32 = Layout.from_arrays([0, 1, 0], [1, 0, 2], [32, 0, 32], 2)  # [d0 floordiv 32, d1, d0 mod 32]
BOTH = Layout.from_arrays([0, 1, 0, 1], [1, 1, 2, 2], [16, 64, 16, 64], 2)  # both dims split
MODES = ("batched", "per-core")


# ---------------------------------------------------------------------------
# Kernel text
# ---------------------------------------------------------------------------


def box_set(extents, extra: str = "") -> str:
    dims = ", ".join(f"d{i}" for i in range(len(extents)))
    cons = ", ".join(f"d{i} >= 0, -d{i} + {n - 1} >= 0" for i, n in enumerate(extents))
    return f"affine_set<({dims}) : ({cons}{', ' + extra if extra else ''})>"


def memref(shape, elt: str) -> str:
    return f"memref<{'x'.join(map(str, shape))}x{elt}>"


def contiguous(shape) -> list[int]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return strides[::-1]


def marker(name: str, shape, elt: str, layout: Layout) -> str:
    src, op, arg = layout.arrays()
    a = lambda v: ", ".join(map(str, v))  # noqa: E731
    return (
        f"  spyre.tensor_layout %{name} {{phys_src = array<i64: {a(src)}>, phys_op = array<i64: {a(op)}>, "
        f"phys_arg = array<i64: {a(arg)}>}} : {memref(shape, elt)}\n"
    )


def view(
    name: str, base: str, shape, elt: str = "f32", layout: Layout | None = None, space: str = "global", strides=None
) -> str:
    strides = contiguous(shape) if strides is None else strides
    text = (
        f"  %{name} = ktdp.construct_memory_view {base}, sizes: [{', '.join(map(str, shape))}], "
        f"strides: [{', '.join(map(str, strides))}] {{\n"
        f"    coordinate_set = {box_set(shape)}, memory_space = #ktdp.memory_space<{space}>}} : {memref(shape, elt)}\n"
    )
    return text + (marker(name, shape, elt, layout) if layout is not None else "")


def tile(name: str, view_name: str, anchor, extents, view_shape, elt: str = "f32", order=None, extra: str = "") -> str:
    rank = len(extents)
    order = tuple(range(rank)) if order is None else tuple(order)
    shape = [extents[p] for p in order]
    dims = ", ".join(f"d{i}" for i in range(rank))
    out = ", ".join(f"d{p}" for p in order)
    return (
        f"  %{name} = ktdp.construct_access_tile %{view_name}[{', '.join(anchor)}] {{\n"
        f"    access_tile_set = {box_set(extents, extra)},\n"
        f"    access_tile_order = affine_map<({dims}) -> ({out})>}} : {memref(view_shape, elt)} -> "
        f"!ktdp.access_tile<{'x'.join(map(str, shape))}xindex>\n"
    )


def tile_type(extents, order=None) -> str:
    order = tuple(range(len(extents))) if order is None else tuple(order)
    return f"{'x'.join(str(extents[p]) for p in order)}"


PRELUDE = """  %core = ktdp.get_compute_tile_id : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %sq = arith.muli %core, %core : index
  %sq2 = arith.addi %sq, %sq : index
  %mod3 = arith.remsi %core, %c3 : index
  %col16 = arith.muli %mod3, %c16 : index
"""

# Anchors usable in kernels (MLIR expression, value on core k).
ANCHORS = {
    "0": ("0", lambda k: 0),
    "core*32": ("%core * 32", lambda k: 32 * k),
    "core*4": ("%core * 4", lambda k: 4 * k),
    "core*16": ("%core * 16", lambda k: 16 * k),
    "core*64": ("%core * 64", lambda k: 64 * k),
    "core^2": ("%sq", lambda k: k * k),
    "2core^2": ("%sq2", lambda k: 2 * k * k),
    "(core%3)*16": ("%col16", lambda k: (k % 3) * 16),
}


def anchor(spec):
    if isinstance(spec, int):
        return str(spec), (lambda k, v=spec: v)
    return ANCHORS[spec]


def copy_kernel(
    src_layout,
    dst_layout,
    s_anchor,
    s_ext,
    d_anchor=None,
    d_ext=None,
    *,
    s_order=None,
    d_order=None,
    extra="",
    shape=(128, 128),
    elt="f32",
    grid=4,
    double=False,
) -> str:
    """Core k loads the tile at `s_anchor` (set extents `s_ext`, order `s_order`)
    of `src` and stores it (doubled with `double`) through the tile at `d_anchor` of `dst`."""
    d_anchor = s_anchor if d_anchor is None else d_anchor
    d_ext = s_ext if d_ext is None else d_ext
    s_shape, d_shape = tile_type(s_ext, s_order), tile_type(d_ext, d_order)
    assert s_shape == d_shape
    text = f"func.func @copy(%src: index, %dst: index) attributes {{grid = [{grid}]}} {{\n" + PRELUDE
    text += view("vs", "%src", shape, elt, src_layout)
    text += view("vd", "%dst", shape, elt, dst_layout)
    text += tile("ts", "vs", [anchor(a)[0] for a in s_anchor], s_ext, shape, elt, s_order, extra)
    text += tile("td", "vd", [anchor(a)[0] for a in d_anchor], d_ext, shape, elt, d_order, extra)
    text += f"  %t = ktdp.load %ts : !ktdp.access_tile<{s_shape}xindex> -> tensor<{s_shape}x{elt}>\n"
    value = "%t"
    if double:
        text += f"  %u = arith.addf %t, %t : tensor<{s_shape}x{elt}>\n"
        value = "%u"
    text += f"  ktdp.store {value}, %td : tensor<{s_shape}x{elt}>, !ktdp.access_tile<{d_shape}xindex>\n"
    return text + "  return\n}\n"


def box_mask(ext, extra):
    """Members of the set box `ext` with the one extra constraint the tests use."""
    if not extra:
        return None
    i, j = np.indices(ext)
    assert extra == "d1 - d0 >= 0"
    return j >= i


def expected_copy(
    src_log,
    dst_log,
    s_anchor,
    s_ext,
    d_anchor=None,
    d_ext=None,
    s_order=None,
    d_order=None,
    extra="",
    grid=4,
    double=False,
):
    d_anchor = s_anchor if d_anchor is None else d_anchor
    d_ext = s_ext if d_ext is None else d_ext
    s_order = tuple(range(len(s_ext))) if s_order is None else s_order
    d_order = tuple(range(len(d_ext))) if d_order is None else d_order
    out = dst_log.copy()
    smask, dmask = box_mask(s_ext, extra), box_mask(d_ext, extra)
    for k in range(grid):
        (sr, sc), (dr, dc) = ([anchor(a)[1](k) for a in s_anchor], [anchor(a)[1](k) for a in d_anchor])
        box = src_log[sr : sr + s_ext[0], sc : sc + s_ext[1]]
        if smask is not None:
            box = np.where(smask, box, 0)
        if double:
            box = box + box
        data = box.transpose(s_order).transpose(np.argsort(d_order))
        region = out[dr : dr + d_ext[0], dc : dc + d_ext[1]]
        if dmask is None:
            region[...] = data
        else:
            region[dmask] = data[dmask]
    return out


def device(logical, layout):
    return logical if layout is None else to_device(logical, layout).reshape(logical.shape)


def logical_of(raw, layout):
    return raw if layout is None else from_device(raw, raw.shape, layout)


def run(text, mode="batched", options=None, **args):
    opts = InterpreterOptions(execution=mode, **(options or {}))
    return spyre_mlir.interpret(text, options=opts, **args)


def line_of(text: str, needle: str, nth: int = 1) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return hits[nth - 1]


RNG = np.random.default_rng(9)
X = RNG.standard_normal((128, 128)).astype(np.float32)
Y0 = RNG.standard_normal((128, 128)).astype(np.float32)


# ---------------------------------------------------------------------------
# spyre_mlir.analysis.layout itself
# ---------------------------------------------------------------------------

LAYOUTS_3D = [
    Layout.from_arrays([2, 0, 1, 2], [1, 0, 0, 2], [64, 0, 0, 64], 3),
    Layout.from_arrays([1, 0, 2, 1], [1, 0, 0, 2], [4, 0, 0, 4], 3),
    Layout.from_arrays([0, 2, 1], [0, 0, 0], [0, 0, 0], 3),  # a permutation, no split
]


def test_layout_shapes_and_strides():
    assert STICK.physical_shape((128, 128)) == (2, 128, 64)
    assert STICK.physical_strides((128, 128)) == (8192, 64, 1)
    assert ROWS32.physical_shape((128, 128)) == (4, 128, 32)
    assert BOTH.physical_shape((32, 128)) == (2, 2, 16, 64)
    assert str(STICK) == "[d1 floordiv 64, d0, d1 mod 64]"
    assert STICK.arrays() == ([1, 0, 1], [1, 0, 2], [64, 0, 64])
    assert Layout.from_arrays(*STICK.arrays(), 2) == STICK
    assert Layout.identity(2).is_identity and not STICK.is_identity


@pytest.mark.parametrize(
    "layout, shape",
    [(STICK, (128, 128)), (ROWS32, (64, 96)), (BOTH, (32, 128)), (Layout.identity(2), (5, 7))]
    + [(lay, (4, 8, 64)) for lay in LAYOUTS_3D],
)
def test_element_offsets_agree_with_to_device(layout, shape):
    logical = np.arange(np.prod(shape)).reshape(shape)
    dev = to_device(logical, layout)
    assert dev.shape == layout.physical_shape(shape) and dev.flags.c_contiguous
    coords = np.indices(shape).reshape(len(shape), -1).T
    offsets = layout.element_offsets(coords, shape)
    # the device array, flat, holds logical element c at offset element_offsets(c)
    np.testing.assert_array_equal(dev.reshape(-1)[offsets], logical.reshape(-1))
    assert sorted(offsets.tolist()) == list(range(logical.size))  # a permutation
    np.testing.assert_array_equal(from_device(dev, shape, layout), logical)
    np.testing.assert_array_equal(from_device(dev.reshape(-1), shape, layout), logical)  # raw memory
    batch = np.stack([logical, logical + 1])
    np.testing.assert_array_equal(layout.to_physical(batch, lead=1)[1], dev + 1)
    np.testing.assert_array_equal(layout.to_logical(layout.to_physical(batch, lead=1), shape, lead=1), batch)


@pytest.mark.parametrize(
    "src, op, arg, rank, message",
    [
        ([1, 0], [1, 0, 2], [64, 0, 64], 2, "must be non-empty and of the same length"),
        ([], [], [], 2, "must be non-empty"),
        ([1, 0], [3, 0], [64, 0], 2, "phys_op[0] = 3 is not 0 (identity), 1 (floordiv) or 2 (mod)"),
        ([2, 0], [0, 0], [0, 0], 2, "phys_src[0] = 2 names no dim of a rank-2 view"),
        ([1, 0, 1], [1, 0, 2], [0, 0, 64], 2, "phys_arg[0] = 0 must be positive for floordiv"),
        ([1, 0, 1], [1, 0, 2], [64, 0, 32], 2, "d1 is split with two stick sizes (64 and 32)"),
        ([0], [0], [0], 2, "d1 appears in no physical axis: the layout is not injective"),
        ([1, 0], [2, 0], [64, 0], 2, "d1 appears as inner: each dim must be whole"),
        ([1, 0, 1], [1, 0, 1], [64, 0, 64], 2, "d1 appears as outer, outer"),
        ([0, 1, 1], [0, 0, 0], [0, 0, 0], 2, "d1 appears as whole, whole"),
    ],
)
def test_layout_errors(src, op, arg, rank, message):
    with pytest.raises(LayoutError) as info:
        Layout.from_arrays(src, op, arg, rank)
    assert message in str(info.value)


def test_layout_shape_errors():
    with pytest.raises(LayoutError, match=r"d1 of size 96 is not a multiple of its stick size 64 \(partial sticks"):
        STICK.physical_shape((128, 96))
    with pytest.raises(LayoutError, match="a rank-2 layout cannot lay out a rank-3 shape"):
        STICK.physical_shape((1, 128, 128))
    with pytest.raises(LayoutError, match="partial sticks"):
        to_device(np.zeros((4, 100)), STICK)


def test_host_layout_attr_round_trip():
    attr = host_layout_attr(STICK, (128, 256))
    assert isinstance(attr, DictionaryAttr)
    assert set(attr.data) == {"phys_src", "phys_op", "phys_arg", "shape"}
    assert host_layout_of_attr(attr) == (STICK, (128, 256))
    text = str(attr)
    assert "phys_src = array<i64: 1, 0, 1>" in text and "shape = array<i64: 128, 256>" in text
    with pytest.raises(LayoutError, match="partial sticks"):
        host_layout_attr(STICK, (128, 100))
    with pytest.raises(LayoutError, match="must be a dictionary of exactly"):
        host_layout_of_attr(DictionaryAttr({}))


# ---------------------------------------------------------------------------
# The marker places a view's elements
# ---------------------------------------------------------------------------

# (name, src anchor, set extents, extra kwargs): boxes that are strided boxes
# of the physical tensor and boxes that are not, uniform and per-core anchors.
TILES = [
    ("rows_whole_sticks", ("core*32", 0), (32, 128), {}),
    ("inside_one_stick", ("core*4", 16), (4, 32), {}),
    ("straddles_a_stick", ("core*4", 48), (4, 32), {}),
    ("lanes_inside_and_straddling", ("core*4", "core*16"), (4, 32), {}),
    ("one_stick_exactly", ("core*16", 64), (16, 64), {}),
    ("uniform_anchor", (8, 64), (8, 64), {}),
    ("uneven_lanes_small", ("core^2", "(core%3)*16"), (4, 16), {}),
    ("uneven_lanes_large", ("2core^2", 0), (32, 128), {}),
    ("uneven_lanes_small_whole_sticks", ("core^2", 0), (2, 128), {}),
    ("transposed_order", ("core*32", 0), (32, 128), {"s_order": (1, 0), "d_order": (1, 0)}),
    ("holes", ("core*32", 0), (32, 128), {"extra": "d1 - d0 >= 0"}),
    ("holes_inside_stick", ("core*4", 8), (4, 32), {"extra": "d1 - d0 >= 0"}),
]
LAYOUT_PAIRS = [
    ("stick>plain", STICK, None),
    ("plain>stick", None, STICK),
    ("stick>rows32", STICK, ROWS32),
    ("both>stick", BOTH, STICK),
]


@pytest.mark.parametrize("case", TILES, ids=[t[0] for t in TILES])
@pytest.mark.parametrize("pair", LAYOUT_PAIRS, ids=[p[0] for p in LAYOUT_PAIRS])
def test_marked_copy_reads_and_writes_device_addresses(case, pair):
    _, s_anchor, ext, extra = case
    _, src_layout, dst_layout = pair
    text = copy_kernel(src_layout, dst_layout, s_anchor, ext, **extra)
    want = expected_copy(X, Y0, s_anchor, ext, **extra)
    results = {}
    for mode in MODES:
        out = run(text, mode, src=device(X, src_layout), dst=device(Y0, dst_layout))
        assert out.report.mode == mode
        # HBM holds the device form of the logical result
        np.testing.assert_array_equal(out["dst"], device(want, dst_layout))
        np.testing.assert_array_equal(out["src"], device(X, src_layout))  # untouched
        results[mode] = out["dst"]
    np.testing.assert_array_equal(results["batched"], results["per-core"])


FAST = {
    "rows_whole_sticks",
    "inside_one_stick",
    "one_stick_exactly",
    "uniform_anchor",
    "uneven_lanes_small",
    "uneven_lanes_large",
    "uneven_lanes_small_whole_sticks",
    "transposed_order",
    "holes",
    "holes_inside_stick",
}


@pytest.mark.parametrize("case", TILES, ids=[t[0] for t in TILES])
def test_stick_aligned_boxes_take_the_fast_path(case, monkeypatch):
    from spyre_mlir.interpreter import views

    calls = []
    for name in ("_load_points", "_store_points"):
        original = getattr(views, name)
        monkeypatch.setattr(views, name, lambda *a, _f=original, _n=name: calls.append(_n) or _f(*a))
    _, s_anchor, ext, extra = case
    for mode in MODES:
        calls.clear()
        run(copy_kernel(STICK, STICK, s_anchor, ext, **extra), mode, src=X, dst=Y0)
        assert (not calls) == (case[0] in FAST), calls


def test_a_marked_view_whose_base_varies_by_core():
    """Core k's 64x128 view starts at element 8192k of `src`: a lane array of bases."""
    text = (
        "func.func @k(%src: index, %out: index) attributes {grid = [4]} {\n"
        + PRELUDE
        + "  %off = arith.muli %core, %c16 : index\n"
        + "  %c512 = arith.constant 512 : index\n"
        + "  %step = arith.muli %off, %c512 : index\n"
        + "  %base = arith.addi %src, %step : index\n"
        + view("vs", "%base", (64, 128), "f32", STICK)
        + view("vo", "%out", (256, 128))
        + tile("ts", "vs", ["0", "0"], (64, 128), (64, 128))
        + tile("tp", "vs", ["4", "48"], (4, 32), (64, 128))
        + tile("to", "vo", ["%core * 64", "0"], (64, 128), (256, 128))
        + tile("tq", "vo", ["%core * 64", "0"], (4, 32), (256, 128))
        + "  %t = ktdp.load %ts : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>\n"
        + "  ktdp.store %t, %to : tensor<64x128xf32>, !ktdp.access_tile<64x128xindex>\n"
        + "  %p = ktdp.load %tp : !ktdp.access_tile<4x32xindex> -> tensor<4x32xf32>\n"
        + "  ktdp.store %p, %tq : tensor<4x32xf32>, !ktdp.access_tile<4x32xindex>\n"
        + "  return\n}\n"
    )
    logical = RNG.standard_normal((4, 64, 128)).astype(np.float32)
    raw = np.stack([to_device(logical[k], STICK).reshape(64, 128) for k in range(4)])
    want = logical.reshape(256, 128).copy()
    for k in range(4):
        want[64 * k : 64 * k + 4, :32] = logical[k, 4:8, 48:80]
    results = []
    for mode in MODES:
        out = run(text, mode, src=raw, out=np.zeros((256, 128), np.float32))
        np.testing.assert_array_equal(out["out"], want)
        results.append(out["out"])
    np.testing.assert_array_equal(*results)


def test_transposing_copy_through_a_marked_view():
    # load a 32x128 box in (d1, d0) order, store it as a 128x32 box: a transpose
    text = copy_kernel(STICK, STICK, ("core*32", 0), (32, 128), (0, "core*32"), (128, 32), s_order=(1, 0))
    want = expected_copy(X, Y0, ("core*32", 0), (32, 128), (0, "core*32"), (128, 32), s_order=(1, 0))
    for mode in MODES:
        out = run(text, mode, src=device(X, STICK), dst=device(Y0, STICK))
        np.testing.assert_array_equal(out["dst"], device(want, STICK))


def test_f16_marked_view():
    x = X.astype(np.float16)
    y = Y0.astype(np.float16)
    for ext, at in (((32, 128), ("core*32", 0)), ((4, 32), ("core*4", 48))):
        text = copy_kernel(STICK, None, at, ext, elt="f16")
        want = expected_copy(x, y, at, ext)
        for mode in MODES:
            out = run(text, mode, src=device(x, STICK), dst=y)
            np.testing.assert_array_equal(out["dst"], want)


def test_marked_and_unmarked_kernels_differ_by_the_layout_permutation():
    """One kernel, with and without markers: the marked run on the device form
    of the inputs leaves the device form of the unmarked run's outputs."""
    for ext, at in (((32, 128), ("core*32", 0)), ((4, 32), ("core*4", 48)), ((16, 64), ("core*16", 64))):
        plain = copy_kernel(None, None, at, ext, double=True)
        marked = copy_kernel(STICK, STICK, at, ext, double=True)
        assert marked.count("spyre.tensor_layout") == 2
        for mode in MODES:
            logical = run(plain, mode, src=X, dst=Y0)["dst"]
            raw = run(marked, mode, src=to_device(X, STICK), dst=to_device(Y0, STICK))["dst"]
            np.testing.assert_array_equal(raw, to_device(logical, STICK))
            assert not np.array_equal(raw.reshape(-1), logical.reshape(-1))


def test_a_marker_with_the_identity_layout_changes_nothing():
    ident = Layout.identity(2)
    text = copy_kernel(ident, ident, ("core*4", 48), (4, 32))
    for mode in MODES:
        out = run(text, mode, src=X, dst=Y0)
        np.testing.assert_array_equal(out["dst"], expected_copy(X, Y0, ("core*4", 48), (4, 32)))


def test_two_markers_with_one_layout_are_fine():
    text = copy_kernel(STICK, None, ("core*32", 0), (32, 128))
    text = text.replace(marker("vs", (128, 128), "f32", STICK), marker("vs", (128, 128), "f32", STICK) * 2)
    assert text.count("spyre.tensor_layout") == 2
    out = run(text, src=to_device(X, STICK), dst=Y0)
    np.testing.assert_array_equal(out["dst"], X)


def indirect_kernel(layout) -> str:
    """Core c gathers rows idx[c, :] of `src` (columns [8c + 4, 8c + 20)) and scatters them, doubled, to `dst`."""
    shape = (16, 64)
    return (
        "func.func @ind(%src: index, %idx: index, %dst: index) attributes {grid = [2]} {\n"
        "  %core = ktdp.get_compute_tile_id : index\n"
        "  %c8 = arith.constant 8 : index\n"
        "  %c4 = arith.constant 4 : index\n"
        "  %c8c = arith.muli %core, %c8 : index\n"
        "  %col = arith.addi %c8c, %c4 : index\n"
        + view("vs", "%src", shape, "f32", layout)
        + view("vi", "%idx", (2, 3), "i32")
        + view("vd", "%dst", shape, "f32", layout)
        + """  %t = ktdp.construct_indirect_access_tile intermediate_variables(%b, %e)
       %vs[ind(%vi[%core, %b]), (%e + %col)] {
       variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
       variables_space_order = affine_map<(d0, d1) -> (d0, d1)>}
     : memref<16x64xf32>, memref<2x3xi32> -> !ktdp.access_tile<3x16xindex>
  %rows = ktdp.load %t : !ktdp.access_tile<3x16xindex> -> tensor<3x16xf32>
  %s = ktdp.construct_indirect_access_tile intermediate_variables(%b, %e)
       %vd[ind(%vi[%core, %b]), (%e + %col)] {
       variables_space_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 2 >= 0, d1 >= 0, -d1 + 15 >= 0)>,
       variables_space_order = affine_map<(d0, d1) -> (d0, d1)>}
     : memref<16x64xf32>, memref<2x3xi32> -> !ktdp.access_tile<3x16xindex>
  %twice = arith.addf %rows, %rows : tensor<3x16xf32>
  ktdp.store %twice, %s : tensor<3x16xf32>, !ktdp.access_tile<3x16xindex>
  return
}
"""
    )


def test_indirect_tiles_through_a_marked_view():
    layout = Layout.from_arrays([1, 0, 1], [1, 0, 2], [16, 0, 16], 2)
    src = RNG.standard_normal((16, 64)).astype(np.float32)
    dst = np.zeros((16, 64), np.float32)
    idx = np.array([[3, 0, 9], [15, 7, 1]], np.int32)
    want = dst.copy()
    for c in range(2):
        cols = slice(8 * c + 4, 8 * c + 20)
        for r in idx[c]:
            want[r, cols] = 2 * src[r, cols]
    results = []
    for mode in MODES:
        out = run(indirect_kernel(layout), mode, src=device(src, layout), idx=idx, dst=device(dst, layout))
        np.testing.assert_array_equal(out["dst"], device(want, layout))
        results.append(out["dst"])
    np.testing.assert_array_equal(*results)
    plain = run(indirect_kernel(None), src=src, idx=idx, dst=dst)["dst"]
    np.testing.assert_array_equal(plain, want)


def test_marked_partitions_of_a_distributed_view():
    layout = Layout.from_arrays([1, 0, 1], [1, 0, 2], [16, 0, 16], 2)
    text = (
        "func.func @dist(%top: index, %bottom: index, %out: index) {\n"
        + view("p0", "%top", (4, 32), "f32", layout)
        + view("p1b", "%bottom", (4, 32), "f32", layout).replace(
            "coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 3 >= 0,",
            "coordinate_set = affine_set<(d0, d1) : (d0 - 4 >= 0, -d0 + 7 >= 0,",
        )
        + "  %g = ktdp.construct_distributed_memory_view (%p0, %p1b : memref<4x32xf32>, memref<4x32xf32>) : memref<8x32xf32>\n"
        + tile("tw", "g", ["0", "0"], (8, 32), (8, 32))
        + tile("tp", "g", ["2", "8"], (4, 16), (8, 32))  # across the partitions: the point path
        + "  %w = ktdp.load %tw : !ktdp.access_tile<8x32xindex> -> tensor<8x32xf32>\n"
        + "  %p = ktdp.load %tp : !ktdp.access_tile<4x16xindex> -> tensor<4x16xf32>\n"
        + view("vo", "%out", (12, 32))
        + tile("to", "vo", ["0", "0"], (8, 32), (12, 32))
        + tile("to2", "vo", ["8", "0"], (4, 16), (12, 32))
        + "  ktdp.store %w, %to : tensor<8x32xf32>, !ktdp.access_tile<8x32xindex>\n"
        + "  ktdp.store %p, %to2 : tensor<4x16xf32>, !ktdp.access_tile<4x16xindex>\n"
        + "  return\n}\n"
    )
    top = RNG.standard_normal((4, 32)).astype(np.float32)
    bottom = RNG.standard_normal((4, 32)).astype(np.float32)
    out = run(text, top=device(top, layout), bottom=device(bottom, layout), out=np.zeros((12, 32), np.float32))
    whole = np.concatenate([top, bottom])
    np.testing.assert_array_equal(out["out"][:8], whole)
    np.testing.assert_array_equal(out["out"][8:, :16], whole[2:6, 8:24])


# -- LX (ct_local) ------------------------------------------------------------


def lx_kernel(layout, ct_id: int | None, grid: int, ext=(64, 128), at=("0", "0")) -> str:
    """Core k: rows [64k, 64k + 64) of `src` -> a marked ct_local view -> read back
    through a plain flat ct_local view at the same address -> row k of `out`."""
    space = "ct_local" if ct_id is None else f"ct_local, ct_id = {ct_id}"
    n = 64 * 128
    text = (
        f"func.func @lx(%src: index, %out: index) attributes {{grid = [{grid}]}} {{\n"
        + PRELUDE
        + "  %rows = arith.muli %core, %c16 : index\n"
        + view("vs", "%src", (64 * grid, 128))
        + view("vl", "%c0", (64, 128), "f32", layout, space)
        + view("vf", "%c0", (n,), "f32", None, space)
        + view("vo", "%out", (grid, n))
        + tile("ts", "vs", ["%core * 64", "0"], (64, 128), (64 * grid, 128))
        + tile("tl", "vl", list(at), ext, (64, 128))
        + tile("tf", "vf", ["0"], (n,), (n,))
        + tile("to", "vo", ["%core", "0"], (1, n), (grid, n))
        + "  %t = ktdp.load %ts : !ktdp.access_tile<64x128xindex> -> tensor<64x128xf32>\n"
        + "  ktdp.store %t, %tl0 : tensor<64x128xf32>, !ktdp.access_tile<64x128xindex>\n"
        + f"  %f = ktdp.load %tf : !ktdp.access_tile<{n}xindex> -> tensor<{n}xf32>\n"
        + f"  %f2 = tensor.expand_shape %f [[0, 1]] output_shape [1, {n}] : tensor<{n}xf32> into tensor<1x{n}xf32>\n"
        + f"  ktdp.store %f2, %to : tensor<1x{n}xf32>, !ktdp.access_tile<1x{n}xindex>\n"
        + "  return\n}\n"
    )
    return text.replace("%tl0", "%tl")


@pytest.mark.parametrize("layout", [STICK, None], ids=["marked", "plain"])
@pytest.mark.parametrize("ct_id", [None, 0], ids=["own_core", "ct_id_0"])
def test_marked_ct_local_view_places_lx_addresses(ct_id, layout):
    # (plain, own_core) batched: a load through a ct_local view without ct_id
    # differs between cores, so the view is a varying value
    grid = 4 if ct_id is None else 1
    src = RNG.standard_normal((64 * grid, 128)).astype(np.float32)
    text = lx_kernel(layout, ct_id, grid)
    results = []
    for mode in MODES:
        out = run(text, mode, src=src, out=np.zeros((grid, 64 * 128), np.float32))
        for k in range(grid):
            rows = src[64 * k : 64 * k + 64]
            np.testing.assert_array_equal(out["out"][k], device(rows, layout).reshape(-1))
        results.append(out["out"])
        assert out.report.lx_explicit_peak == 64 * 128 * 4
    np.testing.assert_array_equal(*results)


def test_uninitialized_read_through_a_marked_view_is_caught():
    # write the first stick column only (columns 0..63), then read the whole LX view
    text = (
        "func.func @k(%out: index) {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %z = arith.constant dense<1.0> : tensor<8x64xf32>\n"
        + view("vl", "%c0", (8, 128), "f32", STICK, "ct_local")
        + view("vo", "%out", (8, 128))
        + tile("half", "vl", ["0", "0"], (8, 64), (8, 128))
        + tile("all", "vl", ["0", "0"], (8, 128), (8, 128))
        + tile("pt", "vl", ["0", "48"], (8, 32), (8, 128))
        + tile("to", "vo", ["0", "0"], (8, 128), (8, 128))
        + "  ktdp.store %z, %half : tensor<8x64xf32>, !ktdp.access_tile<8x64xindex>\n"
        + "  %a = ktdp.load READ : !ktdp.access_tile<SHAPExindex> -> tensor<SHAPExf32>\n"
        + "  return\n}\n"
    )
    ok = text.replace("READ", "%half").replace("SHAPE", "8x64")
    run(ok, out=np.zeros((8, 128), np.float32))  # the written half reads fine (it is one contiguous stick)
    for read, shape in (("%all", "8x128"), ("%pt", "8x32")):  # box path, point path
        bad = text.replace("READ", read).replace("SHAPE", shape)
        with pytest.raises(spyre_mlir.DiagnosticError) as info:
            run(bad, out=np.zeros((8, 128), np.float32))
        assert "read of uninitialized LX of core 0" in info.value.diagnostic.message
        assert info.value.diagnostic.location.line == line_of(bad, "ktdp.load")
    relaxed = text.replace("READ", "%all").replace("SHAPE", "8x128")
    run(relaxed, options={"check_uninitialized": False}, out=np.zeros((8, 128), np.float32))


@pytest.mark.parametrize("ext, at", [((4, 128), (60, 0)), ((4, 32), (60, 48))], ids=["box", "points"])
def test_a_marked_view_past_its_argument_is_caught(ext, at):
    # a 128x128 marked view over a 64x128 array: its second stick column (columns
    # 64..127) starts at element offset 8192, past the array
    text = copy_kernel(STICK, None, at, ext, grid=1)
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(text, src=np.zeros((64, 128), np.float32), dst=Y0)
    message = info.value.diagnostic.message
    assert "runs past the end of argument 'src'" in message
    assert info.value.diagnostic.location.line == line_of(text, "ktdp.load")
    # the first stick column lies inside the array
    run(copy_kernel(STICK, None, (60, 0), (4, 64), grid=1), src=np.zeros((64, 128), np.float32), dst=Y0)


@pytest.mark.parametrize(
    "src_layout, ext, at",
    [(STICK, (4, 64), (100, 64)), (STICK, (4, 32), (100, 48)), (None, (4, 64), (100, 0))],
    ids=["marked_box_in_the_neighbour", "marked_points_half_in_the_neighbour", "plain_box_in_the_neighbour"],
)
def test_a_view_never_reaches_into_the_next_argument(src_layout, ext, at):
    """A 128x128 view over a 64x128 array: the accesses land inside the next
    argument (`dst`), never a silent read of it."""
    text = copy_kernel(src_layout, None, at, ext, grid=1)
    for mode in MODES:
        with pytest.raises(spyre_mlir.DiagnosticError) as info:
            run(text, mode, src=np.zeros((64, 128), np.float32), dst=Y0)
        message = info.value.diagnostic.message
        assert "runs past the end of argument 'src'" in message and "which holds the view's base" in message
        assert info.value.diagnostic.location.line == line_of(text, "ktdp.load")


# ---------------------------------------------------------------------------
# Located errors at the marker
# ---------------------------------------------------------------------------


def error_of(text, **args):
    args = args or {"src": X, "dst": Y0}
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(text, **args)
    return info.value.diagnostic


def test_unsupported_layout_is_located_at_the_marker():
    text = copy_kernel(STICK, None, ("core*32", 0), (32, 128)).replace(
        "phys_op = array<i64: 1, 0, 2>", "phys_op = array<i64: 1, 0, 1>", 1
    )
    d = error_of(text)
    assert d.message == (
        "unsupported layout: d1 appears as outer, outer: each dim must be whole (identity) or split once "
        "(floordiv a and mod a)"
    )
    assert d.location.line == line_of(text, "spyre.tensor_layout")


def test_dynamic_sizes_of_a_marked_view_are_an_error():
    text = """func.func @k(%src: index, %n: index) {
  %v = ktdp.construct_memory_view %src, sizes: [%n, 128], strides: [128, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<?x128xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<?x128xf32>
  return
}
"""
    d = error_of(text, src=X, n=128)
    assert d.message == "a marked view must have static sizes (its layout places them), got [?, 128]"
    assert (d.location.line, d.location.col) == (5, 3)


# ---------------------------------------------------------------------------
# Partial sticks: a marked view whose split dim is not a multiple of its stick
# ---------------------------------------------------------------------------

S32 = Layout.stick_last(2, 32)  # f32: 32 elements a 128-byte stick
S64 = Layout.stick_last(2, 64)  # f16: 64
R64 = Layout.from_arrays([0, 1, 0], [1, 0, 2], [64, 0, 64], 2)  # f16, sticks on the rows

# (element type, logical shape, layout, the tiles cores copy: (anchor, extents)), on a grid of 2.
PARTIAL_COPIES = {
    "f32_whole_rows": ("f32", (8, 48), S32, (("core*4", 0), (4, 48))),
    "f32_the_partial_stick": ("f32", (8, 48), S32, (("core*4", 32), (4, 16))),
    "f32_across_into_it": ("f32", (8, 48), S32, (("core*4", 16), (4, 32))),
    "f32_inside_one_stick": ("f32", (8, 48), S32, ((0, "core*16"), (8, 16))),
    "f16_whole_rows": ("f16", (8, 96), S64, (("core*4", 0), (4, 96))),
    "f16_across_into_it": ("f16", (8, 96), S64, (("core*4", 48), (4, 48))),
    "f16_sticks_on_rows": ("f16", (96, 8), R64, (("core*32", 0), (32, 8))),
    "f16_sticks_on_rows_last": ("f16", (96, 8), R64, ((64, "core*4"), (32, 4))),
}


def padding_of(layout: Layout, shape) -> np.ndarray:
    """Which elements of the padded device tensor of `shape` are padding."""
    return to_device(np.ones(shape, np.float32), layout, pad=True) == 0


@pytest.mark.parametrize("case", sorted(PARTIAL_COPIES))
@pytest.mark.parametrize("mode", MODES)
def test_a_partial_stick_view_is_placed_padded(case, mode):
    """The marked view is the physical tensor of its padded shape from its base:
    the marked kernel on padded device arrays (`to_device(..., pad=True)`)
    leaves what the unmarked kernel leaves on the host arrays, and the padding
    is neither read (it holds NaN here) nor written."""
    elt, shape, layout, (at, ext) = PARTIAL_COPIES[case]
    dtype = np.float32 if elt == "f32" else np.float16
    rng = np.random.default_rng(3)
    src, dst = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    marked = copy_kernel(layout, layout, at, ext, shape=shape, elt=elt, grid=2, double=True)
    logical = copy_kernel(None, None, at, ext, shape=shape, elt=elt, grid=2, double=True)
    reference = run(logical, mode, src=src, dst=dst)
    np.testing.assert_array_equal(reference["dst"], expected_copy(src, dst, at, ext, grid=2, double=True))
    pad = padding_of(layout, shape)
    assert pad.any()
    src_device, dst_device = to_device(src, layout, pad=True), to_device(dst, layout, pad=True)
    src_device[pad] = np.nan
    dst_device[pad] = 7
    out = run(marked, mode, src=src_device, dst=dst_device)
    np.testing.assert_array_equal(from_device(out["dst"], shape, layout, pad=True), reference["dst"])
    assert (out["dst"][pad] == 7).all(), "the padding was written"


def test_host_layouts_of_a_partial_stick_marker_are_the_padded_shape():
    """As `spyre-physicalize-layouts` records it: the parameter holds the padded tensor."""
    module = spyre_mlir.parse(copy_kernel(S32, None, (0, 0), (8, 48), shape=(8, 48), grid=1))
    assert host_layouts(Interpreter(module).kernel(None)) == {0: (S32, (8, 64))}


PARTIAL_STICKS = Path(__file__).parent / "kernels" / "layout" / "partial_sticks.mlir"


@pytest.mark.parametrize("mode", MODES)
def test_a_partial_stick_kernel_runs_as_its_physicalized_form(mode):
    """`out = x + 1` on `[8, 48]` f32 views with sticks of 32: the marked kernel
    and the kernel `spyre-physicalize-layouts` makes of it leave the same HBM
    bytes, on device arrays and on (padded) host arrays."""
    text = PARTIAL_STICKS.read_text()
    marked = spyre_mlir.parse(text)
    physical = spyre_mlir.parse(text)
    spyre_mlir.PassManager.parse("spyre-physicalize-layouts").run(physical)
    name = "padded_view_elementwise"
    x = np.random.default_rng(4).standard_normal((8, 48)).astype(np.float32)
    device_args = {"x": to_device(x, S32, pad=True), "out": to_device(np.zeros_like(x), S32, pad=True)}
    a = run_kernel(marked, name, mode, **device_args)
    b = run_kernel(physical, name, mode, **device_args)
    np.testing.assert_array_equal(a["out"], b["out"])
    np.testing.assert_array_equal(from_device(a["out"], x.shape, S32, pad=True), x + 1)
    wide = np.zeros((8, 64), np.float32)
    wide[:, :48] = x
    host_a = run_kernel(marked, name, mode, {"host_layout": True}, x=wide, out=np.zeros_like(wide))
    host_b = run_kernel(physical, name, mode, {"host_layout": True}, x=wide, out=np.zeros_like(wide))
    np.testing.assert_array_equal(host_a["out"], host_b["out"])
    np.testing.assert_array_equal(host_a["out"][:, :48], x + 1)


def run_kernel(module, name, mode, options=None, **args):
    return spyre_mlir.interpret(module, name, options=InterpreterOptions(execution=mode, **(options or {})), **args)


def test_a_marker_on_a_value_that_is_not_a_memory_view():
    text = (
        "func.func @k(%a: index, %b: index) {\n"
        + view("p0", "%a", (4, 64))
        + view("p1", "%b", (4, 64)).replace("(d0 >= 0, -d0 + 3 >= 0,", "(d0 - 4 >= 0, -d0 + 7 >= 0,")
        + "  %g = ktdp.construct_distributed_memory_view (%p0, %p1 : memref<4x64xf32>, memref<4x64xf32>) : memref<8x64xf32>\n"
        + marker("g", (8, 64), "f32", STICK)
        + "  return\n}\n"
    )
    d = error_of(text, a=np.zeros((4, 64), np.float32), b=np.zeros((4, 64), np.float32))
    assert d.message == (
        "a layout marker must mark the result of a 'ktdp.construct_memory_view' (the view whose elements it "
        "places), not a result of 'ktdp.construct_distributed_memory_view'"
    )
    assert d.location.line == line_of(text, "spyre.tensor_layout")


def test_two_markers_with_different_layouts():
    text = copy_kernel(STICK, None, ("core*32", 0), (32, 128))
    first = marker("vs", (128, 128), "f32", STICK)
    text = text.replace(first, first + marker("vs", (128, 128), "f32", ROWS32))
    d = error_of(text)
    assert d.message == (
        "the view is marked with two layouts: [d0 floordiv 32, d1, d0 mod 32] here and "
        "[d1 floordiv 64, d0, d1 mod 64] by an earlier marker"
    )
    assert d.location.line == line_of(text, "spyre.tensor_layout", 2)
    assert d.notes[0].message == "the earlier marker" and d.notes[0].location.line == line_of(
        text, "spyre.tensor_layout"
    )


def test_strides_of_a_marked_view_must_be_contiguous():
    text = "func.func @k(%src: index) {\n" + view("v", "%src", (128, 128), "f32", STICK, strides=[256, 1])
    text += "  return\n}\n"
    d = error_of(text, src=np.zeros((128, 256), np.float32))
    assert d.message == (
        "a marked view's elements are placed by its layout; its strides must be the contiguous row-major "
        "strides [128, 1] of its sizes, got [256, 1]"
    )
    assert d.location.line == line_of(text, "spyre.tensor_layout")


def test_dynamic_strides_of_a_marked_view_are_checked_when_it_is_built():
    text = """func.func @k(%src: index, %s: index) {
  %v = ktdp.construct_memory_view %src, sizes: [128, 128], strides: [%s, 1] {
    coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + 127 >= 0, d1 >= 0, -d1 + 127 >= 0)>,
    memory_space = #ktdp.memory_space<global>} : memref<128x128xf32>
  spyre.tensor_layout %v {phys_src = array<i64: 1, 0, 1>, phys_op = array<i64: 1, 0, 2>, phys_arg = array<i64: 64, 0, 64>} : memref<128x128xf32>
  return
}
"""
    run(text, src=X, s=128)
    d = error_of(text, src=np.zeros((128, 130), np.float32), s=130)
    assert d.message.endswith("strides [128, 1] of its sizes, got [130, 1]")
    assert d.location.line == 5


# ---------------------------------------------------------------------------
# spyre.relayout
# ---------------------------------------------------------------------------


def layout_text(layout: Layout) -> str:
    return "[" + ", ".join(f"array<i64: {', '.join(map(str, a))}>" for a in layout.arrays()) + "]"


def relayout(name, value, source, target, in_shape, out_shape, elt="f32") -> str:
    return (
        f"  %{name} = spyre.relayout %{value} {{from = {layout_text(source)}, to = {layout_text(target)}}} : "
        f"tensor<{'x'.join(map(str, in_shape))}x{elt}> -> tensor<{'x'.join(map(str, out_shape))}x{elt}>\n"
    )


@pytest.mark.parametrize(
    "a, b",
    [(Layout.identity(2), STICK), (STICK, ROWS32), (ROWS32, BOTH)],
    ids=["identity-stick", "stick-rows32", "rows32-both"],
)
def test_relayout_round_trip(a, b):
    shape = (64, 128)
    pa, pb = a.physical_shape(shape), b.physical_shape(shape)
    elt = lambda s: "x".join(map(str, s)) + "xf32"  # noqa: E731
    text = (
        f"func.func @r(%x: tensor<{elt(pa)}>) -> (tensor<{elt(pb)}>, tensor<{elt(pa)}>) {{\n"
        + relayout("y", "x", a, b, pa, pb)
        + relayout("z", "y", b, a, pb, pa)
        + f"  return %y, %z : tensor<{elt(pb)}>, tensor<{elt(pa)}>\n}}\n"
    )
    logical = RNG.standard_normal(shape).astype(np.float32)
    out = spyre_mlir.interpret(text, x=to_device(logical, a))
    np.testing.assert_array_equal(out["return_0"], to_device(logical, b))
    np.testing.assert_array_equal(out["return_1"], to_device(logical, a))
    assert out.report.relayout_bytes == [2 * 2 * 64 * 128 * 4]  # two relayouts, each reads and writes 32 KiB
    assert "relayout bytes per core: max 131072 (total 131072)" in out.report.render()


def relayout_kernel(guarded: bool) -> str:
    """Core k relayouts rows [32k, 32k + 32) of x (f16) to sticks of 64 and back, and stores them."""
    shape, phys = (32, 128), (2, 32, 64)
    ident = Layout.identity(2)
    body = relayout("y", "t", ident, STICK, shape, phys, "f16") + relayout("z", "y", STICK, ident, phys, shape, "f16")
    text = (
        "func.func @k(%x: index, %out: index) attributes {grid = [4]} {\n"
        + PRELUDE
        + view("vx", "%x", (128, 128), "f16")
        + view("vo", "%out", (128, 128), "f16")
        + tile("tx", "vx", ["%core * 32", "0"], shape, (128, 128), "f16")
        + tile("to", "vo", ["%core * 32", "0"], shape, (128, 128), "f16")
        + "  %t = ktdp.load %tx : !ktdp.access_tile<32x128xindex> -> tensor<32x128xf16>\n"
    )
    if guarded:
        text += (
            "  %first = arith.cmpi eq, %core, %c0 : index\n"
            "  %r = scf.if %first -> (tensor<32x128xf16>) {\n"
            + body.replace("  %", "    %", 2)
            + "    scf.yield %z : tensor<32x128xf16>\n  } else {\n    scf.yield %t : tensor<32x128xf16>\n  }\n"
            "  ktdp.store %r, %to : tensor<32x128xf16>, !ktdp.access_tile<32x128xindex>\n"
        )
    else:
        text += body + "  ktdp.store %z, %to : tensor<32x128xf16>, !ktdp.access_tile<32x128xindex>\n"
    return text + "  return\n}\n"


@pytest.mark.parametrize("guarded", [False, True], ids=["every_core", "core_0_only"])
def test_relayout_bytes_per_core(guarded):
    x = X.astype(np.float16)
    per = 2 * 2 * 32 * 128 * 2  # two relayouts of 32x128 f16, each read and written
    want = [per, 0, 0, 0] if guarded else [per] * 4
    for mode in MODES:
        out = run(relayout_kernel(guarded), mode, x=x, out=np.zeros_like(x))
        np.testing.assert_array_equal(out["out"], x)
        assert out.report.relayout_bytes == want
        assert f"relayout bytes per core: max {per} (total {sum(want)})" in out.report.render()


def test_no_relayout_no_figure():
    out = run(copy_kernel(None, None, ("core*32", 0), (32, 128)), src=X, dst=Y0)
    assert out.report.relayout_bytes == []
    assert "relayout" not in out.report.render()


# ---------------------------------------------------------------------------
# Host layouts of parameters
# ---------------------------------------------------------------------------

PHYSICAL_COPY = f"""func.func @copy(%src: index {{{HOST_LAYOUT_ATTR} = {host_layout_attr(STICK, (128, 128))}}},
                 %dst: index {{{HOST_LAYOUT_ATTR} = {host_layout_attr(STICK, (128, 128))}}}) attributes {{grid = [2]}} {{
  %core = ktdp.get_compute_tile_id : index
{view("vs", "%src", (2, 128, 64))}{view("vd", "%dst", (2, 128, 64))}{tile("ts", "vs", ["0", "%core * 64", "0"], (2, 64, 64), (2, 128, 64))}{tile("td", "vd", ["0", "%core * 64", "0"], (2, 64, 64), (2, 128, 64))}  %t = ktdp.load %ts : !ktdp.access_tile<2x64x64xindex> -> tensor<2x64x64xf32>
  ktdp.store %t, %td : tensor<2x64x64xf32>, !ktdp.access_tile<2x64x64xindex>
  return
}}
"""


def test_host_layouts_of_a_marked_kernel():
    module = spyre_mlir.parse(copy_kernel(STICK, ROWS32, ("core*32", 0), (32, 128)))
    func_op = Interpreter(module).kernel(None)
    assert host_layouts(func_op) == {0: (STICK, (128, 128)), 1: (ROWS32, (128, 128))}
    assert host_layouts(Interpreter(spyre_mlir.parse(copy_kernel(None, STICK, (0, 0), (4, 4)))).kernel(None)) == {
        1: (STICK, (128, 128))
    }


def test_host_layouts_from_the_arg_attribute():
    func_op = Interpreter(spyre_mlir.parse(PHYSICAL_COPY)).kernel(None)
    assert host_layouts(func_op) == {0: (STICK, (128, 128)), 1: (STICK, (128, 128))}


def test_host_layouts_ignore_views_not_directly_on_a_parameter():
    text = (
        "func.func @k(%src: index) {\n  %c8 = arith.constant 8 : index\n  %b = arith.addi %src, %c8 : index\n"
        + view("v", "%b", (4, 64), "f32", STICK)
        + "  return\n}\n"
    )
    assert host_layouts(Interpreter(spyre_mlir.parse(text)).kernel(None)) == {}


def test_ambiguous_host_layouts_name_the_markers():
    text = (
        "func.func @k(%src: index) {\n"
        + view("a", "%src", (128, 128), "f32", STICK)
        + view("b", "%src", (128, 128), "f32", ROWS32)
        + "  return\n}\n"
    )
    from spyre_mlir import ir

    func_op = Interpreter(ir.parse_module(text, "amb.mlir")).kernel(None)
    with pytest.raises(LayoutError) as info:
        host_layouts(func_op)
    first, second = line_of(text, "spyre.tensor_layout"), line_of(text, "spyre.tensor_layout", 2)
    assert str(info.value) == (
        "parameter #0 (%src) has views marked with different layouts, so its host layout is ambiguous: "
        f"[d1 floordiv 64, d0, d1 mod 64] of [128, 128] (marker at amb.mlir:{first}:3); "
        f"[d0 floordiv 32, d1, d0 mod 32] of [128, 128] (marker at amb.mlir:{second}:3)"
    )
    # the kernel itself runs (each view has one layout); placing host arrays is what is ambiguous
    run(text, src=X)
    with pytest.raises(spyre_mlir.DiagnosticError) as located:
        run(text, options={"host_layout": True}, src=X)
    assert located.value.diagnostic.message.startswith("cannot place host arrays (host_layout option): parameter #0")
    assert located.value.diagnostic.location.line == 1


def test_an_attribute_that_disagrees_with_the_markers():
    text = copy_kernel(STICK, None, (0, 0), (4, 4)).replace(
        "%src: index", f"%src: index {{{HOST_LAYOUT_ATTR} = {host_layout_attr(ROWS32, (128, 128))}}}"
    )
    with pytest.raises(LayoutError, match=r"parameter #0 \(%src\): its spyre.host_layout attribute says"):
        host_layouts(Interpreter(spyre_mlir.parse(text)).kernel(None))


@pytest.mark.parametrize("mode", MODES)
def test_host_layout_option_round_trip(mode):
    """Logical arrays in, logical arrays out; HBM holds the device form."""
    text = copy_kernel(STICK, None, ("core*32", 0), (32, 128), double=True)
    out = run(text, mode, {"host_layout": True}, src=X, dst=Y0)
    np.testing.assert_array_equal(out["src"], X)  # logical again
    np.testing.assert_array_equal(out["dst"], 2 * X)  # dst has no layout: raw, as always
    address = out.report.arguments["src"].address
    np.testing.assert_array_equal(out.read_hbm(address, (2, 128, 64), np.float32), to_device(X, STICK))
    assert "placed in layout [d1 floordiv 64, d0, d1 mod 64]" in str(out.report.arguments["src"])
    # marked source and destination, logical both ways
    both = run(copy_kernel(STICK, ROWS32, ("core*4", 48), (4, 32)), mode, {"host_layout": True}, src=X, dst=Y0)
    np.testing.assert_array_equal(both["dst"], expected_copy(X, Y0, ("core*4", 48), (4, 32)))
    address = both.report.arguments["dst"].address
    np.testing.assert_array_equal(both.read_hbm(address, (4, 128, 32), np.float32), to_device(both["dst"], ROWS32))
    # the default: raw device memory
    raw = run(text, mode, src=to_device(X, STICK).reshape(128, 128), dst=Y0)
    np.testing.assert_array_equal(raw["dst"], 2 * X)


def test_marked_and_physical_kernels_agree_on_host_arrays_and_hbm():
    """What translation validation compares: the marked kernel and its physical
    form, run on the same host arrays, leave the same HBM bytes."""
    marked = copy_kernel(STICK, STICK, ("core*64", 0), (64, 128), grid=2)
    for mode in MODES:
        a = run(marked, mode, {"host_layout": True}, src=X, dst=Y0)
        b = run(PHYSICAL_COPY, mode, {"host_layout": True}, src=X, dst=Y0)
        np.testing.assert_array_equal(a["dst"], X)
        np.testing.assert_array_equal(b["dst"], X)
        for name in ("src", "dst"):
            ra = a.read_hbm(a.report.arguments[name].address, (128 * 128,), np.float32)
            rb = b.read_hbm(b.report.arguments[name].address, (128 * 128,), np.float32)
            np.testing.assert_array_equal(ra, rb)


def test_host_layout_errors():
    with pytest.raises(TypeError, match="InterpreterOptions.host_layout must be a bool"):
        InterpreterOptions(host_layout="yes")
    text = copy_kernel(STICK, None, (0, 0), (4, 4))
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(text, options={"host_layout": True}, src=np.zeros((64, 256), np.float32), dst=Y0)
    assert info.value.diagnostic.message == (
        "argument 'src': its host layout [d1 floordiv 64, d0, d1 mod 64] lays out a logical 128x128 array, "
        "but a 64x256 array was passed"
    )
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        run(text, options={"host_layout": True, "memory_limit": 50_000}, src=X, dst=Y0)
    assert "the device layout of argument 'src' would allocate 64 KiB" in info.value.diagnostic.message


def test_spyre_run_host_layout(tmp_path: Path):
    from spyre_mlir.tools.spyre_run import main

    kernel = tmp_path / "copy.mlir"
    kernel.write_text(copy_kernel(STICK, None, ("core*32", 0), (32, 128)))
    np.save(tmp_path / "x.npy", X)
    args = [str(kernel), "--arg", f"src={tmp_path / 'x.npy'}", "--arg", "dst=zeros:128x128xf32"]
    assert main([*args, "--host-layout", "--out", str(tmp_path / "host")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "host" / "src.npy"), X)
    np.testing.assert_array_equal(np.load(tmp_path / "host" / "dst.npy"), X)
    assert main([*args, "--out", str(tmp_path / "raw")]) == 0  # x taken as device memory
    np.testing.assert_array_equal(np.load(tmp_path / "raw" / "dst.npy"), from_device(X, (128, 128), STICK))
    proc = subprocess.run(
        [sys.executable, "-m", "spyre_mlir.tools.spyre_run", *args, "--host-layout", "--print-summary"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "arg src: 128x128 float32 at element address" in proc.stdout
    assert "(host array, placed in layout [d1 floordiv 64, d0, d1 mod 64])" in proc.stdout
    help_text = subprocess.run(
        [sys.executable, "-m", "spyre_mlir.tools.spyre_run", "--help"], capture_output=True, text=True, timeout=120
    ).stdout
    assert "--host-layout" in help_text


IREE_OPT = shutil.which("iree-opt", path=str(Path(sys.executable).parent)) or shutil.which("iree-opt")


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt (iree-base-compiler) not installed")
def test_host_layout_attribute_parses_in_real_mlir():
    from spyre_mlir import ir

    attr = host_layout_attr(STICK, (128, 256))
    text = f"func.func @k(%x: index {{{HOST_LAYOUT_ATTR} = {attr}}}, %n: index) {{\n  return\n}}\n"
    proc = subprocess.run(
        [IREE_OPT, "--allow-unregistered-dialect", "-"], input=text, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "spyre.host_layout = {phys_arg = array<i64: 64, 0, 64>, phys_op = array<i64: 1, 0, 2>, " in proc.stdout
    # what MLIR prints back reads as the same host layout
    back = Interpreter(ir.parse_module(proc.stdout, "<iree-opt>")).kernel("k")
    assert host_layouts(back) == {0: (STICK, (128, 256))}
    # and the whole physical kernel, as we print it
    module = spyre_mlir.parse(PHYSICAL_COPY)
    printed = ir.print_ir(module, generic_dialects=("ktdp", "spyre"))
    proc = subprocess.run(
        [IREE_OPT, "--allow-unregistered-dialect", "-"], input=printed, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("spyre.host_layout") == 2
