"""sdscbundle: `sdsc_execute` runs the SDSC function its JSON file describes (docs/bundle.md).

The file (`sdsc_filename`, beside the bundle: `BundleFiles.directory`) is
read, checked and its `"ktir"` text parsed and verified once per
`Interpreter`; every function of that text joins the program's function table
under a name of its own (`sdsc_0.json::sdsc_0`: it cannot collide with the
bundle's functions, nor with another file's), the calls between them renamed
alike. The op then runs the entry function as `func.call` runs a callee: on
the active cores, with the operand values as its arguments (HBM byte
addresses, index values and scalars, passed as they are), so that a bundle function
with a `grid` runs batched over the grid and the SDSC function may read
`ktdp.get_compute_tile_id`. Everything wrong with a file is a located error
at the op naming the file.

The module's plug-in (plugins.py) gives the interpreter the files (one
`BundleFiles` per `Interpreter`), the function an `sdsc_execute` runs, the
LX the executed files use and declare, and the report's `sdsc_executions`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Operation

from spyre_mlir.diagnostics import Diagnostic, DiagnosticError, error, location_of
from spyre_mlir.dialects.sdscbundle import InputArgExtractOp, InputArgType, SdscExecuteOp
from spyre_mlir.interpreter import plugins
from spyre_mlir.interpreter.core import FunctionCompiler, Step, functions_of, handles
from spyre_mlir.interpreter.errors import InterpreterError
from spyre_mlir.interpreter.liveness import LxEstimate, estimate_lx
from spyre_mlir.interpreter.memory import AddressSpace
from spyre_mlir.interpreter.plugins import LxUse, Plugin, ReportSection, register
from spyre_mlir.interpreter.runtime import MAX_CALL_DEPTH, Runtime
from spyre_mlir.interpreter.superdsc_exec import (
    CoreLocalMemory,
    ExecStats,
    MemoryRangeError,
    SuperDscRunError,
    prepare_superdsc,
    run_superdsc,
)
from spyre_mlir.superdsc import SuperDsc, SuperDscError, parse_superdsc
from spyre_mlir.target import target_of
from spyre_mlir.walk import walk_ops

SDSC_FORMAT = "spyre-mlir.sdsc/1"
"""The `"format"` of the SDSC files this interpreter reads."""

ARGUMENT_KINDS = ("hbm_address", "index", "scalar")
"""Values of `"kind"` in an SDSC file's `"arguments"`."""


@dataclass
class SdscFile:
    """One SDSC file, read, checked, parsed and verified."""

    path: str  # as messages show it (the bundle's directory joined with the file name)
    entry: str  # the entry function's name in the "ktir" text
    callee: str  # its name in the program's function table
    functions: dict[str, func.FuncOp]  # every function of the "ktir" text, by its name in the program
    module: ModuleOp
    arguments: list[dict]
    peak_lx_bytes_per_core: int | None
    lx: LxEstimate = field(default_factory=LxEstimate)  # live-tensor estimate of the entry function

    @property
    def entry_op(self) -> func.FuncOp:
        return self.functions[self.callee]


@dataclass
class SuperDscFile:
    """One of torch-spyre's SuperDSC files (docs/superdsc.md), read and validated."""

    path: str  # as messages show it
    model: SuperDsc
    callee = None  # it runs no function of ours: interpreter/superdsc_exec.py runs it


class HbmBytes:
    """The run's HBM as the SuperDSC executor's `ByteMemory`: an access must lie inside one
    placed array (an argument or a preload); writes own a shared array first and count as initialized."""

    def __init__(self, hbm: AddressSpace):
        self.hbm = hbm

    def buffer(self, lo: int, hi: int, write: bool) -> tuple[np.ndarray, int]:
        segment = self.hbm.find(lo, hi)
        if segment is None:
            raise MemoryRangeError(f"no tensor in HBM holds all of [{lo:#x}, {hi:#x})")
        if write:
            segment = self.hbm.locate(lo, hi, True)
            if segment.init is not None:
                segment.init[lo - segment.start : hi - segment.start] = 0xFF
        return segment.data, segment.start


