"""ktir-to-bundle writes torch-spyre's format (spyre-emit-bundle{format=superdsc}, docs/bundle.md).

- torch-spyre's add, softmax and mm examples written as KTIR (test/unit/kernels/superdsc/) give
  their SuperDSC files field by field (after dropping `debug_handle_`: ids, source paths) and their
  bundle.mlir line by line, up to the differences listed here, each with its reason;
- every SuperDSC written is valid for the model (`read_superdsc`);
- translation validation: the bundle run by the interpreter (`interpret(DIR/bundle.mlir,
  "sdsc_bundle", arg_0_base_addr=...)`, the kernel's arrays placed in HBM as they are) computes
  what the KTIR source computes on the same bytes; every corpus kernel either does, or is refused
  with an error located in its file; the examples also run as `spyre launch` runs them
  (`spyre_mlir.launch`, host tensors in torch-spyre's default layout) and equal NumPy;
- what a SuperDSC cannot say is refused at the op, not emitted wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, CORPUS_SCALARS, REPO, SHARED, kernel_arguments

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.superdsc import read_superdsc

KERNELS = REPO / "test" / "unit" / "kernels" / "superdsc"
THEIRS = SHARED / "corpus" / "torch-spyre-bundles"
needs_theirs = pytest.mark.skipif(not THEIRS.is_dir(), reason="../shared/corpus/torch-spyre-bundles is absent")


def emit(path: Path, out_dir: Path, options: str = " format=superdsc") -> None:
    module = spyre_mlir.parse(path)
    spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={out_dir}{options}}}").run(module)


def run_bundle(out_dir: Path, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Run DIR/bundle.mlir in the interpreter: argument k is `arrays[k]` placed in HBM as it is (its
    byte address bound to `%arg_k_base_addr`); each `sdsc_execute` runs its SuperDSC."""
    result = spyre_mlir.interpret(
        out_dir / "bundle.mlir", "sdsc_bundle", **{f"arg_{k}_base_addr": a.copy() for k, a in enumerate(arrays)}
    )
    return [np.asarray(result[f"arg_{k}_base_addr"]).reshape(a.shape) for k, a in enumerate(arrays)]


def check_runs_as_source(
    path: Path, out_dir: Path, name: str, arrays: dict[str, np.ndarray], exact: bool, scalars: dict | None = None
) -> None:
    """The bundle computes what the kernel computes on the same arrays (`scalars`: all the kernel's
    arguments, its scalars included, when it has any)."""
    given = scalars or arrays
    source = spyre_mlir.interpret(
        path, name, **{k: v.copy() if isinstance(v, np.ndarray) else v for k, v in given.items()}
    )
    ran = run_bundle(out_dir, [v for v in arrays.values()])
    for (key, _), got in zip(arrays.items(), ran):
        want = np.asarray(source[key]).reshape(got.shape)
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=key)
        else:  # sums in another order (per stick, then across sticks): a few f16 ulps
            np.testing.assert_allclose(
                got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-4, err_msg=key
            )


# -- torch-spyre's examples, field by field ----------------------------------------------------

EXPECTED_JSON_DIFFERENCES: dict[str, list[tuple[str, str]]] = {
    # (file, JSON path) of a field that differs after dropping debug_handle_, with the reason.
    "add": [],  # their 2 x 16 split is the kernel's grid; everything else follows from the IR
    "softmax": [],  # their identity copy, replicated reductions and LX offsets are ours too
    "mm": [],  # their 8 x 4 x 1 split and INPUT/KERNEL/OUTPUT layouts
    "relu": [],  # max with a splat 0 is their relufwd
    "fma": [],  # mul's product in LX at 0, add reads it; symbols continue from -17 in sdsc_1
    "add_3d": [],  # 3-D dims mb, x, out; layout [x, out/64, mb, 64]
    "add_fp32": [],  # 32-lane f32 sticks
    "sub": [],  # add.mlir with arith.subf
    "mul": [],  # add.mlir with arith.mulf
    "exp": [],  # add.mlir with math.exp of a
}

