"""The bundle interpreter (docs/bundle.md): `bundle.mlir` + `sdsc_N.json` run
like the kernel they came from.

The bundle here is written by hand, in the shape spyre-emit-bundle writes:
z = x + y over an [8, 128] f16 tensor on a grid of 2 cores, as an scf.for
over 2 tiles of 4 rows; each tile's HBM byte address comes from an
affine.apply, and the SDSC function converts it to an element address and
adds core (tile id) c's 2 rows of the tile.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import find_iree_opt

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.dialects.sdscbundle import SdscExecuteOp
from spyre_mlir.interpreter import Interpreter, InterpreterOptions
from spyre_mlir.interpreter.core import registered_class
from spyre_mlir.tools import spyre_run

ROWS, COLS = 8, 128  # the whole tensor
TILES = 2  # loop iterations
CORES = 2
TILE_ROWS = ROWS // TILES  # rows of one iteration, all cores
CORE_ROWS = TILE_ROWS // CORES  # rows of one iteration on one core
ITEM = 2  # f16
TILE_BYTES = TILE_ROWS * COLS * ITEM  # HBM byte stride of the loop

BUNDLE = f"""\
#map = affine_map<(d0)[s0] -> (s0 + {TILE_BYTES} * d0)>
builtin.module {{
  func.func @sdsc_bundle(%x: index, %y: index, %z: index) attributes {{grid = [{CORES} : i64], spyre.kernel = "add"}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tiles = arith.constant {TILES} : index
    %sym_0 = affine.apply affine_map<()[s0] -> (s0 * {ITEM})>()[%x]
    %sym_1 = affine.apply affine_map<()[s0] -> (s0 * {ITEM})>()[%y]
    %sym_2 = affine.apply affine_map<()[s0] -> (s0 * {ITEM})>()[%z]
    scf.for %i_0 = %c0 to %tiles step %c1 {{
      %addr_0 = affine.apply #map(%i_0)[%sym_0]
      %addr_1 = affine.apply #map(%i_0)[%sym_1]
      %addr_2 = affine.apply #map(%i_0)[%sym_2]
      "sdscbundle.sdsc_execute"(%addr_0, %addr_1, %addr_2) {{sdsc_filename = "sdsc_0.json"}} : (index, index, index) -> ()
    }}
    func.return
  }}
}}
"""

EXECUTE_LINE = next(i for i, line in enumerate(BUNDLE.splitlines(), 1) if "sdsc_execute" in line)
EXECUTE_COL = BUNDLE.splitlines()[EXECUTE_LINE - 1].index('"sdscbundle') + 1

SET = f"affine_set<(d0, d1) : (d0 >= 0, -d0 + {CORE_ROWS - 1} >= 0, d1 >= 0, -d1 + {COLS - 1} >= 0)>"
VIEW = f"memref<{CORE_ROWS}x{COLS}xf16>"
TILE = f"!ktdp.access_tile<{CORE_ROWS}x{COLS}xindex>"
TENSOR = f"tensor<{CORE_ROWS}x{COLS}xf16>"


def _view(name: str, byte_address: str) -> str:
    return f"""\
    %e_{name} = arith.divui %{byte_address}, %c{ITEM} : index
    %p_{name} = arith.addi %e_{name}, %off : index
    %v_{name} = ktdp.construct_memory_view %p_{name}, sizes: [{CORE_ROWS}, {COLS}], strides: [{COLS}, 1] {{
      coordinate_set = {SET}, memory_space = #ktdp.memory_space<global>}} : {VIEW}
    %t_{name} = ktdp.construct_access_tile %v_{name}[%c0, %c0] {{
      access_tile_set = {SET}, access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : {VIEW} -> {TILE}
"""


def ktir(combine: str = f"%s = arith.addf %a, %b : {TENSOR}", extra: str = "") -> str:
    """The SDSC function: core c adds rows [2c, 2c + 2) of the tile at the byte addresses given."""
    return f"""\
builtin.module {{
  func.func @sdsc_0(%ax: index, %ay: index, %az: index) attributes {{grid = [{CORES} : i64]}} {{
    %c0 = arith.constant 0 : index
    %c{ITEM} = arith.constant {ITEM} : index
    %core_elems = arith.constant {CORE_ROWS * COLS} : index
    %core = ktdp.get_compute_tile_id : index
    %off = arith.muli %core, %core_elems : index
{_view("x", "ax")}{_view("y", "ay")}{_view("z", "az")}\
    %a = ktdp.load %t_x : {TILE} -> {TENSOR}
    %b = ktdp.load %t_y : {TILE} -> {TENSOR}
    {combine}
    ktdp.store %s, %t_z : {TENSOR}, {TILE}
    func.return
  }}
{extra}}}
"""


def sdsc(**changes) -> dict:
    data = {
        "format": "spyre-mlir.sdsc/1",
        "entry": "sdsc_0",
        "ktir": ktir(),
        "arguments": [{"name": n, "kind": "hbm_address"} for n in ("x", "y", "z")],
        "ops": ["add"],
        "iteration_space": [ROWS, COLS],
        "peak_lx_bytes_per_core": 0,
    }
    data.update(changes)
    return data


def write_bundle(folder: Path, data: dict | str | None = None, bundle: str = BUNDLE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bundle.mlir").write_text(bundle)
    if data is not None:
        (folder / "sdsc_0.json").write_text(data if isinstance(data, str) else json.dumps(data, indent=1))
    return folder / "bundle.mlir"


def inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((ROWS, COLS)).astype(np.float16),
        "y": rng.standard_normal((ROWS, COLS)).astype(np.float16),
        "z": np.zeros((ROWS, COLS), np.float16),
    }


def test_sdsc_execute_has_an_interpreter_handler():
    assert registered_class(SdscExecuteOp) is SdscExecuteOp


@pytest.mark.parametrize("execution", ["auto", "batched", "per-core"])
def test_bundle_computes_the_kernel(tmp_path, execution):
    path = write_bundle(tmp_path / "out", sdsc())
    args = inputs()
    result = spyre_mlir.interpret(str(path), "sdsc_bundle", options=InterpreterOptions(execution=execution), **args)
    np.testing.assert_array_equal(result["z"], args["x"] + args["y"])  # every element of every tile
    assert result.report.mode == ("per-core" if execution == "per-core" else "batched")
    assert result.report.sdsc_executions == {str(tmp_path / "out" / "sdsc_0.json"): TILES * CORES}


def test_a_pathlib_path_finds_the_files_beside_it_from_elsewhere(tmp_path, monkeypatch):
    path = write_bundle(tmp_path / "out", sdsc())
    monkeypatch.chdir(tmp_path)
    args = inputs(1)
    result = spyre_mlir.interpret(Path("out") / "bundle.mlir", "sdsc_bundle", **args)
    np.testing.assert_array_equal(result["z"], args["x"] + args["y"])
    monkeypatch.chdir(path.parent.parent.parent)  # the directory was recorded when the bundle was read
    interpreter = Interpreter(path)
    monkeypatch.chdir(tmp_path / "out")
    np.testing.assert_array_equal(interpreter.run("sdsc_bundle", inputs(1))["z"], args["x"] + args["y"])


def test_text_and_module_sources_use_bundle_dir_or_the_current_directory(tmp_path, monkeypatch):
    write_bundle(tmp_path / "out", sdsc())
    args = inputs(2)
    for source in (BUNDLE, spyre_mlir.parse(BUNDLE)):
        result = spyre_mlir.interpret(source, "sdsc_bundle", options=InterpreterOptions(bundle_dir=tmp_path / "out"), **args)
        np.testing.assert_array_equal(result["z"], args["x"] + args["y"])
    with pytest.raises(DiagnosticError, match="SDSC file 'sdsc_0.json': cannot read it"):
        monkeypatch.chdir(tmp_path)
        spyre_mlir.interpret(BUNDLE, "sdsc_bundle", **args)
    monkeypatch.chdir(tmp_path / "out")
    np.testing.assert_array_equal(spyre_mlir.interpret(BUNDLE, "sdsc_bundle", **args)["z"], args["x"] + args["y"])


def test_bundle_dir_wins_over_the_bundle_files_directory(tmp_path):
    path = write_bundle(tmp_path / "out", sdsc())
    write_bundle(tmp_path / "other", sdsc(ktir=ktir(f"%s = arith.subf %a, %b : {TENSOR}")))
    args = inputs(3)
    result = spyre_mlir.interpret(path, "sdsc_bundle", options=InterpreterOptions(bundle_dir=str(tmp_path / "other")), **args)
    np.testing.assert_array_equal(result["z"], args["x"] - args["y"])


@pytest.mark.parametrize("value, exc", [(3, TypeError), (b"out", TypeError), ("", ValueError)])
def test_bundle_dir_is_type_checked(value, exc):
    with pytest.raises(exc, match="bundle_dir"):
        InterpreterOptions(bundle_dir=value)


def test_each_file_is_read_once_per_interpreter(tmp_path):
    path = write_bundle(tmp_path / "out", sdsc())
    interpreter = Interpreter(path)
    args = inputs(4)
    interpreter.run("sdsc_bundle", args)
    (tmp_path / "out" / "sdsc_0.json").unlink()
    for grid in (None, (1,)):  # another grid is another decoded program: the file is not read again
        z = interpreter.run("sdsc_bundle", args, grid=grid)["z"]
        assert np.array_equal(z[: CORE_ROWS], (args["x"] + args["y"])[: CORE_ROWS])
    with pytest.raises(DiagnosticError, match="cannot read it"):
        Interpreter(path).run("sdsc_bundle", args)  # a new interpreter reads it


def test_the_sdsc_functions_do_not_collide_with_the_bundles(tmp_path):
    """The "ktir" text calls its own @combine; the bundle calls an @sdsc_0 and a
    @combine of its own (index functions giving the trip count)."""
    helper = f"""\
  func.func private @combine(%p: {TENSOR}, %q: {TENSOR}) -> {TENSOR} {{
    %r = arith.addf %p, %q : {TENSOR}
    func.return %r : {TENSOR}
  }}
"""
    data = sdsc(ktir=ktir(f"%s = func.call @combine(%a, %b) : ({TENSOR}, {TENSOR}) -> {TENSOR}", helper))
    own = f"""\
  func.func @sdsc_0() -> index {{
    %t = arith.constant {TILES} : index
    func.return %t : index
  }}
  func.func @combine(%t: index) -> index {{
    func.return %t : index
  }}
}}
"""
    bundle = BUNDLE.replace(
        f"%tiles = arith.constant {TILES} : index",
        "%t = func.call @sdsc_0() : () -> index\n    %tiles = func.call @combine(%t) : (index) -> index",
    )
    bundle = bundle[: bundle.rstrip().rindex("}")] + own
    path = write_bundle(tmp_path / "out", data, bundle)
    args = inputs(5)
    result = spyre_mlir.interpret(path, "sdsc_bundle", **args)
    np.testing.assert_array_equal(result["z"], args["x"] + args["y"])


def _scaled(param_type: str = "f16") -> tuple[str, dict]:
    """The bundle and SDSC file of z = (x + y) * w, the kernel's scalar w passed through."""
    bundle = BUNDLE.replace("%z: index)", "%z: index, %w: f16)").replace(
        "(%addr_0, %addr_1, %addr_2)", "(%addr_0, %addr_1, %addr_2, %w)"
    ).replace("(index, index, index) -> ()", "(index, index, index, f16) -> ()")
    text = ktir(
        f"%sum = arith.addf %a, %b : {TENSOR}\n    %ws = tensor.splat %w : {TENSOR}\n"
        f"    %s = arith.mulf %sum, %ws : {TENSOR}"
    ).replace("%az: index)", f"%az: index, %w: {param_type})")
    arguments = [*sdsc()["arguments"], {"name": "w", "kind": "scalar"}]
    return bundle, sdsc(ktir=text, arguments=arguments)


def test_a_scalar_argument_of_the_kernel_is_passed_through(tmp_path):
    bundle, data = _scaled()
    path = write_bundle(tmp_path / "out", data, bundle)
    args = inputs(9)
    result = spyre_mlir.interpret(path, "sdsc_bundle", w=0.5, **args)
    np.testing.assert_array_equal(result["z"], (args["x"] + args["y"]) * np.float16(0.5))


def test_a_parameter_of_another_type_is_a_located_error(tmp_path):
    bundle, data = _scaled("f32")
    path = write_bundle(tmp_path / "out", bundle=bundle, data={**data, "ktir": data["ktir"].replace(
        "tensor.splat %w", "tensor.splat %w16").replace(
        "%ws = ", "%w16 = arith.truncf %w : f32 to f16\n    %ws = ")})  # fmt: skip
    with pytest.raises(DiagnosticError, match="parameter #3 of @sdsc_0 is f32, but this op passes f16"):
        spyre_mlir.interpret(path, "sdsc_bundle", w=0.5, **inputs())


# -- errors: located at the sdsc_execute op, naming the file -------------------------


def _error_cases():
    good = ktir()
    return [
        pytest.param(None, "cannot read it: No such file or directory", id="missing-file"),
        pytest.param("{not json", "not valid JSON: Expecting property name", id="not-json"),
        pytest.param("[1, 2]", "expected a JSON object, got a list", id="not-an-object"),
        pytest.param(sdsc(format="spyre-mlir.sdsc/2"), '"format" "spyre-mlir.sdsc/2"; this interpreter reads', id="format"),
        pytest.param({k: v for k, v in sdsc().items() if k != "format"}, 'no "format"', id="no-format"),
        pytest.param(sdsc(entry="sdsc_9"), "entry function @sdsc_9: no such function", id="no-entry"),
        pytest.param(sdsc(entry=3), '"entry" is a number, not a string', id="entry-type"),
        pytest.param(sdsc(arguments=sdsc()["arguments"][:2]), '"arguments" lists 2, but this op passes 3 operands', id="arguments"),
        pytest.param(
            sdsc(ktir=good.replace("%az: index)", "%az: index, %n: index)")),
            "@sdsc_0 takes 4 parameters",
            id="operand-count",
        ),
        pytest.param(sdsc(ktir=good.replace("%a, %b", "%a, %nowhere")), 'its "ktir" text does not parse', id="ktir-parse"),
        pytest.param(
            sdsc(ktir=good.replace(f"strides: [{COLS}, 1]", "strides: [1]", 1)),
            "its \"ktir\" text does not verify: 'ktdp.construct_memory_view' op",
            id="ktir-verify",
        ),
        pytest.param(sdsc(ktir=good.replace(f"grid = [{CORES} : i64]", "grid = [4 : i64]")), "has grid [4 : i64]", id="grid"),
        pytest.param(sdsc(peak_lx_bytes_per_core=-1), '"peak_lx_bytes_per_core" must be a non-negative integer', id="peak"),
    ]


@pytest.mark.parametrize("data, message", _error_cases())
def test_a_bad_sdsc_file_is_a_located_error(tmp_path, data, message):
    path = write_bundle(tmp_path / "out", data)
    with pytest.raises(DiagnosticError) as caught:
        spyre_mlir.interpret(str(path), "sdsc_bundle", **inputs())
    rendered = caught.value.diagnostic.render()
    head = f"{path}:{EXECUTE_LINE}:{EXECUTE_COL}: error: SDSC file '{tmp_path / 'out' / 'sdsc_0.json'}': "
    assert rendered.startswith(head), rendered
    assert message in rendered.splitlines()[0], rendered


def test_an_error_inside_the_ktir_text_is_also_shown_there(tmp_path):
    path = write_bundle(tmp_path / "out", sdsc(ktir=ktir().replace("%a, %b", "%a, %nowhere")))
    with pytest.raises(DiagnosticError) as caught:
        Interpreter(path).run("sdsc_bundle", inputs())
    (note,) = caught.value.diagnostic.notes
    line = next(i for i, text in enumerate(ktir().splitlines(), 1) if "arith.addf %a, %b" in text)
    assert str(note.location).startswith(f"{tmp_path / 'out' / 'sdsc_0.json'}#ktir:{line}:")


def test_a_run_time_error_in_the_sdsc_function_points_at_both(tmp_path):
    path = write_bundle(tmp_path / "out", sdsc())
    args = inputs()
    args["z"] = np.zeros((ROWS - 1, COLS), np.float16)  # the last tile's store runs off the end
    with pytest.raises(DiagnosticError) as caught:
        spyre_mlir.interpret(path, "sdsc_bundle", **args)
    diagnostic = caught.value.diagnostic
    assert str(diagnostic.location).startswith(f"{tmp_path / 'out' / 'sdsc_0.json'}#ktir:")
    assert [str(n.location) for n in diagnostic.notes] == [f"{path}:{EXECUTE_LINE}:{EXECUTE_COL}"]


def test_spyre_run_reports_a_bad_file_located_without_a_traceback(tmp_path, capsys):
    path = write_bundle(tmp_path / "out", sdsc(format="nope"))
    argv = [str(path), "--func", "sdsc_bundle", "--arg", f"x=zeros:{ROWS}x{COLS}xf16"]
    argv += ["--arg", f"y=zeros:{ROWS}x{COLS}xf16", "--arg", f"z=zeros:{ROWS}x{COLS}xf16"]
    assert spyre_run.main(argv) == 1
    err = capsys.readouterr().err
    assert re.match(
        rf"{re.escape(str(path))}:{EXECUTE_LINE}:{EXECUTE_COL}: error: SDSC file '{re.escape(str(tmp_path / 'out' / 'sdsc_0.json'))}': "
        r'"format" "nope"',
        err,
    ), err
    assert "Traceback" not in err and '"sdscbundle.sdsc_execute"' in err  # with the source line


# -- spyre-run and the report ------------------------------------------------------


def _spyre_run(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "spyre_mlir.tools.spyre_run", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_spyre_run_runs_a_bundle_and_reports_hbm_bytes_and_peak_lx(tmp_path):
    declared = 12345
    write_bundle(tmp_path / "out", sdsc(peak_lx_bytes_per_core=declared))
    args = inputs(6)
    for name, array in args.items():
        np.save(tmp_path / f"{name}.npy", array)
    estimate = tmp_path / "estimate.json"
    proc = _spyre_run(
        "out/bundle.mlir", "--func", "sdsc_bundle",
        *(f"--arg={n}={tmp_path / n}.npy" for n in args),
        "--out", str(tmp_path / "results"), "--estimate-json", str(estimate),
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "results" / "z.npy"), args["x"] + args["y"])
    data = json.loads(estimate.read_text())
    # every element of x and y loaded once, of z stored once (rows of 256 bytes: whole sticks)
    assert data["hbm_bytes"] == sum(a.size * a.itemsize for a in args.values())
    assert data["peak_lx_bytes_per_core"] == declared  # the file's figure, above the interpreter's
    assert data["sequential_cycles"] > 0  # the estimate itself is still there


def test_the_report_exposes_both_figures(tmp_path):
    path = write_bundle(tmp_path / "out", {**sdsc(), "peak_lx_bytes_per_core": 0})
    args = inputs(7)
    result = spyre_mlir.interpret(path, "sdsc_bundle", options=InterpreterOptions(cost_model=True), **args)
    report = result.report
    moved = args["x"].nbytes + args["y"].nbytes + args["z"].nbytes
    assert report.hbm_traffic_bytes == moved
    tile = CORE_ROWS * COLS * ITEM
    assert report.lx_tensor_peak == 3 * tile  # x, y and their sum live at once, in the SDSC function
    assert report.peak_lx_bytes_per_core == report.lx_peak == 3 * tile  # the file declares less
    data = report.estimate_json()
    assert data is not None and (data["hbm_bytes"], data["peak_lx_bytes_per_core"]) == (moved, 3 * tile)
    without = spyre_mlir.interpret(path, "sdsc_bundle", **args).report
    assert without.hbm_traffic_bytes is None and without.estimate_json() is None


def test_check_lx_counts_the_sdsc_functions_and_the_declared_peak(tmp_path):
    tile = CORE_ROWS * COLS * ITEM
    path = write_bundle(tmp_path / "out", sdsc(peak_lx_bytes_per_core=4 * tile))
    fits = InterpreterOptions(check_lx=True, lx_limit=4 * tile)
    assert spyre_mlir.interpret(path, "sdsc_bundle", options=fits, **inputs()).report.peak_lx_bytes_per_core == 4 * tile
    with pytest.raises(DiagnosticError, match=f"the LX peak of {4 * tile} bytes per core that an executed SDSC file declares"):
        spyre_mlir.interpret(path, "sdsc_bundle", options=InterpreterOptions(check_lx=True, lx_limit=4 * tile - 1), **inputs())
    path = write_bundle(tmp_path / "small", sdsc())
    with pytest.raises(DiagnosticError, match=f"LX use of {3 * tile} bytes per core"):  # the SDSC function's tensors
        spyre_mlir.interpret(path, "sdsc_bundle", options=InterpreterOptions(check_lx=True, lx_limit=2 * tile), **inputs())


def test_hbm_bytes_of_a_plain_kernel_count_its_loads_and_stores(tmp_path):
    """The same figure without a bundle: the SDSC function run as a kernel, once per tile."""
    kernel = tmp_path / "kernel.mlir"
    kernel.write_text(ktir())
    args = inputs(8)
    result = spyre_mlir.interpret(
        kernel, "sdsc_0", options=InterpreterOptions(cost_model=True),
        ax=0, ay=TILE_BYTES, az=2 * TILE_BYTES,
        hbm={0: args["x"][:TILE_ROWS], TILE_BYTES // ITEM: args["y"][:TILE_ROWS], TILE_BYTES: args["z"][:TILE_ROWS]},
    )  # fmt: skip
    np.testing.assert_array_equal(result[f"hbm@{TILE_BYTES}"], (args["x"] + args["y"])[:TILE_ROWS])
    assert result.report.hbm_traffic_bytes == 3 * TILE_ROWS * COLS * ITEM


@pytest.mark.skipif(find_iree_opt() is None, reason="iree-opt (iree-base-compiler) not installed")
def test_the_bundle_parses_in_real_mlir(tmp_path):
    path = write_bundle(tmp_path / "out", sdsc())
    proc = subprocess.run(
        [find_iree_opt(), "--allow-unregistered-dialect", str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert '"sdscbundle.sdsc_execute"' in proc.stdout and 'sdsc_filename = "sdsc_0.json"' in proc.stdout
    # and what we print of it, too
    printed = tmp_path / "printed.mlir"
    printed.write_text(ir.print_ir(spyre_mlir.parse(path)))
    proc = subprocess.run(
        [find_iree_opt(), "--allow-unregistered-dialect", str(printed)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
