"""The `spyre_loop` dialect: counted loops of coarse tiling (seed 000's `LoopSpec`).

    spyre_loop.loop count(2) tiled_dims [0] tile_sizes [512] {
    ^bb0(%k: index):
      ...   // one tile: the enclosed ops see tile k of the tiled dims
    }

A loop runs its block `count` times with `%k` = 0, 1, ..., count - 1 (the
count may be an `index` operand, `count(%n)`: symbolic in IR, refused where
a static count is needed). `tiled_dims` names the dims of the enclosed
groups' iteration space this level divides, `tile_sizes` the size of one
tile of each (the range divided by `count`). Loops nest, outermost first;
seed 000's invariants that hold for its implicit loops (ops of a group
contiguous, counts agreeing at every level) hold here by construction (the
loop is a region); the verifier checks the rest: a positive count, distinct
non-negative tiled dims, one positive tile size per tiled dim, and a dim
the enclosing loop also tiles divided so that this loop's tiles exactly
cover the enclosing one's (the seed's `(K1, [0]), (K2, [0, 1])` nesting). See docs/coarse-tiling.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, i64
from xdsl.ir import Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_operand_def, opt_prop_def, prop_def, region_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class LoopOp(IRDLOperation):
    """A counted loop over tiles (see module docstring)."""

    name = "spyre_loop.loop"

    count_value = opt_operand_def(IndexType)
    count = opt_prop_def(IntegerAttr)
    tiled_dims = prop_def(DenseArrayBase.constr(i64))
    tile_sizes = prop_def(DenseArrayBase.constr(i64))
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), RecursiveMemoryEffect())

    def __init__(
        self,
        count: int | SSAValue,
        tiled_dims: Sequence[int],
        tile_sizes: Sequence[int],
        body: Region | Block | None = None,
    ):
        if body is None:
            body = Block(arg_types=[IndexType()])
        region = body if isinstance(body, Region) else Region(body)
        props = {
            "tiled_dims": DenseArrayBase.from_list(i64, list(tiled_dims)),
            "tile_sizes": DenseArrayBase.from_list(i64, list(tile_sizes)),
        }
        operands: list = [[]]
        if isinstance(count, int):
            props["count"] = IntegerAttr(count, i64)
        else:
            operands = [[count]]
        super().__init__(operands=operands, properties=props, regions=[region])

    @property
    def iteration(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def static_count(self) -> int | None:
        return int(self.count.value.data) if self.count is not None else None

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        parser.parse_keyword("count")
        parser.parse_punctuation("(")
        count: int | SSAValue
        if (value := parser.parse_optional_integer()) is not None:
            count = value
        else:
            count = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_punctuation(")")
        parser.parse_keyword("tiled_dims")
        dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_keyword("tile_sizes")
        sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        op = cls(count, dims, sizes, region)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" count(")
        if self.count_value is not None:
            printer.print_ssa_value(self.count_value)
        else:
            printer.print_string(str(self.static_count))
        printer.print_string(") tiled_dims [")
        printer.print_string(", ".join(str(d) for d in self.tiled_dims.get_values()))
        printer.print_string("] tile_sizes [")
        printer.print_string(", ".join(str(d) for d in self.tile_sizes.get_values()))
        printer.print_string("]")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    def verify_(self) -> None:
        if (self.count is None) == (self.count_value is None):
            raise VerifyException("needs exactly one count: an integer or an index operand")
        if self.count is not None and self.static_count is not None and self.static_count <= 0:
            raise VerifyException(f"count must be positive, got {self.static_count}")
        block = self.body.block
        if [a.type for a in block.args] != [IndexType()]:
            raise VerifyException("the body takes one index argument, the tile number")
        dims = list(self.tiled_dims.get_values())
        sizes = list(self.tile_sizes.get_values())
        if len(dims) != len(sizes):
            raise VerifyException(f"{len(dims)} tiled dims but {len(sizes)} tile sizes")
        if not dims:
            raise VerifyException("tiles no dim: tiled_dims is empty")
        if any(d < 0 for d in dims) or len(set(dims)) != len(dims):
            raise VerifyException(f"tiled_dims must be distinct non-negative dims, got {dims}")
        if any(s <= 0 for s in sizes):
            raise VerifyException(f"tile sizes must be positive, got {sizes}")
        # A dim an enclosing loop also tiles is divided again: this loop's
        # tiles must exactly cover one tile of the enclosing loop.
        pending = dict(zip(dims, sizes))  # dims whose nearest enclosing tiling is still to find
        outer: Operation | None = self.parent_op()
        while outer is not None and pending:
            if isinstance(outer, LoopOp):
                outer_sizes = dict(zip(outer.tiled_dims.get_values(), outer.tile_sizes.get_values()))
                for d in [d for d in pending if d in outer_sizes]:
                    size = pending.pop(d)
                    if self.static_count is not None and size * self.static_count != outer_sizes[d]:
                        raise VerifyException(
                            f"tiles dim {d} into {self.static_count} tiles of {size}, which do not cover the "
                            f"enclosing loop's tile of {outer_sizes[d]}"
                        )
            outer = outer.parent_op()

SPYRE_LOOP = Dialect("spyre_loop", [LoopOp], [])
