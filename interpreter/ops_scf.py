"""scf: structured control flow.

With uniform bounds and conditions these are plain Python loops and
branches around the decoded bodies. When a bound or condition is varying
(different cores take different paths), the lanes are split by path: each
group runs the region on a frame holding only its lanes (`gather_frame`)
and the results are merged back lane by lane. Loop-carried values of such
loops are always varying, since cores leave the loop at different times.

`scf.forall` runs its iterations one after another in row-major order (the
last dimension fastest): its iterations are independent by the op's
contract, so any order computes what a parallel run would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from time import monotonic

import numpy as np
from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from spyre_mlir.dialects.scf import ForallOp
from spyre_mlir.interpreter.core import FunctionCompiler, Step, gather_frame, handles, not_executable
from spyre_mlir.interpreter.errors import InterpreterError

_SAFE = 1 << 62
"""Loop bounds below this magnitude compute trip counts and induction values in int64 exactly."""

_MAX_TRIPS = 1 << 62
"""Trip counts are capped here (a loop that long never ends; the timeout stops it)."""


def _trip_counts(lo, hi, s, count: int) -> tuple[np.ndarray, bool]:
    """Per lane: the trip count of `lo to hi step s`, exactly (no int64
    overflow), and whether the bounds are small enough for int64 induction values."""
    arrays = [np.broadcast_to(np.asarray(x), (count,)) for x in (lo, hi, s)]
    small = all(a.dtype.itemsize <= 4 and a.dtype.kind in "iub" for a in arrays) or all(
        int(a.min()) > -_SAFE and int(a.max()) < _SAFE for a in arrays
    )
    if small:
        l, h, st = (a.astype(np.int64, copy=False) for a in arrays)
        return np.minimum(np.maximum(0, -((l - h) // st)), _MAX_TRIPS), True
    trips = [
        min(max(0, -((a - b) // c)), _MAX_TRIPS) for a, b, c in zip(*(a.tolist() for a in arrays))
    ]
    return np.array(trips, np.int64), False


def _fixes(fc: FunctionCompiler, sources: Sequence[SSAValue], targets: Sequence[SSAValue]) -> list[Callable | None]:
    """Per value: broadcast to lanes where a uniform source flows into a varying target."""
    return [
        fc.lanes_of(src) if fc.is_varying(dst) and not fc.is_varying(src) else None for src, dst in zip(sources, targets)
    ]


def _apply(values: Sequence, fixes: Sequence[Callable | None], count) -> list:
    return [v if fix is None else fix(v, count) for v, fix in zip(values, fixes)]


def _merge(count: int, parts: Sequence[tuple[np.ndarray, object, bool]], dtype: np.dtype) -> np.ndarray:
    """One lane array from (lane indices, value, value has a lane axis) per group."""
    shape = None
    for _, value, has_lanes in parts:
        shape = np.shape(value)[1:] if has_lanes else np.shape(value)
        break
    out = np.empty((count, *shape), dtype)
    for idx, value, _ in parts:
        out[idx] = value
    return out


def _scatter(full, idx: np.ndarray, part) -> np.ndarray:
    out = np.array(full)
    out[idx] = part
    return out


def _for_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """The induction variable varies with the lower bound or the step; a
    carried value (and its result) with any bound, its init or its yield."""
    assert isinstance(op, scf.ForOp)
    v = fc.varying
    bounds = any(x in v for x in (op.lb, op.ub, op.step))
    body = op.body.block
    changed = fc.mark([body.args[0]], op.lb in v or op.step in v)
    yielded = body.last_op.operands if body.last_op is not None else ()
    for init, arg, res, y in zip(op.iter_args, body.args[1:], op.results, yielded):
        changed |= fc.mark([arg, res], bounds or init in v or y in v)
    return changed


@handles(scf.ForOp, varying=_for_varying)
def _for(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, scf.ForOp)
    block = op.body.block
    lb, ub, st = fc.slot(op.lb), fc.slot(op.ub), fc.slot(op.step)
    iv = fc.slot(block.args[0])
    args = block.args[1:]
    arg_slots = tuple(fc.slot(a) for a in args)
    init_slots = tuple(fc.slot(v) for v in op.iter_args)
    result_slots = tuple(fc.slot(r) for r in op.results)
    body = fc.compile_block(block)
    yielded = block.last_op.operands
    init_fixes = _fixes(fc, op.iter_args, args)
    yield_fixes = _fixes(fc, yielded, args)
    need_init_fix = any(init_fixes)
    need_yield_fix = any(yield_fixes)
    program = fc.program

    if not any(fc.is_varying(v) for v in (op.lb, op.ub, op.step)):

        def step(frame):
            lo, hi, s = frame[lb], frame[ub], frame[st]
            if s <= 0:
                raise InterpreterError(f"scf.for step must be positive, got {s}")
            carried = [frame[i] for i in init_slots]
            if need_init_fix:
                carried = _apply(carried, init_fixes, frame[0].count)
            deadline = program.runtime.deadline
            for i in range(lo, hi, s):
                if deadline is not None and monotonic() > deadline:
                    raise program.runtime.timed_out()
                frame[iv] = i
                for slot, value in zip(arg_slots, carried):
                    frame[slot] = value
                carried = body(frame)
                if need_yield_fix:
                    carried = _apply(carried, yield_fixes, frame[0].count)
            for slot, value in zip(result_slots, carried):
                frame[slot] = value

        return step

    fc.require_mergeable(op, op.results)
    captured = fc.varying_captured_slots(op.body)
    iv_dtype = fc.format(block.args[0]).compute

    def run_iterations(frame, first: int, last: int, lo, s, carried: list, small: bool) -> list:
        """Iterations [first, last) on the lanes of `frame`; `lo` and `s` are int64 lane arrays."""
        deadline = program.runtime.deadline
        for k in range(first, last):
            if deadline is not None and monotonic() > deadline:
                raise program.runtime.timed_out()
            if small:
                value = lo + k * s
            else:  # bounds near the int64 limits: exact in Python ints
                value = np.array([a + k * b for a, b in zip(lo.tolist(), s.tolist())], np.int64)
            frame[iv] = value if iv_dtype == np.int64 else value.astype(iv_dtype)
            for slot, value in zip(arg_slots, carried):
                frame[slot] = value
            carried = body(frame)
            if need_yield_fix:
                carried = _apply(carried, yield_fixes, frame[0].count)
        return carried

    def step(frame):
        count = frame[0].count
        lo, hi, s = frame[lb], frame[ub], frame[st]
        if (np.asarray(s) <= 0).any():
            raise InterpreterError(f"scf.for step must be positive, got {np.unique(s).tolist()}")
        trips, small = _trip_counts(lo, hi, s, count)
        lo = np.broadcast_to(np.asarray(lo), (count,)).astype(np.int64)
        s = np.broadcast_to(np.asarray(s), (count,)).astype(np.int64)
        carried = [frame[i] for i in init_slots]
        if need_init_fix:
            carried = _apply(carried, init_fixes, count)
        low, high = int(trips.min()), int(trips.max())
        if low == high:
            carried = run_iterations(frame, 0, high, lo, s, carried, small)
        else:
            # Phases between consecutive distinct trip counts; each phase runs
            # on the lanes that still iterate.
            program.runtime.stats.divergent_regions += 1
            done = 0
            for t in np.unique(trips):
                t = int(t)
                if t <= done:
                    continue
                active = np.nonzero(trips >= t)[0]
                if active.shape[0] == count:
                    carried = run_iterations(frame, done, t, lo, s, carried, small)
                else:
                    sub = gather_frame(frame, captured, active)
                    part = run_iterations(sub, done, t, lo[active], s[active], [c[active] for c in carried], small)
                    carried = [_scatter(c, active, p) for c, p in zip(carried, part)]
                done = t
        for slot, value in zip(result_slots, carried):
            frame[slot] = value

    return step


def _if_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """A result varies with the condition or with what either branch yields for it."""
    assert isinstance(op, scf.IfOp)
    v = fc.varying
    cond = op.cond in v
    yields = [r.block.last_op.operands for r in (op.true_region, op.false_region) if r.blocks]
    changed = False
    for i, res in enumerate(op.results):
        changed |= fc.mark([res], cond or any(y[i] in v for y in yields))
    return changed


@handles(scf.IfOp, varying=_if_varying)
def _if(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, scf.IfOp)
    c = fc.slot(op.cond)
    result_slots = tuple(fc.slot(r) for r in op.results)
    then_body = fc.compile_block(op.true_region.block)
    has_else = bool(op.false_region.blocks)
    else_body = fc.compile_block(op.false_region.block) if has_else else (lambda frame: ())
    then_yield = op.true_region.block.last_op.operands
    else_yield = op.false_region.block.last_op.operands if has_else else ()
    then_fixes = _fixes(fc, then_yield, op.results)
    else_fixes = _fixes(fc, else_yield, op.results)
    program = fc.program

    def finish(frame, values, fixes):
        for slot, value in zip(result_slots, _apply(values, fixes, frame[0].count)):
            frame[slot] = value

    if not fc.is_varying(op.cond):

        def step(frame):
            if frame[c]:
                finish(frame, then_body(frame), then_fixes)
            else:
                finish(frame, else_body(frame), else_fixes)

        return step

    fc.require_mergeable(op, op.results)
    then_captured = fc.varying_captured_slots(op.true_region)
    else_captured = fc.varying_captured_slots(op.false_region) if has_else else ()
    dtypes = [fc.format(r).compute for r in op.results]
    then_lanes = [fc.is_varying(v) for v in then_yield]
    else_lanes = [fc.is_varying(v) for v in else_yield]

    def step(frame):
        cond = np.asarray(frame[c], bool)
        if cond.all():
            finish(frame, then_body(frame), then_fixes)
            return
        if not cond.any():
            finish(frame, else_body(frame), else_fixes)
            return
        program.runtime.stats.divergent_regions += 1
        taken, other = np.nonzero(cond)[0], np.nonzero(~cond)[0]
        then_values = then_body(gather_frame(frame, then_captured, taken))
        else_values = else_body(gather_frame(frame, else_captured, other))
        count = frame[0].count
        for k, slot in enumerate(result_slots):
            parts = [(taken, then_values[k], then_lanes[k]), (other, else_values[k], else_lanes[k])]
            frame[slot] = _merge(count, parts, dtypes[k])

    return step


def _while_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """Everything carried varies with the condition; else each value with what flows into it."""
    assert isinstance(op, scf.WhileOp)
    v = fc.varying
    before, after = op.before_region.block, op.after_region.block
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)
    diverges = condition.condition in v
    changed = False
    for init, arg, y in zip(op.arguments, before.args, after.last_op.operands):
        changed |= fc.mark([arg], diverges or init in v or y in v)
    for fwd, arg, res in zip(condition.args, after.args, op.results):
        changed |= fc.mark([arg, res], diverges or fwd in v)
    return changed


@handles(scf.WhileOp, varying=_while_varying)
def _while(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, scf.WhileOp)
    before, after = op.before_region.block, op.after_region.block
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)
    before_body = fc.compile_block(before)
    after_body = fc.compile_block(after)
    before_slots = tuple(fc.slot(a) for a in before.args)
    after_slots = tuple(fc.slot(a) for a in after.args)
    init_slots = tuple(fc.slot(v) for v in op.arguments)
    result_slots = tuple(fc.slot(r) for r in op.res)
    init_fixes = _fixes(fc, op.arguments, before.args)
    yield_fixes = _fixes(fc, after.last_op.operands, before.args)
    forward_fixes = _fixes(fc, condition.args, after.args)
    result_fixes = _fixes(fc, condition.args, op.res)
    program = fc.program

    if not fc.is_varying(condition.condition):

        def step(frame):
            count = frame[0].count
            values = _apply([frame[s] for s in init_slots], init_fixes, count)
            deadline = program.runtime.deadline
            while True:
                if deadline is not None and monotonic() > deadline:
                    raise program.runtime.timed_out()
                for slot, value in zip(before_slots, values):
                    frame[slot] = value
                cond, *forwarded = before_body(frame)
                if not cond:
                    break
                for slot, value in zip(after_slots, _apply(forwarded, forward_fixes, count)):
                    frame[slot] = value
                values = _apply(after_body(frame), yield_fixes, count)
            for slot, value in zip(result_slots, _apply(forwarded, result_fixes, count)):
                frame[slot] = value

        return step

    fc.require_mergeable(op, op.res)
    captured = fc.varying_captured_slots(op.before_region, op.after_region)
    dtypes = [fc.format(r).compute for r in op.res]

    def step(frame):
        count = frame[0].count
        values = _apply([frame[s] for s in init_slots], init_fixes, count)
        active = np.arange(count)
        sub = frame
        results: list[np.ndarray | None] = [None] * len(result_slots)
        deadline = program.runtime.deadline
        while True:
            if deadline is not None and monotonic() > deadline:
                raise program.runtime.timed_out()
            for slot, value in zip(before_slots, values):
                sub[slot] = value
            cond, *forwarded = before_body(sub)
            n = sub[0].count
            cond = np.broadcast_to(np.asarray(cond, bool), (n,))
            forwarded = _apply(forwarded, result_fixes, n)
            leaving = np.nonzero(~cond)[0]
            if leaving.shape[0]:
                for k, value in enumerate(forwarded):
                    if results[k] is None:
                        results[k] = np.empty((count, *np.shape(value)[1:]), dtypes[k])
                    results[k][active[leaving]] = value[leaving]
            if cond.all():
                pass
            elif not cond.any():
                break
            else:
                program.runtime.stats.divergent_regions += 1
                staying = np.nonzero(cond)[0]
                active = active[staying]
                sub = gather_frame(frame, captured, active)
                forwarded = [value[staying] for value in forwarded]
            for slot, value in zip(after_slots, forwarded):
                sub[slot] = value
            values = _apply(after_body(sub), yield_fixes, sub[0].count)
        for slot, value in zip(result_slots, results):
            frame[slot] = value

    return step


def _forall_varying(fc: FunctionCompiler, op: Operation) -> bool:
    """As scf.for's: an induction variable varies with its lower bound or step."""
    assert isinstance(op, ForallOp)
    v = fc.varying
    changed = False
    for iv, lb, st in zip(op.body.block.args, op.mixed_lower_bound(), op.mixed_step()):
        changed |= fc.mark([iv], any(isinstance(x, SSAValue) and x in v for x in (lb, st)))
    return changed


