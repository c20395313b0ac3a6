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

import os
import time
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
    ModuleOp,
    TensorType,
)

from spyre_mlir.diagnostics import error, location_of
from spyre_mlir.dialects.ktdp import RuntimeArgType
from spyre_mlir.interpreter.core import CompiledFunction, Program
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable
from spyre_mlir.interpreter.lanes import CoreContext, LaneContext, linear_order
from spyre_mlir.interpreter.liveness import LxEstimate, estimate_lx
from spyre_mlir.interpreter.memory import ARG_ALIGNMENT
from spyre_mlir.interpreter.runtime import ARG_BASE, InterpreterOptions, Runtime

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

    def __str__(self) -> str:
        if self.address is None:
            return "tensor" if isinstance(self.value, np.ndarray) else repr(self.value)
        shape = "x".join(map(str, self.shape or ())) or "scalar"
        return f"{shape} {self.dtype} at element address {self.address}"


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

    @property
    def lx_peak(self) -> int:
        return self.lx_tensor_peak + self.lx_explicit_peak

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
        lines.append(f"hbm mapped: {self.hbm_bytes} bytes")
        for name, desc in self.arguments.items():
            lines.append(f"arg {name}: {desc}")
        lines.append(f"time: decode {self.decode_seconds * 1e3:.1f} ms, run {self.run_seconds * 1e3:.1f} ms")
        return "\n".join(lines)


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


def _load_module(source) -> tuple[ModuleOp, dict[str, str]]:
    """A module from a ModuleOp, MLIR text or a path; and its sources for diagnostics."""
    from spyre_mlir import ir

    if isinstance(source, ModuleOp):
        return source, {}
    text, name = ir.read_source(source)
    return ir.parse_module(text, name), {name: text}