ELEMENTWISE_VARIANTS = {
    # example: (the line of add.mlir that computes, the line that replaces it)
    "sub": ("%y = arith.addf %ad, %bd", "%y = arith.subf %ad, %bd"),
    "mul": ("%y = arith.addf %ad, %bd", "%y = arith.mulf %ad, %bd"),
    "exp": ("%y = arith.addf %ad, %bd : tensor<256x64xf16>", "%y = math.exp %ad : tensor<256x64xf16>"),
}


def example_kernel(example: str, tmp_path: Path) -> Path:
    """The KTIR of a torch-spyre example: its file, or add.mlir with another op (exp also drops b)."""
    if example not in ELEMENTWISE_VARIANTS:
        return KERNELS / f"{example}.mlir"
    old, new = ELEMENTWISE_VARIANTS[example]
    text = (KERNELS / "add.mlir").read_text()
    assert old in text
    text = text.replace(old, new)
    if example == "exp":  # exp(a): b is not an argument of theirs
        text = text.replace("func.func @add(%a: index, %b: index, %z: index)", "func.func @add(%a: index, %z: index)")
        text = "\n".join(line for line in text.splitlines() if "%b" not in line)
    path = tmp_path / f"{example}.mlir"
    path.write_text(text)
    return path


BUNDLE_NORMALIZATIONS = [
    # What our bundle.mlir writes otherwise than theirs, and why; applied to ours before comparing.
    # sdscbundle ops are printed generic so that upstream MLIR reads the file (--allow-unregistered-dialect)
    (
        r'"sdscbundle.input_arg_extract"\((%\w+)\) : \(!sdscbundle.input_arg<index>\) -> index',
        r"sdscbundle.input_arg_extract value from \1 : !sdscbundle.input_arg<index> -> index",
    ),
    (
        r'"sdscbundle.sdsc_execute"\(([^)]*)\) \{sdsc_filename = ("[^"]*"), symbol_ids = (\[[^\]]*\])\} : \([^)]*\) -> \(\)',
        r'sdscbundle.sdsc_execute (\1) {sdsc_filename=\2, "symbol_ids"=\3}',
    ),
    # provenance: the kernel the bundle was made from
    (r' attributes \{spyre.kernel = "\w+"\}', ""),
]


def json_differences(ours, theirs, path="") -> list[tuple[str, object, object]]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = []
        for key in list(dict.fromkeys([*ours, *theirs])):
            if key not in ours or key not in theirs:
                found.append((f"{path}/{key}", ours.get(key, "<absent>"), theirs.get(key, "<absent>")))
            else:
                found += json_differences(ours[key], theirs[key], f"{path}/{key}")
        return found
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [d for k, (a, b) in enumerate(zip(ours, theirs)) for d in json_differences(a, b, f"{path}/{k}")]
    return [] if ours == theirs else [(path, ours, theirs)]


def without_debug_handle(content: dict) -> dict:
    ((key, body),) = content.items()
    return {key: {k: v for k, v in body.items() if k != "debug_handle_"}}


def bundle_lines(text: str, normalize: bool) -> list[str]:
    if normalize:
        for pattern, replacement in BUNDLE_NORMALIZATIONS:
            text = re.sub(pattern, replacement, text)
    return [line.strip() for line in text.strip().splitlines()]


@needs_theirs
@pytest.mark.parametrize("example", sorted(EXPECTED_JSON_DIFFERENCES))
def test_superdscs_match_torch_spyre_field_by_field(example, tmp_path):
    out = tmp_path / "out"
    emit(example_kernel(example, tmp_path), out)
    tmp_path = out
    theirs = sorted(p.name for p in (THEIRS / example).glob("sdsc_*.json"))
    assert sorted(p.name for p in tmp_path.glob("sdsc_*.json")) == theirs
    found = []
    for name in theirs:
        ours = json.loads((tmp_path / name).read_text())
        read_superdsc(tmp_path / name)  # valid for the model
        diffs = json_differences(
            without_debug_handle(ours), without_debug_handle(json.loads((THEIRS / example / name).read_text()))
        )
        found += [(name, path) for path, _, _ in diffs]
    assert found == EXPECTED_JSON_DIFFERENCES[example]


