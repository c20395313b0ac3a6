"""The KTDP (KTIR data-plane) dialect.

Memory views over HBM/LX, access tiles (coordinate sets anchored in a view),
and the load/store ops that move data between a view and a tensor. Syntax and
verifier rules follow the public ktir-mlir-frontend; where sources disagree,
the choice recorded in ../shared/KTDP-SEMANTICS.md ("Rec") is taken and noted
here.

Address unit: a view's base is an element offset in units of the view's own
element type, per memory space (see README, "Address unit").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.dialects.utils import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from spyre_mlir.analysis.affine import bounding_box, format_set, permutation_of
from spyre_mlir.diagnostics import NotedVerifyException
from spyre_mlir.dialects.format_helpers import (
    SSAAffineSpace,
    parse_kind,
    parse_short_type,
    parse_value_from,
    parse_value_into,
    print_attrs_sorted,
    print_ssa_expr,
    print_value_from,
    print_value_into,
    split_props,
)

DYNAMIC_INDEX = -9223372036854775808  # MLIR's ShapedType::kDynamic


# ===========================================================================
# Attributes and types
# ===========================================================================


class _KindAndIndexAttr(ParametrizedAttribute):
    """`<kind[, KEY = N]>`: a keyword from KINDS and an optional index, the
    shape of both memory-space spellings."""

    KINDS: ClassVar[tuple[str, ...]]
    INDEX_KEY: ClassVar[str]
    INDEXED_KINDS: ClassVar[tuple[str, ...]]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parse_kind(parser, cls.KINDS, "memory space")
            index: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword(cls.INDEX_KEY)
                parser.parse_punctuation("=")
                index = IntAttr(parser.parse_integer(allow_boolean=False))
        return (StringAttr(kind), index)

    def print_parameters(self, printer: Printer) -> None:
        kind, index = self.parameters
        assert isinstance(kind, StringAttr)
        printer.print_string(f"<{kind.data}")
        if isinstance(index, IntAttr):
            printer.print_string(f", {self.INDEX_KEY} = {index.data}")
        printer.print_string(">")

    def verify(self) -> None:
        kind, index = self.parameters
        assert isinstance(kind, StringAttr)
        if kind.data not in self.KINDS:
            raise VerifyException(f"unknown memory space '{kind.data}'")
        if isinstance(index, IntAttr):
            if kind.data not in self.INDEXED_KINDS:
                raise VerifyException(
                    f"'{self.INDEX_KEY}' is only allowed on the {' and '.join(self.INDEXED_KINDS)} memory space"
                    + ("s" if len(self.INDEXED_KINDS) > 1 else "")
                )
            if index.data < 0:
                raise VerifyException(f"'{self.INDEX_KEY}' must be non-negative")


@irdl_attr_definition
class MemorySpaceAttr(_KindAndIndexAttr):
    """`#ktdp.memory_space<global | ct_local [, ct_id = N]>`.

    `global` is HBM, reachable by every compute tile; `ct_local` is a tile's
    private scratchpad (LX), owned by tile `ct_id` (absent: the executing tile).
    """

    name = "ktdp.memory_space"

    kind: StringAttr
    ct_id: IntAttr | NoneAttr

    KINDS: ClassVar[tuple[str, ...]] = ("global", "ct_local")
    INDEX_KEY: ClassVar[str] = "ct_id"
    INDEXED_KINDS: ClassVar[tuple[str, ...]] = ("ct_local",)

    def __init__(self, kind: str, ct_id: int | None = None):
        super().__init__(StringAttr(kind), NoneAttr() if ct_id is None else IntAttr(ct_id))

    @property
    def is_global(self) -> bool:
        return self.kind.data == "global"

    @property
    def tile(self) -> int | None:
        return self.ct_id.data if isinstance(self.ct_id, IntAttr) else None


@irdl_attr_definition
class SpyreMemorySpaceAttr(_KindAndIndexAttr):
    """The older spelling `#ktdp.spyre_memory_space<HBM | LX | L0 | unspecified [, core = N]>`.

    Kept as written so files round-trip; `as_memory_space()` maps it onto
    `#ktdp.memory_space` (HBM -> global, LX/L0 -> ct_local, core -> ct_id)."""

    name = "ktdp.spyre_memory_space"

    kind: StringAttr
    core: IntAttr | NoneAttr

    KINDS: ClassVar[tuple[str, ...]] = ("HBM", "LX", "L0", "unspecified")
    INDEX_KEY: ClassVar[str] = "core"
    INDEXED_KINDS: ClassVar[tuple[str, ...]] = ("LX", "L0")

    def __init__(self, kind: str, core: int | None = None):
        super().__init__(StringAttr(kind), NoneAttr() if core is None else IntAttr(core))

    def as_memory_space(self) -> MemorySpaceAttr | None:
        if self.kind.data == "HBM":
            return MemorySpaceAttr("global")
        if self.kind.data in ("LX", "L0"):
            return MemorySpaceAttr("ct_local", self.core.data if isinstance(self.core, IntAttr) else None)
        return None


def normalized_memory_space(attr: Attribute) -> MemorySpaceAttr | None:
    """Either spelling as `#ktdp.memory_space`; None for `unspecified`."""
    if isinstance(attr, MemorySpaceAttr):
        return attr
    if isinstance(attr, SpyreMemorySpaceAttr):
        return attr.as_memory_space()
    return None


@irdl_attr_definition
class AccessTileType(ParametrizedAttribute, TypeAttribute):
    """`!ktdp.access_tile<d0x...xindex>`: a tile of coordinates (not data)."""

    name = "ktdp.access_tile"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute | None = None):
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type or IndexType())

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, elt = parser.parse_ranked_shape()
        return (ArrayAttr([IntAttr(d) for d in dims]), elt)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for d in self.shape.data:
            printer.print_string("?" if d.data == DYNAMIC_INDEX else str(d.data))
            printer.print_string("x")
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    def verify(self) -> None:
        if not isinstance(self.element_type, IndexType):
            raise VerifyException(f"access tile element type must be 'index', got {self.element_type}")
        for d in self.shape.data:
            if d.data < 0 and d.data != DYNAMIC_INDEX:
                raise VerifyException("access tile dimensions must be non-negative or '?'")

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)


@irdl_attr_definition
class RuntimeArgType(ParametrizedAttribute, TypeAttribute):
    """`!ktdp.runtime_arg<T[, granularity = G][, upperbound = U]>`: a launch-time value."""

    name = "ktdp.runtime_arg"

    underlying: Attribute
    granularity: IntAttr | NoneAttr
    upperbound: IntAttr | NoneAttr

    def __init__(self, underlying: Attribute, granularity: int | None = None, upperbound: int | None = None):
        super().__init__(
            underlying,
            NoneAttr() if granularity is None else IntAttr(granularity),
            NoneAttr() if upperbound is None else IntAttr(upperbound),
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        found: dict[str, Attribute] = {}
        with parser.in_angle_brackets():
            underlying = parser.parse_type()
            while parser.parse_optional_punctuation(","):
                pos = parser.pos
                key = parser.parse_identifier()
                if key not in ("granularity", "upperbound"):
                    parser.raise_error(f"unknown runtime_arg parameter '{key}'", pos, parser.pos)
                if key in found:
                    parser.raise_error(f"duplicate runtime_arg parameter '{key}'", pos, parser.pos)
                parser.parse_punctuation("=")
                found[key] = IntAttr(parser.parse_integer(allow_boolean=False))
        return (underlying, found.get("granularity", NoneAttr()), found.get("upperbound", NoneAttr()))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.underlying)
        if isinstance(self.granularity, IntAttr):
            printer.print_string(f", granularity={self.granularity.data}")
        if isinstance(self.upperbound, IntAttr):
            printer.print_string(f", upperbound={self.upperbound.data}")
        printer.print_string(">")

    def verify(self) -> None:
        from xdsl.dialects.builtin import AnyFloat

        if not isinstance(self.underlying, IndexType | IntegerType | AnyFloat):
            raise VerifyException("runtime_arg underlying type must be index, an integer or a float type")
        for key in ("granularity", "upperbound"):
            v = getattr(self, key)
            if isinstance(v, IntAttr) and v.data <= 0:
                raise VerifyException(f"runtime_arg {key} must be positive, got {v.data}")


def _shape_of(ty: Attribute) -> tuple[int, ...] | None:
    if isinstance(ty, MemRefType | TensorType):
        return tuple(ty.get_shape())
    return None


def _check_order_and_shape(
    op: Operation, set_attr: AffineSetAttr, order_attr: AffineMapAttr, result: AccessTileType, what: str
) -> None:
    aset, order = set_attr.data, order_attr.data
    if order.num_dims != len(order.results):
        raise VerifyException(
            f"{what}_order must have equal number of inputs ({order.num_dims}) and outputs ({len(order.results)})"
        )
    if len(order.results) != aset.num_dims:
        raise VerifyException(
            f"{what}_order dimensions ({len(order.results)}) must match {what}_set dimensions ({aset.num_dims})"
        )
    perm = permutation_of(order)
    if perm is None:
        raise VerifyException(f"{what}_order must be a permutation of its dims, got {order}")
    shape = result.get_shape()
    if len(shape) != aset.num_dims:
        raise VerifyException(f"result type rank ({len(shape)}) must match {what}_set dimensions ({aset.num_dims})")
    if aset.num_symbols:
        return  # the shape depends on runtime values
    box = bounding_box(aset)
    if box is None:
        raise VerifyException(f"{what}_set must bound every dim")
    # A non-box set fills its bounding box with holes (KTDP-SEMANTICS §4 Rec).
    expected = tuple(box[p][1] - box[p][0] + 1 for p in perm)
    if any(s != DYNAMIC_INDEX and s != e for s, e in zip(shape, expected)):
        raise VerifyException(
            f"result shape {'x'.join(map(str, shape))} does not match the {what}_set box "
            f"{'x'.join(map(str, expected))} under {what}_order"
        )


def tile_source_element_type(tile: SSAValue) -> Attribute | None:
    """Element type of the view an access tile was built on, when visible."""
    owner = tile.owner
    if isinstance(owner, ConstructAccessTileOp | ConstructIndirectAccessTileOp):
        base_ty = owner.base.type
        if isinstance(base_ty, MemRefType | TensorType):
            return base_ty.get_element_type()
    return None


# ===========================================================================
# Operations
# ===========================================================================


@irdl_op_definition
class GetComputeTileIdOp(IRDLOperation):
    """Coordinates of the executing compute tile, one result per grid dim."""

    name = "ktdp.get_compute_tile_id"

    results_ = var_result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($results_)"

    def __init__(self, rank: int = 1):
        super().__init__(result_types=[[IndexType()] * rank])

    def verify_(self) -> None:
        if not self.results:
            raise VerifyException("expects at least one result")


@irdl_op_definition
class ConstructMemoryViewOp(IRDLOperation):
    """A strided view of existing memory at element offset `offset`."""

    name = "ktdp.construct_memory_view"

    offset = operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))
    memory_space = prop_def(MemorySpaceAttr | SpyreMemorySpaceAttr)
    coordinate_set = prop_def(AffineSetAttr)
    result = result_def(MemRefType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        offset: SSAValue | Operation,
        sizes: Sequence[int | SSAValue],
        strides: Sequence[int | SSAValue],
        coordinate_set: AffineSetAttr,
        memory_space: Attribute,
        result_type: MemRefType,
    ):
        super().__init__(
            operands=[
                offset,
                [s for s in sizes if not isinstance(s, int)],
                [s for s in strides if not isinstance(s, int)],
            ],
            result_types=[result_type],
            properties={
                "static_sizes": DenseArrayBase.from_list(i64, [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]),
                "static_strides": DenseArrayBase.from_list(
                    i64, [s if isinstance(s, int) else DYNAMIC_INDEX for s in strides]
                ),
                "coordinate_set": coordinate_set,
                "memory_space": memory_space,
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> ConstructMemoryViewOp:
        offset = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("sizes")
        parser.parse_punctuation(":")
        sizes, static_sizes = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
        parser.parse_punctuation(",")
        parser.parse_keyword("strides")
        parser.parse_punctuation(":")
        strides, static_strides = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        idx = IndexType()
        props, attrs = split_props(cls, attrs)
        props["static_sizes"] = DenseArrayBase.from_list(i64, static_sizes)
        props["static_strides"] = DenseArrayBase.from_list(i64, static_strides)
        op = cls.create(
            operands=[
                parser.resolve_operand(offset, idx),
                *[parser.resolve_operand(s, idx) for s in sizes],
                *[parser.resolve_operand(s, idx) for s in strides],
            ],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, len(sizes), len(strides)])
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.offset)
        printer.print_string(", sizes: ")
        print_dynamic_index_list(printer, DYNAMIC_INDEX, self.sizes, self.static_sizes.get_values())
        printer.print_string(", strides: ")
        print_dynamic_index_list(printer, DYNAMIC_INDEX, self.strides, self.static_strides.get_values())
        print_attrs_sorted(printer, self, {"static_sizes", "static_strides", "operandSegmentSizes"})
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        ss, st = self.static_sizes.get_values(), self.static_strides.get_values()
        if len(ss) != len(st):
            raise VerifyException(f"expected as many sizes ({len(ss)}) as strides ({len(st)})")
        if sum(1 for s in ss if s == DYNAMIC_INDEX) != len(self.sizes):
            raise VerifyException("number of dynamic sizes does not match the number of '?' entries")
        if sum(1 for s in st if s == DYNAMIC_INDEX) != len(self.strides):
            raise VerifyException("number of dynamic strides does not match the number of '?' entries")
        ty = self.result.type
        assert isinstance(ty, MemRefType)
        shape = ty.get_shape()
        if len(shape) != len(ss):
            raise VerifyException(f"result memref rank ({len(shape)}) must match the number of sizes ({len(ss)})")
        for i, (s, d) in enumerate(zip(ss, shape)):
            if s != DYNAMIC_INDEX and d != DYNAMIC_INDEX and s != d:
                raise VerifyException(f"size {s} of dim {i} disagrees with the result type's dim {d}")
            if s != DYNAMIC_INDEX and s < 0:
                raise VerifyException(f"size of dim {i} must be non-negative, got {s}")
        cs = self.coordinate_set.data
        if cs.num_dims != len(ss):
            raise VerifyException(f"coordinate_set has {cs.num_dims} dims but the view has rank {len(ss)}")
        if cs.num_symbols > len(self.sizes):
            raise VerifyException(
                f"coordinate_set has {cs.num_symbols} symbols but only {len(self.sizes)} dynamic sizes bind symbols"
            )
        mem = ty.memory_space
        if not isinstance(mem, NoneAttr) and normalized_memory_space(mem) != normalized_memory_space(self.memory_space):
            raise VerifyException("memory space of the result type disagrees with the 'memory_space' attribute")


@irdl_op_definition
class ConstructDistributedMemoryViewOp(IRDLOperation):
    """One logical view over the union of its partitions' coordinate sets."""

    name = "ktdp.construct_distributed_memory_view"

    memrefs = var_operand_def(MemRefType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "`(` ($memrefs^ `:` type($memrefs))? `)` attr-dict `:` type($result)"

    def verify_(self) -> None:
        rt = self.result.type
        assert isinstance(rt, MemRefType)
        if not self.memrefs:
            raise VerifyException("expects at least one partition")
        for i, m in enumerate(self.memrefs):
            mt = m.type
            assert isinstance(mt, MemRefType)
            if mt.get_element_type() != rt.get_element_type():
                raise VerifyException(f"partition #{i} element type {mt.get_element_type()} differs from the result's")
            if mt.get_num_dims() != rt.get_num_dims():
                raise VerifyException(f"partition #{i} rank {mt.get_num_dims()} differs from the result's")


@irdl_op_definition
class ConstructAccessTileOp(IRDLOperation):
    """Coordinates `anchor + s` for every `s` in `access_tile_set`, laid out
    by `access_tile_order`; `anchor = base_map(indices)`."""

    name = "ktdp.construct_access_tile"

    base = operand_def(MemRefType | TensorType)
    indices = var_operand_def(IndexType)
    symbol_operands = var_operand_def(IndexType)
    base_map = prop_def(AffineMapAttr)
    access_tile_set = prop_def(AffineSetAttr)
    access_tile_order = prop_def(AffineMapAttr)
    result = result_def(AccessTileType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        base: SSAValue | Operation,
        base_map: AffineMap,
        indices: Sequence[SSAValue | Operation],
        access_tile_set: AffineSetAttr,
        access_tile_order: AffineMap,
        result_type: AccessTileType,
        symbol_operands: Sequence[SSAValue | Operation] = (),
    ):
        super().__init__(
            operands=[base, indices, symbol_operands],
            result_types=[result_type],
            properties={
                "base_map": AffineMapAttr(base_map),
                "access_tile_set": access_tile_set,
                "access_tile_order": AffineMapAttr(access_tile_order),
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> ConstructAccessTileOp:
        base = parser.parse_unresolved_operand()
        space = SSAAffineSpace(parser)
        exprs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, space.parse_expr)
        symbols: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("symbols") is not None:
            symbols = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        base_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parse_short_type(parser, AccessTileType)
        idx = IndexType()
        map_operands = space.dims + space.syms
        base_map = AffineMap(len(space.dims), len(space.syms), tuple(exprs))
        props, attrs = split_props(cls, attrs)
        props["base_map"] = AffineMapAttr(base_map)
        op = cls.create(
            operands=[
                parser.resolve_operand(base, base_type),
                *[parser.resolve_operand(o, idx) for o in map_operands],
                *[parser.resolve_operand(o, idx) for o in symbols],
            ],
            result_types=[result_type],
            properties=props,
            attributes=attrs,
        )
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, len(map_operands), len(symbols)])
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.base)
        amap = self.base_map.data
        dims = list(self.indices[: amap.num_dims])
        syms = list(self.indices[amap.num_dims :])
        printer.print_string("[")
        for i, r in enumerate(amap.results):
            if i:
                printer.print_string(", ")
            print_ssa_expr(printer, r, dims, syms)
        printer.print_string("]")
        if self.symbol_operands:
            printer.print_string(" symbols(")
            printer.print_list(self.symbol_operands, printer.print_ssa_value)
            printer.print_string(")")
        print_attrs_sorted(printer, self, {"base_map", "operandSegmentSizes"})
        printer.print_string(" : ")
        printer.print_attribute(self.base.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        aset = self.access_tile_set.data
        amap = self.base_map.data
        if aset.num_dims != len(amap.results):
            raise VerifyException(
                f"access_tile_set dimensions ({aset.num_dims}) must match base_map results ({len(amap.results)})"
            )
        if amap.num_dims + amap.num_symbols != len(self.indices):
            raise VerifyException(
                f"base_map expects {amap.num_dims + amap.num_symbols} operands but got {len(self.indices)}"
            )
        if aset.num_symbols != len(self.symbol_operands):
            raise VerifyException(
                f"access_tile_set has {aset.num_symbols} symbols but got {len(self.symbol_operands)} symbol operands"
            )
        rank = _shape_of(self.base.type)
        if rank is not None and len(rank) != len(amap.results):
            raise VerifyException(
                f"base_map has {len(amap.results)} results but the base has rank {len(rank)}"
            )
        rt = self.result.type
        assert isinstance(rt, AccessTileType)
        _check_order_and_shape(self, self.access_tile_set, self.access_tile_order, rt, "access_tile")


@irdl_op_definition
class RegionTerminatorOp(IRDLOperation):
    """Implicit terminator of the hidden region of an indirect access tile."""

    name = "ktdp.region_terminator"
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict"


@irdl_op_definition
class ConstructIndirectAccessTileOp(IRDLOperation):
    """Gather/scatter coordinates: per base dim, an affine subscript over the
    intermediate variables (`(expr)`), or an index loaded from another view
    (`ind(%idx[exprs])`), for every point of `variables_space_set`."""

    name = "ktdp.construct_indirect_access_tile"

    base = operand_def(MemRefType | TensorType)
    indirect_memrefs = var_operand_def(MemRefType)
    captured_variables = var_operand_def(IndexType)
    symbol_operands = var_operand_def(IndexType)
    per_dim_subscript_kinds = prop_def(ArrayAttr[BoolAttr])
    per_dim_subscript_maps = prop_def(ArrayAttr[AffineMapAttr])
    variables_space_set = prop_def(AffineSetAttr)
    variables_space_order = prop_def(AffineMapAttr)
    region = region_def("single_block")
    result = result_def(AccessTileType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())

    @property
    def intermediate_variables(self) -> tuple[SSAValue, ...]:
        return tuple(self.region.block.args)

    @classmethod
    def parse(cls, parser: Parser) -> ConstructIndirectAccessTileOp:
        parser.parse_keyword("intermediate_variables")
        inter = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        inter_keys = [(o.span.text, o.index) for o in inter]
        if len(set(inter_keys)) != len(inter_keys):
            parser.raise_error("duplicate intermediate variable")
        base = parser.parse_unresolved_operand()

        # Each subscript is parsed against its own SSA space; dims are then
        # remapped onto the unified list (captured..., intermediates...).
        subscripts: list[tuple[bool, UnresolvedOperand | None, list[AffineExpr], list[UnresolvedOperand]]] = []

        def parse_subscript() -> None:
            space = SSAAffineSpace(parser)
            if parser.parse_optional_keyword("ind") is not None:
                parser.parse_punctuation("(")
                idx_view = parser.parse_unresolved_operand()
                exprs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, space.parse_expr)
                parser.parse_punctuation(")")
                subscripts.append((True, idx_view, exprs, space.dims))
            else:
                parser.parse_punctuation("(")
                expr = space.parse_expr()
                parser.parse_punctuation(")")
                subscripts.append((False, None, [expr], space.dims))
            if space.syms:
                parser.raise_error("symbol(...) is not allowed in indirect subscripts")

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_subscript)
        symbols: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("symbols") is not None:
            symbols = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types_pos = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        types_end = parser.pos
        parser.parse_punctuation("->")
        result_type = parse_short_type(parser, AccessTileType)
        n_ind = sum(1 for s in subscripts if s[0])
        if len(types) != n_ind + 1:
            parser.raise_error(
                f"expected {n_ind + 1} types (base + {n_ind} indirect memrefs), but got {len(types)}", types_pos, types_end
            )

        captured: list[UnresolvedOperand] = []
        for _, _, _, dims in subscripts:
            for d in dims:
                k = (d.span.text, d.index)
                if k not in inter_keys and all((c.span.text, c.index) != k for c in captured):
                    captured.append(d)
        unified = [(c.span.text, c.index) for c in captured] + inter_keys
        maps = []
        for _, _, exprs, dims in subscripts:
            remap = tuple(AffineExpr.dimension(unified.index((d.span.text, d.index))) for d in dims)
            maps.append(
                AffineMapAttr(
                    AffineMap(len(unified), 0, tuple(e.replace_dims_and_symbols(remap, ()) for e in exprs))
                )
            )
        idx = IndexType()
        operands = [parser.resolve_operand(base, types[0])]
        ind_views = [s[1] for s in subscripts if s[0]]
        operands += [parser.resolve_operand(v, t) for v, t in zip(ind_views, types[1:])]  # type: ignore[arg-type]
        operands += [parser.resolve_operand(c, idx) for c in captured]
        operands += [parser.resolve_operand(s, idx) for s in symbols]
        props, attrs = split_props(cls, attrs)
        props["per_dim_subscript_kinds"] = ArrayAttr([BoolAttr.from_bool(s[0]) for s in subscripts])
        props["per_dim_subscript_maps"] = ArrayAttr(maps)
        props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, n_ind, len(captured), len(symbols)])
        block = Block(arg_types=[idx] * len(inter))
        for arg, o in zip(block.args, inter):
            name = o.span.text[1:]
            arg.name_hint = None if name[:1].isdigit() else name
        block.add_op(RegionTerminatorOp())
        return cls.create(
            operands=operands,
            result_types=[result_type],
            properties=props,
            attributes=attrs,
            regions=[Region(block)],
        )

    def print(self, printer: Printer) -> None:
        inter = list(self.region.block.args)
        printer.print_string(" intermediate_variables(")
        printer.print_list(inter, printer.print_ssa_value)
        printer.print_string(") ")
        printer.print_ssa_value(self.base)
        printer.print_string("[")
        unified = list(self.captured_variables) + inter
        ind_views = iter(self.indirect_memrefs)
        for i, (kind, m) in enumerate(zip(self.per_dim_subscript_kinds.data, self.per_dim_subscript_maps.data)):
            if i:
                printer.print_string(", ")
            if kind.value:
                printer.print_string("ind(")
                printer.print_ssa_value(next(ind_views))
                printer.print_string("[")
                for j, r in enumerate(m.data.results):
                    if j:
                        printer.print_string(", ")
                    print_ssa_expr(printer, r, unified)
                printer.print_string("])")
            else:
                printer.print_string("(")
                print_ssa_expr(printer, m.data.results[0], unified)
                printer.print_string(")")
        printer.print_string("]")
        if self.symbol_operands:
            printer.print_string(" symbols(")
            printer.print_list(self.symbol_operands, printer.print_ssa_value)
            printer.print_string(")")
        print_attrs_sorted(
            printer, self, {"per_dim_subscript_kinds", "per_dim_subscript_maps", "operandSegmentSizes"}
        )
        printer.print_string(" : ")
        printer.print_list([self.base.type, *[v.type for v in self.indirect_memrefs]], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        aset = self.variables_space_set.data
        inter = self.region.block.args
        if len(inter) != aset.num_dims:
            raise VerifyException(
                f"number of intermediate variables ({len(inter)}) must match variables_space_set dimensions ({aset.num_dims})"
            )
        if aset.num_symbols != len(self.symbol_operands):
            raise VerifyException(
                f"variables_space_set has {aset.num_symbols} symbols but got {len(self.symbol_operands)} symbol operands"
            )
        kinds, maps = self.per_dim_subscript_kinds.data, self.per_dim_subscript_maps.data
        if len(kinds) != len(maps):
            raise VerifyException("per_dim_subscript_kinds and per_dim_subscript_maps must have the same length")
        base_shape = _shape_of(self.base.type)
        if base_shape is not None and len(kinds) != len(base_shape):
            raise VerifyException(f"number of subscripts ({len(kinds)}) must match base rank ({len(base_shape)})")
        n_ind = sum(1 for k in kinds if k.value)
        if n_ind != len(self.indirect_memrefs):
            raise VerifyException(
                f"number of indirect dimensions ({n_ind}) must match number of indirect memrefs ({len(self.indirect_memrefs)})"
            )
        expected_dims = len(self.captured_variables) + len(inter)
        ind_views = iter(self.indirect_memrefs)
        for i, (k, m) in enumerate(zip(kinds, maps)):
            if m.data.num_dims != expected_dims:
                raise VerifyException(
                    f"subscript map for dimension {i} has {m.data.num_dims} dimensions, but expected {expected_dims}"
                )
            if k.value:
                view = next(ind_views)
                vt = view.type
                assert isinstance(vt, MemRefType)
                if len(m.data.results) != vt.get_num_dims():
                    raise VerifyException(
                        f"indirect subscript for dimension {i} has {len(m.data.results)} indices but its index view has rank {vt.get_num_dims()}"
                    )
                if not isinstance(vt.get_element_type(), IntegerType | IndexType):
                    raise VerifyException(
                        f"index view for dimension {i} must have an integer element type, got {vt.get_element_type()}"
                    )
            elif len(m.data.results) != 1:
                raise VerifyException(f"direct subscript for dimension {i} must have exactly one result")
        rt = self.result.type
        assert isinstance(rt, AccessTileType)
        _check_order_and_shape(self, self.variables_space_set, self.variables_space_order, rt, "variables_space")
        if not isinstance(self.region.block.last_op, RegionTerminatorOp):
            raise VerifyException("region must be terminated by 'ktdp.region_terminator'")


def _check_tile_data(tile: SSAValue, data_type: Attribute, what: str) -> None:
    tt = tile.type
    assert isinstance(tt, AccessTileType)
    if not isinstance(data_type, TensorType):
        raise VerifyException(f"{what} must be a ranked tensor, got {data_type}")
    if tuple(data_type.get_shape()) != tt.get_shape():
        raise VerifyException(
            f"{what} shape {'x'.join(map(str, data_type.get_shape()))} must match the access tile shape "
            f"{'x'.join(map(str, tt.get_shape()))}"
        )
    src = tile_source_element_type(tile)
    if src is not None and src != data_type.get_element_type():
        raise NotedVerifyException(
            f"{what} element type {data_type.get_element_type()} must match the element type {src} "
            "of the view the access tile reads",
            (tile.owner if isinstance(tile.owner, Operation) else None, f"access tile on a view of {src} built here"),
        )


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Gather the coordinates of an access tile into a new tensor."""

    name = "ktdp.load"

    access_tile = operand_def(AccessTileType)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())

    def __init__(self, access_tile: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[access_tile], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        return parse_value_from(parser, cls, AccessTileType)  # pyright: ignore[reportReturnType]

    def print(self, printer: Printer) -> None:
        print_value_from(printer, self, self.access_tile, self.result, short=True)

    def verify_(self) -> None:
        _check_tile_data(self.access_tile, self.result.type, "result")


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Scatter a tensor to the coordinates of an access tile."""

    name = "ktdp.store"

    data_tile = operand_def(TensorType)
    access_tile = operand_def(AccessTileType)
    traits = traits_def(MemoryWriteEffect())

    def __init__(self, data_tile: SSAValue | Operation, access_tile: SSAValue | Operation):
        super().__init__(operands=[data_tile, access_tile])

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        return parse_value_into(parser, cls, AccessTileType)  # pyright: ignore[reportReturnType]

    def print(self, printer: Printer) -> None:
        print_value_into(printer, self, self.data_tile, self.access_tile, short=True)

    def verify_(self) -> None:
        _check_tile_data(self.access_tile, self.data_tile.type, "data tile")


@irdl_op_definition
class RuntimeArgExtractOp(IRDLOperation):
    """`value`, `granularity` or `upperbound` of a `!ktdp.runtime_arg`."""

    name = "ktdp.runtime_arg_extract"

    KINDS: ClassVar[tuple[str, ...]] = ("value", "granularity", "upperbound")

    input = operand_def(RuntimeArgType)
    kind = prop_def(StringAttr)
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> RuntimeArgExtractOp:
        kind = parse_kind(parser, cls.KINDS, "extraction kind")
        parser.parse_keyword("from")
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        in_type = parse_short_type(parser, RuntimeArgType)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(operand, in_type)],
            result_types=[result_type],
            properties={"kind": StringAttr(kind)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} from ")
        printer.print_ssa_value(self.input)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        print_attrs_sorted(printer, self, {"kind"})
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        kind = self.kind.data
        if kind not in self.KINDS:
            raise VerifyException(f"unknown extraction kind '{kind}'")
        ty = self.input.type
        assert isinstance(ty, RuntimeArgType)
        if kind == "value":
            if self.result.type != ty.underlying:
                raise VerifyException(
                    f"result type {self.result.type} must equal the runtime_arg's underlying type {ty.underlying}"
                )
            return
        if not isinstance(self.result.type, IndexType):
            raise VerifyException(f"extracting '{kind}' yields 'index', got {self.result.type}")
        if isinstance(getattr(ty, kind), NoneAttr):
            raise VerifyException(f"runtime_arg type has no '{kind}' parameter to extract")


