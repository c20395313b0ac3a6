"""Typed loop transformations (issue 12, part 4): tile, unroll, interchange,
and parallelize (`scf.for` -> `scf.forall`, when proven legal).

Each transformation is a frozen dataclass naming its loop by a stable path,
`(function name, index of the loop in iteration_domains(function))`, so the
same decision applies to any clone or re-parse of a module. Each proves its
own preconditions from the analysis views (`spyre_mlir.analysis.loops`,
`spyre_mlir.analysis.access`):

    t = Tile(("kernel", 0), 4)
    refusal = t.check(module)          # None, or a Refusal (op, message, kind)
    child = t.apply(module)            # a NEW module, or the Refusal; `module` is never modified

A transformation is atomic and deterministic: `apply` works on a clone and
either returns the whole transformed clone (verified) or the refusal, never
a partial result and never an exception for a refused decision. A no-op
(factor 1) is the refusal NO_OP: it produces no new candidate.

`enumerate_transformations(module)` lists every candidate decision of every
`scf.for` with its check, in a deterministic order. See docs/loop-analysis.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from spyre_mlir.analysis.access import Verdict, accesses, dependence, interchange_dependence
from spyre_mlir.analysis.loops import LoopDomain, enclosing_function, iteration_domains
from spyre_mlir.diagnostics import Refusal
from spyre_mlir.walk import walk_ops

__all__ = [
    "MAX_FACTOR",
    "MIN_FACTOR",
    "Interchange",
    "LoopPath",
    "Parallelize",
    "RefusalKind",
    "Tile",
    "Transformation",
    "Unroll",
    "enumerate_transformations",
    "find_loop",
    "unrolled_copies",
]

MIN_FACTOR = 2
MAX_FACTOR = 64
"""Tile and unroll factors lie in MIN_FACTOR..MAX_FACTOR (1 is the no-op)."""

ENUMERATED_UNROLL = 8
"""`enumerate_transformations` proposes unroll factors up to this one."""

LoopPath = tuple[str, int]
"""(function name, index of the loop in `iteration_domains(function)`)."""


class RefusalKind(Enum):
    """The typed reason of a transformation's `Refusal` (its `kind`; `str(refusal)` is `KIND: message`)."""

    NO_OP = "no-op"
    NOT_A_LOOP = "not a loop"
    UNSUPPORTED = "unsupported"
    DYNAMIC_BOUNDS = "dynamic bounds"
    FACTOR_OUT_OF_RANGE = "factor out of range"
    FACTOR_DOES_NOT_DIVIDE = "factor does not divide the trip count"
    NOT_PERFECTLY_NESTED = "not perfectly nested"
    CARRIES_VALUES = "carries values"
    BOUNDS_DEPEND_ON_OUTER = "inner bounds depend on the outer loop"
    INCOMPATIBLE_TYPES = "incompatible induction variable types"
    OVERFLOW = "bounds overflow"
    DEPENDENCE_PROVEN = "dependence proven"
    PROOF_NOT_ESTABLISHED = "proof not established"


def find_loop(module: Operation, path: LoopPath) -> LoopDomain | Refusal:
    """The loop `path` names in `module`: in the first function of that name
    with a body (walk order), the loop at that index of its iteration domains."""
    name, index = path
    for op in walk_ops(module):
        if isinstance(op, func.FuncOp) and op.sym_name.data == name and op.body.blocks:
            domains = iteration_domains(op)
            if not 0 <= index < len(domains):
                return Refusal(op, f"@{name} has {len(domains)} loops, no loop #{index}", RefusalKind.NOT_A_LOOP)
            return domains[index]
    return Refusal(None, f"no function @{name} with a body", RefusalKind.NOT_A_LOOP)


