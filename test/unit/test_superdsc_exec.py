"""The SuperDSC executor (interpreter/superdsc_exec.py) runs every torch-spyre corpus example on
random inputs placed in torch-spyre's default device layout, and matches a NumPy oracle of the op;
bad arguments, addresses and ops are refused with clear messages. Its fast paths (float16 relu and
rounding on the bits, the decode table, kept decodes, reused LX) compute what the plain NumPy path
computes, bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from spyre_mlir.interpreter.superdsc_exec import (
    _FLOAT16_TO_FLOAT32,
    CoreLocalMemory,
    FlatMemory,
    MemoryRangeError,
    SuperDscRunError,
    _decode,
    _relu,
    _round_to_float16,
    default_symbols,
    run_superdsc,
)
from spyre_mlir.superdsc import (
    Allocation,
    ComputeOp,
    DimCoordinates,
    Dsc,
    DsInfo,
    Fold,
    LabeledDs,
    SuperDsc,
    data_format,
    decode,
    default_device_shape,
    encode,
    from_default_layout,
    parse_superdsc,
    read_superdsc,
    to_default_layout,
)
from spyre_mlir.target import SPYRE

BUNDLES = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "torch-spyre-bundles"
needs_corpus = pytest.mark.skipif(not BUNDLES.is_dir(), reason="../shared/corpus/torch-spyre-bundles not present")

FP16, FP32 = "SEN169_FP16", "IEEE_FP32"


def _softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# example: (input shapes, output shape, format, oracle, positive inputs)
EXAMPLES = {
    "add": ([(512, 1024)] * 2, (512, 1024), FP16, lambda a, b: a + b),
    "sub": ([(512, 1024)] * 2, (512, 1024), FP16, lambda a, b: a - b),
    "mul": ([(512, 1024)] * 2, (512, 1024), FP16, lambda a, b: a * b),
    "relu": ([(512, 1024)], (512, 1024), FP16, lambda a: np.maximum(a, 0)),
    "exp": ([(512, 1024)], (512, 1024), FP16, np.exp),
    "sigmoid": ([(512, 1024)], (512, 1024), FP16, lambda a: 1 / (1 + np.exp(-a))),
    "fma": ([(512, 1024)] * 3, (512, 1024), FP16, lambda a, b, c: a * b + c),
    "softmax": ([(512, 1024)], (512, 1024), FP16, _softmax),
    "mm": ([(512, 1024), (1024, 256)], (512, 256), FP16, lambda a, b: a @ b),
    "add_fp32": ([(512, 1024)] * 2, (512, 1024), FP32, lambda a, b: a + b),
    "add_3d": ([(4, 256, 512)] * 2, (4, 256, 512), FP16, lambda a, b: a + b),
}


def bundle_calls(text: str, bases: list[int]) -> list[tuple[str, dict[int, int]]]:
    """(sdsc file, symbol id -> address) per `sdsc_execute` of a bundle.mlir, by regex (test-only)."""
    params = re.findall(r"%(\w+): !sdscbundle\.input_arg", text)
    values = {}
    for name, src in re.findall(r"%(\w+) = sdscbundle\.input_arg_extract value from %(\w+)", text):
        values[name] = bases[params.index(src)]
    for name, value in re.findall(r"%(\w+) = arith\.constant (-?\d+) : index", text):
        values[name] = int(value)
    for name, lhs, rhs in re.findall(r"%(\w+) = arith\.addi %(\w+), %(\w+) : index", text):
        values[name] = values[lhs] + values[rhs]
    calls = []
    pattern = r'sdscbundle\.sdsc_execute \(([^)]*)\) \{sdsc_filename="([^"]+)", "symbol_ids"=\[([^\]]*)\]\}'
    for operands, filename, ids in re.findall(pattern, text):
        names = [o.strip().lstrip("%") for o in operands.split(",") if o.strip()]
        symbols = [int(i) for i in ids.split(",") if i.strip()]
        assert len(names) == len(symbols)
        calls.append((filename, {s: values[n] for s, n in zip(symbols, names)}))
    return calls


ALIGN = 1 << 16


def place(shapes, fmt_name):
    """Bases and a FlatMemory with one region per tensor of `shapes` (default layout sizes)."""
    fmt = data_format(fmt_name)
    sizes = [int(np.prod(default_device_shape(s, fmt.word_length))) * fmt.word_length for s in shapes]
    bases, at = [], ALIGN
    for n in sizes:
        bases.append(at)
        at += -(-n // ALIGN) * ALIGN
    hbm = FlatMemory(at + ALIGN)
    regions = [hbm.add_region(b, n, f"argument {k}") for k, (b, n) in enumerate(zip(bases, sizes))]
    return hbm, bases, regions


def inputs_for(name, seed=0):
    shapes, _, fmt_name, _ = EXAMPLES[name]
    rng = np.random.default_rng(seed)
    storage = data_format(fmt_name).storage
    return [rng.standard_normal(s).astype(storage).astype(np.float32) for s in shapes]


def run_example(name, inputs, tensors_shapes=None, symbols_of=None, sdscs=None):
    """Run example `name` on `inputs`; returns (output, stats of each file)."""
    shapes, out_shape, fmt_name, _ = EXAMPLES[name]
    fmt = data_format(fmt_name)
    folder = BUNDLES / name
    hbm, bases, regions = place([*shapes, out_shape], fmt_name)
    for region, host in zip(regions, inputs):
        region[:] = to_default_layout(host, fmt)
    dtype = np.dtype(fmt.storage)
    tensors = [
        (f"argument {k}", b, s, dtype) for k, (b, s) in enumerate(zip(bases, tensors_shapes or [*shapes, out_shape]))
    ]
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)
    if (folder / "bundle.mlir").exists():
        calls = bundle_calls((folder / "bundle.mlir").read_text(), bases)
    else:
        calls = [("sdsc_0.json", None)]
    stats = []
    for filename, symbols in calls:
        sdsc = (sdscs or {}).get(filename) or read_superdsc(folder / filename)
        if symbols is None:
            symbols = (symbols_of or default_symbols)(sdsc, bases)
        stats.append(run_superdsc(sdsc, symbols, hbm, lx, source=f"{name}/{filename}", tensors=tensors))
    return from_default_layout(regions[-1], out_shape, fmt), stats


def expected_of(name, inputs):
    _, _, fmt_name, oracle = EXAMPLES[name]
    storage = data_format(fmt_name).storage
    return oracle(*[x.astype(np.float64) for x in inputs]).astype(storage).astype(np.float32)


@needs_corpus
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_matches_numpy(name):
    inputs = inputs_for(name)
    out, stats = run_example(name, inputs)
    expected = expected_of(name, inputs)
    if EXAMPLES[name][2] == FP32:
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)
    elif name == "mm":
        np.testing.assert_allclose(out, expected, rtol=2e-3, atol=2e-2)
    else:
        np.testing.assert_allclose(out, expected, rtol=4e-3, atol=1e-3)
    out_elements = int(np.prod(EXAMPLES[name][1]))
    assert (
        sum(sum(s.bytes_written.values()) for s in stats) >= out_elements * data_format(EXAMPLES[name][2]).word_length
    )


@needs_corpus
def test_bundle_symbols_agree_with_default_symbols():
    # the compiler's per-core offsets (bundle.mlir's arith.addi) are those default_symbols derives
    # from the layouts, given each tensor's base (its core 0 symbol: core 0 starts at the origin)
    checked = 0
    for folder in sorted(BUNDLES.iterdir()):
        if not (folder / "bundle.mlir").exists():
            continue
        bases = [ALIGN * (1 + 64 * k) for k in range(8)]
        for filename, symbols in bundle_calls((folder / "bundle.mlir").read_text(), bases):
            sdsc = read_superdsc(folder / filename)
            hbm = [a for a in sdsc.dscs[0].schedule if a.component == "hbm" and a.start_addr_symbolic]
            derived = default_symbols(sdsc, [symbols[a.start_address[0]] for a in hbm])
            assert derived == symbols, f"{folder.name}/{filename}"
            checked += bool(symbols)
    assert checked >= 6


@needs_corpus
def test_softmax_keeps_lx_between_files():
    inputs = inputs_for("softmax")
    out, stats = run_example("softmax", inputs)
    assert stats[0].bytes_written == {"lx": 512 * 1024 * 2}  # sdsc_0 copies HBM to LX
    assert stats[1].bytes_read == {"lx": 512 * 1024 * 2} and stats[1].elements == {"max": 512 * 1024}
    assert stats[5].bytes_written == {"hbm": 512 * 1024 * 2}


@needs_corpus
def test_overlapping_folds_take_the_indexed_path():
    # the mb folds of every tensor rewritten as row_fold(2, alpha 1) + elem_arr_0(255, alpha 1):
    # coordinates overlap (not a mixed radix) but still cover the 256 rows of a core's slice
    obj = json.loads((BUNDLES / "add" / "sdsc_0.json").read_text())
    (dsc,) = obj["0_add"]["dscs_"][0].values()
    for node in dsc["scheduleTree_"]:
        folds = node["coordinates_"]["coordInfo"]["mb"]["folds"]
        folds["dim_prop_attr"][2]["factor_"] = 2
        folds["dim_prop_func"][2]["Affine"]["alpha_"] = 1
        folds["dim_prop_attr"][3]["factor_"] = 255
    sdsc = parse_superdsc(obj, "add/sdsc_0.json (mutated)")
    inputs = inputs_for("add", seed=1)
    out, _ = run_example("add", inputs, sdscs={"sdsc_0.json": sdsc})
    np.testing.assert_allclose(out, expected_of("add", inputs), rtol=4e-3, atol=1e-3)


# -- errors ----------------------------------------------------------------------


@needs_corpus
def test_a_tensor_not_in_its_default_layout_is_refused():
    inputs = inputs_for("add")
    with pytest.raises(SuperDscRunError) as info:
        run_example("add", inputs, tensors_shapes=[(512, 1024), (512, 1024), (1024, 512)])
    assert str(info.value) == (
        "Tensor2 of add/sdsc_0.json is laid out as device size [16, 512, 64] (dims mb, out) but argument 2 is a "
        "(1024, 512) float16 tensor whose default layout is [8, 1024, 64]: spyre launch places every tensor in its "
        "default layout"
    )


@needs_corpus
def test_a_core_start_that_is_not_its_origin_is_refused():
    def shifted(sdsc, bases):
        symbols = default_symbols(sdsc, bases)
        symbols[-34] += 128  # Tensor1, core 1
        return symbols

    with pytest.raises(SuperDscRunError) as info:
        run_example("add", inputs_for("add"), symbols_of=shifted)
    message = str(info.value)
    assert message.startswith("Tensor1 of add/sdsc_0.json (allocate-Tensor1_hbm) starts on core 1 at ")
    assert "the core's first element (mb 256, out 0) of argument 1" in message


@needs_corpus
def test_an_address_outside_its_tensor_is_refused():
    sdsc = read_superdsc(BUNDLES / "add" / "sdsc_0.json")
    bases = [0x100000, 0x300000, 0x500000]
    hbm = FlatMemory(0x800000)
    for k, (base, size) in enumerate(zip(bases, [1 << 20, 1 << 19, 1 << 20])):  # Tensor1's region is half its size
        hbm.add_region(base, size, f"argument {k}")
    symbols = default_symbols(sdsc, bases)
    with pytest.raises(SuperDscRunError) as info:
        run_superdsc(sdsc, symbols, hbm, CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes), source="add/sdsc_0.json")
    message = str(info.value)
    assert message.startswith("Tensor1 of add/sdsc_0.json (allocate-Tensor1_hbm) on core 16 reads HBM [")
    assert "is not inside one allocated region" in message


@needs_corpus
def test_an_unknown_op_is_refused():
    obj = json.loads((BUNDLES / "relu" / "sdsc_0.json").read_text())
    (dsc,) = obj["0_relufwd"]["dscs_"][0].values()
    dsc["computeOp_"][0]["opFuncName"] = "frobnicate"
    sdsc = parse_superdsc(obj, "relu/sdsc_0.json")
    with pytest.raises(SuperDscRunError) as info:
        run_example("relu", inputs_for("relu"), sdscs={"sdsc_0.json": sdsc})
    message = str(info.value)
    assert message.startswith(
        "relu/sdsc_0.json: at /0_relufwd/dscs_/0/relufwd/computeOp_/0: opFuncName 'frobnicate' is not supported"
    )
    assert "add" in message and "batchmatmul" in message and "relufwd" in message


@needs_corpus
def test_an_unbound_symbol_is_refused():
    sdsc = read_superdsc(BUNDLES / "exp" / "sdsc_0.json")
    hbm, bases, _ = place([(512, 1024)] * 2, FP16)
    symbols = default_symbols(sdsc, bases)
    del symbols[-40]
    with pytest.raises(
        SuperDscRunError,
        match=r"Tensor1 of exp/sdsc_0.json \(allocate-Tensor1_hbm\) starts on core 7 "
        r"at symbol -40, which is not bound",
    ):
        run_superdsc(sdsc, symbols, hbm, CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes), source="exp/sdsc_0.json")


@needs_corpus
def test_default_symbols_needs_one_base_per_tensor():
    sdsc = read_superdsc(BUNDLES / "add" / "sdsc_0.json")
    with pytest.raises(SuperDscRunError, match="3 tensors have symbolic HBM starts, but 2 bases are given"):
        default_symbols(sdsc, [0, ALIGN])


def test_flat_memory_refuses_overlaps_and_strays():
    hbm = FlatMemory(1 << 16)
    hbm.add_region(0x1000, 0x100, "a")
    with pytest.raises(ValueError, match="overlaps 'a'"):
        hbm.add_region(0x10F0, 0x20, "b")
    data, base = hbm.buffer(0x1000, 0x1100, write=False)
    assert base == 0 and len(data) == 1 << 16
    with pytest.raises(ValueError, match=r"\[0x10f0, 0x1110\) is not inside one allocated region"):
        hbm.buffer(0x10F0, 0x1110, write=True)
    lx = CoreLocalMemory(2, 4096)
    with pytest.raises(ValueError, match="outside core 1's LX of 4096 bytes"):
        lx.buffer(1, 4000, 4100, write=True)


# -- SuperDSCs built from the model (as an emitter builds them) ------------------


def build_superdsc(op, ex_unit, sizes, slices, tensors, inputs, outputs):
    """A one-DSC SuperDSC in HBM: `tensors` are (layout dims innermost first, stick dim, replicated
    dims, ds type); every core's start is a symbol."""
    cores = int(np.prod(list(slices.values())))
    dims = list(sizes)
    grid = np.indices([slices[d] for d in reversed(dims)]).reshape(len(dims), -1)[::-1]  # first dim fastest
    core_to_wk = {c: {d: int(grid[i][c]) for i, d in enumerate(dims)} for c in range(cores)}
    work = {d: sizes[d] // slices[d] for d in dims}
    lanes = SPYRE.stick_bytes // 2
    labeled, schedule, infos = [], [], {}
    for t, (layout, stick, replicated, ds_type) in enumerate(tensors):
        labeled.append(LabeledDs(t, f"Tensor{t}", ds_type, [-2 if d in replicated else 1 for d in layout], FP16, 2))
        infos.setdefault(ds_type, DsInfo(list(layout), [stick], [lanes]))
        coords = {}
        for d in layout:
            head = [Fold("core_fold", slices[d], work[d]), Fold("corelet_fold", 1, 0), Fold("row_fold", 1, 0)]
            if d == stick and d in replicated:
                tail = [Fold("elem_arr_1", 1, lanes), Fold("elem_arr_0", lanes, 0)]
            elif d == stick:
                tail = [Fold("elem_arr_1", work[d] // lanes, lanes), Fold("elem_arr_0", lanes, 1)]
            else:
                tail = [Fold("elem_arr_0", work[d], 1)]
            coords[d] = DimCoordinates(head + tail, elem_arr=2 if d == stick else 1)
        starts = {c: -(t * cores + c + 1) for c in range(cores)}
        schedule.append(Allocation(f"allocate-Tensor{t}_hbm", t, "hbm", list(layout), starts, coords, True))
    labels = [x.label for x in labeled]
    compute = ComputeOp(ex_unit, op, [labels[i] for i in inputs], [labels[i] for i in outputs], FP16)
    dsc = Dsc(op, dict(sizes), work, infos, schedule, labeled, [compute], list(range(cores)))
    built = SuperDsc(f"0_{op}", cores, dict(slices), core_to_wk, [dsc], source="built")
    return parse_superdsc(built.to_json(), f"built/{op}.json")  # what an emitter writes must read back


def run_built(sdsc, host_inputs, out_shape):
    fmt = data_format(FP16)
    shapes = [x.shape for x in host_inputs] + [out_shape]
    hbm, bases, regions = place(shapes, FP16)
    for region, host in zip(regions, host_inputs):
        region[:] = to_default_layout(host, fmt)
    tensors = [(f"argument {k}", b, s, np.float16) for k, (b, s) in enumerate(zip(bases, shapes))]
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)
    stats = run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, lx, source=sdsc.source, tensors=tensors)
    return from_default_layout(regions[-1], out_shape, fmt), stats, regions[-1]


def test_batched_matmul_built_from_the_model():
    sizes = {"x": 4, "mb": 64, "out": 128, "in": 128}
    slices = {"x": 1, "mb": 2, "out": 2, "in": 1}
    tensors = [
        (["x", "in", "mb"], "in", (), "INPUT"),  # host (x, mb, in)
        (["x", "out", "in"], "out", (), "KERNEL"),  # host (x, in, out)
        (["x", "out", "mb"], "out", (), "OUTPUT"),  # host (x, mb, out)
    ]
    sdsc = build_superdsc("batchmatmul", "pt", sizes, slices, tensors, [0, 1], [2])
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 64, 128)).astype(np.float16).astype(np.float32)
    b = rng.standard_normal((4, 128, 128)).astype(np.float16).astype(np.float32)
    out, stats, _ = run_built(sdsc, [a, b], (4, 64, 128))
    np.testing.assert_allclose(out, np.matmul(a, b).astype(np.float16).astype(np.float32), rtol=2e-3, atol=2e-2)
    assert stats.elements == {"batchmatmul": 4 * 64 * 128 * 128}


