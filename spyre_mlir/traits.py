"""Op traits MLIR has and xDSL 0.75 lacks, and the elementwise predicate built on them."""

from __future__ import annotations

from xdsl.dialects.linalg.abstract_ops import ElementwiseOperation
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation
from xdsl.ir.affine import AffineMap
from xdsl.traits import OpTrait, SameOperandsAndResultType


class Elementwise(OpTrait):
    """MLIR's `OpTrait::Elementwise`: on tensors, result element i is computed
    from element i of each tensor operand (scalar operands broadcast). Carried
    by every `arith` op but `arith.constant` (`dialects/arith.py`)."""


class SignlessIntegers(OpTrait):
    """MLIR's arith ops take signless integers only (`i32`, not `si32`/`ui32`),
    also as tensor elements: xDSL 0.75 accepts the others. Carried by every
    `arith` op (`dialects/arith.py`)."""

    def verify(self, op: Operation) -> None:
        from xdsl.dialects.builtin import IntegerType, ShapedType, Signedness
        from xdsl.utils.exceptions import VerifyException

        for kind, values in (("operand", op.operands), ("result", op.results)):
            for i, v in enumerate(values):
                elem = v.type.get_element_type() if isinstance(v.type, ShapedType) else v.type
                if isinstance(elem, IntegerType) and elem.signedness.data != Signedness.SIGNLESS:
                    if op.name == "arith.constant":
                        raise VerifyException("integer return type must be signless")
                    raise VerifyException(f"{kind} #{i} must be signless-integer-like, but got '{v.type}'")


def is_elementwise(op: Operation) -> bool:
    """Whether `op` maps tensor elements one to one: the `Elementwise` trait,
    `SameOperandsAndResultType` (the `math` ops), a linalg named elementwise
    op, or a `linalg.generic` whose loops are all parallel and whose operands
    are all indexed by the identity map."""
    if op.has_trait(Elementwise) or op.has_trait(SameOperandsAndResultType):
        return True
    if isinstance(op, ElementwiseOperation):
        return True
    if isinstance(op, GenericOp):
        maps = [m.data for m in op.indexing_maps.data]
        iterators = [str(t.data) for t in op.iterator_types.data]  # pyright: ignore[reportAttributeAccessIssue]
        n = maps[0].num_dims if maps else 0
        return all(i.endswith("parallel") for i in iterators) and all(m == AffineMap.identity(n) for m in maps)
    return False
