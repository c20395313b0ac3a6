"""The public entry points: `interpret()` and `Interpreter`.

    result = spyre_mlir.interpret("softmax.mlir", "softmax_kernel",
                                  output_ptr=np.zeros((4096, 1024), np.float16),
                                  input_ptr=x, n_rows=4096)
    result["output_ptr"]          # contents after the run
    result.report.render()        # grid, mode, LX estimate, timings

Arguments follow the public KTIR convention: a pointer parameter is an
`index`; a NumPy array passed for it is copied into HBM and its address (in
elements of the array's dtype) is passed; an int is passed as is. `hbm`
pre-loads arrays at given element addresses for kernels that use constant
addresses. The result maps every array argument's name to its contents
after the run, every `hbm` entry to `"hbm@ADDRESS"`, and a function's
return values to `"return_N"`.
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation

from spyre_mlir.analysis.layout import Layout, LayoutError, from_device, to_device
from spyre_mlir.deep import call_deep
from spyre_mlir.diagnostics import Diagnostic, error, location_of
from spyre_mlir.dialects.ktdp import RuntimeArgType
from spyre_mlir.dialects.spyre import SCRATCH_BYTES_ATTR, host_layouts
from spyre_mlir.interpreter import plugins
from spyre_mlir.interpreter.core import CompiledFunction, Program, always_varying, functions_of, varying_rule_of
from spyre_mlir.interpreter.cost import CostCounter, CostEstimate, CostModel
from spyre_mlir.interpreter.cost import resolve as resolve_cost_model
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError, InterpreterWarning, NotBatchable
from spyre_mlir.interpreter.lanes import CoreContext, LaneContext, linear_order
from spyre_mlir.interpreter.liveness import LxEstimate, estimate_lx
from spyre_mlir.interpreter.memory import format_bytes
from spyre_mlir.interpreter.ops_memref import memref_argument
from spyre_mlir.interpreter.runtime import (
    ARG_BASE,
    CORE_BYTES,
    HostTensor,
    InterpreterOptions,
    Runtime,
    normalize_grid,
)
from spyre_mlir.target import Target, TargetError, target_of
from spyre_mlir.walk import nesting_depth, walk_ops

DEEP_NESTING = 40
"""Region nesting beyond which a kernel is decoded and run on a deep stack
(`spyre_mlir.deep.call_deep`), as are kernels whose calls may recurse."""

ARG_GAP = 4096
"""Unmapped bytes left between placed arrays, so that running off the end of
one array is reported instead of reading its neighbour."""


@dataclass
class ArgumentInfo:
    """How an argument was passed: an array placed at `address`, or a value."""

    value: object = None
    shape: tuple[int, ...] | None = None
    dtype: np.dtype | None = None
    address: int | None = None  # element address, in units of `dtype`
    host_layout: str | None = None  # the layout its host (logical) array was placed in (`host_layout` option)

    def __str__(self) -> str:
        if self.address is None:
            return "tensor" if isinstance(self.value, np.ndarray) else repr(self.value)
        shape = "x".join(map(str, self.shape or ())) or "scalar"
        placed = f" (host array, placed in layout {self.host_layout})" if self.host_layout else ""
        return f"{shape} {self.dtype} at element address {self.address}{placed}"


@dataclass
class RunReport:
    """What a run did; `render()` is what `spyre-run --print-summary` prints."""

    function: str
    grid: tuple[int, ...]
    grid_order: str
    mode: str
    fallback_reason: str | None
    divergent_regions: int
    lx_limit: int
    lx_tensor_peak: int
    lx_peak_location: str | None
    lx_explicit_peak: int
    lx_dynamic_tensors: int
    hbm_bytes: int
    decode_seconds: float
    run_seconds: float
    arguments: dict[str, ArgumentInfo] = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)  # also emitted as InterpreterWarning
    # Inter-tile bytes by linear core id: "sent", "received" (logical volumes)
    # and "ring" (ktir-cpu's ring charge); empty without inter-tile ops.
    communication: dict[str, list[int]] = field(default_factory=dict)
    # The modeled time on Spyre (InterpreterOptions.cost_model; docs/cost-model.md), else None.
    estimate: CostEstimate | None = None
    # The largest LX peak per core that code the run executed declares (plugins.LxUse; 0: none).
    lx_declared_peak: int = 0
    # The fields the interpreter's plug-ins add (`plugins.ReportSection`), read as attributes:
    # `report.relayout_bytes`, `report.sdsc_executions`.
    extensions: dict[str, object] = field(default_factory=dict)

    def __getattr__(self, name: str):
        extensions = self.__dict__.get("extensions")
        if extensions is not None and name in extensions:
            return extensions[name]
        raise AttributeError(f"'RunReport' has no field '{name}'")

    @property
    def lx_peak(self) -> int:
        """LX bytes per core the interpreter saw: live tensors (estimate) + explicit ct_local use."""
        return self.lx_tensor_peak + self.lx_explicit_peak

    @property
    def peak_lx_bytes_per_core(self) -> int:
        """`lx_peak`, or the largest LX peak executed code declares if larger
        (`peak_lx_bytes_per_core` of `--estimate-json`)."""
        return max(self.lx_peak, self.lx_declared_peak)

    @property
    def hbm_traffic_bytes(self) -> int | None:
        """Bytes moved between HBM and the cores, all cores together, by loads and
        stores of global memory and data transfers, as the cost model counts
        them (whole sticks per contiguous row, `HardwareConfig.stick_bytes`; raw
        bytes with 0); None when the cost model is off. `hbm_bytes` of `--estimate-json`
        (not the `hbm_bytes` field here, which is the HBM the run mapped)."""
        return hbm_traffic_bytes(self.estimate) if self.estimate is not None else None

    def estimate_json(self) -> dict | None:
        """What `spyre-run --estimate-json` writes: the estimate's JSON (`CostEstimate.to_json`)
        plus "hbm_bytes" (`hbm_traffic_bytes`) and "peak_lx_bytes_per_core"; None without estimate."""
        if self.estimate is None:
            return None
        return {
            **self.estimate.to_json(),
            "hbm_bytes": self.hbm_traffic_bytes,
            "peak_lx_bytes_per_core": self.peak_lx_bytes_per_core,
        }

    def render(self) -> str:
        cores = int(np.prod(self.grid))
        lines = [
            f"function: @{self.function}",
            f"grid: {list(self.grid)} ({cores} cores, {self.grid_order})",
            f"execution: {self.mode}" + (f" ({self.fallback_reason})" if self.fallback_reason else ""),
            f"divergent control flow: {self.divergent_regions} (times cores took different paths)",
            f"lx peak per core: {self.lx_peak} bytes of {self.lx_limit}"
            f" (live tensors {self.lx_tensor_peak}"
            + (f" at {self.lx_peak_location}" if self.lx_peak_location else "")
            + f", explicit ct_local {self.lx_explicit_peak})",
        ]
        if self.lx_dynamic_tensors:
            lines.append(f"lx note: {self.lx_dynamic_tensors} dynamically shaped tensors not counted")
        lines += plugins.report_lines(self, "memory")
        lines.append(f"hbm mapped: {self.hbm_bytes} bytes")
        if self.communication:
            parts = [
                f"{what} max {max(per_core)} (total {sum(per_core)})" for what, per_core in self.communication.items()
            ]
            lines.append("inter-tile bytes per core: " + ", ".join(parts))
        lines += plugins.report_lines(self, "traffic")
        for name, desc in self.arguments.items():
            lines.append(f"arg {name}: {desc}")
        lines.append(f"time: decode {self.decode_seconds * 1e3:.1f} ms, run {self.run_seconds * 1e3:.1f} ms")
        return "\n".join(lines)


def hbm_traffic_bytes(estimate: CostEstimate) -> int:
    """Bytes moved between HBM and the cores in a run, all cores together: the
    memory cycles the cost model charged the ops that move data between HBM
    and the cores (`Plugin.hbm_transfers`: loads, stores, data transfers),
    times the HBM bytes per cycle of a core (LX accesses are charged nothing)."""
    if estimate.kind_cycles is None:
        return 0
    transfers = plugins.hbm_transfer_ops()
    rows = [r for r, (name, component) in enumerate(estimate.kinds) if name in transfers and component == "memory"]
    cycles = float(estimate.kind_cycles[rows].sum()) if rows else 0.0
    return int(round(cycles * estimate.config.hbm_bytes_per_cycle_per_core(estimate.cores)))


class InterpretResult(dict):
    """Arrays by name (see module docstring), plus the run's report and memory."""

    def __init__(self, values: dict[str, np.ndarray], report: RunReport, runtime: Runtime):
        super().__init__(values)
        self.report = report
        self.runtime = runtime

    def read_hbm(self, address: int, shape, dtype) -> np.ndarray:
        """HBM contents at element `address` (in units of `dtype`) after the run."""
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        raw = self.runtime.hbm.read_bytes(address * dtype.itemsize, count * dtype.itemsize)
        return raw.view(dtype).reshape(shape)