# ===========================================================================
# Inter-tile communication (issue 8; docs/inter-tile.md)
# ===========================================================================


def _fmt_set(s: AffineSetAttr) -> str:
    return f"affine_set<{format_set(s.data)}>"


@irdl_attr_definition
class TileFutureType(ParametrizedAttribute, TypeAttribute):
    """`!ktdp.tile_future<(T...), groups = SET>`: the partials of a produce,
    pending delivery. Also read: `<T..., groups = SET>` and `<T...>` (the groups
    set then comes from the ops' `groups` attribute); printed upstream's way."""

    name = "ktdp.tile_future"

    partial_types: ArrayAttr[Attribute]
    groups: AffineSetAttr | NoneAttr

    def __init__(self, partial_types: Sequence[Attribute], groups: AffineSetAttr | None):
        super().__init__(ArrayAttr(partial_types), NoneAttr() if groups is None else groups)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        types: list[Attribute] = []
        groups: Attribute = NoneAttr()
        with parser.in_angle_brackets():
            if parser.parse_optional_punctuation("("):
                if not parser.parse_optional_punctuation(")"):
                    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                    parser.parse_punctuation(")")
                if parser.parse_optional_punctuation(","):
                    parser.parse_keyword("groups")
                    parser.parse_punctuation("=")
                    groups = parser.parse_attribute()
            elif parser._current_token.kind != MLIRTokenKind.GREATER:  # pyright: ignore[reportPrivateUsage]
                while True:
                    if parser.parse_optional_keyword("groups"):
                        parser.parse_punctuation("=")
                        groups = parser.parse_attribute()
                        break
                    if parser._current_token.kind == MLIRTokenKind.HASH_IDENT or parser._current_token.text == "affine_set":  # pyright: ignore[reportPrivateUsage]
                        parser.raise_error(
                            "expected a partial type or `groups = affine_set<...>`: write the groups set as "
                            "`groups = #set` (the positional `tile_future<T, #set>` is not KTDP syntax)"
                        )
                    types.append(parser.parse_type())
                    if not parser.parse_optional_punctuation(","):
                        break
        if not isinstance(groups, AffineSetAttr | NoneAttr):
            parser.raise_error("tile_future `groups` must be an affine_set (write `groups = affine_set<(g) : ...>`)")
        return (ArrayAttr(types), groups)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<(")
        printer.print_list(self.partial_types.data, printer.print_attribute)
        printer.print_string(")")
        if isinstance(self.groups, AffineSetAttr):
            printer.print_string(", groups = ")
            printer.print_attribute(self.groups)
        printer.print_string(">")

    def verify(self) -> None:
        if not self.partial_types.data:
            raise VerifyException("tile_future must carry at least one partial type")
        for t in self.partial_types.data:
            if not isinstance(t, TensorType):
                raise VerifyException(f"tile_future partial types must be ranked tensors, got {t}")
        if isinstance(self.groups, AffineSetAttr):
            s = self.groups.data
            if s.num_dims != 1:
                raise VerifyException(
                    f"tile_future `groups` must have exactly one dimension (g): {_fmt_set(self.groups)}"
                )
            if s.num_symbols != 0:
                raise VerifyException(f"tile_future `groups` must have no symbols: {_fmt_set(self.groups)}")

    @property
    def partials(self) -> list[Attribute]:
        return list(self.partial_types.data)


def _future_with_groups(parser: Parser, future: Attribute, groups: Attribute | None, pos: int) -> Attribute:
    """Merge the attr spelling's `groups = S` into the future type."""
    if groups is None or not isinstance(future, TileFutureType):
        return future
    if isinstance(future.groups, AffineSetAttr) and future.groups != groups:
        parser.raise_error(
            f"the `groups` attribute {groups} does not match the groups of the future type {future}", pos, parser.pos
        )
    if not isinstance(groups, AffineSetAttr):
        parser.raise_error("`groups` must be an affine_set", pos, parser.pos)
    return TileFutureType(future.partials, groups)


def _parse_set_keyword(parser: Parser, keyword: str) -> Attribute:
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")
    return parser.parse_attribute()


def _parse_type_list(parser: Parser) -> list[Attribute]:
    types = [parser.parse_type()]
    while parser.parse_optional_punctuation(","):
        types.append(parser.parse_type())
    return types


def _check_old_partials(parser: Parser, before: list[Attribute] | None, future: Attribute, pos: int) -> None:
    if before is not None and isinstance(future, TileFutureType) and before != future.partials:
        parser.raise_error(
            f"the partial types before '->' ({', '.join(map(str, before))}) do not match the future type {future}",
            pos,
            parser.pos,
        )


def _check_set_shape(
    attr: AffineSetAttr, name: str, what_sym: str, dims_what: str, *, syms: tuple[int, ...] = (1,)
) -> None:
    s = attr.data
    if s.num_symbols not in syms:
        raise VerifyException(f"`{name}` must have {what_sym}: {_fmt_set(attr)}")
    if s.num_dims != 1:
        raise VerifyException(f"`{name}` must have exactly one dimension ({dims_what}): {_fmt_set(attr)}")


def _future_of(op: Operation, value: SSAValue) -> TileFutureType:
    ty = value.type
    if not isinstance(ty, TileFutureType):
        raise VerifyException(f"expected a !ktdp.tile_future, got {ty}")
    if not isinstance(ty.groups, AffineSetAttr):
        raise VerifyException(
            "the groups set is missing: write `groups = affine_set<(g) : ...>` in the tile_future type"
        )
    return ty


def _drops_unit_dims(result: Attribute, partial: Attribute) -> bool:
    if not isinstance(result, TensorType) or not isinstance(partial, TensorType):
        return False
    if result.element_type != partial.element_type:
        return False
    r = [d for d in result.get_shape() if d != 1]
    p = [d for d in partial.get_shape() if d != 1]
    return r == p and len(result.get_shape()) <= len(partial.get_shape())


def _check_results(op: Operation, future: TileFutureType) -> None:
    partials = future.partials
    if len(op.results) != len(partials):
        raise VerifyException(f"has {len(op.results)} results but the future carries {len(partials)} partial type(s)")
    for i, (r, p) in enumerate(zip(op.result_types, partials)):
        if r != p and not _drops_unit_dims(r, p):
            raise VerifyException(
                f"result #{i} type {r} is neither the future partial type {p} nor that type with unit dimensions dropped"
            )


def _check_delivery_sets(op: Operation, consumer: AffineSetAttr, dependency: AffineSetAttr | None) -> None:
    _check_set_shape(consumer, "consumer_tiles_per_group", "exactly one symbol (the group index g)", "the tile id i")
    if dependency is not None:
        _check_set_shape(
            dependency,
            "producer_dependency_per_consumer",
            "one symbol (c) or two symbols (c, g)",
            "the producer tile id p",
            syms=(1, 2),
        )


ENUMERATION_LIMIT = 1 << 20
"""Sets whose bounding box spans more points than this are not enumerated (treated as unbounded)."""


def enumerate_groups(groups: AffineSetAttr) -> list[int] | None:
    """The integer points of a groups set, or None if it is unbounded (or spans
    more than `ENUMERATION_LIMIT` points)."""
    import numpy as np

    from spyre_mlir.analysis.affine import contains

    box = bounding_box(groups.data)
    if box is None:
        return None
    lo, hi = box[0]
    if hi < lo:
        return []
    if hi - lo > ENUMERATION_LIMIT:
        return None
    points = np.arange(lo, hi + 1, dtype=np.int64).reshape(-1, 1)
    return [int(p) for p in points[contains(groups.data, points)][:, 0]]


def enumerate_tiles(tiles: AffineSetAttr, syms: Sequence[int], limit: int | None = None) -> list[int] | None:
    """The tile ids (>= 0) of `tiles` at symbols `syms`, or None if unbounded
    (a `limit`, the number of cores, bounds it: a huge range is then cut to
    the tiles of the grid)."""
    import numpy as np

    from spyre_mlir.analysis.affine import contains

    box = bounding_box(tiles.data, syms)
    if box is None:
        if limit is None:
            return None
        lo, hi = 0, limit - 1
    else:
        lo, hi = max(box[0][0], 0), box[0][1]
        if hi - lo > ENUMERATION_LIMIT:
            if limit is None:
                return None
            hi = min(hi, limit - 1)  # beyond the grid there are no tiles to find
    if hi < lo:
        return []
    points = np.arange(lo, hi + 1, dtype=np.int64).reshape(-1, 1)
    return [int(p) for p in points[contains(tiles.data, points, syms)][:, 0]]


def check_groups_disjoint(tiles: AffineSetAttr, groups: AffineSetAttr, what: str) -> None:
    """`what` for distinct groups disjoint, when enumerable."""
    gs = enumerate_groups(groups)
    if gs is None:
        return
    owner: dict[int, int] = {}
    for g in gs:
        ts = enumerate_tiles(tiles, (g,))
        if ts is None:
            continue
        for t in ts:
            if t in owner:
                raise VerifyException(f"{what} for groups {owner[t]} and {g} are not disjoint: tile {t} is in both")
            owner[t] = g


@irdl_op_definition
class YieldPartialOp(IRDLOperation):
    """Terminator of `ktdp.inter_tile_produce`: this tile's partials."""

    name = "ktdp.yield_partial"

    values = var_operand_def(TensorType)
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(InterTileProduceOp)))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class YieldReducedOp(IRDLOperation):
    """Terminator of the `ktdp.inter_tile_reduce` combiner."""

    name = "ktdp.yield_reduced"

    values = var_operand_def(TensorType)
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(InterTileReduceOp)))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class InterTileProduceOp(IRDLOperation):
    """Each producer tile of a group yields its partials into a future."""

    name = "ktdp.inter_tile_produce"

    producer_tiles_per_group = prop_def(AffineSetAttr)
    future = result_def(TileFutureType)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser) -> InterTileProduceOp:
        tiles = _parse_set_keyword(parser, "producer_tiles_per_group")
        groups = None
        pos = parser.pos
        if parser.parse_optional_punctuation(","):
            groups = _parse_set_keyword(parser, "groups")
        attrs = parser.parse_optional_attr_dict()
        before = _parse_type_list(parser) if parser.parse_optional_punctuation(":") else None
        parser.parse_punctuation("->")
        tpos = parser.pos
        future = _future_with_groups(parser, parse_short_type(parser, TileFutureType), groups, pos)
        _check_old_partials(parser, before, future, tpos)
        body = parser.parse_region()
        props, attrs = split_props(cls, {"producer_tiles_per_group": tiles, **attrs})
        return cls.create(result_types=[future], properties=props, attributes=attrs, regions=[body])

    def print(self, printer: Printer) -> None:
        printer.print_string(" producer_tiles_per_group = ")
        printer.print_attribute(self.producer_tiles_per_group)
        print_attrs_sorted(printer, self, {"producer_tiles_per_group"})
        printer.print_string(" -> ")
        self.future.type.print_parameters(printer)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    def verify_(self) -> None:
        future = _future_of(self, self.future)
        tiles = self.producer_tiles_per_group
        _check_set_shape(tiles, "producer_tiles_per_group", "exactly one symbol (the group index g)", "the tile id i")
        block = self.body.block
        arg_types = [a.type for a in block.args]
        if arg_types != [IndexType()]:
            raise VerifyException(
                f"producer region must take a single `index` group-id argument, got ({', '.join(map(str, arg_types))})"
            )
        check_groups_disjoint(tiles, future.groups, "producer_tiles_per_group")  # pyright: ignore[reportArgumentType]
        term = block.last_op
        if not isinstance(term, YieldPartialOp):
            raise VerifyException("producer region must end with ktdp.yield_partial")
        partials = future.partials
        if len(term.values) != len(partials):
            raise VerifyException(
                f"yield_partial yields {len(term.values)} values but the future carries {len(partials)} partial type(s)"
            )
        for i, (v, p) in enumerate(zip(term.values, partials)):
            if v.type != p:
                raise VerifyException(
                    f"yield_partial operand #{i} type {v.type} does not match future partial type {p}"
                )