@pytest.mark.parametrize(("op", "oracle"), [("sum", np.sum), ("mean", np.mean), ("max", np.max)])
def test_reduction_into_a_replicated_hbm_tensor(op, oracle):
    # like mean_keepdim: (512, 1024) -> (512, 1), the output one replicated stick per row in HBM
    sizes, slices = {"mb": 512, "out": 1024}, {"mb": 32, "out": 1}
    tensors = [(["mb", "out"], "out", (), "OUTPUT"), (["mb", "out"], "out", ("out",), "OUTPUT")]
    sdsc = build_superdsc(op, "sfp", sizes, slices, tensors, [0, 1], [1])
    rng = np.random.default_rng(4)
    a = rng.standard_normal((512, 1024)).astype(np.float16).astype(np.float32)
    out, _, raw = run_built(sdsc, [a], (512, 1))
    expected = oracle(a.astype(np.float64), axis=-1, keepdims=True).astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(out, expected, rtol=2e-3, atol=2e-2)
    lanes = raw.view(np.float16).reshape(512, 64)
    assert (lanes == lanes[:, :1]).all()  # every lane of a row's stick holds the value


def test_a_reduction_split_across_cores_is_refused():
    sizes, slices = {"mb": 512, "out": 1024}, {"mb": 16, "out": 2}
    tensors = [(["mb", "out"], "out", (), "OUTPUT"), (["mb", "out"], "out", ("out",), "OUTPUT")]
    # valid data (the output keeps one replicated stick per out slice), but each core sees half a row
    sdsc = build_superdsc("sum", "sfp", sizes, slices, tensors, [0, 1], [1])
    hbm, bases, _ = place([(512, 1024), (512, 128)], FP16)
    with pytest.raises(SuperDscRunError, match="sum reduces over out, which is split across cores: not supported"):
        run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, CoreLocalMemory(2, 4096), source="built")