@dataclass
class _Placed:
    name: str
    byte_address: int
    shape: tuple[int, ...]
    dtype: np.dtype
    layout: Layout | None = None  # placed as `to_device(array, layout)`; `shape` is the logical shape
    padded: tuple[int, ...] | None = None  # the logical shape `layout` lays out, when `shape` was zero-padded to it


def _load_module(source) -> tuple[ModuleOp, dict[str, str], str | None]:
    """A module from a ModuleOp, MLIR text or a path; its sources for
    diagnostics; and the path it was read from (None: not a file)."""
    from spyre_mlir import ir

    if isinstance(source, ModuleOp):
        return source, {}, None
    if not isinstance(source, str | os.PathLike):
        raise TypeError(
            f"expected a ModuleOp, MLIR text or a path to a kernel, not {type(source).__name__} {_short(source)}"
        )
    text, name = ir.read_source(source)
    path = name if name not in ("<string>", "<stdin>") else None
    return ir.parse_module(text, name), {name: text}, path


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_options(options) -> InterpreterOptions:
    if options is None:
        return InterpreterOptions()
    if not isinstance(options, InterpreterOptions):
        raise TypeError(f"options must be an InterpreterOptions, not {type(options).__name__} {_short(options)}")
    options.validate()
    return options


def _check_call(func_name, args, hbm) -> None:
    """TypeError for arguments of `run`/`interpret` of the wrong Python type."""
    if func_name is not None and not isinstance(func_name, str):
        raise TypeError(
            f"func must be a function name (str) or None, not {type(func_name).__name__} {_short(func_name)}"
        )
    if args is not None and not isinstance(args, Mapping):
        raise TypeError(f"args must be a mapping of parameter names to values, not {type(args).__name__}")
    for name in args or {}:
        if not isinstance(name, str):
            raise TypeError(f"argument names must be str, not {type(name).__name__} {_short(name)}")
    if hbm is not None and not isinstance(hbm, Mapping):
        raise TypeError(f"hbm must be a mapping {{element address: array}}, not {type(hbm).__name__} {_short(hbm)}")
    for address, array in (hbm or {}).items():
        if isinstance(address, bool) or not isinstance(address, int | np.integer):
            raise TypeError(
                f"hbm addresses must be ints (element addresses), not {type(address).__name__} {_short(address)}"
            )
        if not isinstance(array, np.ndarray):
            raise TypeError(f"hbm[{address}] must be a NumPy array, not {type(array).__name__} {_short(array)}")
        _check_array_dtype(f"hbm[{address}]", array)