class Interpreter:
    """A parsed (and verified) module, ready to run kernels of.

    Kernels are decoded on their first run and the decoded form is reused by
    later runs (one run at a time: an Interpreter is not thread-safe)."""

    def __init__(self, source: ModuleOp | str | os.PathLike[str], options: InterpreterOptions | None = None):
        self.options = options or InterpreterOptions()
        self.options.validate()
        self.module, self.sources = _load_module(source)
        if self.options.verify:
            from spyre_mlir import ir

            ir.verify(self.module)
        self.functions = {op.sym_name.data: op for op in self.module.walk() if isinstance(op, func.FuncOp)}
        # Decoded kernels and LX estimates, reused by later runs of the same kernel.
        self._decoded: dict[tuple, tuple[Program, CompiledFunction, str, str | None]] = {}
        self._lx: dict[str, LxEstimate] = {}
        self._default_kernel: func.FuncOp | None = None
        self._locations: dict[str, object] = {}  # kernel -> location of its LX peak

    # -- selection ---------------------------------------------------------

    def kernel(self, name: str | None) -> func.FuncOp:
        if name is not None:
            if name not in self.functions:
                known = ", ".join(f"@{n}" for n in self.functions) or "none"
                raise error(self.module, f"no function @{name} in the module (functions: {known})")
            return self.functions[name]
        if self._default_kernel is None:
            called = {op.callee.root_reference.data for op in self.module.walk() if isinstance(op, func.CallOp)}
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
    ) -> InterpretResult:
        options = self.options
        func_op = self.kernel(func_name)
        name = func_op.sym_name.data
        if not func_op.body.blocks:
            raise error(func_op, f"@{name} is a declaration: there is no body to run")
        grid = tuple(int(d) for d in options.grid) if options.grid else self.grid_of(func_op)
        cores = linear_order(grid, options.grid_order)
        runtime = Runtime(options, grid, cores)
        args = dict(args or {})

        preloads = self._preload(func_op, runtime, hbm or {})
        values, placed, described = self._marshal(func_op, runtime, args)

        if name not in self._lx:
            self._lx[name] = estimate_lx(func_op, self.functions)
        estimate = self._lx[name]
        if options.check_lx and estimate.peak_bytes > options.lx_limit:
            raise error(
                estimate.op,
                f"LX use of {estimate.peak_bytes} bytes (live tensors per core) exceeds the "
                f"{options.lx_limit}-byte scratchpad",
            )

        started = time.perf_counter()
        key = (name, grid, options.grid_order, options.execution)
        if key not in self._decoded:
            self._decoded[key] = self._decode(func_op, grid, cores)
        program, compiled, mode, reason = self._decoded[key]
        runtime.stats.fallback_reason = reason
        decoded = time.perf_counter()
        program.runtime = runtime
        try:
            with np.errstate(all="ignore"):  # IEEE results (inf, NaN) are the semantics, not errors
                returned = self._execute(compiled, mode, cores, values)
        finally:
            program.runtime = None
        result_types = func_op.function_type.outputs.data
        returned = [_as_result(v, t) for v, t in zip(returned, result_types)]
        finished = time.perf_counter()

        explicit = runtime.explicit_lx_peak()
        if options.check_lx and estimate.peak_bytes + explicit > options.lx_limit:
            raise error(
                func_op,
                f"LX use of {estimate.peak_bytes + explicit} bytes per core ({estimate.peak_bytes} of live tensors, "
                f"{explicit} of ct_local views) exceeds the {options.lx_limit}-byte scratchpad",
            )

        out: dict[str, np.ndarray] = {}
        for p in [*placed, *preloads]:
            out[p.name] = runtime.hbm.contents(p.byte_address, p.shape, p.dtype)
        for i, value in enumerate(returned):
            out[f"return_{i}"] = value

        location = self._locations.get(name)
        if name not in self._locations:
            location = self._locations[name] = location_of(estimate.op) if estimate.op is not None else None
        report = RunReport(
            function=name,
            grid=grid,
            grid_order=options.grid_order,
            mode=mode,
            fallback_reason=reason,
            divergent_regions=runtime.stats.divergent_regions,
            lx_limit=options.lx_limit,
            lx_tensor_peak=estimate.peak_bytes,
            lx_peak_location=str(location) if location else None,
            lx_explicit_peak=explicit,
            lx_dynamic_tensors=estimate.dynamic_tensors,
            hbm_bytes=runtime.hbm.mapped_bytes(),
            decode_seconds=decoded - started,
            run_seconds=finished - decoded,
            arguments=described,
        )
        return InterpretResult(out, report, runtime)

    def _decode(self, func_op: func.FuncOp, grid: tuple[int, ...], cores: tuple[tuple[int, ...], ...]):
        """(program, decoded kernel, mode, why not batched)."""
        n_args = len(func_op.body.blocks[0].args) if func_op.body.blocks else 0
        no_varying_args = (False,) * n_args
        name = func_op.sym_name.data
        execution = self.options.execution
        if execution == "per-core" or (execution == "auto" and len(cores) == 1):
            program = Program(self.module, grid, cores, batched=False)
            return program, program.function(name, no_varying_args), "per-core", None
        try:
            program = Program(self.module, grid, cores, batched=True)
            return program, program.function(name, no_varying_args), "batched", None
        except NotBatchable as exc:
            if execution == "batched":
                raise error(exc.op, f"cannot run the cores batched: {exc.reason}") from None
            where = location_of(exc.op)
            reason = f"{exc.reason} at {where}" if where else exc.reason
            program = Program(self.module, grid, cores, batched=False)
            return program, program.function(name, no_varying_args), "per-core", reason

    @staticmethod
    def _execute(compiled, mode: str, cores: tuple[tuple[int, ...], ...], values: list) -> list[np.ndarray]:
        if mode == "batched":
            returned = compiled.call(_lanes_of(cores), values)
            out = []
            for value, varying in zip(returned, compiled.result_varying):
                value = np.asarray(value)
                out.append(value if varying else np.broadcast_to(value, (len(cores), *value.shape)).copy())
            return out
        per_core = [compiled.call(CoreContext(coords, linear), values) for linear, coords in enumerate(cores)]
        if not per_core or not per_core[0]:
            return []
        if len(cores) == 1:
            return [np.asarray(v) for v in per_core[0]]
        return [np.stack([np.asarray(r[i]) for r in per_core]) for i in range(len(per_core[0]))]

    # -- arguments ---------------------------------------------------------

    def _preload(self, func_op, runtime: Runtime, hbm: Mapping[int, np.ndarray]) -> list[_Placed]:
        placed = []
        for address in hbm:
            if isinstance(address, bool) or not isinstance(address, int | np.integer) or address < 0:
                raise error(func_op, f"hbm address {address!r} must be a non-negative element address")
        for address, array in sorted(hbm.items()):
            array = np.asarray(array)
            byte = int(address) * array.dtype.itemsize
            try:
                runtime.hbm.place(byte, array, f"hbm preload at element address {address}")
            except InterpreterError as exc:
                raise error(func_op, exc.message) from None
            placed.append(_Placed(f"hbm@{int(address)}", byte, array.shape, array.dtype))
        return placed

    def _marshal(self, func_op: func.FuncOp, runtime: Runtime, args: dict[str, object]):
        entry = func_op.body.blocks[0]
        names = [a.name_hint or f"arg{i}" for i, a in enumerate(entry.args)]
        unknown = sorted(set(args) - set(names))
        if unknown:
            raise error(
                func_op,
                f"unknown argument(s) {', '.join(unknown)} for @{func_op.sym_name.data}"
                f" (parameters: {', '.join(names) or 'none'})",
            )
        missing = [n for n in names if n not in args]
        if missing:
            raise error(func_op, f"missing argument(s) {', '.join(missing)} for @{func_op.sym_name.data}")
        next_byte = max(ARG_BASE, runtime.hbm.end_of_fixed() + ARG_GAP)
        values, placed, described = [], [], {}
        for name, block_arg in zip(names, entry.args):
            value = args[name]
            ty = block_arg.type
            try:
                if isinstance(ty, IndexType) and isinstance(value, np.ndarray):
                    next_byte += (-next_byte) % ARG_ALIGNMENT
                    runtime.hbm.place(next_byte, value, f"argument '{name}'")
                    address = next_byte // value.dtype.itemsize
                    runtime.array_args[name] = (address, value.dtype)
                    placed.append(_Placed(name, next_byte, value.shape, value.dtype))
                    described[name] = ArgumentInfo(shape=value.shape, dtype=value.dtype, address=address)
                    next_byte += value.nbytes + ARG_GAP
                    values.append(address)
                else:
                    values.append(_scalar_argument(ty, value))
                    described[name] = ArgumentInfo(value=values[-1])
            except InterpreterError as exc:
                raise error(func_op, f"argument '{name}': {exc.message}") from None
        return values, placed, described


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