@needs_corpus
def test_cores_whose_starts_are_no_grid_run_one_by_one():
    # cores 0 and 1 swap their Tensor0 starts: each adds the other's rows of a (no tensor check)
    sdsc = read_superdsc(BUNDLES / "add" / "sdsc_0.json")
    fmt = data_format(FP16)
    hbm, bases, regions = place([(512, 1024)] * 3, FP16)
    a, b = inputs_for("add", seed=5)
    regions[0][:] = to_default_layout(a, fmt)
    regions[1][:] = to_default_layout(b, fmt)
    symbols = default_symbols(sdsc, bases)
    symbols[-1], symbols[-2] = symbols[-2], symbols[-1]
    run_superdsc(sdsc, symbols, hbm, CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes), source="add/sdsc_0.json")
    swapped = a.copy()
    swapped[:256, :64], swapped[256:, :64] = a[256:, :64], a[:256, :64]
    out = from_default_layout(regions[2], (512, 1024), fmt)
    np.testing.assert_array_equal(out, (swapped + b).astype(np.float16).astype(np.float32))


@needs_corpus
def test_bf16_tensors():
    obj = json.loads((BUNDLES / "mul" / "sdsc_0.json").read_text())
    (dsc,) = obj["0_mul"]["dscs_"][0].values()
    for lds in dsc["labeledDs_"]:
        lds["dataFormat_"] = "SEN_BF16"
    dsc["computeOp_"][0]["attributes_"]["dataFormat_"] = "SEN_BF16"
    sdsc = parse_superdsc(obj, "mul_bf16/sdsc_0.json")
    fmt = data_format("SEN_BF16")
    rng = np.random.default_rng(6)
    a, b = (decode(encode(rng.standard_normal((512, 1024)).astype(np.float32), fmt), fmt) for _ in range(2))
    hbm, bases, regions = place([(512, 1024)] * 3, "SEN_BF16")
    regions[0][:] = to_default_layout(a, fmt)
    regions[1][:] = to_default_layout(b, fmt)
    tensors = [(f"argument {k}", base, (512, 1024), np.uint16) for k, base in enumerate(bases)]
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)
    run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, lx, source=sdsc.source, tensors=tensors)
    out = from_default_layout(regions[2], (512, 1024), fmt)
    np.testing.assert_array_equal(out, decode(encode(a * b, fmt), fmt))
    with pytest.raises(SuperDscRunError, match=r"holds SEN_BF16 \(2-byte\) elements but argument 0 is a"):
        wrong = [(name, base, shape, np.float16) for name, base, shape, _ in tensors]
        run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, lx, source=sdsc.source, tensors=wrong)