def _points(trips: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The iteration numbers of a nest with these trip counts, row-major (the
    last one fastest), lazily; one empty point for rank 0."""
    if any(t <= 0 for t in trips):
        return
    point = [0] * len(trips)
    while True:
        yield tuple(point)
        d = len(trips) - 1
        while d >= 0:
            point[d] += 1
            if point[d] < trips[d]:
                break
            point[d] = 0
            d -= 1
        if d < 0:
            return


@handles(ForallOp, varying=_forall_varying)
def _forall(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, ForallOp)
    block = op.body.block
    body = fc.compile_block(block)
    ivs = tuple(fc.slot(a) for a in block.args)
    # Per dimension: (static value, None) or (None, slot of the SSA value).
    specs = [
        [(x, None) if isinstance(x, int) else (None, fc.slot(x)) for x in values]
        for values in (op.mixed_lower_bound(), op.mixed_upper_bound(), op.mixed_step())
    ]
    program = fc.program

    def read(frame, spec) -> list:
        return [value if slot is None else frame[slot] for value, slot in spec]

    def check_steps(steps: list) -> None:
        for k, s in enumerate(steps):
            if (np.asarray(s) <= 0).any():
                raise InterpreterError(
                    f"scf.forall step must be positive, got {np.unique(s).tolist()} for dimension #{k}"
                )

    dynamic = [x for values in (op.mixed_lower_bound(), op.mixed_upper_bound(), op.mixed_step()) for x in values]
    if not any(isinstance(x, SSAValue) and fc.is_varying(x) for x in dynamic):

        def step(frame):
            lo, hi, st = (read(frame, spec) for spec in specs)
            check_steps(st)
            lo, hi, st = ([int(x) for x in xs] for xs in (lo, hi, st))
            trips = [max(0, -((a - b) // c)) for a, b, c in zip(lo, hi, st)]
            deadline = program.runtime.deadline
            for point in _points(trips):
                if deadline is not None and monotonic() > deadline:
                    raise program.runtime.timed_out()
                for slot, k, a, c in zip(ivs, point, lo, st):
                    frame[slot] = a + k * c
                body(frame)

        return step

    # A bound differs between cores: each group of cores with the same trip
    # counts runs its iterations on a frame of its lanes.
    captured = fc.varying_captured_slots(op.body)
    lanes = [fc.is_varying(a) for a in block.args]
    iv_dtypes = [fc.format(a).compute for a in block.args]

    def run(frame, trips: tuple[int, ...], lo: list[np.ndarray], st: list[np.ndarray], small: bool) -> None:
        """The iterations of `trips` on the lanes of `frame`; `lo`, `st`: int64 lane arrays per dimension."""
        deadline = program.runtime.deadline
        for point in _points(trips):
            if deadline is not None and monotonic() > deadline:
                raise program.runtime.timed_out()
            for d, k in enumerate(point):
                if not lanes[d]:  # uniform lower bound and step
                    frame[ivs[d]] = int(lo[d][0]) + k * int(st[d][0])
                    continue
                if small:
                    value = lo[d] + k * st[d]
                else:  # bounds near the int64 limits: exact in Python ints
                    value = np.array([a + k * b for a, b in zip(lo[d].tolist(), st[d].tolist())], np.int64)
                frame[ivs[d]] = value if iv_dtypes[d] == np.int64 else value.astype(iv_dtypes[d])
            body(frame)

    def step(frame):
        count = frame[0].count
        lo, hi, st = (read(frame, spec) for spec in specs)
        check_steps(st)
        counted = [_trip_counts(a, b, c, count) for a, b, c in zip(lo, hi, st)]
        small = all(ok for _, ok in counted)
        lo = [np.broadcast_to(np.asarray(x), (count,)).astype(np.int64) for x in lo]
        st = [np.broadcast_to(np.asarray(x), (count,)).astype(np.int64) for x in st]
        table = np.stack([t for t, _ in counted], axis=1)  # (lanes, rank)
        groups, which = np.unique(table, axis=0, return_inverse=True)
        if groups.shape[0] == 1:
            run(frame, tuple(int(t) for t in groups[0]), lo, st, small)
            return
        program.runtime.stats.divergent_regions += 1
        which = which.reshape(-1)
        for g, trips in enumerate(groups):
            idx = np.nonzero(which == g)[0]
            sub = gather_frame(frame, captured, idx)
            run(sub, tuple(int(t) for t in trips), [a[idx] for a in lo], [c[idx] for c in st], small)

    return step


@handles(scf.ExecuteRegionOp)
def _execute_region(fc: FunctionCompiler, op: Operation) -> Step:
    assert isinstance(op, scf.ExecuteRegionOp)
    if len(op.region.blocks) != 1:
        raise InterpreterError("scf.execute_region with more than one block is not supported")
    body = fc.compile_block(op.region.block)
    result_slots = tuple(fc.slot(r) for r in op.results)
    fixes = _fixes(fc, op.region.block.last_op.operands, op.results)

    def step(frame):
        for slot, value in zip(result_slots, _apply(body(frame), fixes, frame[0].count)):
            frame[slot] = value

    return step


not_executable(
    {
        scf.ParallelOp: "not implemented (docs/interpreter.md, Known gaps)",
        scf.IndexSwitchOp: "not implemented (docs/interpreter.md, Known gaps)",
    }
)