def _check_array_dtype(what: str, array: np.ndarray) -> None:
    if array.dtype.kind not in "biuf" and array.dtype.name != "bfloat16":
        raise TypeError(f"{what} must be a numeric array, not an array of dtype {array.dtype}")


def _check_value(name: str, value) -> None:
    """TypeError for an argument value no kernel parameter could take."""
    if isinstance(value, np.ndarray):
        _check_array_dtype(f"argument '{name}'", value)
        return
    if isinstance(value, bool | int | float | np.bool_ | np.integer | np.floating):
        return
    if isinstance(value, list | tuple):
        try:
            array = np.asarray(value)
        except (ValueError, TypeError) as exc:
            raise TypeError(f"argument '{name}': cannot make an array of this {type(value).__name__}: {exc}") from None
        if array.dtype.kind not in "biuf":
            raise TypeError(
                f"argument '{name}' must be a NumPy array, an int or a float; got a {type(value).__name__} "
                f"that is not numeric ({_short(value)})"
            )
        return
    raise TypeError(
        f"argument '{name}' must be a NumPy array, an int or a float, not {type(value).__name__} {_short(value)}"
    )


def _scratch_parameters(func_op: func.FuncOp) -> dict[int, int]:
    """Parameter index -> bytes, for the pointer parameters the compiler added for HBM scratch
    (`spyre.scratch_bytes`, ktdp-hbm-roundtrip): the runtime allocates them when the caller passes
    nothing for them, and leaves them out of the results."""
    found = {}
    for index, attrs in enumerate(func_op.arg_attrs.data if func_op.arg_attrs else ()):
        value = attrs.data.get(SCRATCH_BYTES_ATTR)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(value, IntegerAttr):
            found[index] = int(value.value.data)
    return found


def _quietly(fn, *args):
    """`fn(*args)` with NumPy's floating-point warnings off (errstate is per thread)."""
    with np.errstate(all="ignore"):
        return fn(*args)


def _warn(diagnostics: list[Diagnostic], stacklevel: int) -> None:
    for diagnostic in diagnostics:
        warnings.warn(diagnostic.render(), InterpreterWarning, stacklevel=stacklevel + 1)


