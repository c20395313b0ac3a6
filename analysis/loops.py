"""The loop-nest model: a kernel's loops and the affine forms of its index values.

One description of a loop nest, recomputed from the IR on demand (nothing is
stored in it): every `scf.for` and `spyre_loop.loop` under a function, in
walk order, with its induction variable, bounds, step and trip count when
they are constants, its depth and the loop around it (`LoopDomain`,
`iteration_domains`). A loop's `path`, `(function name, index)`, names it in
any clone or re-parse of the module, so a decision (a tiling level, an
unroll, a schedule) taken on one copy applies to another.

Index values are affine forms over the loops' induction variables and the
values fixed for one run of the function (parameters, tile ids, runtime
arguments, pure functions of those): `linearize(value)` gives `value` as a
`spyre_mlir.analysis.affine.Linear` over those SSA values, or None. It is
`affine.linear_form` (the one linearizer) applied to SSA index arithmetic.

    from spyre_mlir.analysis.loops import iteration_domains, linearize
    loops = iteration_domains(kernel)          # [LoopDomain(scf.for #0 %i = 0 to 8 step 1, trips=8), ...]
    linearize(address)                         # 0 + 2048*%i + 1*%x

What derives its loops from it: memory accesses and dependence
(`spyre_mlir.analysis.access`) and the typed loop transformations
(`passes/bundle/loop_transforms.py`, which name loops by `path`). A pass
that builds or reads a loop nest asks the same three things: which loops
(`iteration_domains`), how many iterations (`LoopDomain.trip_count`, or
`trip_count(lower, upper, step)` for bounds it evaluates itself, e.g. per
spatial site), and how an index moves with them (`linearize`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import get_effects

from spyre_mlir.analysis.affine import Linear, linear_form
from spyre_mlir.dialects.spyre_loop import LoopOp as SpyreLoopOp
from spyre_mlir.walk import walk_ops

__all__ = [
    "LoopDomain",
    "constant_int",
    "enclosing_function",
    "inside",
    "is_param",
    "iteration_domains",
    "linearize",
    "loop_of_iv",
    "trip_count",
    "value_name",
]


@dataclass(eq=False)
class LoopDomain:
    """One loop: `iv` runs over `lower, lower + step, ... < upper`.

    `lower`/`upper`/`step`/`trip_count` are ints when the bounds are
    constants, else None. A `spyre_loop.loop` is `0 to count step 1`.
    `index` is the loop's position in `iteration_domains(func)` (walk
    order, all loop kinds): `path` = (function name, index) names it in any
    clone or re-parse of the module."""

    op: Operation
    iv: SSAValue
    lower: int | None
    upper: int | None
    step: int | None
    trip_count: int | None
    depth: int
    parent: LoopDomain | None
    index: int
    function: str
    iter_args: int = 0

    @property
    def kind(self) -> str:
        return self.op.name

    @property
    def path(self) -> tuple[str, int]:
        return (self.function, self.index)

    @property
    def static(self) -> bool:
        """Constant lower bound, step and trip count."""
        return self.lower is not None and self.step is not None and self.trip_count is not None

    def encloses(self, op: Operation) -> bool:
        return inside(op, self.op)

    def __repr__(self) -> str:
        bounds = f"{_show(self.lower)} to {_show(self.upper)} step {_show(self.step)}"
        return f"LoopDomain({self.kind} #{self.index} {value_name(self.iv)} = {bounds}, trips={_show(self.trip_count)})"



def _show(x: int | None) -> str:
    return "?" if x is None else str(x)


def trip_count(lower: int | None, upper: int | None, step: int | None) -> int | None:
    """Iterations of `for i = lower to upper step step` (0 when upper <= lower); None when a
    bound is not known or the step is not positive."""
    if lower is None or upper is None or step is None or step <= 0:
        return None
    return max(0, -((lower - upper) // step))


def iteration_domains(func_op: Operation) -> list[LoopDomain]:
    """Every `scf.for` and `spyre_loop.loop` under `func_op`, in walk order (pre-order)."""
    name = _function_name(func_op)
    found: list[LoopDomain] = []
    by_op: dict[Operation, LoopDomain] = {}
    for op in walk_ops(func_op):
        if not isinstance(op, scf.ForOp | SpyreLoopOp) or op is func_op:
            continue
        parent = None
        node = op.parent_op()
        while node is not None and node is not func_op:
            if node in by_op:
                parent = by_op[node]
                break
            node = node.parent_op()
        if isinstance(op, scf.ForOp):
            lower, upper, step = (_const_value(v) for v in (op.lb, op.ub, op.step))
            iv, nargs = op.body.block.args[0], len(op.iter_args)
        else:
            count = op.static_count if op.count is not None else _const_value(op.count_value)  # pyright: ignore[reportArgumentType]
            lower, upper, step = 0, count, 1
            iv, nargs = op.iteration, 0
        domain = LoopDomain(
            op, iv, lower, upper, step, trip_count(lower, upper, step), 0 if parent is None else parent.depth + 1,
            parent, len(found), name, nargs,
        )
        found.append(domain)
        by_op[op] = domain
    return found


def _function_name(op: Operation) -> str:
    sym = getattr(op, "sym_name", None)
    return sym.data if sym is not None else op.name


def enclosing_function(op: Operation) -> Operation:
    """The `func.func` holding `op` (or the outermost op, if none)."""
    node = op
    while not isinstance(node, func.FuncOp):
        parent = node.parent_op()
        if parent is None:
            return node
        node = parent
    return node


# ===========================================================================
# Affine forms over SSA values
# ===========================================================================


def _const_value(value: SSAValue | None) -> int | None:
    if value is None:
        return None
    form = linearize(value)
    return form.const if form is not None and form.is_constant else None


def constant_int(value: SSAValue) -> int | None:
    """The integer an `arith.constant` defining `value` holds, else None."""
    op = value.owner
    if not isinstance(op, Operation) or op.name != "arith.constant":
        return None
    attr = op.properties.get("value", op.attributes.get("value"))
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else None


def is_param(value: SSAValue) -> bool:
    """A parameter of a function (an argument of its entry block)."""
    if not isinstance(value, BlockArgument):
        return False
    parent = value.block.parent_op()
    return isinstance(parent, func.FuncOp) and value.block is parent.body.blocks.first


def loop_of_iv(value: SSAValue) -> Operation | None:
    """The loop whose induction variable `value` is, or None."""
    if not isinstance(value, BlockArgument) or value.index != 0:
        return None
    parent = value.block.parent_op()
    return parent if isinstance(parent, scf.ForOp | SpyreLoopOp) else None


_FIXED_LEAVES = ("ktdp.get_compute_tile_id", "ktdp.runtime_arg_extract")


def _fixed(value: SSAValue, memo: dict[SSAValue, bool]) -> bool:
    """Whether `value` is the same throughout one run of the function: a
    parameter, a tile id, a runtime argument, a constant, or a pure op of
    such values (no memory read, no loop variable, no iteration value)."""
    if value in memo:
        return memo[value]
    memo[value] = False  # cycles (graph regions) are not fixed
    if isinstance(value, BlockArgument):
        result = is_param(value)
    else:
        op = value.owner
        assert isinstance(op, Operation)
        if op.name in _FIXED_LEAVES or constant_int(value) is not None:
            result = True
        else:
            effects = get_effects(op)
            result = effects is not None and not effects and not op.regions and all(_fixed(v, memo) for v in op.operands)
    memo[value] = result
    return result


_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui")


def linearize(value: SSAValue, memo: dict | None = None) -> Linear | None:
    """`value` as a `Linear` form over loop induction variables and fixed
    values (a non-linear function of fixed values is one opaque fixed term),
    or None when it is not one (it depends on memory, on an iteration value,
    or non-linearly on a loop variable)."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    memo[value] = None  # cycles are not affine
    result = _linearize(value, memo)
    memo[value] = result
    return result


