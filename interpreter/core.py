"""Decoding functions into closures, and the frames they run on.

Each op is decoded once into a *step*, a closure `step(frame)` that reads its
operands from frame slots and writes its results to frame slots; a block
becomes a *runner* that calls its steps in order and returns the operands of
its terminator (any op with xDSL's `IsTerminator` trait and no successors).
Op dispatch happens only while decoding: `@handles(OpClass, ...)` registers a
handler by op class, found for an op by walking its class's MRO (see
`registered_class`), so our subclasses that replace xDSL's ops
(`spyre_mlir.ir.UPSTREAM_EXTENSIONS`) use the handler of their xDSL base.

Batching: with `batched=True`, every core of the grid executes together.
The decoder first marks which SSA values are *varying* (may differ between
cores: anything depending on `ktdp.get_compute_tile_id`) and gives those a
leading lane axis at run time; every other value is computed once for all
cores. Each handler may declare its op's rule for these marks
(`@handles(..., varying=rule)`); an op without one gets `conservative_varying`
(all its results and block arguments vary as soon as anything it reads
does). Handlers are specialised by the marks while decoding. Structured
control flow whose trip count or condition varies runs each side on the
subset of lanes that takes it (`gather_frame`), then merges the results, so
divergence costs extra NumPy calls, never wrong results. With
`batched=False` nothing is varying and a frame is one core.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from spyre_mlir.diagnostics import DiagnosticError, error
from spyre_mlir.interpreter.dtypes import ElementFormat, element_format
from spyre_mlir.interpreter.errors import InterpreterError, NotBatchable
from spyre_mlir.interpreter.lanes import broadcast_lanes, take_lanes
from spyre_mlir.interpreter.memory import format_bytes
from spyre_mlir.walk import capture_summaries, walk_ops, walk_ops_post

T = TypeVar("T")
Step = Callable[[list], None]
Runner = Callable[[list], Sequence]
Handler = Callable[["FunctionCompiler", Operation], Step | None]
VaryingRule = Callable[["FunctionCompiler", Operation], bool]
"""Marks the values of one op that may differ between cores, from the marks
of what it reads (`fc.is_varying`, `fc.mark`, `fc.captured`); returns whether
it marked anything new. Run to a fixpoint over the function, nested ops first."""

HANDLERS: dict[type[Operation], Handler] = {}
"""Op class -> decoder of that op into a step (None: nothing to do at run time).
A class with a `name` (a concrete op) serves its subclasses of the same name;
an abstract base (no `name`, e.g. every linalg structured op) serves every
subclass without a handler of its own."""

VARYING_RULES: dict[type[Operation], VaryingRule] = {}
"""Op class -> its batching rule, declared with its handler; absent: `conservative_varying`."""

NOT_EXECUTABLE: dict[type[Operation], str] = {}
"""Op class -> why the interpreter does not execute it (an op there that is met
in a body is the same located "does not support" error as an unknown op).
Filled by `not_executable()` from the ops_<dialect>.py files; the test suite
checks that every op of our dialects and of the corpus is handled or listed."""


def _describe(handler: Callable) -> str:
    return f"{handler.__module__}.{handler.__qualname__}"


def handles(*op_types: type[Operation], varying: VaryingRule | None = None) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of ops of `op_types`
    (and `varying` as their batching rule). Registering a class twice, or a
    class listed as not executable, is an error naming both."""
    for op_type in op_types:
        if not isinstance(op_type, type) or not issubclass(op_type, Operation):
            raise TypeError(f"@handles takes op classes, not {op_type!r}")

    def register(handler: Handler) -> Handler:
        for op_type in op_types:
            what = getattr(op_type, "name", op_type.__qualname__)
            if op_type in HANDLERS:
                raise ValueError(
                    f"'{what}' ({op_type.__module__}.{op_type.__qualname__}) has two interpreter handlers: "
                    f"{_describe(HANDLERS[op_type])} and {_describe(handler)}"
                )
            if op_type in NOT_EXECUTABLE:
                raise ValueError(
                    f"'{what}' has the interpreter handler {_describe(handler)} but is listed as not executable "
                    f"({NOT_EXECUTABLE[op_type]})"
                )
            if hasattr(op_type, "name") and op_type.has_trait(IsTerminator):
                raise ValueError(
                    f"'{what}' is a terminator: its operands are the results of its block, for the handler of "
                    f"the op holding it ({_describe(handler)} would never run)"
                )
            HANDLERS[op_type] = handler
            if varying is not None:
                VARYING_RULES[op_type] = varying
        return handler

    return register