# -- fast paths: the same bits as the plain NumPy path ---------------------------

ALL_FLOAT16_BITS = np.arange(1 << 16, dtype=np.uint16)


def float16_from_fields(bits: np.ndarray) -> np.ndarray:
    """The float64 value of float16 bit patterns from their sign, exponent and mantissa fields."""
    sign = np.where(bits >> 15, -1.0, 1.0)
    exponent = ((bits >> 10) & 0x1F).astype(np.int64)
    mantissa = (bits & 0x3FF).astype(np.float64)
    with np.errstate(over="ignore"):
        magnitude = np.where(exponent == 0, mantissa * 2.0**-24, (1 + mantissa / 1024) * 2.0 ** (exponent - 15))
    magnitude[exponent == 31] = np.where(mantissa[exponent == 31] == 0, np.inf, np.nan)
    return sign * magnitude


def test_float16_relu_on_bits_is_numpy_maximum():
    x = ALL_FLOAT16_BITS.view(np.float16)
    expected = np.maximum(x, np.float16(0)).view(np.uint16)
    np.testing.assert_array_equal(_relu(x).view(np.uint16), expected)
    out = np.empty((256, 256), np.float16)
    assert _relu(x.reshape(256, 256), out) is out
    np.testing.assert_array_equal(out.view(np.uint16).reshape(-1), expected)
    # np.maximum's float16 rules, spelled out: -0 and NaNs (payload and sign) stay, negatives become +0
    relu_bits = {0x8000: 0x8000, 0x8001: 0, 0xFC00: 0, 0x7C00: 0x7C00, 0x0001: 0x0001, 0xFE01: 0xFE01, 0x7D01: 0x7D01}
    for bits, relu in relu_bits.items():
        assert expected[bits] == relu, f"{bits:#06x}"