def _linearize(value: SSAValue, memo: dict) -> Linear | None:
    if isinstance(value, BlockArgument):
        if is_param(value) or loop_of_iv(value) is not None:
            return Linear(0, {value: 1})
        return None
    op = value.owner
    assert isinstance(op, Operation)
    c = constant_int(value)
    if c is not None:
        return Linear(c)
    name = op.name
    if name in _FIXED_LEAVES:
        return Linear(0, {value: 1})
    if name in ("arith.addi", "arith.subi"):
        lhs, rhs = (linearize(v, memo) for v in op.operands[:2])
        if lhs is not None and rhs is not None:
            return lhs.plus(rhs, 1 if name == "arith.addi" else -1)
    elif name == "arith.muli":
        lhs, rhs = (linearize(v, memo) for v in op.operands[:2])
        if lhs is not None and rhs is not None:
            if rhs.is_constant:
                return lhs.times(rhs.const)
            if lhs.is_constant:
                return rhs.times(lhs.const)
    elif name == "arith.shli":
        lhs, rhs = (linearize(v, memo) for v in op.operands[:2])
        if lhs is not None and rhs is not None and rhs.is_constant and 0 <= rhs.const < 64:
            return lhs.times(1 << rhs.const)
    elif name in _CASTS:
        return linearize(op.operands[0], memo)
    elif name == "affine.apply":
        amap = op.properties.get("map") or op.attributes.get("map")
        amap = getattr(amap, "data", None)
        if amap is not None and len(amap.results) == 1:
            forms = [linearize(v, memo) for v in op.operands]
            form = linear_form(amap.results[0], forms[: amap.num_dims], forms[amap.num_dims :])
            if form is not None:
                return form
    # Anything else: an opaque term when fixed for the run, else not affine.
    if _fixed(value, memo.setdefault("__fixed__", {})):  # pyright: ignore[reportArgumentType]
        return Linear(0, {value: 1})
    return None


def value_name(value: object) -> str:
    """A value as a message names it: `%name`, or what defines it."""
    if isinstance(value, SSAValue):
        if value.name_hint:
            return f"%{value.name_hint}"
        if isinstance(value, BlockArgument):
            return f"block argument #{value.index}"
        owner = value.owner
        return f"a result of '{owner.name}'" if isinstance(owner, Operation) else "a value"
    return repr(value)




def inside(op: Operation, ancestor: Operation) -> bool:
    """Whether `ancestor` is a (strict) parent of `op`."""
    node: Operation | None = op.parent_op()
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent_op()
    return False

