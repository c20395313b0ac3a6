"""ktdf-expose-reduction-loops: a loop's carried tensors live in LX, so its body is one load → compute → store pass.

A loop that carries a tensor from one iteration to the next (a matmul's k
loop accumulating, a running column sum, an online softmax's running max
and sum) is not a load → compute → store pass: the carried value never goes
through memory, so ktdf-build-pipelines can make no pipeline of it. As
dataflow-scheduler's reduction-loop-exposure does, this pass gives each
carried tensor a buffer in the core's local memory ("L1": a `ct_local`
`ktdp.construct_memory_view`, after any LX view the function has) that the
stages read and write:

- before the loop, the initial value is stored into the buffer;
- the loop's body loads the buffer where it read the carried value, and
  stores the value it yielded back into it (`loop_type = reduction_loop`);
- after the loop, the buffer is loaded where the loop's result was used.

Then the init, the body and what follows the loop are each one load →
compute → store pass, and ktdf-build-pipelines (run after this pass in
`ktir-to-schedule`) makes each a pipeline: the body's inside the reduction
loop, reading and writing the L1 buffer.

Before:

    %zero = arith.constant dense<0.0> : tensor<1x64xf32>
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<1x64xf32>) {
      %x = ktdp.load %t : ... -> tensor<1x64xf32>
      %n = arith.addf %acc, %x : tensor<1x64xf32>
      scf.yield %n : tensor<1x64xf32>
    }
    ktdp.store %s, %out : ...

After:

    %lx = arith.constant 0 : index
    %buf = ktdp.construct_memory_view %lx, sizes: [1, 64], strides: [64, 1] {..., memory_space = #ktdp.memory_space<ct_local>} : memref<1x64xf32>
    %bt = ktdp.construct_access_tile %buf[%c0, %c0] {...} : memref<1x64xf32> -> !ktdp.access_tile<1x64xindex>
    %zero = arith.constant dense<0.0> : tensor<1x64xf32>
    ktdp.store %zero, %bt : ...
    scf.for %k = %c0 to %c4 step %c1 {
      %acc = ktdp.load %bt : ... -> tensor<1x64xf32>
      %x = ktdp.load %t : ... -> tensor<1x64xf32>
      %n = arith.addf %acc, %x : tensor<1x64xf32>
      ktdp.store %n, %bt : ...
    } {loop_type = #ktdf.loop_type<reduction_loop>}
    %s = ktdp.load %bt : ... -> tensor<1x64xf32>
    ktdp.store %s, %out : ...

The same holds for a tensor made of loaded data between loops and used past
one (in a later loop's body, or after it: layernorm's mean, an online
softmax's 1 / l): it is stored into an LX buffer where it is made and loaded
at the top of each later loop body that uses it, or right after the loop it
crosses.

Only statically shaped tensors are moved to LX; other carried values (an
index, a scalar) stay carried. A loop whose body does no memory access
(pure arithmetic) is left alone: it has no pipeline to give.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    AffineSetAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstraintExpr, AffineExpr, AffineMap, AffineSet
from xdsl.ir.affine.affine_set import AffineConstraintKind
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from spyre_mlir.dialects.ktdf import LoopTypeAttr
from spyre_mlir.dialects.ktdp import (
    AccessTileType,
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    MemorySpaceAttr,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.ir import fill_locations
from spyre_mlir.passes.contracts import group_functions, require_stage, stages_of
from spyre_mlir.target import Target, target_of

REDUCTION_LOOP = "reduction_loop"
LOOP_TYPE_ATTR = "loop_type"


def _box_set(shape: list[int]) -> AffineSetAttr:
    """`0 <= d_k <= shape[k] - 1` for every dim."""
    dims = [AffineExpr.dimension(k) for k in range(len(shape))]
    constraints = []
    for d, size in zip(dims, shape):
        zero = AffineExpr.constant(0)
        constraints += [
            AffineConstraintExpr(AffineConstraintKind.ge, d, zero),
            AffineConstraintExpr(AffineConstraintKind.ge, -d + (size - 1), zero),
        ]
    return AffineSetAttr(AffineSet(len(shape), 0, tuple(constraints)))


def _lx_end(function: func.FuncOp) -> int:
    """The first byte after every LX view of `function` with a constant address (0 when it has none)."""
    end = 0
    for op in function.walk():
        if not isinstance(op, ConstructMemoryViewOp):
            continue
        space = normalized_memory_space(op.memory_space)
        owner = op.offset.owner
        if space is None or space.is_global or not isinstance(owner, arith.ConstantOp):
            continue
        view_type = op.result.type
        assert isinstance(view_type, MemRefType)
        if not isinstance(owner.value, IntegerAttr) or any(s < 0 for s in view_type.get_shape()):
            continue
        elem_bytes = max(1, view_type.get_element_type().bitwidth // 8)  # pyright: ignore
        end = max(end, owner.value.value.data + math.prod(view_type.get_shape()) * elem_bytes)
    return end


@dataclass
class Exposer:
    target: Target
    loops: int = 0
    spills: int = 0

    def run(self, function: func.FuncOp) -> None:
        self.next_lx = self.target.align(_lx_end(function))
        loops = [op for op in function.walk() if isinstance(op, scf.ForOp)]
        for loop in reversed(loops):  # inner loops first: an outer loop then sees its body in memory
            if any(_exposable(arg) for arg in loop.body.block.args[1:]) and _accesses_memory(loop):
                self._expose(loop)
        for block in [b for op in function.walk() for r in op.regions for b in r.blocks]:
            self._spill_across_nests(block)

    def _spill_across_nests(self, block: Block) -> None:
        """A tensor computed from loaded data that is used past a loop (or branch) accessing memory — in
        its body, or after it — goes through an LX buffer: stored where it is made, loaded where it is
        used. So each run of the block between such nests, and each nest's body, is a pass of its own."""
        ops = list(block.ops)
        nests = [op for op in ops if op.regions and _accesses_memory(op)]
        if not nests:
            return
        position = {op: k for k, op in enumerate(ops)}
        loaded: set[SSAValue] = set()
        for op in ops:
            if op in nests:
                continue
            if isinstance(op, LoadOp) or any(v in loaded for v in op.operands):
                loaded.update(op.results)
            for value in op.results:
                if value not in loaded or not _exposable(value):
                    continue
                later: list[tuple[Operation, Block | Operation]] = []  # (user, where its load goes)
                for use in value.uses:
                    anchor = _ancestor_in(use.operation, block)
                    if anchor is None or position.get(anchor, -1) <= position[op]:
                        continue
                    if anchor in nests:
                        later.append((use.operation, _scf_block(use.operation, anchor)))
                        continue
                    crossed = [n for n in nests if position[op] < position[n] < position[anchor]]
                    if crossed:
                        later.append((use.operation, crossed[-1]))
                if later:
                    self._spill(value, op, later)

    def _spill(self, value: SSAValue, maker: Operation, later: list[tuple[Operation, Block | Operation]]) -> None:
        ty = value.type
        assert isinstance(ty, TensorType)
        tile = self._buffer(list(ty.get_shape()), ty.get_element_type(), maker)
        Rewriter.insert_op(StoreOp(value, tile), InsertPoint.after(maker))
        reads: dict[Block | Operation, LoadOp] = {}
        for user, where in later:
            read = reads.get(where)
            if read is None:
                read = reads[where] = LoadOp(tile, ty)
                read.results[0].name_hint = value.name_hint
                if isinstance(where, Block):
                    first = where.first_op
                    Rewriter.insert_op(read, InsertPoint.before(first) if first else InsertPoint.at_end(where))
                else:  # right after the nest it crosses
                    Rewriter.insert_op(read, InsertPoint.after(where))
            for operand_index, operand in enumerate(user.operands):
                if operand is value:
                    user.operands[operand_index] = read.results[0]
        self.spills += 1

    def _buffer(self, shape: list[int], elem, before: Operation) -> ConstructAccessTileOp:
        """An LX view of `shape` at the next free LX address, and the tile of all of it, before `before`."""
        elem_bytes = max(1, elem.bitwidth // 8)
        address = arith.ConstantOp(IntegerAttr(self.next_lx, IndexType()))
        self.next_lx = self.target.align(self.next_lx + math.prod(shape) * elem_bytes)
        strides = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
        view = ConstructMemoryViewOp(
            address, shape, strides, _box_set(shape), MemorySpaceAttr("ct_local"), MemRefType(elem, shape)
        )
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        rank = len(shape)
        tile = ConstructAccessTileOp(
            view, AffineMap.identity(rank), [zero] * rank, _box_set(shape), AffineMap.identity(rank),
            AccessTileType(shape),
        )
        Rewriter.insert_op([address, view, zero, tile], InsertPoint.before(before))
        return tile

    def _expose(self, loop: scf.ForOp) -> None:
        body = loop.body.block
        yield_op = body.last_op
        assert isinstance(yield_op, scf.YieldOp)
        carried = list(zip(body.args[1:], loop.iter_args, yield_op.operands, loop.results))
        exposed = [c for c in carried if _exposable(c[0])]
        kept = [c for c in carried if not _exposable(c[0])]
        tiles: list[ConstructAccessTileOp] = []
        for arg, init, _, _ in exposed:
            ty = arg.type
            assert isinstance(ty, TensorType)
            tile = self._buffer(list(ty.get_shape()), ty.get_element_type(), loop)
            Rewriter.insert_op(StoreOp(init, tile), InsertPoint.before(loop))
            tiles.append(tile)

        # The new loop carries only what stays carried; its body is the old one.
        new_body = Block(arg_types=[IndexType(), *(arg.type for arg, *_ in kept)])
        new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [init for _, init, _, _ in kept], Region(new_body))
        new_loop.attributes.update(loop.attributes)
        new_loop.attributes[LOOP_TYPE_ATTR] = LoopTypeAttr(REDUCTION_LOOP)
        body.args[0].replace_all_uses_with(new_body.args[0])
        for (arg, *_), new_arg in zip(kept, new_body.args[1:]):
            arg.replace_all_uses_with(new_arg)
        reads: list[LoadOp] = []
        for (arg, *_), tile in zip(exposed, tiles):
            read = LoadOp(tile, arg.type)
            read.results[0].name_hint = arg.name_hint
            arg.replace_all_uses_with(read.results[0])
            reads.append(read)
        new_body.add_ops(reads)
        for op in list(body.ops):
            if op is yield_op:
                continue
            op.detach()
            new_body.add_op(op)
        for (_, _, yielded, _), tile in zip(exposed, tiles):
            new_body.add_op(StoreOp(yielded, tile))
        new_body.add_op(scf.YieldOp(*(yielded for _, _, yielded, _ in kept)))
        Rewriter.insert_op(new_loop, InsertPoint.before(loop))

        # The result is read where it is used: once after the loop, and at the top of the body of each
        # later loop or branch that uses it (so that body loads it too, and is a pass of its own).
        finals: list[LoadOp] = []
        for (arg, _, _, result), tile in zip(exposed, tiles):
            reads: dict[Block, LoadOp] = {}
            for use in list(result.uses):
                block = use.operation.parent_block()
                if block is None or not isinstance(block.parent_op(), scf.ForOp | scf.IfOp | scf.WhileOp):
                    block = new_loop.parent_block()
                assert block is not None
                read = reads.get(block)
                if read is None:
                    read = reads[block] = LoadOp(tile, arg.type)
                    read.results[0].name_hint = result.name_hint
                    if block is new_loop.parent_block():
                        finals.append(read)
                    else:
                        first = block.first_op
                        Rewriter.insert_op(read, InsertPoint.before(first) if first else InsertPoint.at_end(block))
                use.operation.operands[use.index] = read.results[0]
        Rewriter.insert_op(finals, InsertPoint.after(new_loop))
        for (*_, result), new_result in zip(kept, new_loop.results):
            result.replace_all_uses_with(new_result)
        loop.detach()
        loop.erase()
        self.loops += 1


