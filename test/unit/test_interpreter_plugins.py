"""Interpreter plug-ins (interpreter/plugins.py) and the interpreter reading the module's target."""

from __future__ import annotations

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.diagnostics import Diagnostic
from spyre_mlir.dialects.ktdp import LoadOp
from spyre_mlir.interpreter import DEFAULT_LX_BYTES, Interpreter, InterpreterOptions, plugins
from spyre_mlir.interpreter.dtypes import element_format_named, element_type_names
from spyre_mlir.interpreter.liveness import LxEstimate
from spyre_mlir.interpreter.plugins import LxUse, Plugin, ReportSection
from spyre_mlir.target import SPYRE, element_bytes

ROWS, COLS = 8, 64

COPY = f"""
module{{ATTRS}} {{
  func.func @copy(%x: index, %y: index) {{
    %vx = ktdp.construct_memory_view %x, sizes: [{ROWS}, {COLS}], strides: [{COLS}, 1] {{
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {ROWS - 1} >= 0, d1 >= 0, -d1 + {COLS - 1} >= 0)>,
      memory_space = #ktdp.memory_space<global>}} : memref<{ROWS}x{COLS}xf16>
    %tx = ktdp.construct_access_tile %vx[0, 0] {{
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {ROWS - 1} >= 0, d1 >= 0, -d1 + {COLS - 1} >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : memref<{ROWS}x{COLS}xf16> -> !ktdp.access_tile<{ROWS}x{COLS}xindex>
    %d = ktdp.load %tx : !ktdp.access_tile<{ROWS}x{COLS}xindex> -> tensor<{ROWS}x{COLS}xf16>
    %vy = ktdp.construct_memory_view %y, sizes: [{ROWS}, {COLS}], strides: [{COLS}, 1] {{
      coordinate_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {ROWS - 1} >= 0, d1 >= 0, -d1 + {COLS - 1} >= 0)>,
      memory_space = #ktdp.memory_space<global>}} : memref<{ROWS}x{COLS}xf16>
    %ty = ktdp.construct_access_tile %vy[0, 0] {{
      access_tile_set = affine_set<(d0, d1) : (d0 >= 0, -d0 + {ROWS - 1} >= 0, d1 >= 0, -d1 + {COLS - 1} >= 0)>,
      access_tile_order = affine_map<(d0, d1) -> (d0, d1)>}} : memref<{ROWS}x{COLS}xf16> -> !ktdp.access_tile<{ROWS}x{COLS}xindex>
    ktdp.store %d, %ty : tensor<{ROWS}x{COLS}xf16>, !ktdp.access_tile<{ROWS}x{COLS}xindex>
    return
  }}
}}
"""
TILE_BYTES = ROWS * COLS * 2  # the loaded tensor: the kernel's LX peak


def copy_kernel(**target) -> str:
    facts = ", ".join(f"{k} = {v} : i64" for k, v in target.items())
    return COPY.replace("{ATTRS}", f" attributes {{spyre.target = {{{facts}}}}}" if target else "")


def inputs():
    x = np.arange(ROWS * COLS + 1, dtype=np.float16)  # one element more: the next array is placed off a stick
    return dict(x=x, y=np.zeros((ROWS, COLS), np.float16))


@pytest.fixture
def registered(monkeypatch):
    """Register plug-ins for one test only."""

    def register(plugin: Plugin) -> Plugin:
        monkeypatch.setitem(plugins.PLUGINS, plugin.name, plugin)
        return plugin

    return register


# -- the registry ------------------------------------------------------------------------------


def test_every_ir_of_the_interpreter_registers_what_it_adds():
    assert {"func", "ktdp", "ktdf", "sdscbundle", "spyre"} <= set(plugins.PLUGINS)
    assert set(plugins.hbm_transfer_ops()) >= {"ktdp.load", "ktdp.store", "ktdf.data_transfer"}
    assert [op.name for op in plugins.collective_ops()] == ["ktdp.inter_tile_produce"]
    assert plugins.PLUGINS["ktdp"].verify is not None  # the inter-tile legality rules


def test_two_plugins_of_one_name_are_refused(registered):
    registered(Plugin("toy"))
    with pytest.raises(ValueError, match="two interpreter plug-ins are named 'toy'"):
        plugins.register(Plugin("toy"))


def test_a_report_section_has_a_known_place():
    with pytest.raises(ValueError, match="place is 'memory' or 'traffic', not 'top'"):
        ReportSection(lambda runtime: {}, place="top")


def test_a_report_field_two_plugins_give_is_refused(registered):
    registered(Plugin("toy", report=ReportSection(lambda runtime: {"relayout_bytes": 1})))
    with pytest.raises(ValueError, match="'relayout_bytes' is given by the plug-ins 'spyre' and 'toy'"):
        spyre_mlir.interpret(copy_kernel(), "copy", **inputs())


# -- what a plug-in adds, without api.py naming it --------------------------------------------


def test_a_plugins_entry_point_runs_by_name(registered):
    def entry_points(module, taken):
        twin = taken["copy"].clone()
        twin.sym_name = type(twin.sym_name)("twin")
        return {"twin": twin}

    registered(Plugin("toy", entry_points=entry_points))
    args = inputs()
    out = Interpreter(copy_kernel()).run("twin", args)
    np.testing.assert_array_equal(out["y"], args["x"][: ROWS * COLS].reshape(ROWS, COLS))
    assert out.report.function == "twin"