class Interpreter:
    """A parsed (and verified) module, ready to run kernels of.

    Kernels are decoded on their first run and the decoded form is reused by
    later runs (one run at a time: an Interpreter is not thread-safe)."""

    def __init__(self, source: ModuleOp | str | os.PathLike[str], options: InterpreterOptions | None = None):
        self.options = _check_options(options)
        path = None
        if isinstance(source, ModuleOp):
            self.module, self.sources = source, {}
        else:  # parsing (and verifying) may recurse deeply: a large stack
            self.module, self.sources, path = call_deep(_load_module, source)
        if self.options.verify:
            if nesting_depth(self.module) > DEEP_NESTING:
                call_deep(plugins.verify, self.module)
            else:
                plugins.verify(self.module)
        self.path = path  # the file the module was read from (None: not a file)
        try:
            self.target: Target = target_of(self.module)
        except TargetError as exc:
            raise error(self.module, str(exc)) from None
        held = element_format(IndexType()).itemsize  # every other width follows from the type's bits
        if self.target.index_bytes != held:
            raise error(
                self.module,
                f"the target's index_bytes is {self.target.index_bytes}, but the interpreter holds an index "
                f"element in {held} bytes of memory",
            )
        # The LX scratchpad of a core: the option, else the module's target.
        self.lx_limit = self.options.lx_limit if self.options.lx_limit is not None else self.target.lx_bytes
        self.functions = functions_of(self.module)
        # What else runs by name as a kernel does (a function of the module wins): the plug-ins'
        # entry points (plugins.Plugin.entry_points), e.g. a wrapper function per program of an IR.
        self.entry_points: dict[str, func.FuncOp] = {}
        for plugin in plugins.plugins():
            if plugin.entry_points is not None:
                self.entry_points.update(plugin.entry_points(self.module, {**self.functions, **self.entry_points}))
        self.functions.update(self.entry_points)
        # The plug-ins' state for as long as this Interpreter lives (plugins.Plugin.session).
        self.sessions: dict[str, object] = {p.name: p.session(self) for p in plugins.plugins() if p.session is not None}
        # Decoded kernels and LX estimates, reused by later runs of the same kernel.
        self._decoded: dict[tuple, tuple[Program, CompiledFunction, str, str | None]] = {}
        self._lx: dict[str, LxEstimate] = {}
        self._default_kernel: func.FuncOp | None = None
        self._locations: dict[str, object] = {}  # kernel -> location of its LX peak
        self._deep: dict[str, bool] = {}  # kernel -> needs a deep stack
        self._tile_id_ops: dict[str, Operation | None] = {}  # kernel -> first tile id read (callees too)
        self._names: dict[str, list[str]] = {}  # kernel -> parameter names
        self._collective: dict[str, bool] = {}  # kernel -> holds inter-tile ops (callees too)
        self._layouts: dict[str, dict] = {}  # kernel -> host layouts of its parameters (host_layout option)

    # -- selection ---------------------------------------------------------

    def kernel(self, name: str | None) -> func.FuncOp:
        if name is not None:
            if name not in self.functions:
                known = ", ".join(f"@{n}" for n in self.functions) or "none"
                raise error(self.module, f"no function @{name} in the module (functions: {known})")
            return self.functions[name]
        if self._default_kernel is None:
            called = {op.callee.root_reference.data for op in walk_ops(self.module) if isinstance(op, func.CallOp)}
            candidates = [f for n, f in self.functions.items() if n not in called and f.body.blocks]
            if len(candidates) != 1:
                names = ", ".join(f"@{n}" for n in self.functions) or "none"
                raise error(self.module, f"cannot choose the kernel to run among: {names}; name it (func=...)")
            self._default_kernel = candidates[0]
        return self._default_kernel

    @staticmethod
    def grid_of(func_op: func.FuncOp) -> tuple[int, ...]:
        grid = func_op.attributes.get("grid")
        if grid is None:
            return (1,)
        if not isinstance(grid, ArrayAttr) or not grid.data:
            raise error(func_op, f"'grid' must be a non-empty array of integers, got {grid}")
        dims = []
        for entry in grid.data:
            if not isinstance(entry, IntegerAttr) or entry.value.data <= 0:
                raise error(func_op, f"'grid' entries must be positive integers, got {grid}")
            dims.append(int(entry.value.data))
        return tuple(dims)

    # -- running -----------------------------------------------------------

    def run(
        self,
        func_name: str | None = None,
        args: Mapping[str, object] | None = None,
        hbm: Mapping[int, np.ndarray] | None = None,
        *,
        grid: int | tuple[int, ...] | None = None,
    ) -> InterpretResult:
        """Run kernel `func_name` (default: the only kernel) with `args` by
        parameter name; `hbm` pre-loads arrays at element addresses; `grid`
        overrides the kernel's grid (and `options.grid`). Warnings (see
        `RunReport.warnings`) are emitted as `InterpreterWarning`s."""
        result = self._run(func_name, args, hbm, grid)
        _warn(result.report.warnings, stacklevel=2)
        return result

    def _run(self, func_name, args, hbm, grid) -> InterpretResult:
        _check_call(func_name, args, hbm)
        grid = normalize_grid(grid)
        options = self.options  # validated by the constructor
        func_op = self.kernel(func_name)
        name = func_op.sym_name.data
        if not func_op.body.blocks:
            raise error(func_op, f"@{name} is a declaration: there is no body to run")
        diagnostics: list[Diagnostic] = []
        if grid is None:
            grid = options.grid
        if grid is None:
            grid = self.grid_of(func_op)
            if "grid" not in func_op.attributes:
                tile_id = self._tile_id_op(name)
                if tile_id is not None:
                    diagnostics.append(
                        Diagnostic(
                            "warning",
                            f"@{name} reads the tile id but has no 'grid' attribute (and no grid was given): "
                            "it runs on a single core, core 0",
                            location_of(tile_id),
                        )
                    )
        n_cores = math.prod(grid)
        if n_cores * CORE_BYTES > options.memory_limit:
            raise error(
                func_op,
                f"the grid {list(grid)} of {n_cores} cores would allocate {format_bytes(n_cores * CORE_BYTES)} "
                f"for its cores alone, over the {format_bytes(options.memory_limit)} memory limit",
            )

        if name not in self._lx:
            self._lx[name] = self._maybe_deep(name, estimate_lx, func_op, self.functions)
        estimate = self._lx[name]
        if options.check_lx and estimate.peak_bytes > self.lx_limit:
            raise error(
                estimate.op,
                f"LX use of {estimate.peak_bytes} bytes (live tensors per core) exceeds the "
                f"{self.lx_limit}-byte scratchpad",
            )

        cores = linear_order(grid, options.grid_order)
        runtime = Runtime(options, grid, cores, self.lx_limit)
        args = dict(args or {})
        with np.errstate(all="ignore"):  # IEEE results (inf, NaN) are the semantics, not errors
            preloads = self._preload(func_op, runtime, hbm or {})
            values, placed, described = self._marshal(func_op, runtime, args)
            started = time.perf_counter()
            outcome = self._maybe_deep(name, self._decode_and_execute, func_op, grid, cores, runtime, values, estimate)
            program, returned, mode, reason, decoded = outcome
            runtime.stats.fallback_reason = reason
            result_types = func_op.function_type.outputs.data
            returned = [_as_result(v, t) for v, t in zip(returned, result_types)]
        finished = time.perf_counter()

        explicit = runtime.explicit_lx_peak()
        # Functions the plug-ins ran beyond the kernel's calls: their live tensors count too,
        # and the LX peaks they declare.
        tensor_peak, peak_op, dynamic = estimate.peak_bytes, estimate.op, estimate.dynamic_tensors
        declared, declared_by = 0, ""
        for plugin in plugins.plugins():
            for use in plugin.lx(runtime) if plugin.lx is not None else ():
                if use.estimate.peak_bytes > tensor_peak:
                    tensor_peak, peak_op = use.estimate.peak_bytes, use.estimate.op
                dynamic += use.estimate.dynamic_tensors
                if use.declared > declared:
                    declared, declared_by = use.declared, use.declared_by
        if options.check_lx and max(tensor_peak + explicit, declared) > self.lx_limit:
            used = f"LX use of {tensor_peak + explicit} bytes per core ({tensor_peak} of live tensors, {explicit} of ct_local views)"
            if declared > tensor_peak + explicit:
                used = f"the LX peak of {declared} bytes per core that {declared_by} declares"
            raise error(func_op, f"{used} exceeds the {self.lx_limit}-byte scratchpad")

        out: dict[str, np.ndarray] = {}
        for p in [*placed, *preloads]:
            if p.name in runtime.internal_args:
                continue
            if p.layout is None:
                out[p.name] = runtime.hbm.contents(p.byte_address, p.shape, p.dtype)
            else:  # a host array: back in logical form
                laid_out = p.padded or p.shape
                device = runtime.hbm.contents(p.byte_address, (math.prod(laid_out),), p.dtype)
                logical = from_device(device, laid_out, p.layout)
                out[p.name] = logical[tuple(slice(0, n) for n in p.shape)] if p.padded else logical
        for i, value in enumerate(returned):
            out[f"return_{i}"] = value
        extensions = plugins.report_fields(runtime)
        plugins.finish(runtime)

        location = self._locations.get(name)
        if name not in self._locations:
            location = self._locations[name] = location_of(estimate.op) if estimate.op is not None else None
        if peak_op is not estimate.op:  # the peak is in a function a plug-in ran
            location = location_of(peak_op) if peak_op is not None else None
        report = RunReport(
            function=name,
            grid=grid,
            grid_order=options.grid_order,
            mode=mode,
            fallback_reason=reason,
            divergent_regions=runtime.stats.divergent_regions,
            lx_limit=self.lx_limit,
            lx_tensor_peak=tensor_peak,
            lx_peak_location=str(location) if location else None,
            lx_explicit_peak=explicit,
            lx_dynamic_tensors=dynamic,
            hbm_bytes=runtime.hbm.mapped_bytes(),
            decode_seconds=decoded - started,
            run_seconds=finished - decoded,
            arguments=described,
            warnings=diagnostics,
            communication={k: v.tolist() for k, v in (runtime.stats.comm or {}).items()},
            estimate=runtime.cost.estimate(grid) if runtime.cost is not None else None,
            lx_declared_peak=declared,
            extensions=extensions,
        )
        return InterpretResult(out, report, runtime)

    def _decode_and_execute(self, func_op, grid, cores, runtime: Runtime, values: list, estimate: LxEstimate):
        """Decode (or reuse) the kernel and run it: (program, returned values, mode, why not batched, decode end)."""
        options = self.options
        name = func_op.sym_name.data
        cost = resolve_cost_model(options.cost_model)
        key = (name, grid, options.grid_order, options.execution, options.memory_limit, cost)
        if key not in self._decoded:
            self._decoded[key] = self._decode(func_op, grid, cores, estimate, cost)
        program, compiled, mode, reason = self._decoded[key]
        decoded = time.perf_counter()
        program.runtime = runtime
        if program.cost_model is not None:  # counts the cycles of this run (and of its stages)
            runtime.cost = CostCounter(program.cost_model, len(cores))
            runtime.stage_hooks.append(runtime.cost)
        runtime.start_clock()
        try:
            returned = self._execute(compiled, mode, cores, values, runtime, func_op)
        except RecursionError as exc:  # outside any op's runner
            raise error(func_op, "the kernel nests regions or calls too deeply for the interpreter") from exc
        finally:
            program.runtime = None
        return program, returned, mode, reason, decoded

    def _maybe_deep(self, name: str, fn, *args):
        """`fn(*args)`, on a deep stack when kernel `name` nests deeply or may recurse."""
        if name not in self._deep:
            self._deep[name] = self._needs_deep_stack(name)
        if self._deep[name]:
            return call_deep(_quietly, fn, *args)
        return fn(*args)

    def _needs_deep_stack(self, name: str) -> bool:
        """Whether the functions reachable from `name` nest regions deeply or call recursively."""
        state: dict[str, int] = {}  # 1: on the DFS path, 2: done
        stack = [(name, iter(self._callees(name)))]
        state[name] = 1
        if nesting_depth(self._function(name)) > DEEP_NESTING:
            return True
        while stack:
            current, it = stack[-1]
            callee = next(it, None)
            if callee is None:
                state[current] = 2
                stack.pop()
                continue
            if state.get(callee) == 1:
                return True  # recursion
            if callee not in state:
                if nesting_depth(self._function(callee)) > DEEP_NESTING:
                    return True
                state[callee] = 1
                stack.append((callee, iter(self._callees(callee))))
        return False

    def _callees(self, name: str) -> list[str]:
        return [callee for op in walk_ops(self._function(name)) if (callee := self._callee_of(op)) is not None]

    def _function(self, name: str) -> func.FuncOp | None:
        """A function of the module, or one a plug-in's session loaded (by its name in the program)."""
        found = self.functions.get(name)
        for plugin in plugins.plugins():
            if found is not None:
                break
            if plugin.session_functions is not None:
                found = plugin.session_functions(self.sessions.get(plugin.name)).get(name)
        return found

    def _callee_of(self, op: Operation) -> str | None:
        """The function `op` runs, if it has a definition (`plugins.Plugin.callee`: a `func.call`'s
        callee; a plug-in may load it, and then a located error says why it cannot)."""
        for plugin in plugins.plugins():
            if plugin.callee is not None:
                name = plugin.callee(self.sessions.get(plugin.name), op, self.functions)
                if name is not None:
                    return name if self._function(name) is not None else None
        return None

    def _communicates(self, name: str) -> bool:
        """Whether kernel `name` (or a function it calls) holds an op that needs the grid's cores together
        (`plugins.Plugin.collective`: the inter-tile ops)."""
        if name not in self._collective:
            collective = plugins.collective_ops()
            seen, pending, found = {name}, [name], False
            while pending and not found:
                for op in walk_ops(self._function(pending.pop())):
                    if isinstance(op, collective):
                        found = True
                        break
                    callee = self._callee_of(op)
                    if callee is not None and callee not in seen:
                        seen.add(callee)
                        pending.append(callee)
            self._collective[name] = found
        return self._collective[name]

    def _tile_id_op(self, name: str) -> Operation | None:
        """The first op reading the tile id (`core.always_varying`) that kernel `name` (or a function it calls) executes."""
        if name not in self._tile_id_ops:
            found = None
            seen = {name}
            pending = [name]
            while pending and found is None:
                for op in walk_ops(self._function(pending.pop(0))):
                    if op.results and varying_rule_of(op) is always_varying:
                        found = op
                        break
                    callee = self._callee_of(op)
                    if callee is not None and callee not in seen:
                        seen.add(callee)
                        pending.append(callee)
            self._tile_id_ops[name] = found
        return self._tile_id_ops[name]

    def _decode(
        self, func_op: func.FuncOp, grid: tuple[int, ...], cores: tuple[tuple[int, ...], ...], estimate, cost=None
    ):
        """(program, decoded kernel, mode, why not batched); `cost`: a HardwareConfig to charge ops' cycles."""
        n_args = len(func_op.body.blocks[0].args) if func_op.body.blocks else 0
        no_varying_args = (False,) * n_args
        name = func_op.sym_name.data
        execution = self.options.execution
        limit = self.options.memory_limit

        def model() -> CostModel | None:
            return CostModel(cost, len(cores)) if cost is not None else None

        def program_of(batched: bool) -> Program:
            program = Program(self.module, grid, cores, batched, limit, model(), self.sessions)
            program.functions.update(self.entry_points)
            return program

        def per_core(reason: str | None):
            program = program_of(batched=False)
            return program, program.function(name, no_varying_args), "per-core", reason

        # Inter-tile communication needs the cores together: never per-core unless asked
        # (and then its handlers refuse), never a fallback to it.
        communicates = self._communicates(name)
        if execution == "per-core" or (execution == "auto" and len(cores) == 1 and not communicates):
            return per_core(None)
        must_batch = execution == "batched" or communicates
        why_batch = "" if execution == "batched" else " (inter-tile communication runs only batched)"
        batched_bytes = estimate.peak_bytes * len(cores)
        if batched_bytes > limit:
            reason = (
                f"the live tensors of {len(cores)} cores batched would take up to {format_bytes(batched_bytes)}, "
                f"over the {format_bytes(limit)} memory limit"
            )
            if must_batch:
                raise error(func_op, f"cannot run the cores batched: {reason}{why_batch}")
            return per_core(reason)
        try:
            program = program_of(batched=True)
            return program, program.function(name, no_varying_args), "batched", None
        except NotBatchable as exc:
            if must_batch:
                raise error(exc.op, f"cannot run the cores batched: {exc.reason}{why_batch}") from None
            where = location_of(exc.op)
            return per_core(f"{exc.reason} at {where}" if where else exc.reason)

    @staticmethod
    def _execute(compiled, mode: str, cores, values: list, runtime: Runtime, func_op) -> list[np.ndarray]:
        if mode == "batched":
            returned = compiled.call(_lanes_of(cores), values)
            out = []
            for value, varying in zip(returned, compiled.result_varying):
                value = np.asarray(value)
                out.append(value if varying else np.broadcast_to(value, (len(cores), *value.shape)).copy())
            return [v[0] for v in out] if len(cores) == 1 else out  # one core: unstacked, as per-core
        per_core = []
        for linear, coords in enumerate(cores):
            if runtime.deadline is not None and linear and time.monotonic() > runtime.deadline:
                raise error(func_op, runtime.timed_out(f"after {linear} of {len(cores)} cores").message)
            per_core.append(compiled.call(CoreContext(coords, linear), values))
        if not per_core or not per_core[0]:
            return []
        if len(cores) == 1:
            return [np.asarray(v) for v in per_core[0]]
        return [np.stack([np.asarray(r[i]) for r in per_core]) for i in range(len(per_core[0]))]

    # -- arguments ---------------------------------------------------------

    def _preload(self, func_op, runtime: Runtime, hbm: Mapping[int, np.ndarray]) -> list[_Placed]:
        placed = []
        for address in hbm:
            if address < 0:
                raise error(func_op, f"hbm address {address!r} must be a non-negative element address")
        for address, array in sorted(hbm.items()):
            byte = int(address) * array.dtype.itemsize
            try:
                runtime.hbm.place(byte, array, f"hbm preload at element address {address}")
            except InterpreterError as exc:
                raise error(func_op, exc.message) from None
            placed.append(_Placed(f"hbm@{int(address)}", byte, array.shape, array.dtype))
        return placed

    def _parameter_names(self, func_op: func.FuncOp) -> list[str]:
        """The names arguments bind to, by position; two parameters of one name are an error."""
        kernel = func_op.sym_name.data
        names = self._names.get(kernel)
        if names is None:
            names = [a.name_hint or f"arg{i}" for i, a in enumerate(func_op.body.blocks[0].args)]
            first_of: dict[str, int] = {}
            for i, n in enumerate(names):
                if n in first_of:
                    raise error(
                        func_op,
                        f"parameters #{first_of[n]} and #{i} of @{kernel} are both named '{n}': arguments are "
                        f"bound by parameter name, so this binding would be ambiguous (rename one of them)",
                    )
                first_of[n] = i
            self._names[kernel] = names
        return names

    def _host_layouts(self, func_op: func.FuncOp) -> dict[int, tuple[Layout, tuple[int, ...]]]:
        """The host layouts of the kernel's pointer parameters (`host_layout` option), computed once."""
        kernel = func_op.sym_name.data
        if kernel not in self._layouts:
            try:
                self._layouts[kernel] = host_layouts(func_op)
            except LayoutError as exc:
                raise error(func_op, f"cannot place host arrays (host_layout option): {exc}") from None
        return self._layouts[kernel]

    def _marshal(self, func_op: func.FuncOp, runtime: Runtime, args: dict[str, object]):
        entry = func_op.body.blocks[0]
        kernel = func_op.sym_name.data
        names = self._parameter_names(func_op)
        unknown = sorted(set(args) - set(names))
        if unknown:
            raise error(
                func_op,
                f"unknown argument(s) {', '.join(unknown)} for @{kernel} (parameters: {', '.join(names) or 'none'})",
            )
        for index, nbytes in _scratch_parameters(func_op).items():
            if names[index] not in args:  # HBM scratch the compiler asked for: the runtime provides it
                args[names[index]] = np.zeros(nbytes, np.uint8)
                runtime.internal_args.add(names[index])
        missing = [n for n in names if n not in args]
        if missing:
            raise error(func_op, f"missing argument(s) {', '.join(missing)} for @{kernel}")
        for name in names:
            value = args[name]
            kind = type(value)
            if not (kind is int or kind is float or (kind is np.ndarray and value.dtype.kind in "biuf")):
                _check_value(name, value)
        next_byte = max(ARG_BASE, runtime.hbm.end_of_fixed() + ARG_GAP)
        layouts = self._host_layouts(func_op) if self.options.host_layout else {}
        address_types = plugins.address_parameter_types()
        values, placed, described = [], [], {}
        for index, (name, block_arg) in enumerate(zip(names, entry.args)):
            value = args[name]
            ty = block_arg.type
            try:
                if isinstance(ty, IndexType) and isinstance(value, np.ndarray):
                    next_byte = self.target.align(next_byte)  # where buffers start on the target
                    host = layouts.get(index)
                    if host is None:
                        runtime.hbm.place(next_byte, value, f"argument '{name}'")
                    else:
                        _place_host_array(runtime, next_byte, value, name, *host)
                    address = next_byte // value.dtype.itemsize
                    runtime.array_args[name] = (address, value.dtype)
                    placed.append(_Placed(name, next_byte, value.shape, value.dtype, host[0] if host else None))
                    described[name] = ArgumentInfo(
                        shape=value.shape,
                        dtype=value.dtype,
                        address=address,
                        host_layout=str(host[0]) if host else None,
                    )
                    next_byte += value.nbytes + ARG_GAP
                    values.append(address)
                elif isinstance(ty, address_types) and isinstance(value, np.ndarray):
                    next_byte = self.target.align(next_byte)
                    entry = _place_address_argument(
                        runtime, next_byte, value, name, self.options.host_layout, self.target
                    )
                    placed.append(entry)
                    described[name] = ArgumentInfo(
                        shape=value.shape,
                        dtype=value.dtype,
                        address=next_byte,
                        host_layout=str(entry.layout) if entry.layout else None,
                    )
                    values.append(next_byte)
                    next_byte += math.prod(entry.padded or value.shape) * value.dtype.itemsize + ARG_GAP
                elif isinstance(ty, address_types):  # a byte address
                    values.append(_scalar_argument(IndexType(), value, runtime))
                    described[name] = ArgumentInfo(value=values[-1])
                elif isinstance(ty, MemRefType):  # a memref parameter: the array, placed in HBM
                    next_byte = self.target.align(next_byte)
                    stored, ref = memref_argument(ty, value, next_byte)
                    runtime.hbm.place(next_byte, stored, f"argument '{name}'")
                    placed.append(_Placed(name, next_byte, stored.shape, stored.dtype))
                    described[name] = ArgumentInfo(shape=stored.shape, dtype=stored.dtype, address=ref.origin)
                    next_byte += stored.nbytes + ARG_GAP
                    values.append(ref)
                else:
                    values.append(_scalar_argument(ty, value, runtime))
                    described[name] = ArgumentInfo(value=values[-1])
            except InterpreterError as exc:
                raise error(func_op, f"argument '{name}': {exc.message}") from None
        return values, placed, described