class Transformation:
    """A typed decision on one loop; subclasses define `_plan` and `_rewrite`."""

    loop_path: LoopPath

    def check(self, module: ModuleOp) -> Refusal | None:
        """None when the transformation applies to `module`, else why not."""
        plan = self._plan(module)
        return plan if isinstance(plan, Refusal) else None

    def apply(self, module: ModuleOp) -> ModuleOp | Refusal:
        """The transformed module, a new one (`module` is left as it is), or the refusal."""
        from spyre_mlir import ir

        child = module.clone()
        plan = self._plan(child)
        if isinstance(plan, Refusal):
            return plan
        self._rewrite(plan)
        ir.verify(child)
        return child

    def _plan(self, module: ModuleOp):  # -> Refusal | plan
        raise NotImplementedError

    def _rewrite(self, plan) -> None:
        raise NotImplementedError

    def _for_loop(self, module: ModuleOp) -> LoopDomain | Refusal:
        d = find_loop(module, self.loop_path)
        if isinstance(d, Refusal):
            return d
        if not isinstance(d.op, scf.ForOp):
            return Refusal(
                d.op, f"loop #{d.index} of @{d.function} is a '{d.kind}', not an scf.for", RefusalKind.UNSUPPORTED
            )
        return d


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _factor_refusal(factor: int, d: LoopDomain, what: str) -> Refusal | None:
    if factor == 1:
        return Refusal(d.op, f"{what} by 1 leaves the loop as it is: no new candidate", RefusalKind.NO_OP)
    if not MIN_FACTOR <= factor <= MAX_FACTOR:
        return Refusal(
            d.op, f"{what} factor {factor} is outside {MIN_FACTOR}..{MAX_FACTOR}", RefusalKind.FACTOR_OUT_OF_RANGE
        )
    if not d.static:
        return Refusal(
            d.op,
            f"loop #{d.index} of @{d.function} has bounds or step not known statically "
            f"({_bounds(d)}): its trip count is needed",
            RefusalKind.DYNAMIC_BOUNDS,
        )
    assert d.trip_count is not None
    if d.trip_count == 0 or d.trip_count % factor:
        return Refusal(
            d.op,
            f"{what} factor {factor} does not divide the trip count {d.trip_count} of loop #{d.index} "
            f"of @{d.function} ({_bounds(d)}); a factor must divide it exactly",
            RefusalKind.FACTOR_DOES_NOT_DIVIDE,
        )
    return None


def _bounds(d: LoopDomain) -> str:
    def show(x: int | None) -> str:
        return "?" if x is None else str(x)

    return f"{show(d.lower)} to {show(d.upper)} step {show(d.step)}"


def _overflow(d: LoopDomain, span: int) -> Refusal | None:
    """Values up to lower + span must fit the induction variable's type."""
    ty = d.iv.type
    if isinstance(ty, IntegerType):
        assert d.lower is not None
        top = d.lower + span
        if top >= 1 << (ty.width.data - 1):
            return Refusal(d.op, f"the new bounds reach {top}, beyond {ty}", RefusalKind.OVERFLOW)
    return None


def _constant(value: int, ty, before: Operation, hint: str) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, ty if isinstance(ty, IntegerType) else IndexType()))
    op.result.name_hint = hint
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.result


def _hint(value: SSAValue, suffix: str) -> str:
    return f"{value.name_hint or 'i'}_{suffix}"


def _writes_pairs(found):
    """Pairs (a, b), a at or before b in walk order, at least one a write."""
    for i, a in enumerate(found):
        for b in found[i:]:
            if a.is_write or b.is_write:
                yield a, b


def _legality(pairs, verdict_of) -> Refusal | None:
    """DEPENDENCE_PROVEN for the first proven dependence, else
    PROOF_NOT_ESTABLISHED for the first pair not proven independent."""
    unknown = None
    for a, b in pairs:
        verdict, why = verdict_of(a, b)
        if verdict is Verdict.PROVEN_DEPENDENT:
            return Refusal(b.op, why, RefusalKind.DEPENDENCE_PROVEN)
        if verdict is Verdict.PROOF_NOT_ESTABLISHED and unknown is None:
            unknown = Refusal(b.op, why, RefusalKind.PROOF_NOT_ESTABLISHED)
    return unknown


# ---------------------------------------------------------------------------
# Tile (strip-mine)
# ---------------------------------------------------------------------------


def _factor_plan(d: LoopDomain | Refusal, factor: int, what: str) -> LoopDomain | Refusal:
    """The plan of a transformation by `factor` of loop `d` (Tile, Unroll): the loop, or why not."""
    if isinstance(d, Refusal):
        return d
    refusal = _factor_refusal(factor, d, what)
    if refusal is None:
        assert d.trip_count is not None and d.step is not None
        refusal = _overflow(d, d.trip_count * d.step)
    return refusal or d