def _parse_delivery_head(parser: Parser, *, reduce: bool):
    parser.parse_punctuation("(")
    future = parser.parse_unresolved_operand()
    parser.parse_punctuation(")")
    sets: dict[str, Attribute] = {"consumer_tiles_per_group": _parse_set_keyword(parser, "consumer_tiles_per_group")}
    groups = None
    pos = parser.pos
    identities: list[UnresolvedOperand] = []
    id_types: list[Attribute] = []
    while parser.parse_optional_punctuation(","):
        if reduce and parser.parse_optional_keyword("identity"):
            parser.parse_punctuation("(")
            if not parser.parse_optional_punctuation(")"):
                while True:
                    identities.append(parser.parse_unresolved_operand())
                    if parser.parse_optional_punctuation(":"):
                        # interleaved `%a : T, %b : U` or grouped `%a, %b : T, U`
                        id_types.append(parser.parse_type())
                        while len(id_types) < len(identities) and parser.parse_optional_punctuation(","):
                            id_types.append(parser.parse_type())
                    if not parser.parse_optional_punctuation(","):
                        break
                parser.parse_punctuation(")")
            if len(id_types) != len(identities):
                parser.raise_error("expected one type per identity operand", pos, parser.pos)
            break
        if parser.parse_optional_keyword("groups"):
            parser.parse_punctuation("=")
            groups = parser.parse_attribute()
            continue
        sets["producer_dependency_per_consumer"] = _parse_set_keyword(parser, "producer_dependency_per_consumer")
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    tpos = parser.pos
    future_type = _future_with_groups(parser, parse_short_type(parser, TileFutureType), groups, tpos)
    parser.parse_punctuation("->")
    results = _parse_type_list(parser)
    operands = [parser.resolve_operand(future, future_type)] + [
        parser.resolve_operand(o, t) for o, t in zip(identities, id_types)
    ]
    return operands, sets, attrs, results