def _place_host_array(
    runtime: Runtime, byte_address: int, array: np.ndarray, name: str, layout: Layout, shape: tuple[int, ...]
) -> None:
    """Place the device form of host (logical) array `array` of parameter `name` (host_layout option)."""
    if array.shape != shape:
        raise InterpreterError(
            f"its host layout {layout} lays out a logical {'x'.join(map(str, shape))} array, but a "
            f"{'x'.join(map(str, array.shape)) or 'scalar'} array was passed"
        )
    runtime.budget.reserve(array.nbytes, f"the device layout of argument '{name}'")
    device = to_device(array, layout)
    segment = runtime.hbm.place(byte_address, device, f"argument '{name}'")
    segment.data = device.reshape(-1).view(np.uint8)  # our own copy: written in place, never copied again
    segment.shared = False


def _place_address_argument(
    runtime: Runtime, byte_address: int, array: np.ndarray, name: str, host_layout: bool, target: Target
) -> _Placed:
    """Place an array for a byte-address parameter: as it is, or (`host_layout`) a host array in
    the default device layout (`Layout.stick_last`, its last dim zero-padded to whole sticks),
    recorded in `runtime.host_tensors` so that what runs there can check it addresses it so."""
    if not host_layout or array.ndim == 0:
        runtime.hbm.place(byte_address, array, f"argument '{name}'")
        return _Placed(name, byte_address, array.shape, array.dtype)
    stick = target.stick_bytes // array.dtype.itemsize
    padded = (*array.shape[:-1], -(-array.shape[-1] // stick) * stick)
    layout = Layout.stick_last(array.ndim, stick)
    runtime.budget.reserve(math.prod(padded) * array.dtype.itemsize, f"the device layout of argument '{name}'")
    wide = array
    if padded != array.shape:
        wide = np.zeros(padded, array.dtype)
        wide[tuple(slice(0, n) for n in array.shape)] = array
    device = to_device(wide, layout)
    segment = runtime.hbm.place(byte_address, device, f"argument '{name}'")
    segment.data = device.reshape(-1).view(np.uint8)  # our own copy: written in place, never copied again
    segment.shared = False
    runtime.host_tensors.append(HostTensor(name, byte_address, tuple(array.shape), array.dtype, layout, padded))
    return _Placed(name, byte_address, array.shape, array.dtype, layout, padded if padded != array.shape else None)


@lru_cache(maxsize=16)
def _lanes_of(cores: tuple[tuple[int, ...], ...]) -> LaneContext:
    return LaneContext.for_cores(cores)


def _as_result(value: np.ndarray, ty) -> np.ndarray:
    """A returned value as an array of its type's compute dtype."""
    element = ty.get_element_type() if isinstance(ty, TensorType) else ty
    try:
        return np.asarray(value, element_format(element).compute)
    except InterpreterError:
        return np.asarray(value)


def _integer_range(fmt: ElementFormat) -> tuple[int, int]:
    if fmt.unsigned or fmt.kind == "bool":
        return 0, (1 << fmt.width) - 1
    return -(1 << (fmt.width - 1)), (1 << (fmt.width - 1)) - 1


def _tensor_argument(ty: TensorType, value, runtime: Runtime | None) -> np.ndarray:
    fmt = element_format(ty.get_element_type())
    array = np.asarray(value)
    if runtime is not None:
        runtime.check_allocation(array.size * fmt.compute.itemsize, f"a copy of the {ty} argument")
    if fmt.round is not None and array.dtype == np.uint16:
        array = fmt.from_storage(array)
    if fmt.is_integer:
        if array.dtype.kind == "f":
            raise InterpreterError(f"expected integers for {ty}, got an array of {array.dtype}")
        if array.size and array.dtype.kind in "iu":
            lo, hi = _integer_range(fmt)
            least, most = int(array.min()), int(array.max())
            if least < lo or most > hi:
                bad = least if least < lo else most
                raise InterpreterError(f"{bad} does not fit in {fmt.name} (range [{lo}, {hi}])")
    elif array.size and array.dtype.kind in "iuf":
        _check_float_range(fmt, array)
    array = np.array(array, fmt.compute)
    if fmt.round is not None:
        array = fmt.round(array)
    shape = ty.get_shape()
    if len(shape) != array.ndim or any(d >= 0 and d != n for d, n in zip(shape, array.shape)):
        raise InterpreterError(f"expected a tensor of type {ty}, got shape {array.shape}")
    array.flags.writeable = False
    return array


def _check_float_range(fmt: ElementFormat, values) -> None:
    """Finite values that would round to infinity in `fmt` are an error, not an inf."""
    wide = np.asarray(values)
    if wide.dtype.kind != "f":
        wide = wide.astype(np.float64)
    rounded = wide.astype(fmt.compute)
    if fmt.round is not None:
        rounded = fmt.round(rounded)
    overflow = np.isfinite(wide) & ~np.isfinite(rounded)
    if overflow.any():
        bad = float(wide[overflow].reshape(-1)[0]) if wide.ndim else float(wide)
        raise InterpreterError(f"{bad!r} is out of the range of {fmt.name} (it would round to infinity)")


def _scalar_argument(ty, value, runtime: Runtime | None = None):
    """A non-array argument in the interpreter's representation of `ty`."""
    if isinstance(ty, RuntimeArgType):
        converted = _scalar_argument(ty.underlying, value, runtime)
        granularity = getattr(ty.granularity, "data", None)
        upperbound = getattr(ty.upperbound, "data", None)
        if granularity is not None and converted % granularity:
            raise InterpreterError(f"value {converted} is not a multiple of the runtime_arg granularity {granularity}")
        if upperbound is not None and converted > upperbound:
            raise InterpreterError(f"value {converted} exceeds the runtime_arg upperbound {upperbound}")
        return converted
    if isinstance(ty, TensorType):
        return _tensor_argument(ty, value, runtime)
    if isinstance(value, list | tuple):
        raise InterpreterError(f"expected a scalar of type {ty}, got a {type(value).__name__}")
    if isinstance(value, np.ndarray):
        if value.ndim:
            raise InterpreterError(f"expected a scalar of type {ty}, got an array of shape {value.shape}")
        value = value[()]
    if isinstance(ty, IndexType | IntegerType):
        fmt = element_format(ty)
        if isinstance(value, bool | np.bool_) and fmt.kind != "bool":
            raise InterpreterError(f"expected an integer for {ty}, got {value!r}")
        if not isinstance(value, int | np.integer | bool | np.bool_):
            raise InterpreterError(f"expected an integer for {ty}, got {value!r}")
        _check_range(fmt, int(value))
        return fmt.scalar(int(value))
    if isinstance(ty, AnyFloat):
        fmt = element_format(ty)
        if not isinstance(value, int | float | np.integer | np.floating) or isinstance(value, bool | np.bool_):
            raise InterpreterError(f"expected a number for {ty}, got {value!r}")
        try:
            wide = np.float64(value)
        except OverflowError:
            raise InterpreterError(f"{_short(value)} is out of the range of {fmt.name}") from None
        _check_float_range(fmt, wide)
        return fmt.scalar(wide)
    raise InterpreterError(f"parameters of type {ty} are not supported by the interpreter")


def _check_range(fmt: ElementFormat, value: int) -> None:
    lo, hi = _integer_range(fmt)
    if not lo <= value <= hi:
        raise InterpreterError(f"{value} does not fit in {fmt.name} (range [{lo}, {hi}])")


def interpret(
    module_or_text_or_path,
    func: str | None = None,
    hbm: Mapping[int, np.ndarray] | None = None,
    *,
    options: InterpreterOptions | None = None,
    grid: int | tuple[int, ...] | None = None,
    **args,
) -> InterpretResult:
    """Run kernel `func` (default: the only kernel) of a module, text or file.

    Keyword arguments are the kernel's arguments by parameter name (see the
    module docstring); `options` selects grid order, LX limit, masking,
    timeout, memory limit, ...; `grid` (an int or a tuple of ints) runs on
    that grid instead of the kernel's `grid` attribute and `options.grid`.
    (A kernel whose parameters are called `func`, `hbm`, `options` or `grid`
    is run with `Interpreter(module).run(func, args, hbm)` instead.)

    Raises `spyre_mlir.DiagnosticError` (located at the op) on bad input,
    `TypeError` for arguments of the wrong Python type; warnings about the
    run (`result.report.warnings`) are emitted as `InterpreterWarning`s."""
    _check_call(func, args, hbm)
    normalize_grid(grid)
    result = Interpreter(module_or_text_or_path, _check_options(options))._run(func, args, hbm, grid)
    _warn(result.report.warnings, stacklevel=2)
    return result