def not_executable(reasons: dict[type[Operation], str]) -> None:
    """List ops the interpreter does not execute, each with the reason."""
    for op_type, reason in reasons.items():
        if op_type in HANDLERS:
            raise ValueError(
                f"'{op_type.name}' is listed as not executable ({reason}) but has the interpreter handler "
                f"{_describe(HANDLERS[op_type])}"
            )
        if op_type in NOT_EXECUTABLE:
            raise ValueError(
                f"'{op_type.name}' is listed as not executable twice: {NOT_EXECUTABLE[op_type]!r} and {reason!r}"
            )
        NOT_EXECUTABLE[op_type] = reason


def registered_class(op_type: type[Operation], table: Mapping[type[Operation], object] = HANDLERS) -> type | None:
    """The class of `table` that serves ops of `op_type`: the first of its MRO
    that is in the table and is either an op of the same name (`op_type`
    itself, or the xDSL op that `op_type` replaces) or an abstract base of a
    family of ops. A concrete op of another name is skipped, so that e.g.
    `arith.index_castui` (a subclass of xDSL's `arith.index_cast`) is never
    run as `index_cast`."""
    name = getattr(op_type, "name", None)
    for cls in op_type.__mro__:
        if cls in table and getattr(cls, "name", name) == name:
            return cls
    return None


def lookup(table: Mapping[type[Operation], T], op: Operation) -> T:
    """`table`'s entry for `op`, found as handlers are (`registered_class`):
    for handlers of several ops that keep a per-op table keyed by op class."""
    cls = registered_class(type(op), table)
    if cls is None:
        raise KeyError(op.name)
    return table[cls]


def handler_of(op: Operation) -> Handler | None:
    cls = registered_class(type(op))
    return HANDLERS[cls] if cls is not None else None


def varying_rule_of(op: Operation) -> VaryingRule:
    """The batching rule of `op`: the one declared with its handler, else `conservative_varying`."""
    cls = registered_class(type(op))
    return VARYING_RULES.get(cls, conservative_varying) if cls is not None else conservative_varying


def is_block_terminator(op: Operation) -> bool:
    """A terminator whose operands are its block's results (not a branch to other blocks)."""
    return op.has_trait(IsTerminator) and not op.successors


def conservative_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The rule of ops that declare none: when anything the op reads varies (an
    operand, a value its regions use from outside, or a value a terminator of
    its regions passes on), every result and every block argument of its
    regions varies. More than needed at times, never wrong."""
    v = fc.varying
    reads = any(x in v for x in op.operands)
    if not reads and op.regions:
        reads = any(x in v for x in fc.captured(*op.regions)) or any(
            x in v
            for region in op.regions
            for block in region.blocks
            if block.last_op is not None and is_block_terminator(block.last_op)
            for x in block.last_op.operands
        )
    if not reads:
        return False
    changed = fc.mark(op.results)
    for region in op.regions:
        for block in region.blocks:
            changed |= fc.mark(block.args)
    return changed


def always_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The rule of ops whose results differ between cores whatever they read
    (`ktdp.get_compute_tile_id`): a function holding one may vary (`Program.may_vary`)."""
    return fc.mark(op.results)


