"""spyre-raise-counted-loops: turn a latch-tested counted `scf.while` into `scf.for`.

Only the exact counted-loop projection is raised (Loom's structured front
end, "A latch-tested counted scf.while normalizes to scf.for only through
the shared exact counted-loop projection"). The loop must be in do-while
(latch) form: the before-region does the work and tests the latch, the
after-region only hands its arguments back:

    %r:N = scf.while (%iv = %lb, %x = %init, ...) : (...) -> (...) {
      ... the work, on %iv and the other lanes ...
      %next = arith.addi %iv, %step
      %more = arith.cmpi ne, %next, %ub
      scf.condition(%more) %next, %x', ...
    } do {
    ^bb0(%a, %b, ...):
      scf.yield %a, %b, ...
    }

Such a loop runs its body for iv = lb, lb + step, ... and stops after the
body in which `next` equals ub. It is the counted loop `lb to ub step step`
exactly when one of these holds (`lb` is the induction lane's initial value,
`step` and `ub` the operands of the latch):

- constant bounds: `lb >= 0`, `step > 0`, `ub > lb` (as signed values of
  the lane's type: index is 64 bits) and `ub - lb` a multiple of `step`, so
  that `next` lands on `ub` without passing it; every `next` lies in
  `(lb, ub]`, so nothing wraps. With `ub <= lb` the latch is met only after
  wrapping around the type ("wrapping bound"); with a step that does not
  divide `ub - lb` it is passed and met, if ever, only after wrapping
  ("non-landing step"). Both stay `scf.while`;
- dynamic upper bound: `lb = 0`, `step = 1`, `ub` defined outside the loop
  and proven `> 0` (signed) by an enclosing `scf.if` whose then-region holds
  the loop and whose condition is `arith.cmpi` `sgt %ub, C` or `slt C, %ub`
  (C >= 0), or `sge %ub, C` or `sle C, %ub` (C >= 1). An unsigned proof
  (`ugt %ub, 0`, `ne %ub, 0`) is not enough: it allows an `ub` that is
  negative as a signed value, for which the while runs and `scf.for`, whose
  bounds compare signed, would not.

The latch is `next != ub` (`cmpi ne`, either operand order), or the
`next < ub` forms `cmpi slt|ult, %next, %ub` / `cmpi sgt|ugt, %ub, %next`:
on the proven domain `next` runs through `(lb, ub]` with `lb >= 0` and
`ub <= the signed maximum`, where `next < ub`, `next <u ub` and `next != ub`
are the same test. Where they would differ (a non-landing step) the loop is
not raised. `next` must be the value the condition forwards on the
induction lane, and `step` a constant.

The after-region must be empty — only `scf.yield` — and return every lane
by identity (`scf.yield` of its block arguments, in order): reordered
feedback or any op there (a store, ...) keeps the loop.

Duplicate lanes are merged first, for every `scf.while` (raised or not):
a lane with the same initial SSA value and the same SSA value forwarded by
`scf.condition` as an earlier lane, both with identity feedback, always
holds the same value as that lane, which replaces it (its before- and
after-region arguments and its result). No value numbering: equal means
the same SSA value.

The `scf.for` runs `lb to ub step step` with the other lanes as
`iter_args`; its body is the before-region's ops (the induction lane's
argument is the `scf.for` induction variable) and yields what the condition
forwarded on those lanes. The while's results on them become the for's
results; its result on the induction lane, the last `next`, is `ub`. A
latch `cmpi`/`addi` left without uses is erased; constants defined inside
the loop that the bounds need are copied before it.

Everything else stays `scf.while`, unchanged. With `remarks=true` (the
`-debug`-style switch) each loop not raised gets a remark
`scf.while not raised: REASON` at its location.

Before:

    %r:2 = scf.while (%i = %c0, %acc = %zero) : (index, tensor<4x8xf32>) -> (index, tensor<4x8xf32>) {
      %t = ktdp.construct_access_tile %v[%i, %c0] {...} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
      %x = ktdp.load %t : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
      %s = arith.addf %acc, %x : tensor<4x8xf32>
      %next = arith.addi %i, %c4 : index
      %more = arith.cmpi ne, %next, %c16 : index
      scf.condition(%more) %next, %s : index, tensor<4x8xf32>
    } do {
    ^bb0(%i2: index, %acc2: tensor<4x8xf32>):
      scf.yield %i2, %acc2 : index, tensor<4x8xf32>
    }
    %n = arith.muli %r#0, %c2 : index

After:

    %r = scf.for %i = %c0 to %c16 step %c4 iter_args(%acc = %zero) -> (tensor<4x8xf32>) {
      %t = ktdp.construct_access_tile %v[%i, %c0] {...} : memref<16x8xf32> -> !ktdp.access_tile<4x8xindex>
      %x = ktdp.load %t : !ktdp.access_tile<4x8xindex> -> tensor<4x8xf32>
      %s = arith.addf %acc, %x : tensor<4x8xf32>
      scf.yield %s : tensor<4x8xf32>
    }
    %n = arith.muli %c16, %c2 : index
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from spyre_mlir.diagnostics import Refusal, remark
from spyre_mlir.ir import fill_locations, upstream_op

# arith.cmpi predicates (MLIR's numbering).
_EQ, _NE, _SLT, _SLE, _SGT, _SGE, _ULT, _ULE, _UGT, _UGE = range(10)
_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
# `next OP ub` (next on the left) / `ub OP next` that mean `next != ub` on the domain.
_LATCH_LEFT = {_NE, _SLT, _ULT}
_LATCH_RIGHT = {_NE, _SGT, _UGT}


def _width(ty) -> int | None:
    if isinstance(ty, IndexType):
        return 64  # index arithmetic wraps at 64 bits (as in the interpreter)
    if isinstance(ty, IntegerType):
        return ty.width.data
    return None


def _constant(value: SSAValue) -> int | None:
    """The signed integer `value` is, if an `arith.constant` defines it."""
    op = value.owner
    if not isinstance(op, arith.ConstantOp) or not isinstance(op.value, IntegerAttr):
        return None
    width = _width(value.type)
    if width is None:
        return None
    raw = op.value.value.data % (1 << width)
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    node = owner.parent_op() if isinstance(owner, Block) else owner
    return node is not None and op.is_ancestor(node)


def _describe(value: SSAValue) -> str:
    if isinstance(value, BlockArgument):
        return f"block argument #{value.index}"
    return f"a result of `{value.owner.name}`"


# -- duplicate lanes ----------------------------------------------------------


def _merge_duplicate_lanes(loop: scf.WhileOp, rewriter: PatternRewriter) -> scf.WhileOp:
    """Merge each lane that repeats an earlier one (same initial value, same
    forwarded value, both identity feedback); returns the loop (rebuilt if
    lanes were merged)."""
    if len(loop.before_region.blocks) != 1 or len(loop.after_region.blocks) != 1:
        return loop
    before, after = loop.before_region.block, loop.after_region.block
    condition, yield_ = before.last_op, after.last_op
    assert isinstance(condition, scf.ConditionOp) and isinstance(yield_, scf.YieldOp)
    n = len(before.args)
    if len(condition.args) != n or len(after.args) != n or len(yield_.arguments) != n:
        return loop

    def identity(k: int) -> bool:
        return yield_.arguments[k] is after.args[k]

    first: dict[tuple[SSAValue, SSAValue], int] = {}
    survivor: dict[int, int] = {}  # duplicate lane -> the earlier lane that replaces it
    for k in range(n):
        if not identity(k):
            continue
        key = (loop.arguments[k], condition.args[k])
        if key in first:
            survivor[k] = first[key]
        else:
            first[key] = k
    if not survivor:
        return loop

    for dup, keep in survivor.items():
        rewriter.replace_all_uses_with(before.args[dup], before.args[keep])
        rewriter.replace_all_uses_with(after.args[dup], after.args[keep])
    kept = [k for k in range(n) if k not in survivor]
    new_condition = scf.ConditionOp(condition.condition, *(condition.args[k] for k in kept))
    new_condition.location = condition.location
    rewriter.replace(condition, new_condition)
    new_yield = scf.YieldOp(*(after.args[k] for k in kept))
    new_yield.location = yield_.location
    rewriter.replace(yield_, new_yield)
    for k in sorted(survivor, reverse=True):
        rewriter.erase_block_argument(before.args[k])
        rewriter.erase_block_argument(after.args[k])

    before_region, after_region = (
        rewriter.move_region_contents_to_new_regions(r) for r in (loop.before_region, loop.after_region)
    )
    while_cls = upstream_op(scf.WhileOp)
    new_loop = while_cls([loop.arguments[k] for k in kept], [loop.res[k].type for k in kept], before_region, after_region)
    new_loop.attributes.update(loop.attributes)
    new_loop.location = loop.location
    position = {k: i for i, k in enumerate(kept)}
    rewriter.replace(loop, new_loop, [new_loop.res[position[survivor.get(k, k)]] for k in range(n)])
    return new_loop


# -- the counted-loop projection ----------------------------------------------


@dataclass
class _Counted:
    lane: int  # the induction lane
    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    latch: arith.CmpiOp
    next: arith.AddiOp


def _proves_positive(cond: SSAValue, ub: SSAValue) -> bool:
    """`cond` is an `arith.cmpi` that, when true, proves `ub > 0` (signed)."""
    cmp = cond.owner
    if not isinstance(cmp, arith.CmpiOp):
        return False
    pred = cmp.predicate.value.data
    lhs, rhs = cmp.lhs, cmp.rhs
    if lhs is ub and (c := _constant(rhs)) is not None:
        return (pred == _SGT and c >= 0) or (pred == _SGE and c >= 1)
    if rhs is ub and (c := _constant(lhs)) is not None:
        return (pred == _SLT and c >= 0) or (pred == _SLE and c >= 1)
    return False


def _enclosing_proof(loop: Operation, ub: SSAValue) -> bool:
    child: Operation = loop
    parent = loop.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and child.parent_region() is parent.true_region:
            if _proves_positive(parent.cond, ub):
                return True
        child, parent = parent, parent.parent_op()
    return False


def _match(loop: scf.WhileOp) -> _Counted:
    """The counted-loop projection of `loop`; else a Refusal (at the loop) says why not."""
    if len(loop.before_region.blocks) != 1 or len(loop.after_region.blocks) != 1:
        raise Refusal(loop, "a region has more than one block")
    before, after = loop.before_region.block, loop.after_region.block
    condition, yield_ = before.last_op, after.last_op
    assert isinstance(condition, scf.ConditionOp) and isinstance(yield_, scf.YieldOp)

    # The after-region: empty, identity feedback.
    extra = [op for op in after.ops if op is not yield_]
    if extra:
        effects = [op.name for op in extra if not is_side_effect_free(op)]
        if effects:
            raise Refusal(loop, f"the after-region has side effects (`{effects[0]}`)")
        raise Refusal(loop, f"the after-region is not empty (`{extra[0].name}`)")
    n = len(before.args)
    if len(condition.args) != n:
        raise Refusal(loop, f"the condition forwards {len(condition.args)} values for {n} lanes")
    for k, value in enumerate(yield_.arguments):
        if value is not after.args[k]:
            got = (
                f"argument #{value.index}" if isinstance(value, BlockArgument) and value.block is after else _describe(value)
            )
            raise Refusal(loop, f"the after-region does not return every lane by identity (lane #{k} gets {got})")

    # The latch: cmpi (ne | slt | ult) next, ub with next = iv + step forwarded on the iv lane.
    latch = condition.condition.owner
    if not isinstance(latch, arith.CmpiOp):
        raise Refusal(loop, f"the condition is not a latch test `next != upper` (it is {_describe(condition.condition)})")
    pred = latch.predicate.value.data
    found: _Counted | None = None
    for nxt, ub, allowed in ((latch.lhs, latch.rhs, _LATCH_LEFT), (latch.rhs, latch.lhs, _LATCH_RIGHT)):
        add = nxt.owner
        if not isinstance(add, arith.AddiOp):
            continue
        for iv, step in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
            if isinstance(iv, BlockArgument) and iv.block is before and condition.args[iv.index] is nxt:
                if pred not in allowed:
                    side = "next, upper" if allowed is _LATCH_LEFT else "upper, next"
                    raise Refusal(loop, f"the latch `cmpi {_NAMES[pred]}, {side}` is not `next != upper`")
                found = _Counted(iv.index, loop.arguments[iv.index], ub, step, latch, add)
                break
        if found is not None:
            break
    if found is None:
        raise Refusal(
            loop,
            "the condition is not a latch test `next != upper`: no operand of its `cmpi` is "
            "`next = iv + step` forwarded on the lane of `iv`"
        )

    # The domain.
    step = _constant(found.step)
    if step is None:
        raise Refusal(loop, "the step is not a constant")
    if step <= 0:
        raise Refusal(loop, f"the step {step} is not positive")
    lb, ub = _constant(found.lb), _constant(found.ub)
    if lb is not None and ub is not None:
        if lb < 0:
            raise Refusal(loop, f"the lower bound {lb} is negative")
        if ub <= lb:
            raise Refusal(loop, f"wrapping bound: the upper bound {ub} is not greater than the lower bound {lb}")
        if (ub - lb) % step:
            raise Refusal(loop, f"non-landing step: {step} does not divide upper - lower = {ub - lb}")
        return found
    if lb is None:
        raise Refusal(loop, "the lower bound is not a constant")
    if lb != 0 or step != 1:
        raise Refusal(
            loop,
            f"unproven dynamic bound: a dynamic upper bound needs lower bound 0 and step 1 (here {lb} and {step})"
        )
    if _defined_inside(found.ub, loop):
        raise Refusal(loop, "the upper bound is defined inside the loop")
    if not _enclosing_proof(loop, found.ub):
        raise Refusal(loop, "unproven dynamic bound: no enclosing scf.if proves the upper bound > 0")
    return found


# -- the rewrite ----------------------------------------------------------------


def _outside(value: SSAValue, loop: Operation, rewriter: PatternRewriter) -> SSAValue:
    """`value`, or a copy before `loop` of the constant defining it inside the loop."""
    if not _defined_inside(value, loop):
        return value
    const = value.owner
    assert isinstance(const, arith.ConstantOp)  # bounds defined inside are constants (checked by _match)
    copy = const.clone()
    copy.location = const.location
    rewriter.insert(copy, InsertPoint.before(loop))
    return copy.result


def _raise(loop: scf.WhileOp, counted: _Counted, rewriter: PatternRewriter) -> None:
    before = loop.before_region.block
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)
    k = counted.lane
    others = [j for j in range(len(before.args)) if j != k]
    ub = _outside(counted.ub, loop, rewriter)
    step = _outside(counted.step, loop, rewriter)

    body = Block(arg_types=[before.args[k].type, *(before.args[j].type for j in others)])
    for new, j in zip(body.args, [k, *others]):
        new.name_hint = before.args[j].name_hint
    forwarded = [condition.args[j] for j in others]
    yield_ = scf.YieldOp(*forwarded)
    yield_.location = condition.location
    rewriter.erase(condition)
    position = {j: i for i, j in enumerate([k, *others])}
    rewriter.inline_block(before, InsertPoint.at_end(body), [body.args[position[j]] for j in range(len(before.args))])
    body.add_op(yield_)
    # The latch and the bound constants copied out of the loop, if nothing else uses them.
    for dead in (counted.latch, counted.next, counted.ub.owner, counted.step.owner):
        if isinstance(dead, Operation) and dead.parent_block() is body and all(not r.uses for r in dead.results):
            rewriter.erase(dead)

    for_op = upstream_op(scf.ForOp)(counted.lb, ub, step, [loop.arguments[j] for j in others], body)
    for_op.location = loop.location
    # The while's result on the induction lane, its last `next`, is the upper bound; the
    # other lanes' results are the for's (each keeping its name).
    rewriter.replace_all_uses_with(loop.res[k], ub)
    results: list[SSAValue | None] = [None] * len(loop.res)
    for r, j in zip(for_op.results, others):
        results[j] = r
    rewriter.replace(loop, for_op, results)


@dataclass(frozen=True)
class RaiseCountedLoop(RewritePattern):
    """One scf.while: merge its duplicate lanes (every while), then raise it to
    scf.for when it is the exact counted-loop projection; else, with
    `remarks`, say why at the loop."""

    remarks: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: scf.WhileOp, rewriter: PatternRewriter) -> None:
        loop = _merge_duplicate_lanes(loop, rewriter)
        try:
            counted = _match(loop)
        except Refusal as refusal:
            if self.remarks:
                remark(loop, f"scf.while not raised: {refusal}")
            return
        _raise(loop, counted, rewriter)


@dataclass(frozen=True)
class SpyreRaiseCountedLoopsPass(ModulePass):
    """Raise each latch-tested counted scf.while to scf.for (see module docstring)."""

    name = "spyre-raise-counted-loops"
    changes_ir: ClassVar[bool] = True

    remarks: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Innermost loops first, each once: a loop is matched after the loops in it were
        # raised, and one not raised is not retried (its remark is said once).
        PatternRewriteWalker(
            RaiseCountedLoop(self.remarks), walk_regions_first=True, apply_recursively=False
        ).rewrite_module(op)
        fill_locations(op)