@needs_theirs
@pytest.mark.parametrize("example", ["softmax", "mm", "fma", "add_3d", "add_fp32"])
def test_bundle_matches_torch_spyre_line_by_line(example, tmp_path):
    emit(KERNELS / f"{example}.mlir", tmp_path)
    ours = bundle_lines((tmp_path / "bundle.mlir").read_text(), normalize=True)
    assert ours == bundle_lines((THEIRS / example / "bundle.mlir").read_text(), normalize=False)


def test_bundle_matches_torch_spyre_without_normalization_fails_on_forms(tmp_path):
    """The normalizations are needed (so they are not stale): the raw texts differ in exactly those."""
    emit(KERNELS / "mm.mlir", tmp_path)
    raw = (tmp_path / "bundle.mlir").read_text()
    assert '"sdscbundle.sdsc_execute"(' in raw and 'spyre.kernel = "mm"' in raw


# -- execution -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("example", "shapes", "exact"),
    [
        ("add", {"a": 512 * 1024, "b": 512 * 1024, "z": 512 * 1024}, True),
        ("softmax", {"x": 512 * 1024, "y": 512 * 1024}, False),
        ("mm", {"a": 512 * 1024, "b": 1024 * 256, "c": 512 * 256}, False),
    ],
)
def test_examples_run_as_their_source(example, shapes, exact, tmp_path):
    rng = np.random.default_rng(7)
    arrays = {k: rng.standard_normal(n).astype(np.float16) for k, n in shapes.items()}
    emit(KERNELS / f"{example}.mlir", tmp_path)
    check_runs_as_source(KERNELS / f"{example}.mlir", tmp_path, example, arrays, exact)


REFERENCES = {
    "add": (((512, 1024), (512, 1024)), (512, 1024), lambda a, b: a + b),
    "softmax": (
        ((512, 1024),),
        (512, 1024),
        lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True),
    ),
    "mm": (((512, 1024), (1024, 256)), (512, 256), lambda a, b: a @ b),
    "relu": (((512, 1024),), (512, 1024), lambda a: np.maximum(a, 0)),
    "fma": (
        ((512, 1024), (512, 1024), (512, 1024)),
        (512, 1024),
        lambda a, b, c: (a * b).astype(np.float16).astype(np.float32) + c,
    ),
    "add_3d": (((4, 256, 512), (4, 256, 512)), (4, 256, 512), lambda a, b: a + b),
    "add_fp32": (((512, 1024), (512, 1024)), (512, 1024), lambda a, b: a + b),
}


@pytest.mark.parametrize("example", sorted(REFERENCES))
def test_examples_run_as_spyre_launch_runs_them(example, tmp_path):
    """`spyre launch` semantics (spyre_mlir.launch): host tensors in torch-spyre's default device
    layout, which these kernels' views have; the outputs are the op's in float32, rounded to f16."""
    shapes, out_shape, reference = REFERENCES[example]
    dtype = np.float32 if example.endswith("fp32") else np.float16
    rng = np.random.default_rng(11)
    inputs = [rng.standard_normal(shape).astype(dtype) for shape in shapes]
    emit(KERNELS / f"{example}.mlir", tmp_path)
    (got,) = spyre_mlir.launch(tmp_path, inputs, [(out_shape, dtype)])
    want = reference(*(x.astype(np.float32) for x in inputs))
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-3, atol=2e-3 * float(np.abs(want).max()))