def internal_error(op: Operation | None, exc: BaseException) -> DiagnosticError:
    """A bug of the interpreter met while decoding or running `op`: not the kernel's fault.

    Handlers raise `InterpreterError` for everything wrong with the kernel or
    its inputs; any other exception escaping a handler is reported as this,
    located at the op, with the exception chained (`raise ... from exc`)."""
    name = f"'{op.name}'" if op is not None else "the interpreter"
    return error(
        op,
        f"internal error: {name} raised {type(exc).__name__}: {exc} "
        "(a bug in the spyre-mlir interpreter, not in the kernel; please report it)",
    )


def resource_error(op: Operation | None, exc: BaseException) -> DiagnosticError:
    """A located error for MemoryError / RecursionError met while decoding or running `op`."""
    if isinstance(exc, MemoryError):
        return error(
            op,
            f"'{op.name if op else '?'}' ran out of memory (lower InterpreterOptions.memory_limit so "
            "that such allocations are refused before they are made)",
        )
    return error(op, "the kernel nests regions or calls too deeply for the interpreter")


def functions_of(module: ModuleOp) -> dict[str, func.FuncOp]:
    """The `func.func`s of a module (and of modules nested in it), by name; a
    definition wins over a declaration of the same name (a kernel calls an
    outlined group through a private declaration, the definition lives in a
    sibling module: ktdp-extract-compute-groups)."""
    found: dict[str, func.FuncOp] = {}
    stack: list[Operation] = [module]
    while stack:
        op = stack.pop()
        if isinstance(op, func.FuncOp):
            name = op.sym_name.data
            if name not in found or (not found[name].body.blocks and op.body.blocks):
                found[name] = op
            continue
        for region in op.regions:
            for block in region.blocks:
                stack.extend(reversed(list(block.ops)))
    return found


def make_runner(steps: list[Step], ops: list[Operation], result_slots: Sequence[int]) -> Runner:
    """A block runner: its steps in order, then the terminator's values."""
    steps_t = tuple(steps)
    op_of = {id(s): o for s, o in zip(steps, ops)}
    results = tuple(result_slots)

    def run(frame: list) -> Sequence:
        step = None
        try:
            for step in steps_t:
                step(frame)
        except DiagnosticError:
            raise
        except InterpreterError as exc:
            raise error(op_of[id(step)], exc.message, *exc.notes) from None
        except (MemoryError, RecursionError) as exc:
            raise resource_error(op_of.get(id(step)), exc) from exc
        except Exception as exc:  # noqa: BLE001 - a handler bug, reported as one
            raise internal_error(op_of.get(id(step)), exc) from exc
        if not results:
            return ()
        return [frame[s] for s in results]

    return run


def gather_frame(frame: list, slots: Iterable[int], idx: np.ndarray) -> list:
    """A frame for the lanes `idx` of `frame`: its context and the varying `slots` subset."""
    sub = frame.copy()
    sub[0] = frame[0].subset(idx)
    for s in slots:
        sub[s] = take_lanes(frame[s], idx)
    return sub


def value_name(value: SSAValue) -> str:
    """`%name` as the source wrote it, else `result #i of 'op'` / `argument #i`."""
    if value.name_hint:
        return f"%{value.name_hint}"
    owner = value.owner
    if isinstance(owner, Operation):
        return f"result #{value.index} of '{owner.name}'"  # pyright: ignore[reportAttributeAccessIssue]
    return f"block argument #{value.index}"  # pyright: ignore[reportAttributeAccessIssue]


def value_format(value: SSAValue) -> ElementFormat | None:
    """Element format of a scalar or tensor value; None for views, tiles, ..."""
    ty = value.type
    if isinstance(ty, TensorType):
        ty = ty.get_element_type()
    try:
        return element_format(ty)
    except InterpreterError:
        return None


class _Anonymous:
    """Key of a slot that holds no SSA value."""