def _scalar_argument(ty, value):
    """A non-array argument in the interpreter's representation of `ty`."""
    if isinstance(ty, RuntimeArgType):
        converted = _scalar_argument(ty.underlying, value)
        granularity = getattr(ty.granularity, "data", None)
        upperbound = getattr(ty.upperbound, "data", None)
        if granularity is not None and converted % granularity:
            raise InterpreterError(f"value {converted} is not a multiple of the runtime_arg granularity {granularity}")
        if upperbound is not None and converted > upperbound:
            raise InterpreterError(f"value {converted} exceeds the runtime_arg upperbound {upperbound}")
        return converted
    if isinstance(ty, TensorType):
        fmt = element_format(ty.get_element_type())
        array = np.asarray(value)
        if fmt.round is not None and array.dtype == np.uint16:
            array = fmt.from_storage(array)
        array = np.array(array, fmt.compute)
        shape = ty.get_shape()
        if len(shape) != array.ndim or any(d >= 0 and d != n for d, n in zip(shape, array.shape)):
            raise InterpreterError(f"expected a tensor of type {ty}, got shape {array.shape}")
        array.flags.writeable = False
        return array
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
        if not isinstance(value, int | float | np.integer | np.floating):
            raise InterpreterError(f"expected a number for {ty}, got {value!r}")
        return fmt.scalar(value)
    raise InterpreterError(f"parameters of type {ty} are not supported by the interpreter")


def _check_range(fmt: ElementFormat, value: int) -> None:
    if fmt.kind == "index":
        return
    lo = 0 if fmt.unsigned or fmt.kind == "bool" else -(1 << (fmt.width - 1))
    hi = (1 << fmt.width) - 1 if fmt.unsigned or fmt.kind == "bool" else (1 << (fmt.width - 1)) - 1
    if not lo <= value <= hi:
        raise InterpreterError(f"{value} does not fit in {fmt.name}")


def interpret(
    module_or_text_or_path,
    func: str | None = None,
    hbm: Mapping[int, np.ndarray] | None = None,
    *,
    options: InterpreterOptions | None = None,
    **args,
) -> InterpretResult:
    """Run kernel `func` (default: the only kernel) of a module, text or file.

    Keyword arguments are the kernel's arguments by parameter name (see the
    module docstring); `options` selects grid order, LX limit, masking, ...
    (A kernel whose parameters are called `func`, `hbm` or `options` is run
    with `Interpreter(module).run(func, args, hbm)` instead.) Raises
    `spyre_mlir.DiagnosticError` (located at the op) on bad input."""
    return Interpreter(module_or_text_or_path, options).run(func, args, hbm)