def test_tile_loops_stay_loops_around_the_superdscs(tmp_path):
    """A tiled group (tiled.mlir: column sticks in 2, the outermost memory dim, so each iteration's
    tensors are whole-tensor stick layouts): one scf.for around both sdsc_executes, the HBM starts
    advanced by 8 sticks x 512 rows x 128 bytes per iteration, exp's LX result at one offset; the
    bundle computes what the kernel computes."""
    emit(KERNELS / "tiled.mlir", tmp_path)
    bundle = spyre_mlir.parse(tmp_path / "bundle.mlir")
    (loop,) = [op for op in bundle.walk() if op.name == "scf.for"]
    executes = [op for op in loop.walk() if op.name == "sdscbundle.sdsc_execute"]
    assert len(executes) == 2 and not [
        op for op in bundle.walk() if op.name == "sdscbundle.sdsc_execute" and op not in executes
    ]
    strides = {str(op.map.data) for op in loop.walk() if op.name == "affine.apply"}
    assert strides == {"(d0)[s0] -> ((s0 + (d0 * 524288)))"}
    exp, mul = (read_superdsc(tmp_path / f"sdsc_{i}.json") for i in range(2))
    assert exp.dscs[0].sizes == {"mb": 512, "out": 512} and exp.num_wk_slices == {"mb": 8, "out": 1}
    assert [a.component for a in mul.dscs[0].schedule] == ["lx", "hbm", "hbm"]
    rng = np.random.default_rng(5)
    arrays = {k: rng.standard_normal(512 * 1024).astype(np.float16) for k in ("a", "b", "z")}
    check_runs_as_source(KERNELS / "tiled.mlir", tmp_path, "mul_exp", arrays, exact=True)


ROW_MAJOR = """
#all = affine_set<(d0, d1) : (d0 >= 0, -d0 + 63 >= 0, d1 >= 0, -d1 + 255 >= 0)>
#mine = affine_set<(d0, d1) : (d0 >= 0, -d0 + 15 >= 0, d1 >= 0, -d1 + 127 >= 0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @mul_exp(%a: index, %b: index, %z: index) attributes {grid = [4, 2]} {
  %m, %o = ktdp.get_compute_tile_id : index, index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %m, %c16 : index
  %col = arith.muli %o, %c128 : index
  %av = ktdp.construct_memory_view %a, sizes: [64, 256], strides: [256, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64x256xf16>
  %bv = ktdp.construct_memory_view %b, sizes: [64, 256], strides: [256, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64x256xf16>
  %zv = ktdp.construct_memory_view %z, sizes: [64, 256], strides: [256, 1] {coordinate_set = #all, memory_space = #ktdp.memory_space<global>} : memref<64x256xf16>
  %at = ktdp.construct_access_tile %av[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<64x256xf16> -> !ktdp.access_tile<16x128xindex>
  %bt = ktdp.construct_access_tile %bv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<64x256xf16> -> !ktdp.access_tile<16x128xindex>
  %zt = ktdp.construct_access_tile %zv[%row, %col] {access_tile_set = #mine, access_tile_order = #id2} : memref<64x256xf16> -> !ktdp.access_tile<16x128xindex>
  %ad = ktdp.load %at : !ktdp.access_tile<16x128xindex> -> tensor<16x128xf16>
  %bd = ktdp.load %bt : !ktdp.access_tile<16x128xindex> -> tensor<16x128xf16>
  %p = arith.mulf %ad, %bd : tensor<16x128xf16>
  %e = math.exp %p : tensor<16x128xf16>
  ktdp.store %e, %zt : tensor<16x128xf16>, !ktdp.access_tile<16x128xindex>
  return
}
"""


def test_row_major_views_keep_their_layout(tmp_path):
    """An unmarked row-major [64, 256] f16 view is [64, 4, 64] in memory: layoutDimOrder_ [out, mb];
    the product lives in LX (torch-spyre's default order there) and exp writes HBM."""
    kernel = tmp_path / "k.mlir"
    kernel.write_text(ROW_MAJOR)
    out = tmp_path / "out"
    emit(kernel, out)
    mul, exp = (read_superdsc(out / f"sdsc_{i}.json") for i in range(2))
    assert [a.layout_dim_order for a in mul.dscs[0].schedule] == [["out", "mb"], ["out", "mb"], ["mb", "out"]]
    assert [a.component for a in exp.dscs[0].schedule] == ["lx", "hbm"]
    assert mul.num_wk_slices == {"mb": 4, "out": 2}
    rng = np.random.default_rng(3)
    arrays = {k: rng.standard_normal(64 * 256).astype(np.float16) for k in ("a", "b", "z")}
    check_runs_as_source(kernel, out, "mul_exp", arrays, exact=True)