class BundleFiles:
    """The SDSC files of one Interpreter's bundle, each loaded once.

    `directory`: where `sdsc_filename`s are found (None: the current
    directory, when a file is first loaded); `shown`: how messages spell that
    directory (None: not at all). `sources` receives each file's "ktir" text
    under the file name its diagnostics carry (`PATH#ktir`), so that they
    render with the source line."""

    def __init__(self, directory: str | None = None, shown: str | None = None, sources: dict[str, str] | None = None):
        self.directory = directory
        self.shown = shown
        self.sources: dict[str, str] = {} if sources is None else sources
        self.files: dict[str, SdscFile] = {}  # by sdsc_filename
        self.functions: dict[str, func.FuncOp] = {}  # every loaded function, by its name in the program
        self._taken: set[str] = set()

    @classmethod
    def of(cls, interpreter) -> BundleFiles:
        """The files of `interpreter`'s bundle: in its options' `bundle_dir`, else beside the file it
        read the module from, else in the current directory; their texts join its `sources`."""
        bundle_dir = interpreter.options.bundle_dir
        if bundle_dir is None and interpreter.path is not None:
            bundle_dir = os.path.dirname(interpreter.path)
        shown = os.fspath(bundle_dir) if bundle_dir is not None else None
        return cls(
            os.path.abspath(shown) if shown is not None else None,
            shown if shown not in (None, "", os.curdir) else None,  # messages: DIR/sdsc_N.json, or sdsc_N.json
            interpreter.sources,
        )

    def path_of(self, filename: str) -> str:
        return os.path.join(self.shown, filename) if self.shown else filename

    def load(self, op: SdscExecuteOp, reserved) -> SdscFile | SuperDscFile:
        """The file of `op` (read on first use): ours, or torch-spyre's SuperDSC (docs/superdsc.md);
        `reserved`: names the program's own functions use."""
        filename = op.filename
        found = self.files.get(filename)
        if found is None:
            found = self.files[filename] = self._read(op, filename, reserved)
            if isinstance(found, SdscFile):
                self.functions.update(found.functions)
        return found

    # -- reading -------------------------------------------------------------

    def _read(self, op: SdscExecuteOp, filename: str, reserved) -> SdscFile:
        path = self.path_of(filename)
        where = os.path.join(self.directory if self.directory is not None else os.getcwd(), filename)

        def fail(message: str, *notes: Diagnostic) -> DiagnosticError:
            err = error(op, f"SDSC file '{path}': {message}")
            err.diagnostic.notes.extend(notes)
            return err

        try:
            with open(where, "rb") as f:
                raw = f.read()
        except OSError as exc:
            raise fail(f"cannot read it: {exc.strerror or exc}") from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise fail(f"not UTF-8 text (byte {exc.start})") from None
        except json.JSONDecodeError as exc:
            raise fail(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        except (ValueError, RecursionError) as exc:  # e.g. nesting too deep, a huge number
            raise fail(f"not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise fail(f"expected a JSON object, got {_json_kind(data)}")
        if "format" not in data and len(data) == 1 and re.fullmatch(r"\d+_\w+", next(iter(data))):  # a SuperDSC
            if op.symbol_ids is None:
                raise fail(
                    "a SuperDSC file (torch-spyre's format, docs/superdsc.md) is executed with symbol_ids "
                    "(one per operand: the symbolic start address it binds)"
                )
            try:
                return SuperDscFile(path, parse_superdsc(data, path))
            except SuperDscError as exc:
                raise error(op, str(exc)) from None
        fmt = data.get("format")
        if fmt != SDSC_FORMAT:
            got = 'no "format"' if "format" not in data else f'"format" {json.dumps(fmt)}'
            raise fail(f'{got}; this interpreter reads "{SDSC_FORMAT}"')
        for key in ("entry", "ktir"):
            if not isinstance(data.get(key), str):
                got = "missing" if key not in data else f"{_json_kind(data[key])}, not a string"
                raise fail(f'"{key}" is {got}')
        entry, text = data["entry"], data["ktir"]
        arguments = data.get("arguments")
        if not isinstance(arguments, list):
            got = "missing" if "arguments" not in data else f"{_json_kind(arguments)}, not a list"
            raise fail(f'"arguments" is {got}')
        for i, argument in enumerate(arguments):
            if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
                raise fail(f'"arguments"[{i}] must be an object with a string "name"')
            if argument.get("kind") not in ARGUMENT_KINDS:
                kinds = " or ".join(f'"{k}"' for k in ARGUMENT_KINDS)
                raise fail(f'"arguments"[{i}] has "kind" {json.dumps(argument.get("kind"))}, expected {kinds}')
        peak = data.get("peak_lx_bytes_per_core")
        if peak is not None and (isinstance(peak, bool) or not isinstance(peak, int) or peak < 0):
            raise fail(f'"peak_lx_bytes_per_core" must be a non-negative integer, got {json.dumps(peak)}')

        module = self._parse(text, f"{path}#ktir", fail)
        defined = functions_of(module)
        if entry not in defined or not defined[entry].body.blocks:
            known = ", ".join(f"@{n}" for n, f in defined.items() if f.body.blocks) or "none"
            what = "a declaration" if entry in defined else "no such function"
            raise fail(f'entry function @{entry}: {what} in its "ktir" text (functions: {known})')
        for inner in walk_ops(module):
            if isinstance(inner, SdscExecuteOp):
                raise fail('its "ktir" text executes another SDSC file', _note(inner, "here"))
            if isinstance(inner, func.CallOp):
                name = inner.callee.root_reference.data
                if name not in defined or not defined[name].body.blocks:
                    raise fail(f'its "ktir" text calls @{name}, which it does not define', _note(inner, "called here"))
        names = self._rename(filename, defined, module, reserved)
        functions = {names[n]: f for n, f in defined.items()}
        sdsc = SdscFile(path, entry, names[entry], functions, module, arguments, peak)
        sdsc.lx = estimate_lx(sdsc.entry_op, functions)
        return sdsc

    def _parse(self, text: str, name: str, fail) -> ModuleOp:
        from spyre_mlir import ir
        from spyre_mlir.deep import call_deep

        self.sources[name] = text
        try:
            module = call_deep(ir.parse_module, text, name)
        except DiagnosticError as exc:
            raise fail(f'its "ktir" text does not parse: {exc.diagnostic.message}', _moved(exc.diagnostic)) from None

        try:
            call_deep(plugins.verify, module)
        except DiagnosticError as exc:
            raise fail(f'its "ktir" text does not verify: {exc.diagnostic.message}', _moved(exc.diagnostic)) from None
        return module

    def _rename(self, filename: str, defined: dict[str, func.FuncOp], module: ModuleOp, reserved) -> dict[str, str]:
        """Give every function of the file a name of its own in the program (calls follow)."""
        names: dict[str, str] = {}
        for name in defined:
            new = f"{filename}::{name}"
            k = 1
            while new in reserved or new in self._taken:
                k += 1
                new = f"{filename}::{name}#{k}"
            self._taken.add(new)
            names[name] = new
        for inner in walk_ops(module):
            if isinstance(inner, func.FuncOp) and inner.sym_name.data in names:
                inner.properties["sym_name"] = StringAttr(names[inner.sym_name.data])
            elif isinstance(inner, func.CallOp):
                inner.properties["callee"] = SymbolRefAttr(names[inner.callee.root_reference.data])
        return names


def _json_kind(value) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    for kind, text in kinds.items():
        if isinstance(value, kind):
            return text
    return "a number"


def _note(op: Operation, message: str) -> Diagnostic:
    return Diagnostic("note", message, location_of(op))


def _moved(diagnostic: Diagnostic) -> Diagnostic:
    """An error inside the "ktir" text, as a note of the error at the op."""
    return Diagnostic("note", 'in the "ktir" text here', diagnostic.location, list(diagnostic.notes))


PLUGIN = "sdscbundle"


def bundle_files(program) -> BundleFiles:
    """The SDSC files of `program`'s interpreter (its session of this plug-in); a program made
    elsewhere gets its own, relative to the current directory."""
    files = program.sessions.get(PLUGIN)
    if files is None:
        files = program.sessions[PLUGIN] = BundleFiles()
    return files


@dataclass
class BundleRun:
    """What one run executed: the SDSC files by path, and how many times each (one per core);
    for SuperDSC files, the cores' LX (kept from one file to the next) and what they moved."""

    files: dict[str, SdscFile] = field(default_factory=dict)
    executions: dict[str, int] = field(default_factory=dict)
    lx: CoreLocalMemory | None = None
    superdsc: ExecStats = field(default_factory=ExecStats)


# -- the handler ---------------------------------------------------------------


def _no_results(fc: FunctionCompiler, op: Operation) -> bool:
    return False


def _checked_call(op: SdscExecuteOp, sdsc: SdscFile, bundle: func.FuncOp) -> None:
    """The op passes what the entry function takes; grids agree."""
    params = sdsc.entry_op.function_type.inputs.data
    if len(params) != len(op.args) or len(sdsc.arguments) != len(op.args):
        counts = f'@{sdsc.entry} takes {len(params)} parameters and "arguments" lists {len(sdsc.arguments)}'
        raise error(op, f"SDSC file '{sdsc.path}': {counts}, but this op passes {len(op.args)} operands")
    for i, (ty, value) in enumerate(zip(params, op.args)):
        if ty != value.type:
            raise error(
                op, f"SDSC file '{sdsc.path}': parameter #{i} of @{sdsc.entry} is {ty}, but this op passes {value.type}"
            )
    grid = sdsc.entry_op.attributes.get("grid")
    if grid is not None and grid != bundle.attributes.get("grid"):
        theirs = bundle.attributes.get("grid")
        raise error(
            op,
            f"SDSC file '{sdsc.path}': @{sdsc.entry} has grid {grid}, but @{bundle.sym_name.data} "
            + (f"has grid {theirs}" if theirs is not None else "has no grid"),
        )


def _add_note(exc: DiagnosticError, op: Operation, sdsc: SdscFile) -> None:
    note = f"in @{sdsc.entry} of SDSC file '{sdsc.path}', executed here"
    notes = exc.diagnostic.notes
    if not any(n.message == note and n.location == location_of(op) for n in notes):
        notes.append(_note(op, note))


# The op moves nothing itself: the ops of the function it runs are charged (cost.py's table of free ops).


@handles(InputArgExtractOp)
def _input_arg_extract(fc: FunctionCompiler, op: Operation) -> Step:
    source, result = fc.slot(op.operands[0]), fc.slot(op.results[0])

    def step(frame):
        frame[result] = frame[source]

    return step


def _uniform(value, op: Operation, i: int) -> int:
    """An operand's value, the same on every core (a bundle of SuperDSC files runs once for all cores)."""
    if type(value) is int:  # the common case: np.unique would cost more than the rest of the op
        return value
    values = np.unique(np.asarray(value).reshape(-1))
    if len(values) != 1:
        raise InterpreterError(f"operand #{i} differs across cores; a SuperDSC execution binds one address per symbol")
    return int(values[0])


def _superdsc_step(fc: FunctionCompiler, op: SdscExecuteOp, sdsc: SuperDscFile) -> Step:
    program = fc.program
    try:  # planned now, once: its runs reuse the plan, and what cannot run is an error before any runs
        prepare_superdsc(sdsc.model, source=sdsc.path)
    except SuperDscRunError as exc:
        raise error(op, str(exc)) from None
    slots = tuple(fc.slot(a) for a in op.args)
    ids = op.symbol_ids or []
    cores = target_of(program.module).cores

    def step(frame):
        runtime = program.runtime
        symbols = {symbol: _uniform(frame[s], op, i) for i, (symbol, s) in enumerate(zip(ids, slots))}
        ran = runtime.state(PLUGIN, BundleRun)
        if ran.lx is None:
            ran.lx = CoreLocalMemory(cores, runtime.lx_limit)
        tensors = [
            (f"argument {k} ({t.name})", t.byte_address, t.shape, t.dtype) for k, t in enumerate(runtime.host_tensors)
        ] or None
        try:
            stats = run_superdsc(sdsc.model, symbols, HbmBytes(runtime.hbm), ran.lx, source=sdsc.path, tensors=tensors)
        except (SuperDscRunError, MemoryRangeError) as exc:
            raise error(op, str(exc)) from None
        ran.superdsc.merge(stats)
        if runtime.cost is not None:  # its cores' work, per core (it runs once, for all of them)
            model = program.cost_model
            moved = stats.bytes_read.get("hbm", 0) + stats.bytes_written.get("hbm", 0)
            for name, component, cycles in model.costs.superdsc(sdsc.model, moved):
                runtime.cost.charge(model.row(name, component), frame[0], cycles)
        ran.executions[sdsc.path] = ran.executions.get(sdsc.path, 0) + len(sdsc.model.dscs[0].core_ids_used)

    return step


@handles(SdscExecuteOp, varying=_no_results)
def _sdsc_execute(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, SdscExecuteOp)
    program = fc.program
    files = bundle_files(program)
    sdsc = files.load(op, program.functions)
    if isinstance(sdsc, SuperDscFile):
        return _superdsc_step(fc, op, sdsc)
    _checked_call(op, sdsc, fc.func_op)
    program.functions.update(sdsc.functions)
    model = program.cost_model
    if model is not None:  # the ops of an inter-tile combiner are charged with their delivery (cost.py)
        combiners = model.combiner_ops(program.module)  # its cache, extended by our module
        for inner in walk_ops(sdsc.module):
            if inner.name == "ktdp.inter_tile_reduce":
                combiners.update(id(x) for region in inner.regions for x in walk_ops(region))
    arg_slots = tuple(fc.slot(a) for a in op.args)
    arg_varying = tuple(fc.is_varying(a) for a in op.args)
    try:
        compiled = program.function(sdsc.callee, arg_varying)  # decoded now: no recursion into a bundle
    except DiagnosticError as exc:
        _add_note(exc, op, sdsc)
        raise

    def step(frame):
        runtime = program.runtime
        if runtime.call_depth >= MAX_CALL_DEPTH:
            raise InterpreterError(f"call depth exceeds {MAX_CALL_DEPTH} nested calls")
        runtime.call_depth += 1
        try:
            compiled.call(frame[0], [frame[s] for s in arg_slots])
        except DiagnosticError as exc:
            _add_note(exc, op, sdsc)
            raise
        finally:
            runtime.call_depth -= 1
        cores = frame[0].count or 1  # executions by one core each, batched or not
        ran = runtime.state(PLUGIN, BundleRun)
        ran.executions[sdsc.path] = ran.executions.get(sdsc.path, 0) + cores
        ran.files[sdsc.path] = sdsc

    return step


# -- the plug-in ---------------------------------------------------------------


def _callee(files: BundleFiles, op: Operation, functions) -> str | None:
    """The entry function an `sdsc_execute` runs (its file loaded now)."""
    return files.load(op, functions).callee if isinstance(op, SdscExecuteOp) else None  # None: a SuperDSC


def _lx(runtime: Runtime) -> list[LxUse]:
    """The live tensors of each executed file's entry function, and the LX peak the file declares."""
    ran = runtime.find_state(PLUGIN)
    if not isinstance(ran, BundleRun):
        return []
    return [LxUse(f.lx, f.peak_lx_bytes_per_core or 0, "an executed SDSC file") for f in ran.files.values()]


def _finish(runtime: Runtime) -> None:
    """The run is over: its cores' LX goes back for the next run to reuse."""
    ran = runtime.find_state(PLUGIN)
    if isinstance(ran, BundleRun) and ran.lx is not None:
        ran.lx.release()


def _report_fields(runtime: Runtime) -> dict[str, object]:
    ran = runtime.find_state(PLUGIN)
    if not isinstance(ran, BundleRun):
        return {"sdsc_executions": {}, "superdsc_bytes": {}}
    moved = {f"{component}_read": n for component, n in ran.superdsc.bytes_read.items()}
    moved.update({f"{component}_written": n for component, n in ran.superdsc.bytes_written.items()})
    return {"sdsc_executions": dict(ran.executions), "superdsc_bytes": moved}


def _report_lines(report) -> list[str]:
    executions = report.sdsc_executions
    if not executions:
        return []
    return [
        f"bundle: {sum(executions.values())} SDSC executions (summed over cores) of {len(executions)} files; "
        f"declared lx peak per core {report.lx_declared_peak} bytes"
    ]


register(
    Plugin(
        PLUGIN,
        session=BundleFiles.of,
        callee=_callee,
        session_functions=lambda files: files.functions,
        lx=_lx,
        address_parameters=(InputArgType,),
        finish=_finish,
        report=ReportSection(_report_fields, _report_lines, place="memory"),
    )
)