def assert_rounds_like_numpy(values: np.ndarray) -> None:
    values = np.ascontiguousarray(values, dtype=np.float32)
    rounded = _round_to_float16(values).copy()  # a scratch array: copied before the next rounding
    with np.errstate(over="ignore"):
        expected = values.astype(np.float16)
    nan = np.isnan(values)
    np.testing.assert_array_equal(np.isnan(rounded), nan)
    wrong = np.flatnonzero((rounded.view(np.uint16) != expected.view(np.uint16)) & ~nan)
    assert not wrong.size, (
        f"{wrong.size} float32 values round differently, e.g. bits "
        f"{[hex(b) for b in values.reshape(-1).view(np.uint32)[wrong[:5]]]} to "
        f"{[hex(b) for b in rounded.reshape(-1).view(np.uint16)[wrong[:5]]]}, not "
        f"{[hex(b) for b in expected.reshape(-1).view(np.uint16)[wrong[:5]]]}"
    )


def test_rounding_keeps_every_float16_value():
    assert_rounds_like_numpy(ALL_FLOAT16_BITS.view(np.float16).astype(np.float32).reshape(256, 256))


def test_rounding_at_every_float16_rounding_boundary():
    # the float32 halfway points between consecutive positive float16 values (the last one's
    # successor is 65536, where rounding overflows to inf), and float32 neighbors up to 2 ulp away
    low = float16_from_fields(np.arange(0x7C00, dtype=np.uint16))
    high = np.append(low[1:], 65536.0)
    halfway = ((low + high) / 2).astype(np.float32)
    assert np.array_equal(halfway.astype(np.float64), (low + high) / 2)  # exact in float32
    near = (halfway.view(np.uint32).astype(np.int64)[:, None] + np.arange(-2, 3)[None, :]).reshape(-1)
    near = near.astype(np.uint32).view(np.float32)
    assert_rounds_like_numpy(np.concatenate([near, -near]))