# -- the corpus: runs or is refused at the op ----------------------------------------------

CORPUS_STATUS = {
    # kernel: None (runs equal to its source, specialized for its index scalars from conftest's
    # CORPUS_SCALARS), or what its located refusal says, with the reason.
    "add-with-control-flow": "must address one pointer argument",  # absolute HBM addresses, no arguments to bind
    "layernorm_fwd_ktir": "would need constantInfo_",  # the f16 argument %eps
    "matmul_fwd_ktir": None,  # its k loop summing tile products: one batchmatmul over K = 2048
    "reduce_generic": "writes a broadcast or reshape",  # stores a splat of the reduced value
    "scalar_broadcast": "writes a broadcast or reshape",  # stores a broadcast of a loaded scalar
    "softmax_fwd_ktir": None,  # per-core row loop: a bundle loop of 128 iterations, core c at row 32 i + c
    "softmax_small": None,  # the same over 64 rows: 2 iterations
    "vector_add_ktir": None,  # BLOCK_SIZE = 128 fixes each core's 128 elements
}


def corpus_kernels():
    return [pytest.param(p, id=p.stem) for p in sorted(CORPUS.glob("*.mlir"))] if CORPUS.is_dir() else []


def index_scalars(path: Path) -> dict[str, int]:
    """The kernel's index scalars in its test arguments (CORPUS_SCALARS): what `scalars=` fixes."""
    return {k: v for k, v in CORPUS_SCALARS.get(path.stem, {}).items() if isinstance(v, int)}


def scalars_option(values: dict) -> str:
    return f' scalars="{",".join(f"{k}={v}" for k, v in values.items())}"' if values else ""


@pytest.mark.parametrize("path", corpus_kernels())
def test_corpus_kernel_runs_as_its_source_or_is_refused_at_an_op(path, tmp_path):
    """Each corpus kernel keeps its status: runs equal to its source, or is refused, located in
    its file, with the listed reason. Specialized scalars are recorded on @sdsc_bundle."""
    assert path.stem in CORPUS_STATUS, "a corpus kernel with no expected status"
    scalars = index_scalars(path)
    try:
        emit(path, tmp_path, scalars_option(scalars))
    except DiagnosticError as exc:
        text = str(exc)
        assert CORPUS_STATUS[path.stem] is not None, f"refused, but expected to run: {text}"
        assert CORPUS_STATUS[path.stem] in text
        assert exc.diagnostic.location is not None and exc.diagnostic.location.file == str(path)
        return
    assert CORPUS_STATUS[path.stem] is None, "emitted, but listed as refused"
    bundle = spyre_mlir.parse(tmp_path / "bundle.mlir")
    (fn,) = [op for op in bundle.walk() if op.name == "func.func"]
    recorded = fn.attributes.get("spyre.specialize")
    assert ({k: v.value.data for k, v in recorded.data.items()} if recorded else {}) == scalars
    name, args, _ = kernel_arguments(path)
    arrays = {k: v for k, v in args.items() if isinstance(v, np.ndarray)}
    if path.stem == "matmul_fwd_ktir":
        check_matmul_runs_as_source(path, tmp_path, name, args, arrays)
    else:
        exact = path.stem == "vector_add_ktir"  # softmax: sums in another order (per stick, then across sticks)
        check_runs_as_source(path, tmp_path, name, arrays, exact=exact, scalars=args)