class CompiledFunction:
    """A decoded `func.func`: call it with a context and argument values."""

    def __init__(self, frame_size: int, arg_slots: list[int], body: Runner, result_varying: tuple[bool, ...]):
        self.frame_size = frame_size
        self.arg_slots = arg_slots
        self.body = body
        self.result_varying = result_varying

    def call(self, ctx, args: Sequence) -> Sequence:
        frame: list = [None] * self.frame_size
        frame[0] = ctx
        for slot, value in zip(self.arg_slots, args):
            frame[slot] = value
        return self.body(frame)


class Program:
    """The functions of a module for one grid, decoded on demand."""

    def __init__(
        self,
        module: ModuleOp,
        grid: tuple[int, ...],
        cores: tuple[tuple[int, ...], ...],
        batched: bool,
        memory_limit: int | None = None,
        cost_model=None,
        sessions: dict[str, object] | None = None,
    ):
        self.module = module
        self.grid = grid
        self.cores = cores  # grid coordinates by linear core id
        self.batched = batched
        self.memory_limit = memory_limit  # results above it are refused when their op runs
        self.cost_model = cost_model  # a cost.CostModel: every op's step also charges its cycles
        # The interpreter's plug-in state by plug-in name (plugins.Plugin.session), shared by its programs.
        self.sessions: dict[str, object] = sessions if sessions is not None else {}
        # Memory and statistics of the current run (a `Runtime`), read by the
        # steps when they execute, so that decoded functions serve many runs.
        self.runtime = None
        self.functions: dict[str, func.FuncOp] = functions_of(module)
        self._compiled: dict[tuple[str, tuple[bool, ...]], CompiledFunction] = {}
        self._decoding: set[tuple[str, tuple[bool, ...]]] = set()
        self._tile_id_users: dict[str, bool] = {}

    def function(self, name: str, arg_varying: tuple[bool, ...]) -> CompiledFunction:
        """Function `name` decoded for these varying arguments (once per program).

        Raises `NotBatchable` (while the program decodes, so the caller can fall
        back to running per core) when it, or a function it calls, cannot batch."""
        key = (name, arg_varying)
        if key not in self._compiled:
            self._decoding.add(key)
            try:
                self._compiled[key] = FunctionCompiler(self, self.functions[name], arg_varying).compile()
            finally:
                self._decoding.discard(key)
        return self._compiled[key]

    def is_decoding(self, name: str, arg_varying: tuple[bool, ...]) -> bool:
        """Whether `function(name, arg_varying)` is being decoded: a call to it now is a recursive call."""
        return (name, arg_varying) in self._decoding

    def may_vary(self, name: str) -> bool:
        """Whether a function (or one it calls) holds an op that varies by itself (`always_varying`: the tile id)."""
        if name in self._tile_id_users:
            return self._tile_id_users[name]
        self._tile_id_users[name] = True  # recursion: assume it does
        found = False
        for op in walk_ops(self.functions[name]):
            if op.results and varying_rule_of(op) is always_varying:
                found = True
            elif isinstance(op, func.CallOp) and op.callee.root_reference.data in self.functions:
                found = found or self.may_vary(op.callee.root_reference.data)
        self._tile_id_users[name] = found
        return found