def test_rounding_overflow_subnormals_and_nan():
    overflow = np.arange(0x477FE000, 0x7F800001, 4099, dtype=np.uint32).view(np.float32)  # 65504 .. inf
    # every 37th float32 from below half the least float16 subnormal (2**-25) to past the least normal
    subnormal = np.arange(0x32F00000, 0x38810000, 37, dtype=np.uint32).view(np.float32)
    float32_subnormal = np.arange(0, 0x00800001, 97, dtype=np.uint32).view(np.float32)
    nan_bits = [0x7F800001, 0x7F801FFF, 0x7F802000, 0x7FC00000, 0x7FFFE000, 0x7FFFFFFF]
    nan = np.array(nan_bits, dtype=np.uint32).view(np.float32)
    special = np.array([np.inf, 65519.996, 65520.0, 65536.0, np.finfo(np.float32).max, 2.0**-24, 2.0**-25], np.float32)
    for values in (overflow, subnormal, float32_subnormal, nan, special):
        assert_rounds_like_numpy(np.concatenate([values, -values]))


def test_rounding_of_random_float32_bit_patterns():
    bits = np.random.default_rng(7).integers(0, 1 << 32, size=1 << 20, dtype=np.uint32)
    assert_rounds_like_numpy(bits.view(np.float32).reshape(1024, 1024))