def check_matmul_runs_as_source(path: Path, out_dir: Path, name: str, args: dict, arrays: dict) -> None:
    """C equals the source's within its rounding: the source rounds each of its K / BLOCK_SIZE_K
    tile products and running sums to f16 (each by at most half an ulp of the largest value),
    batchmatmul rounds once; a tile left out or counted twice is off by far more."""
    source = spyre_mlir.interpret(
        path, name, **{k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    )
    ran = run_bundle(out_dir, list(arrays.values()))
    trips = args["K"] // args["BLOCK_SIZE_K"]
    for (key, _), got in zip(arrays.items(), ran):
        want = np.asarray(source[key]).reshape(got.shape).astype(np.float32)
        bound = trips * float(np.spacing(np.float16(np.abs(want).max())))  # half an ulp for each product and sum
        np.testing.assert_allclose(got.astype(np.float32), want, rtol=0, atol=bound, err_msg=key)


def test_layernorm_with_eps_given_is_refused_for_its_uneven_row_loop(tmp_path):
    """1151 rows over 32 cores: 36 iterations on some cores, 35 on others; every core of a SuperDSC
    bundle's loop runs the same trip."""
    path = CORPUS / "layernorm_fwd_ktir.mlir"
    if not path.is_file():
        pytest.skip("corpus absent")
    with pytest.raises(DiagnosticError) as info:
        emit(path, tmp_path, scalars_option(CORPUS_SCALARS["layernorm_fwd_ktir"]))
    assert "runs 35 to 36 iterations depending on the core" in str(info.value)
    assert info.value.diagnostic.location.file == str(path)


def test_an_index_scalar_not_specialized_is_refused_naming_the_option(tmp_path):
    path = CORPUS / "vector_add_ktir.mlir"
    if not path.is_file():
        pytest.skip("corpus absent")
    with pytest.raises(DiagnosticError) as info:
        emit(path, tmp_path)
    assert 'specialize it with scalars="BLOCK_SIZE=..."' in str(info.value)
    assert info.value.diagnostic.location.file == str(path)


def test_the_bundle_of_a_per_core_row_loop_is_one_bundle_loop(tmp_path):
    """softmax_small (64 rows, 32 cores, `scf.for %row = %core_id to %n_rows step 32`): one scf.for of
    2 iterations around the six SuperDSCs; each HBM start moves by 32 rows x 64 x 2 bytes; the
    kernel's %n_rows is not an argument of the bundle but its recorded value."""
    path = CORPUS / "softmax_small.mlir"
    if not path.is_file():
        pytest.skip("corpus absent")
    emit(path, tmp_path, scalars_option({"n_rows": 64}))
    bundle = spyre_mlir.parse(tmp_path / "bundle.mlir")
    (fn,) = [op for op in bundle.walk() if op.name == "func.func"]
    assert len(fn.body.block.args) == 2
    assert fn.attributes["spyre.specialize"].data["n_rows"].value.data == 64
    (loop,) = [op for op in bundle.walk() if op.name == "scf.for"]
    assert loop.ub.owner.value.value.data == 2
    assert len([op for op in loop.walk() if op.name == "sdscbundle.sdsc_execute"]) == 6
    assert {str(op.map.data) for op in loop.walk() if op.name == "affine.apply"} == {"(d0)[s0] -> ((s0 + (d0 * 4096)))"}
    first = read_superdsc(tmp_path / "sdsc_0.json")
    assert first.num_wk_slices == {"mb": 32, "out": 1}


def test_a_per_core_row_loop_runs_as_its_source(tmp_path):
    """row_loop.mlir for the 16 rows of its spyre.specialize: one bundle loop of 4 iterations (core c
    at row 4 i + c) around identity, exp and mul; two LX tensors of one shape are two allocations;
    equal to the kernel."""
    path = KERNELS / "row_loop.mlir"
    emit(path, tmp_path)
    bundle = spyre_mlir.parse(tmp_path / "bundle.mlir")
    (fn,) = [op for op in bundle.walk() if op.name == "func.func"]
    assert fn.attributes["spyre.specialize"].data["n_rows"].value.data == 16
    (loop,) = [op for op in bundle.walk() if op.name == "scf.for"]
    assert loop.ub.owner.value.value.data == 4
    exp = read_superdsc(tmp_path / "sdsc_1.json")
    assert [a.component for a in exp.dscs[0].schedule] == ["lx", "lx"]
    assert len({a.start_address[0] for a in exp.dscs[0].schedule}) == 2
    rng = np.random.default_rng(2)
    arrays = {"x": rng.standard_normal(16 * 64).astype(np.float16), "y": np.zeros(16 * 64, np.float16)}
    check_runs_as_source(path, tmp_path, "row_loop", arrays, exact=True, scalars={**arrays, "n_rows": 16})


def test_a_per_core_loop_whose_trip_differs_by_core_is_refused(tmp_path):
    with pytest.raises(DiagnosticError) as info:
        emit(KERNELS / "row_loop.mlir", tmp_path / "out", ' scalars="n_rows=14"')
    assert "runs 3 to 4 iterations depending on the core" in str(info.value)
    assert info.value.diagnostic.location.file == str(KERNELS / "row_loop.mlir")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "%accum_next = arith.addf %accum_itr, %a_dot_b",
            "%accum_next = arith.mulf %accum_itr, %a_dot_b",
            "holds 'arith.mulf'",
        ),
        (
            "%b_acc = ktdp.construct_access_tile %b_view[%off_k, %offs_bn]",
            "%b_acc = ktdp.construct_access_tile %b_view[%c0, %offs_bn]",
            "does not move along the contraction dim",
        ),
        ("iter_args(%accum_itr = %accum_zero)", "iter_args(%accum_itr = %c_one)", "does not start from zeros"),
    ],
)
def test_a_group_loop_that_is_not_a_tiled_contraction_is_refused(old, new, message, tmp_path):
    """matmul_fwd_ktir's k loop is one batchmatmul only as a sum of products of tiles stepping
    along K from zeros: a product, a tile that stays, a nonzero start are refused at the loop."""
    source = CORPUS / "matmul_fwd_ktir.mlir"
    if not source.is_file():
        pytest.skip("corpus absent")
    text = variant(old, new, source).replace(
        "%accum_zero = arith.constant",
        "%c_one = arith.constant dense<1.0> : tensor<32x512xf16>\n    %accum_zero = arith.constant",
    )
    kernel = tmp_path / "k.mlir"
    kernel.write_text(text)
    with pytest.raises(DiagnosticError) as info:
        emit(kernel, tmp_path / "out", scalars_option(index_scalars(source)))
    assert message in str(info.value) and "not a matmul summed over tiles of its contraction dim" in str(info.value)
    assert info.value.diagnostic.location.file == str(kernel)