def test_a_plugins_report_fields_and_lines(registered):
    def fields(runtime):
        return {"toy_cores": len(runtime.cores)}

    def lines(report):
        return [f"toy: {report.toy_cores} cores"]

    registered(Plugin("toy", report=ReportSection(fields, lines, place="memory")))
    report = spyre_mlir.interpret(copy_kernel(), "copy", **inputs()).report
    assert report.toy_cores == 1
    rendered = report.render().splitlines()
    assert rendered.index("toy: 1 cores") == next(i for i, line in enumerate(rendered) if line.startswith("hbm mapped")) - 1
    with pytest.raises(AttributeError, match="no field 'toy_missing'"):
        report.toy_missing  # noqa: B018


def test_the_builtin_report_fields_are_empty_when_unused():
    report = spyre_mlir.interpret(copy_kernel(), "copy", **inputs()).report
    assert report.relayout_bytes == [] and report.sdsc_executions == {} and report.lx_declared_peak == 0


def test_a_plugins_declared_lx_counts_toward_the_peak(registered):
    registered(Plugin("toy", lx=lambda runtime: [LxUse(LxEstimate(), 3 * DEFAULT_LX_BYTES, "the toy")]))
    report = spyre_mlir.interpret(copy_kernel(), "copy", **inputs()).report
    assert report.lx_declared_peak == report.peak_lx_bytes_per_core == 3 * DEFAULT_LX_BYTES
    with pytest.raises(spyre_mlir.DiagnosticError, match=f"the LX peak of {3 * DEFAULT_LX_BYTES} bytes per core that the toy declares"):
        spyre_mlir.interpret(copy_kernel(), "copy", options=InterpreterOptions(check_lx=True), **inputs())


def test_a_plugins_checks_run_when_the_interpreter_verifies(registered):
    def refuse(module):
        raise spyre_mlir.DiagnosticError(Diagnostic("error", "the toy refuses"))

    registered(Plugin("toy", verify=refuse))
    with pytest.raises(spyre_mlir.DiagnosticError, match="the toy refuses"):
        Interpreter(copy_kernel())
    Interpreter(copy_kernel(), InterpreterOptions(verify=False))


def test_a_collective_op_makes_the_kernel_run_batched(registered):
    assert spyre_mlir.interpret(copy_kernel(), "copy", **inputs()).report.mode == "per-core"  # one core
    registered(Plugin("toy", collective=(LoadOp,)))
    assert spyre_mlir.interpret(copy_kernel(), "copy", **inputs()).report.mode == "batched"


# -- the target model ----------------------------------------------------------------------------


def test_the_lx_limit_is_the_modules_target():
    assert DEFAULT_LX_BYTES == SPYRE.lx_bytes
    assert spyre_mlir.interpret(copy_kernel(), "copy", **inputs()).report.lx_limit == SPYRE.lx_bytes
    small = copy_kernel(lx_bytes=TILE_BYTES // 2)
    assert spyre_mlir.interpret(small, "copy", **inputs()).report.lx_limit == TILE_BYTES // 2
    with pytest.raises(spyre_mlir.DiagnosticError, match=f"exceeds the {TILE_BYTES // 2}-byte scratchpad"):
        spyre_mlir.interpret(small, "copy", options=InterpreterOptions(check_lx=True), **inputs())


def test_the_lx_limit_option_overrides_the_target():
    options = InterpreterOptions(check_lx=True, lx_limit=TILE_BYTES)
    report = spyre_mlir.interpret(copy_kernel(lx_bytes=TILE_BYTES // 2), "copy", options=options, **inputs()).report
    assert report.lx_limit == TILE_BYTES


@pytest.mark.parametrize("alignment", [SPYRE.alignment_bytes, 4 * SPYRE.alignment_bytes])
def test_arrays_start_at_the_targets_alignment(alignment):
    kernel = copy_kernel(alignment_bytes=alignment) if alignment != SPYRE.alignment_bytes else copy_kernel()
    report = spyre_mlir.interpret(kernel, "copy", **inputs()).report
    for name in ("x", "y"):
        assert report.arguments[name].address * 2 % alignment == 0, name


@pytest.mark.parametrize("name", element_type_names())
def test_an_element_takes_the_targets_bytes_in_memory(name):
    """The interpreter's HBM and LX hold each element in its storage dtype: as many bytes as the target says."""
    fmt = element_format_named(name)
    ty = spyre_mlir.parse(f"func.func @f(%x: {name}) {{ return }}").body.block.first_op.function_type.inputs.data[0]
    assert fmt.itemsize == element_bytes(ty), name


def test_a_bad_target_attribute_is_a_located_error():
    with pytest.raises(spyre_mlir.DiagnosticError, match="lx_bytes' must be positive") as info:
        Interpreter(copy_kernel(lx_bytes=-1))
    assert info.value.diagnostic.location is not None


def test_a_target_whose_index_width_the_interpreter_does_not_hold_is_refused():
    with pytest.raises(spyre_mlir.DiagnosticError, match="index_bytes is 4, but the interpreter holds an index element in 8"):
        Interpreter(copy_kernel(index_bytes=4))