class FunctionCompiler:
    """Decodes one function for one set of varying arguments."""

    def __init__(self, program: Program, func_op: func.FuncOp, arg_varying: tuple[bool, ...]):
        self.program = program
        self.batched = program.batched
        self.func_op = func_op
        self.slots: dict[SSAValue, int] = {}
        self.domain_slots: dict[Operation, int] = {}  # structured op -> slot of its iteration domain
        self.body_depth = 0  # > 0 while decoding a linalg body, whose "scalars" are arrays
        # Values that some cores hold no value of (a delivery op's results on
        # non-consumers): value -> (slot of a bool mask over core ids, True =
        # undefined, or None; the op defining it; why). Every use checks it.
        self.partially_defined: dict[SSAValue, tuple[int, Operation, str]] = {}
        self._captured: dict[tuple[int, ...], list[SSAValue]] = {}
        self._region_memo: dict[int, dict[SSAValue, None]] = {}
        entry = func_op.body.blocks[0]
        self.varying: set[SSAValue] = {a for a, v in zip(entry.args, arg_varying) if v}
        if self.batched:
            self._analyze_varying()

    # -- slots and marks ---------------------------------------------------

    def slot(self, value: SSAValue) -> int:
        s = self.slots.get(value)
        if s is None:
            s = self.slots[value] = len(self.slots) + 1  # slot 0 is the context
        return s

    def new_slot(self) -> int:
        """A slot for run-time state that is not an SSA value."""
        return self.slot(_Anonymous())  # type: ignore[arg-type]

    def is_varying(self, value: SSAValue) -> bool:
        return value in self.varying

    def format(self, value: SSAValue) -> ElementFormat:
        fmt = value_format(value)
        if fmt is None:
            raise error(value.owner if isinstance(value.owner, Operation) else None, f"unsupported type {value.type}")
        return fmt

    def captured(self, *regions: Region) -> list[SSAValue]:
        """Values used inside `regions` (at any depth) and defined outside them."""
        key = tuple(id(r) for r in regions)
        if key in self._captured:
            return self._captured[key]
        seen: dict[SSAValue, None] = {}
        for region in regions:
            seen.update(self._region_captured(region))
        self._captured[key] = list(seen)
        return self._captured[key]

    def _region_captured(self, root: Region) -> dict[SSAValue, None]:
        """Values used in `root` and defined outside it. Computed once for every
        region of the function, bottom-up: linear in the size of the IR."""
        memo = self._region_memo
        if not memo:
            self._fill_region_memo(self.func_op.body)
        if id(root) not in memo:  # not a region of this function
            self._fill_region_memo(root)
        return memo[id(root)]

    def _fill_region_memo(self, root: Region) -> None:
        capture_summaries(root, self._region_memo)

    def varying_captured_slots(self, *regions: Region) -> tuple[int, ...]:
        return tuple(self.slot(v) for v in self.captured(*regions) if v in self.varying)

    # -- varying analysis --------------------------------------------------

    def _analyze_varying(self) -> None:
        """Mark values that may differ between cores (see module docstring):
        every op's rule, nested ops first, until nothing changes."""
        plan = [(op, varying_rule_of(op)) for op in walk_ops_post(self.func_op.body) if op.results or op.regions]
        changed = True
        while changed:
            changed = False
            for op, rule in plan:
                changed |= rule(self, op)

    def mark(self, values: Iterable[SSAValue], condition: bool = True) -> bool:
        """Mark `values` varying (if `condition`); whether any was not yet."""
        if not condition:
            return False
        changed = False
        for v in values:
            if v not in self.varying:
                self.varying.add(v)
                changed = True
        return changed

    # -- decoding ----------------------------------------------------------

    def compile(self) -> CompiledFunction:
        entry = self.func_op.body.blocks[0]
        if len(self.func_op.body.blocks) != 1:
            raise error(self.func_op, "functions with more than one block are not supported by the interpreter")
        arg_slots = [self.slot(a) for a in entry.args]
        body = self.compile_block(entry)
        ret = entry.last_op
        result_varying = tuple(x in self.varying for x in ret.operands) if ret is not None else ()
        return CompiledFunction(len(self.slots) + 1, arg_slots, body, result_varying)

    def compile_block(self, block: Block, overrides: dict[Operation, Step] | None = None) -> Runner:
        steps: list[Step] = []
        ops: list[Operation] = []
        result_slots: list[int] = []
        last = block.last_op
        for op in block.ops:
            if op is last and is_block_terminator(op):
                result_slots = [self.slot(v) for v in op.operands]
                continue
            step = overrides[op] if overrides and op in overrides else self.compile_op(op)
            if self.program.cost_model is not None:  # charges the op's cycles (interpreter/cost_instrumentation.py)
                step = self.program.cost_model.instrument(self, op, step)
            step = self._check_defined(op, step)
            if step is not None:
                steps.append(step)
                ops.append(op)
        if last is not None and result_slots:
            check = self._check_defined(last, None)
            if check is not None:  # a terminator passing a value on reads it
                steps.append(check)
                ops.append(last)
        return make_runner(steps, ops, result_slots)

    def define_on_some_cores(self, value: SSAValue, mask_slot: int, origin: Operation, why: str) -> None:
        """Declare that `value` has no value on the cores whose entry of the
        bool mask in `mask_slot` (indexed by linear core id) is True at run
        time: any op using it while running on such a core is a located error
        saying `why`, with a note at `origin`."""
        self.partially_defined[value] = (mask_slot, origin, why)

    def _check_defined(self, op: Operation, step: Step | None) -> Step | None:
        """`step`, preceded by the check that `op` reads no value on a core that has none."""
        checks = []
        for value in dict.fromkeys(op.operands):
            entry = self.partially_defined.get(value)
            if entry is not None:
                mask_slot, origin, why = entry
                checks.append((mask_slot, origin, f"{value_name(value)} has no value on tiles {{}}: {why}"))
        if not checks:
            return step

        def check(frame):
            linear = np.asarray(frame[0].linear)
            for mask_slot, origin, message in checks:
                mask = frame[mask_slot]
                if mask is None:
                    continue
                undefined = mask[linear]
                if undefined.any():
                    tiles = ", ".join(str(t) for t in np.atleast_1d(linear)[np.atleast_1d(undefined)].tolist())
                    raise InterpreterError(message.format(tiles), ((origin, "the value is defined here"),))
            if step is not None:
                step(frame)

        return check

    def compile_op(self, op: Operation) -> Step | None:
        handler = handler_of(op)
        if handler is None:  # unknown, or in NOT_EXECUTABLE
            raise error(op, f"the interpreter does not support '{op.name}'")
        too_big = self._oversized_result(op)
        if too_big is not None:
            return too_big
        try:
            return handler(self, op)
        except (DiagnosticError, NotBatchable):
            raise
        except InterpreterError as exc:  # a problem visible while decoding
            raise error(op, exc.message, *exc.notes) from None
        except (MemoryError, RecursionError) as exc:
            raise resource_error(op, exc) from exc
        except Exception as exc:  # noqa: BLE001 - a handler bug, reported as one
            raise internal_error(op, exc) from exc

    def _oversized_result(self, op: Operation) -> Step | None:
        """A step refusing to run `op` when a statically shaped tensor result
        (for all cores, when batched) would exceed the memory limit."""
        limit = self.program.memory_limit
        if limit is None or self.body_depth:
            return None
        for result in op.results:
            ty = result.type
            if not isinstance(ty, TensorType):
                continue
            shape = ty.get_shape()
            if any(d < 0 for d in shape):
                continue
            fmt = value_format(result)
            if fmt is None:
                continue
            lanes = len(self.program.cores) if self.batched and result in self.varying else 1
            nbytes = math.prod(shape) * fmt.compute.itemsize * lanes
            if nbytes > limit:
                cores = f" for {lanes} cores" if lanes > 1 else ""
                message = (
                    f"'{op.name}' would allocate {format_bytes(nbytes)} for its result {ty}{cores}, "
                    f"over the {format_bytes(limit)} memory limit"
                )

                def refuse(frame, message=message):
                    raise InterpreterError(message)

                return refuse
        return None

    # -- helpers for handlers ---------------------------------------------

    def lanes_of(self, value: SSAValue, fmt: ElementFormat | None = None) -> Callable:
        """A function making a value of `value`'s kind varying (identity if it already is)."""
        if value in self.varying:
            return lambda x, count: x
        fmt = fmt or self.format(value)
        dtype = fmt.compute
        return lambda x, count: broadcast_lanes(x, count, dtype)

    def require_mergeable(self, op: Operation, values: Sequence[SSAValue]) -> None:
        """Divergent control flow merges its results lane by lane: only tensors and scalars can be."""
        for value in values:
            if value_format(value) is None:
                raise NotBatchable(op, f"cannot merge values of type {value.type} across cores")