def test_a_wrong_scalars_option_is_a_located_error(tmp_path):
    path = CORPUS / "softmax_small.mlir"
    if not path.is_file():
        pytest.skip("corpus absent")
    for option, message in [
        (' scalars="rows=64"', "has no argument named 'rows'"),
        (' scalars="n_rows=x"', "'n_rows=x' is not a value of type index"),
        (' scalars="n_rows"', "expected NAME=VALUE"),
    ]:
        with pytest.raises(DiagnosticError) as info:
            emit(path, tmp_path / "out", option)
        assert message in str(info.value)
        assert info.value.diagnostic.location.file == str(path)


# -- refusals -------------------------------------------------------------------------------


def variant(old: str, new: str, source: Path = KERNELS / "add.mlir") -> str:
    text = source.read_text()
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            variant(
                "%y = arith.addf %ad, %bd : tensor<256x64xf16>",
                "%h = arith.constant dense<0.5> : tensor<256x64xf16>\n  %y = arith.mulf %ad, %h : tensor<256x64xf16>",
            ),
            "would need constantInfo_",
            id="scalar-constant",
        ),
        pytest.param(
            variant("%m, %o = ktdp.get_compute_tile_id", "%o, %m = ktdp.get_compute_tile_id").replace(
                "grid = [2, 16]", "grid = [16, 4]"
            ),
            "asks for 64 cores",
            id="grid-too-large",
        ),
        pytest.param(
            variant("%row = arith.muli %m, %c256 : index", "%row = arith.muli %m, %c64 : index"),
            "not a regular split",
            id="irregular-split",
        ),
        pytest.param(
            variant("%y = arith.addf %ad, %bd : tensor<256x64xf16>", "%y = math.cos %ad : tensor<256x64xf16>"),
            "has no SuperDSC counterpart",
            id="no-counterpart",
        ),
        pytest.param(
            variant(
                "%y = arith.addf %ad, %bd : tensor<256x64xf16>",
                "%w = arith.extf %ad : tensor<256x64xf16> to tensor<256x64xf32>\n"
                "  %y = arith.truncf %w : tensor<256x64xf32> to tensor<256x64xf16>",
            ),
            "a format conversion has no SuperDSC form",
            id="format-conversion",
        ),
    ],
)
def test_what_a_superdsc_cannot_say_is_refused_at_the_op(text, message, tmp_path):
    kernel = tmp_path / "k.mlir"
    kernel.write_text(text)
    with pytest.raises(DiagnosticError) as info:
        emit(kernel, tmp_path / "out")
    assert message in str(info.value)
    assert info.value.diagnostic.location is not None and info.value.diagnostic.location.file == str(kernel)
    assert not (tmp_path / "out").exists()


