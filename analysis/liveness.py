"""Live ranges of tensors and the peak bytes live at once (the LX footprint).

On Spyre the tensors a core computes on live in its LX scratchpad. A value
is live from its definition to its last use in its block; a use inside a
region counts at the op holding the region, and values a loop or branch
uses from outside stay live while its body runs. A block argument is live
from the block's start (position -1). Every question about LX bytes asks
here: coarse tiling's working set (spyre-coarse-tile), the interpreter's
LX estimate (`peak_live_bytes`, through calls and nested regions), and the
sizes the scratchpad plan and the HBM round trips give their buffers
(`tensor_bytes`). Placing buffers at offsets is `spyre_mlir.analysis.allocation`.

    ranges = live_ranges(block, size_of)     # value -> LiveRange(start, end, size)
    peak_bytes(ranges.values())              # the block's peak (not counting what is around it)

The sweep is linear in the size of the IR: each block once, live bytes by
prefix sums, each called function once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from spyre_mlir.diagnostics import error
from spyre_mlir.target import SPYRE, Target, TargetError
from spyre_mlir.walk import capture_summaries

SizeOf = Callable[[SSAValue], int]
"""Bytes a value occupies while live (0: not counted)."""


# ---------------------------------------------------------------------------
# Sizes


def tensor_bytes(ty: Attribute, target: Target = SPYRE) -> int | None:
    """Bytes of a tensor of type `ty` (elements times the target's `element_bytes`); None for a
    dynamic shape. An element type without a byte width is a `TargetError`."""
    assert isinstance(ty, TensorType)
    shape = ty.get_shape()
    if any(d == DYNAMIC_INDEX or d < 0 for d in shape):
        return None
    return math.prod(shape) * target.element_bytes(ty.get_element_type())


def value_bytes(value: SSAValue, target: Target = SPYRE) -> int:
    """Bytes of `value` if it is a tensor of static shape, else 0. An element type without a byte
    width is a located error at the value's producer."""
    if not isinstance(value.type, TensorType):
        return 0
    try:
        return tensor_bytes(value.type, target) or 0
    except TargetError as exc:
        owner = value.owner if isinstance(value.owner, Operation) else value.owner.parent_op()
        raise error(owner, f"cannot size a {value.type}: {exc}") from None


# ---------------------------------------------------------------------------
# Live ranges of one block


@dataclass(frozen=True)
class LiveRange:
    """A value's lifetime in its block: live from op `start` (-1: a block argument, live on entry)
    through op `end`, inclusive; `size` bytes. `captured`: the op at `end` uses it inside its
    regions, so it stays live while they run."""

    start: int
    end: int
    size: int
    captured: bool = False


def live_ranges(block: Block, size_of: SizeOf, captures: Mapping[int, Iterable[SSAValue]] | None = None) -> dict[SSAValue, LiveRange]:
    """The live range of each argument and result of `block`'s ops, in definition order. `captures`
    maps each region under the block (by `id`) to the values used in it from outside
    (`spyre_mlir.walk.capture_summaries`; computed when not given)."""
    if captures is None:
        captures = {}
        for op in block.ops:
            for region in op.regions:
                captures.update(capture_summaries(region))
    defined: dict[SSAValue, int] = {a: -1 for a in block.args}
    for i, op in enumerate(block.ops):
        for r in op.results:
            defined[r] = i
    last = dict(defined)
    inside: dict[SSAValue, bool] = {}
    for i, op in enumerate(block.ops):
        for operand in op.operands:
            if operand in last and last[operand] < i:
                last[operand] = i
                inside[operand] = False
        for region in op.regions:
            for operand in captures[id(region)]:
                if operand in last and last[operand] <= i:
                    last[operand] = i
                    inside[operand] = True
    return {v: LiveRange(start, last[v], size_of(v), inside.get(v, False)) for v, start in defined.items()}


def live_bytes(ranges: Iterable[LiveRange], length: int) -> list[int]:
    """Bytes live at each position 0 .. `length - 1` (a block argument counts from 0)."""
    delta = [0] * (length + 1)
    for r in ranges:
        if r.size:
            delta[max(r.start, 0)] += r.size
            delta[r.end + 1] -= r.size
    live, out = 0, []
    for k in range(length):
        live += delta[k]
        out.append(live)
    return out


def peak_bytes(ranges: Iterable[LiveRange]) -> int:
    """The most bytes live at one position (0 for none)."""
    events: list[tuple[int, int]] = []
    for r in ranges:
        if r.size:
            events += [(max(r.start, 0), r.size), (r.end + 1, -r.size)]
    peak = live = 0
    for _, delta in sorted(events):  # at one position, what dies goes before what is born
        live += delta
        peak = max(peak, live)
    return peak


# ---------------------------------------------------------------------------
# Through nested regions and calls


class _Sweep:
    def __init__(self, functions: Mapping[str, func.FuncOp], size_of: SizeOf):
        self.functions = functions
        self.size_of = size_of
        self.callee_peaks: dict[str, tuple[int, Operation | None]] = {}

    def function(self, func_op: func.FuncOp, active: frozenset[str]) -> tuple[int, Operation | None]:
        name = func_op.sym_name.data
        if name not in self.callee_peaks:
            self.callee_peaks[name] = (0, None)  # recursion: counted once
            captures = capture_summaries(func_op.body)
            self.callee_peaks[name] = self.block(func_op.body.blocks[0], captures, active | {name})
        return self.callee_peaks[name]

    def block(self, block: Block, captures: dict[int, dict], active: frozenset[str]) -> tuple[int, Operation | None]:
        """Peak live bytes inside `block` (not counting what is live around it), and where."""
        ops = list(block.ops)
        ranges = live_ranges(block, self.size_of, captures)
        results = [0] * len(ops)  # bytes op i defines
        dying = [0] * len(ops)  # bytes last used (directly) by op i and defined before it
        for r in ranges.values():
            if r.start >= 0:
                results[r.start] += r.size
            if r.start < r.end and not r.captured:
                dying[r.end] += r.size
        live = live_bytes(ranges.values(), len(ops))
        peak, peak_op = 0, None
        for i, op in enumerate(ops):
            if live[i] > peak:
                peak, peak_op = live[i], op
            callee = None
            if isinstance(op, func.CallOp):
                name = op.callee.root_reference.data
                callee = self.functions.get(name) if name not in active else None
                if callee is not None and not callee.body.blocks:
                    callee = None
            if not op.regions and callee is None:
                continue
            during = live[i] - results[i] - dying[i]
            inner = [self.block(b, captures, active) for region in op.regions for b in region.blocks]
            if callee is not None:
                inner.append(self.function(callee, active))
            for inner_peak, inner_op in inner:
                if during + inner_peak > peak:
                    peak, peak_op = during + inner_peak, inner_op
        return peak, peak_op


def peak_live_bytes(
    func_op: func.FuncOp, functions: Mapping[str, func.FuncOp], size_of: SizeOf
) -> tuple[int, Operation | None]:
    """The most bytes live at once while `func_op` runs, and the op where that is reached: every
    path counted, executed or not, nested regions on top of what is live around them, and
    called functions (by name in `functions`) on top of what is live at the call."""
    if not func_op.body.blocks:
        return 0, None
    return _Sweep(functions, size_of).function(func_op, frozenset())


__all__ = [
    "LiveRange",
    "SizeOf",
    "live_bytes",
    "live_ranges",
    "peak_bytes",
    "peak_live_bytes",
    "tensor_bytes",
    "value_bytes",
]