def test_float16_decode_table_is_numpy_cast():
    x = ALL_FLOAT16_BITS.view(np.float16)
    expected = x.astype(np.float32)
    nan = np.isnan(expected)
    from_fields = float16_from_fields(ALL_FLOAT16_BITS)
    np.testing.assert_array_equal(np.isnan(from_fields), nan)
    np.testing.assert_array_equal(expected[~nan].astype(np.float64), from_fields[~nan])
    fmt = data_format(FP16)
    for decoded in (_FLOAT16_TO_FLOAT32, _decode(x, fmt, 0, keep=False), _decode(x, fmt, 0, keep=True)):
        assert decoded.shape == (1 << 16,) and decoded.dtype == np.float32
        np.testing.assert_array_equal(np.isnan(decoded), nan)
        np.testing.assert_array_equal(decoded.view(np.uint32)[~nan], expected.view(np.uint32)[~nan])


@needs_corpus
def test_relu_of_every_float16_bit_pattern_through_a_superdsc():
    # the corpus relu runs straight from the input view into the output view (float16 in, float16 out)
    x = np.tile(ALL_FLOAT16_BITS, 8).reshape(512, 1024).view(np.float16)
    fmt = data_format(FP16)
    hbm, bases, regions = place([(512, 1024)] * 2, FP16)
    regions[0][:] = to_default_layout(x, fmt)
    sdsc = read_superdsc(BUNDLES / "relu" / "sdsc_0.json")
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)
    run_superdsc(sdsc, default_symbols(sdsc, bases), hbm, lx, source="relu/sdsc_0.json")
    lx.release()
    # the default layout keeps the bits: out in it is relu's bits in it
    expected = to_default_layout(np.maximum(x, np.float16(0)), fmt)
    np.testing.assert_array_equal(regions[1].view(np.uint16), expected.view(np.uint16))


def run_softmax_files(hbm, bases, lx, files=range(6)):
    folder = BUNDLES / "softmax"
    calls = bundle_calls((folder / "bundle.mlir").read_text(), bases)
    for k in files:
        filename, symbols = calls[k]
        run_superdsc(read_superdsc(folder / filename), symbols, hbm, lx, source=f"softmax/{filename}")