@dataclass(frozen=True)
class Tile(Transformation):
    """`scf.for %i = lb to ub step s` -> `scf.for %i_tile = lb to ub step s*f
    { scf.for %i = %i_tile to %i_tile + s*f step s }`; `factor` divides the
    trip count. Iteration order is unchanged, so it is always legal;
    iter_args are threaded through both loops."""

    loop_path: LoopPath
    factor: int

    def _plan(self, module):
        return _factor_plan(self._for_loop(module), self.factor, "tile")

    def _rewrite(self, d: LoopDomain) -> None:
        loop = d.op
        assert isinstance(loop, scf.ForOp) and d.step is not None
        ty = loop.lb.type
        width = _constant(d.step * self.factor, ty, loop, "tile_step")
        body = Block(arg_types=[ty, *(v.type for v in loop.iter_args)])
        body.args[0].name_hint = _hint(d.iv, "tile")
        for new, old in zip(body.args[1:], loop.body.block.args[1:]):
            new.name_hint = old.name_hint
        outer = scf.ForOp(loop.lb, loop.ub, width, list(loop.iter_args), body)
        Rewriter.insert_op(outer, InsertPoint.before(loop))
        for old, new in zip(loop.results, outer.results):
            old.replace_all_uses_with(new)
            new.name_hint = old.name_hint
        loop.detach()
        upper = arith.AddiOp(body.args[0], width)
        upper.result.name_hint = _hint(d.iv, "tile_end")
        body.add_op(upper)
        body.add_op(loop)
        loop.operands = (body.args[0], upper.result, loop.step, *body.args[1:])
        body.add_op(scf.YieldOp(*loop.results))


# ---------------------------------------------------------------------------
# Unroll
# ---------------------------------------------------------------------------


def unrolled_copies(
    block: Block, ivs: Sequence[SSAValue], carried: Sequence[SSAValue] = ()
) -> tuple[list[list[Operation]], list[SSAValue]]:
    """The body of a loop, once per value of `ivs` (not inserted anywhere):
    copy k with the block's first argument (the induction variable) replaced
    by `ivs[k]` and its other arguments by what the copy before yields (the
    first copy: `carried`). The block's terminator is not copied: its
    operands, in the last copy's terms, are returned beside the copies.
    The one unroller: `Unroll` and `spyre-unroll-loops` place the copies."""
    terminator = block.last_op if block.last_op is not None and block.last_op.has_trait(IsTerminator) else None
    copies: list[list[Operation]] = []
    values = list(carried)
    for iv in ivs:
        mapper: dict[SSAValue, SSAValue] = {block.args[0]: iv, **dict(zip(block.args[1:], values))}
        copies.append([op.clone(value_mapper=mapper) for op in block.ops if op is not terminator])
        if terminator is not None:
            values = [mapper.get(v, v) for v in terminator.operands]
    return copies, values


@dataclass(frozen=True)
class Unroll(Transformation):
    """`scf.for %i = lb to ub step s` -> `scf.for %i = lb to ub step s*f`
    whose body is the old body `f` times, copy k at `%i + k*s`; iter_args
    flow from each copy's yield into the next. `factor` divides the trip
    count. Iteration order is unchanged, so it is always legal."""

    loop_path: LoopPath
    factor: int

    def _plan(self, module):
        return _factor_plan(self._for_loop(module), self.factor, "unroll")

    def _rewrite(self, d: LoopDomain) -> None:
        loop = d.op
        assert isinstance(loop, scf.ForOp) and d.step is not None
        ty = loop.lb.type
        old = loop.body.block
        assert isinstance(old.last_op, scf.YieldOp)
        step = _constant(d.step * self.factor, ty, loop, "unroll_step")
        offsets = [_constant(k * d.step, ty, loop, f"unroll_off{k}") for k in range(1, self.factor)]
        body = Block(arg_types=[a.type for a in old.args])
        for new, arg in zip(body.args, old.args):
            new.name_hint = arg.name_hint
        new_loop = scf.ForOp(loop.lb, loop.ub, step, list(loop.iter_args), body)
        Rewriter.insert_op(new_loop, InsertPoint.before(loop))
        ivs: list[SSAValue] = [body.args[0]]
        adds: list[Operation] = []
        for k in range(1, self.factor):
            add = arith.AddiOp(body.args[0], offsets[k - 1])
            add.result.name_hint = _hint(d.iv, f"u{k}")
            adds.append(add)
            ivs.append(add.result)
        copies, carried = unrolled_copies(old, ivs, body.args[1:])
        for k, copy in enumerate(copies):
            if k:
                body.add_op(adds[k - 1])
            body.add_ops(copy)
        body.add_op(scf.YieldOp(*carried))
        for res, new in zip(loop.results, new_loop.results):
            res.replace_all_uses_with(new)
            new.name_hint = res.name_hint
        loop.detach()
        loop.erase()