def test_row_major_softmax_relays_out_through_its_identity_copy(tmp_path):
    """softmax.mlir without its markers: x and y are row-major ([512, 16, 64] sticks, ["out", "mb"]);
    the identity copy to LX and the final realdiv write change the layout; equal to the source."""
    kernel = tmp_path / "softmax.mlir"
    kernel.write_text(
        "\n".join(
            line for line in (KERNELS / "softmax.mlir").read_text().splitlines() if "spyre.tensor_layout" not in line
        )
    )
    out = tmp_path / "out"
    emit(kernel, out)
    first, last = read_superdsc(out / "sdsc_0.json"), read_superdsc(out / "sdsc_5.json")
    assert [a.layout_dim_order for a in first.dscs[0].schedule] == [["out", "mb"], ["mb", "out"]]
    assert last.dscs[0].schedule[-1].layout_dim_order == ["out", "mb"]
    rng = np.random.default_rng(9)
    arrays = {k: rng.standard_normal(512 * 1024).astype(np.float16) for k in ("x", "y")}
    check_runs_as_source(kernel, out, "softmax", arrays, exact=False)


def test_partial_sticks_are_refused(tmp_path):
    """A row-major [64, 32] f16 view: its rows are half sticks, which no SuperDSC layout has."""
    text = ROW_MAJOR.replace("64x256", "64x32").replace("[64, 256], strides: [256, 1]", "[64, 32], strides: [32, 1]")
    text = (
        text.replace("-d1 + 255", "-d1 + 31")
        .replace("16x128", "16x32")
        .replace("-d1 + 127", "-d1 + 31")
        .replace("grid = [4, 2]", "grid = [4, 1]")
    )
    kernel = tmp_path / "k.mlir"
    kernel.write_text(text)
    with pytest.raises(DiagnosticError) as info:
        emit(kernel, tmp_path / "out")
    assert "stick" in str(info.value)
    assert info.value.diagnostic.location is not None and info.value.diagnostic.location.file == str(kernel)


def test_private_format_still_written_on_request(tmp_path):
    """format=ktir keeps our SDSC files (a KTIR function per group) for kernels SuperDSC cannot say."""
    path = CORPUS / "softmax_small.mlir"
    if not path.is_file():
        pytest.skip("corpus absent")
    emit(path, tmp_path, " format=ktir")
    assert json.loads((tmp_path / "sdsc_0.json").read_text())["format"] == "spyre-mlir.sdsc/1"


def test_unknown_format_is_an_error(tmp_path):
    with pytest.raises(DiagnosticError, match="unknown format 'json'"):
        emit(KERNELS / "add.mlir", tmp_path, " format=json")


def test_a_new_bundle_removes_our_older_superdsc_files(tmp_path):
    emit(KERNELS / "softmax.mlir", tmp_path)
    (tmp_path / "sdsc_9.json").write_text('{"0_add": {"debug_handle_": {}}}\n')  # not ours: kept
    emit(KERNELS / "add.mlir", tmp_path)
    assert sorted(p.name for p in tmp_path.glob("sdsc_*.json")) == ["sdsc_0.json", "sdsc_9.json"]
