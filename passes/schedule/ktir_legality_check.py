"""ktir-legality-check: refuse the KTIR that dataflow-scheduler's V1 schedule cannot lower.

The fail-fast gate in front of the schedule IR, with dataflow-scheduler's own
rules and messages (`--ktir-legality-check`, their
`KTIRToScheduleIR/KTIRLegalityCheck` lit tests). It changes no IR: a legal
kernel prints unchanged; the first illegal op, in pre-order, is a located
error. The rules:

- an `scf.for` with loop-carried values (`iter_args`):
  "V1 does not support scf.for with loop-carried arguments (iter_args)";
- any `scf.while`: "V1 does not support scf.while loops";
- a `ktdp.construct_distributed_memory_view` or
  `ktdp.construct_indirect_access_tile`: "V1 does not support <op name>";
- a named linalg op other than the ones V1 lowers (`linalg.add/sub/mul/max/
  min`, `linalg.reduce`, and `linalg.fill`, which initializes the outputs of a
  reduction rather than computing): "V1 only supports add/mul/sub/reduce
  compute ops; found unsupported compute op";
- in the body of a `linalg.generic` or `linalg.reduce`, an op other than the
  scalar computations V1 lowers (`BODY_OPS`: add/mul/sub and the
  max/min/compare/select/abs a reduction or clamp needs, constants, index
  casts, `linalg.yield`) and the `spyreop` intrinsics: "V1 only supports
  add/mul/sub compute ops; found unsupported compute op", at that op.

Everything else (index arithmetic, plain loops, views, loads and stores,
ops outside linalg bodies) is left to the stages that follow.

Before (rejected):

    %r = linalg.generic {...} ins(%a : tensor<4xf16>) outs(%o : tensor<4xf16>) {
    ^bb0(%in: f16, %out: f16):
      %s = math.sqrt %in : f16
      linalg.yield %s : f16
    } -> tensor<4xf16>

After: no IR change; the error, at `math.sqrt`:

    error: V1 only supports add/mul/sub compute ops; found unsupported compute op
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import ConstructDistributedMemoryViewOp, ConstructIndirectAccessTileOp
from spyre_mlir.walk import walk_ops_post

NAMED_OPS = frozenset({
    "linalg.add", "linalg.sub", "linalg.mul", "linalg.max", "linalg.min", "linalg.fill", "linalg.yield",
})
"""Named linalg ops V1 lowers as they are (no body to inspect)."""

BODY_HOLDERS = frozenset({"linalg.generic", "linalg.reduce"})
"""Linalg ops whose body V1 lowers op by op: each op of it must be in `BODY_OPS`."""

BODY_OPS = frozenset({
    "arith.addf", "arith.mulf", "arith.subf", "arith.addi",
    "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.cmpf", "arith.select", "math.absf",
    "arith.constant",  # a value the body reads (a register), not an operation
    "arith.index_castui",  # a runtime scalar the kernel holds as index, cast where it is used
    "linalg.yield",
})
"""Scalar ops V1 lowers in a linalg body; `spyreop` intrinsics are accepted as well."""

INTRINSICS = "spyreop"
"""The dialect of the device intrinsics, all lowered by V1."""

ITER_ARGS = "V1 does not support scf.for with loop-carried arguments (iter_args)"
WHILE = "V1 does not support scf.while loops"
UNSUPPORTED_OP = "V1 does not support {name}"
NAMED_COMPUTE = "V1 only supports add/mul/sub/reduce compute ops; found unsupported compute op"
BODY_COMPUTE = "V1 only supports add/mul/sub compute ops; found unsupported compute op"


def _legal_in_body(op: Operation) -> bool:
    return op.name in BODY_OPS or op.name.split(".", 1)[0] == INTRINSICS


def _pre_order(root: Operation) -> Iterator[Operation]:
    """The ops nested in `root` in pre-order, not entering linalg bodies (checked on their own)."""
    stack = [iter([op for r in root.regions for b in r.blocks for op in b.ops])]
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.regions and op.name not in BODY_HOLDERS:
            stack.append(iter([inner for r in op.regions for b in r.blocks for inner in b.ops]))


def check_legality(module: ModuleOp) -> None:
    """Raise the located error of the first op of `module` V1 cannot lower (see module docstring)."""
    for op in _pre_order(module):
        if isinstance(op, scf.ForOp) and op.iter_args:
            raise error(op, ITER_ARGS)
        if isinstance(op, scf.WhileOp):
            raise error(op, WHILE)
        if isinstance(op, ConstructDistributedMemoryViewOp | ConstructIndirectAccessTileOp):
            raise error(op, UNSUPPORTED_OP.format(name=op.name))
        if op.name.split(".", 1)[0] != "linalg":
            continue
        if op.name in BODY_HOLDERS:
            body = (o for region in op.regions for o in walk_ops_post(region))  # MLIR's region walk order
            inner = next((o for o in body if not _legal_in_body(o)), None)
            if inner is not None:
                raise error(inner, BODY_COMPUTE)
        elif op.name not in NAMED_OPS:
            raise error(op, NAMED_COMPUTE)


@dataclass(frozen=True)
class KtirLegalityCheckPass(ModulePass):
    """Refuse the KTIR constructs dataflow-scheduler's V1 cannot lower (see module docstring)."""

    name = "ktir-legality-check"
    changes_ir: ClassVar[bool] = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_legality(op)