# ---------------------------------------------------------------------------
# Interchange
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Interchange(Transformation):
    """Swap the loop at `loop_path` with the one loop its body holds
    (perfectly nested: nothing else in between but constants, which are
    hoisted). Legal when both have static bounds, carry no values, the inner
    bounds do not use the outer loop, and no dependence between two accesses
    of the nest has opposite distances along the two loops (direction
    (<, >), which the interchange would reverse) — proven, not assumed."""

    loop_path: LoopPath
    assume_distinct_params: bool = False

    def _plan(self, module):
        d = self._for_loop(module)
        if isinstance(d, Refusal):
            return d
        outer = d.op
        assert isinstance(outer, scf.ForOp)
        where = f"loop #{d.index} of @{d.function}"
        ops = [op for op in outer.body.block.ops if not isinstance(op, scf.YieldOp)]
        loops = [op for op in ops if op.regions]
        others = [op for op in ops if not op.regions and op.name != "arith.constant"]
        if len(loops) != 1 or others:
            return Refusal(
                outer,
                f"{where} does not hold exactly one loop and nothing else "
                f"({len(loops)} region op(s), {len(others)} other op(s))",
                RefusalKind.NOT_PERFECTLY_NESTED,
            )
        inner_op = loops[0]
        inner = next((x for x in iteration_domains(enclosing_function(outer)) if x.op is inner_op), None)
        if inner is None or not isinstance(inner_op, scf.ForOp):
            return Refusal(
                inner_op, f"the op nested in {where} is a '{inner_op.name}', not an scf.for", RefusalKind.UNSUPPORTED
            )
        if outer.iter_args or inner_op.iter_args:
            return Refusal(outer, f"{where} or the loop in it carries values (iter_args)", RefusalKind.CARRIES_VALUES)
        if d.iv.type != inner.iv.type:
            return Refusal(
                outer, f"induction variables of types {d.iv.type} and {inner.iv.type}", RefusalKind.INCOMPATIBLE_TYPES
            )
        for value in (inner_op.lb, inner_op.ub, inner_op.step):
            if value is d.iv or (isinstance(value.owner, Operation) and value.owner.parent_op() is outer and value.owner.name != "arith.constant"):
                return Refusal(
                    inner_op,
                    f"the bounds of the loop in {where} use its induction variable",
                    RefusalKind.BOUNDS_DEPEND_ON_OUTER,
                )
        if not (d.static and inner.static):
            return Refusal(
                outer, f"{where} or the loop in it has bounds not known statically", RefusalKind.DYNAMIC_BOUNDS
            )
        found = accesses(outer)
        refusal = _legality(
            _writes_pairs(found),
            lambda a, b: interchange_dependence(a, b, d, inner, assume_distinct_params=self.assume_distinct_params),
        )
        return refusal or (d, inner)

    def _rewrite(self, plan) -> None:
        d, inner = plan
        outer_op, inner_op = d.op, inner.op
        for op in list(outer_op.body.block.ops):
            if op.name == "arith.constant":
                op.detach()
                Rewriter.insert_op(op, InsertPoint.before(outer_op))
        bounds_outer, bounds_inner = list(outer_op.operands[:3]), list(inner_op.operands[:3])
        outer_op.operands = (*bounds_inner, *outer_op.operands[3:])
        inner_op.operands = (*bounds_outer, *inner_op.operands[3:])
        oi, ii = d.iv, inner.iv
        swap = {oi: ii, ii: oi}
        users = list(dict.fromkeys(use.operation for v in (oi, ii) for use in v.uses))
        for user in users:
            user.operands = tuple(swap.get(v, v) for v in user.operands)
        oi.name_hint, ii.name_hint = ii.name_hint, oi.name_hint