@needs_corpus
def test_kept_decodes_follow_changed_lx_content():
    # softmax's files 1..5 read LX tensors of 512 x 1024 float16, decoded once and kept for the
    # next file; a second run on the same LX, after its content changed, must not use the old values
    fmt = data_format(FP16)
    (a,) = inputs_for("softmax", seed=8)
    changed = a.copy()
    changed[511, 1023] += 4.0  # far from the first row a comparison might start with
    expected_a = run_example("softmax", [a])[0]
    expected_changed = run_example("softmax", [changed])[0]
    assert not np.array_equal(expected_a[511], expected_changed[511])

    hbm, bases, regions = place([(512, 1024)] * 2, FP16)
    lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)
    regions[0][:] = to_default_layout(a, fmt)
    run_softmax_files(hbm, bases, lx)
    np.testing.assert_array_equal(from_default_layout(regions[1], (512, 1024), fmt), expected_a)
    # changed through another SuperDSC: sdsc_0 copies the new input into LX
    regions[0][:] = to_default_layout(changed, fmt)
    run_softmax_files(hbm, bases, lx)
    np.testing.assert_array_equal(from_default_layout(regions[1], (512, 1024), fmt), expected_changed)

    # changed directly: LX bytes that sdsc_0 left for `a` in another LX, written over this one's
    other_hbm, _, other_regions = place([(512, 1024)] * 2, FP16)
    other_regions[0][:] = to_default_layout(a, fmt)
    other_lx = CoreLocalMemory(SPYRE.cores, SPYRE.lx_bytes)
    run_softmax_files(other_hbm, bases, other_lx, files=[0])
    lx.all_cores_bytes()[...] = other_lx.all_cores_bytes()
    run_softmax_files(hbm, bases, lx, files=range(1, 6))
    np.testing.assert_array_equal(from_default_layout(regions[1], (512, 1024), fmt), expected_a)


def test_a_released_lx_refuses_access_and_its_successor_reads_zeros():
    cores, lx_bytes = 3, 3 * 4096  # a size no other test uses: the released mapping is the only spare
    lx = CoreLocalMemory(cores, lx_bytes)
    rows = lx.rows([0, 2], 100, 5000, write=True)
    rows[[0, 2], 100:5000] = 0xA5
    lx.buffer(1, 0, 64, write=True)[0][:64] = 0x5A
    lx.release()
    for access in (
        lambda: lx.rows([0], 0, 64, write=False),
        lambda: lx.buffer(1, 0, 64, write=False),
        lambda: lx.core_bytes(0),
        lambda: lx.all_cores_bytes(),
    ):
        with pytest.raises(MemoryRangeError, match="this LX was released"):
            access()
    successor = CoreLocalMemory(cores, lx_bytes)
    reused = successor.rows([0, 1, 2], 0, lx_bytes, write=False)
    assert np.shares_memory(reused, rows)  # the released mapping, not a fresh one
    assert reused.shape == (cores, lx_bytes) and not reused.any()


@needs_corpus
def test_an_lx_after_a_released_run_reads_zeros():
    # softmax leaves its input, max, exp and sum in LX; a run on a successor LX sees none of them
    fmt = data_format(FP16)
    (a,) = inputs_for("softmax", seed=9)
    hbm, bases, regions = place([(512, 1024)] * 2, FP16)
    regions[0][:] = to_default_layout(a, fmt)
    lx_bytes = SPYRE.lx_bytes + 4096  # not the size other tests release, so the spare is this run's
    lx = CoreLocalMemory(SPYRE.cores, lx_bytes)
    run_softmax_files(hbm, bases, lx)
    written = lx.rows([0], 0, 0, write=False)
    assert written.any()
    lx.release()
    with pytest.raises(SuperDscRunError, match=r"softmax/sdsc_1.json .* LX .*: this LX was released"):
        run_softmax_files(hbm, bases, lx, files=[1])
    successor = CoreLocalMemory(SPYRE.cores, lx_bytes)
    reused = successor.rows([0], 0, 0, write=False)
    assert np.shares_memory(reused, written)
    assert not reused.any()
    run_softmax_files(hbm, bases, successor)
    np.testing.assert_array_equal(from_default_layout(regions[1], (512, 1024), fmt), run_example("softmax", [a])[0])