_DELIVERY_SETS = {"consumer_tiles_per_group", "producer_dependency_per_consumer"}


def _print_delivery_head(printer: Printer, op: Operation, consumer, dependency) -> None:
    printer.print_string("(")
    printer.print_ssa_value(op.operands[0])
    printer.print_string(") consumer_tiles_per_group = ")
    printer.print_attribute(consumer)
    if dependency is not None:
        printer.print_string(", producer_dependency_per_consumer = ")
        printer.print_attribute(dependency)


def _print_delivery_tail(printer: Printer, op: Operation) -> None:
    printer.print_string(" : ")
    op.operands[0].type.print_parameters(printer)  # pyright: ignore[reportAttributeAccessIssue]
    printer.print_string(" -> ")
    printer.print_list(op.result_types, printer.print_attribute)


@irdl_op_definition
class InterTileReduceOp(IRDLOperation):
    """Fold the partials of a group's producers with the combiner region."""

    name = "ktdp.inter_tile_reduce"

    future = operand_def(TileFutureType)
    identity = var_operand_def(TensorType)
    consumer_tiles_per_group = prop_def(AffineSetAttr)
    producer_dependency_per_consumer = opt_prop_def(AffineSetAttr)
    results_ = var_result_def(TensorType)
    combiner = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser) -> InterTileReduceOp:
        operands, sets, attrs, results = _parse_delivery_head(parser, reduce=True)
        combiner = parser.parse_region()
        props, attrs = split_props(cls, {**sets, **attrs})
        return cls.create(
            operands=operands, result_types=results, properties=props, attributes=attrs, regions=[combiner]
        )

    def print(self, printer: Printer) -> None:
        _print_delivery_head(printer, self, self.consumer_tiles_per_group, self.producer_dependency_per_consumer)
        printer.print_string(", identity(")
        if self.identity:
            printer.print_list(self.identity, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list([v.type for v in self.identity], printer.print_attribute)
        printer.print_string(")")
        print_attrs_sorted(printer, self, _DELIVERY_SETS)
        _print_delivery_tail(printer, self)
        printer.print_string(" ")
        printer.print_region(self.combiner, print_entry_block_args=True, print_empty_block=True)

    def verify_(self) -> None:
        future = _future_of(self, self.future)
        _check_delivery_sets(self, self.consumer_tiles_per_group, self.producer_dependency_per_consumer)
        _check_results(self, future)
        partials = future.partials
        if len(self.identity) != len(partials):
            raise VerifyException(
                f"has {len(self.identity)} identity operands but the future carries {len(partials)} partial type(s)"
            )
        for i, (v, p) in enumerate(zip(self.identity, partials)):
            if v.type != p:
                raise VerifyException(f"identity #{i} type {v.type} must match the future partial type {p}")
        block = self.combiner.block
        n = len(partials)
        if len(block.args) != 2 * n:
            raise VerifyException(f"reducer region must take 2*{n} arguments, got {len(block.args)}")
        for i, p in enumerate(partials):
            if block.args[i].type != p or block.args[n + i].type != p:
                raise VerifyException(f"reducer region argument pair #{i} must both have partial type {p}")
        from xdsl.traits import is_side_effect_free

        for op in block.walk():
            if op is block.last_op:
                continue
            if isinstance(op, GetComputeTileIdOp):
                raise VerifyException("the combiner region must not read the tile id: 'ktdp.get_compute_tile_id'")
            value_semantics = all(
                not isinstance(t, MemRefType | AccessTileType) for t in (*op.operand_types, *op.result_types)
            )
            if not is_side_effect_free(op) and not value_semantics:
                raise VerifyException(f"the combiner region must be pure: '{op.name}' has memory effects")
        term = block.last_op
        if not isinstance(term, YieldReducedOp):
            raise VerifyException("reducer region must end with ktdp.yield_reduced")
        if len(term.values) != n:
            raise VerifyException(f"yield_reduced yields {len(term.values)} values but expected {n}")
        for i, (v, p) in enumerate(zip(term.values, partials)):
            if v.type != p:
                raise VerifyException(f"yield_reduced operand #{i} type {v.type} must match partial type {p}")


@irdl_op_definition
class InterTileConsumeOp(IRDLOperation):
    """Each consumer tile receives a copy of its one source producer's partials."""

    name = "ktdp.inter_tile_consume"

    future = operand_def(TileFutureType)
    consumer_tiles_per_group = prop_def(AffineSetAttr)
    producer_dependency_per_consumer = opt_prop_def(AffineSetAttr)
    results_ = var_result_def(TensorType)
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser) -> InterTileConsumeOp:
        operands, sets, attrs, results = _parse_delivery_head(parser, reduce=False)
        props, attrs = split_props(cls, {**sets, **attrs})
        return cls.create(operands=operands, result_types=results, properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        _print_delivery_head(printer, self, self.consumer_tiles_per_group, self.producer_dependency_per_consumer)
        print_attrs_sorted(printer, self, _DELIVERY_SETS)
        _print_delivery_tail(printer, self)

    def verify_(self) -> None:
        future = _future_of(self, self.future)
        _check_delivery_sets(self, self.consumer_tiles_per_group, self.producer_dependency_per_consumer)
        _check_results(self, future)


KTDP = Dialect(
    "ktdp",
    [
        GetComputeTileIdOp,
        ConstructMemoryViewOp,
        ConstructDistributedMemoryViewOp,
        ConstructAccessTileOp,
        ConstructIndirectAccessTileOp,
        RegionTerminatorOp,
        LoadOp,
        StoreOp,
        RuntimeArgExtractOp,
        InterTileProduceOp,
        YieldPartialOp,
        InterTileReduceOp,
        YieldReducedOp,
        InterTileConsumeOp,
    ],
    [MemorySpaceAttr, SpyreMemorySpaceAttr, AccessTileType, RuntimeArgType, TileFutureType],
)