def _ancestor_in(op: Operation, block: Block) -> Operation | None:
    """`op` or the op holding it that sits in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _scf_block(user: Operation, nest: Operation) -> Block:
    """The innermost block of a loop or branch (within `nest`) that holds `user`: where its load goes."""
    block = user.parent_block()
    while block is not None:
        parent = block.parent_op()
        if isinstance(parent, scf.ForOp | scf.IfOp | scf.WhileOp):
            return block
        if parent is nest or parent is None:
            break
        block = parent.parent_block()
    return nest.regions[0].blocks[0]


def _exposable(arg: SSAValue) -> bool:
    ty = arg.type
    return isinstance(ty, TensorType) and all(s >= 0 for s in ty.get_shape()) and len(ty.get_shape()) > 0


def _accesses_memory(loop: Operation) -> bool:
    return any(isinstance(op, LoadOp | StoreOp) for op in loop.walk())


@dataclass(frozen=True)
class ExposeReductionLoopsPass(ModulePass):
    """Give each tensor a loop carries a buffer in LX (see module docstring)."""

    name = "ktdf-expose-reduction-loops"
    changes_ir: ClassVar[bool] = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_stage(op, self.name)
        found = stages_of(op)
        if found and found[0][0] == "kernel":
            functions = [f for f in op.walk() if isinstance(f, func.FuncOp) and f.body.blocks]
        else:
            functions = group_functions(op)
        exposer = Exposer(target_of(op))
        for function in functions:
            exposer.run(function)  # pyright: ignore[reportArgumentType]
        fill_locations(op)