# ---------------------------------------------------------------------------
# Parallelize
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Parallelize(Transformation):
    """`scf.for %i = %lb to %ub step %s {body}` -> `scf.forall (%i) = (%lb)
    to (%ub) step (%s) {body}` (the same SSA bounds, the body without its
    `scf.yield`, the loop's attributes kept), only when the loop carries no
    values and every pair of accesses in its body (one a write) is
    PROVEN_INDEPENDENT across its iterations.

    `legality` is that proof; `check` is it plus the one structural
    condition of `scf.forall`: an `index` induction variable (an integer one
    is INCOMPATIBLE_TYPES); `apply` builds the forall when `check` passes."""

    loop_path: LoopPath
    assume_distinct_params: bool = False

    def legality(self, module: ModuleOp) -> Refusal | None:
        """None when every iteration of the loop is proven independent of every other."""
        d = self._for_loop(module)
        if isinstance(d, Refusal):
            return d
        loop = d.op
        assert isinstance(loop, scf.ForOp)
        if loop.iter_args:
            return Refusal(
                loop,
                f"loop #{d.index} of @{d.function} carries {len(loop.iter_args)} value(s) from iteration to iteration",
                RefusalKind.CARRIES_VALUES,
            )
        return _legality(
            _writes_pairs(accesses(loop)),
            lambda a, b: dependence(a, b, d, assume_distinct_params=self.assume_distinct_params),
        )

    def _plan(self, module):
        refusal = self.legality(module)
        if refusal is not None:
            return refusal
        d = find_loop(module, self.loop_path)
        assert isinstance(d, LoopDomain)
        if not isinstance(d.iv.type, IndexType):
            return Refusal(
                d.op,
                f"loop #{d.index} of @{d.function} counts in {d.iv.type}; scf.forall iterates over index",
                RefusalKind.INCOMPATIBLE_TYPES,
            )
        return d

    def _rewrite(self, d: LoopDomain) -> None:
        from spyre_mlir.dialects.scf import ForallOp, InParallelOp

        loop = d.op
        assert isinstance(loop, scf.ForOp)
        block = loop.body.block
        terminator = block.last_op
        assert isinstance(terminator, scf.YieldOp) and not terminator.operands
        terminator.detach()
        terminator.erase()
        block.add_op(InParallelOp())
        loop.body.detach_block(block)
        forall = ForallOp([loop.lb], [loop.ub], [loop.step], Region(block), dict(loop.attributes))
        forall.location = loop.location
        Rewriter.insert_op(forall, InsertPoint.before(loop))
        loop.detach()
        loop.erase()


# ---------------------------------------------------------------------------
# Enumeration
# ---------------------------------------------------------------------------


def enumerate_transformations(
    module: ModuleOp, *, assume_distinct_params: bool = False, max_unroll: int = ENUMERATED_UNROLL
) -> list[tuple[Transformation, Refusal | None]]:
    """Every candidate decision on every `scf.for`, with its check, in a
    deterministic order: functions and loops in walk order; per loop, Tile
    by each proper divisor of the trip count in 2..64, Unroll by each
    divisor in 2..max_unroll, Interchange when the loop's body holds a
    loop, Parallelize. A loop whose trip count is not static or has no such
    divisor gets Tile(2) and Unroll(2), with their refusal."""
    out: list[tuple[Transformation, Refusal | None]] = []
    seen: set[str] = set()
    for op in walk_ops(module):
        if not (isinstance(op, func.FuncOp) and op.body.blocks) or op.sym_name.data in seen:
            continue
        seen.add(op.sym_name.data)
        for d in iteration_domains(op):
            if not isinstance(d.op, scf.ForOp):
                continue
            t = d.trip_count if d.static else None
            tiles = [f for f in range(MIN_FACTOR, min(MAX_FACTOR, t - 1) + 1) if t % f == 0] if t else []
            unrolls = [f for f in range(MIN_FACTOR, min(max_unroll, MAX_FACTOR, t) + 1) if t % f == 0] if t else []
            candidates: list[Transformation] = [Tile(d.path, f) for f in tiles or [MIN_FACTOR]]
            candidates += [Unroll(d.path, f) for f in unrolls or [MIN_FACTOR]]
            if any(inner.regions for inner in d.op.body.block.ops):
                candidates.append(Interchange(d.path, assume_distinct_params))
            candidates.append(Parallelize(d.path, assume_distinct_params))
            out += [(c, c.check(module)) for c in candidates]
    return out
