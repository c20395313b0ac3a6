"""The `spatial` dialect: spatial programs for a dataflow accelerator (issue 13, seed 004).

    spatial.program @vadd attributes {spatial.phase = "synthesized"} {
      spatial.tensor @x : memref<64x64xf16>                       // a global tensor
      spatial.site @s0 at [0] engines ["load", "compute", "store"]
      spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0   // LX
      spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"
      spatial.stage @cp0 compute(@b0) -> @b1 on @s0 engine "compute" {
      ^bb0(%a: tensor<16x64xf16>):
        ...
        spatial.yield %r : tensor<16x64xf16>
      }
      spatial.edge @e0 from @ld0 to @cp0 via @b0 : !spatial.tile<16x64xf16>
      spatial.multicast @g0 reader @ld0 to [@s1, @s2]
      spatial.semaphore @full0 on @s0 init 0
      spatial.engine @s0 "load" {
        spatial.loop %k = 0 to 4 {
          spatial.wait @empty0 >= 1
          spatial.load_step @ld0 [%k]
          spatial.signal @full0 += 1
        }
      }
    }

A `spatial.program` is a symbol table holding declarations, one phase at a
time (`spatial.phase`: tiled < placed < fused < sized < synthesized <
verified). Declarations name each other by symbol: tensors (kernel
arguments in HBM), scalars (kernel arguments: runtime inputs,
`spatial.scalar @alpha : f32`, which compute stages read through
`scalars(@alpha)`, or values the program is specialized for,
`spatial.scalar @K : index = 2048`), sites (logical core coordinates
and their engines), buffers (tile slots in a site's LX: FIFOs between
engines, or `local`, one engine's variable), stages (load, store, receive,
compute; a load or store stage may give its tile's `origin` as an affine
map of its step's indices, a compute body takes index arguments after its
tiles),
edges (a producer and a consumer of one buffer), multicast groups (one load
read by several sites), semaphores, trips (a loop count read from an input
tensor or a runtime scalar, with an admitted range and granularity: `spatial.trip`, run to by `spatial.loop %k
= 0 to trip(@t)`), and the per-(site, engine)
choreographies (`spatial.engine`: loops, waits, signals and steps).

The verifiers check the structural invariants that hold in every phase:
every reference names a declaration of the right kind in the enclosing
program; a stage runs on an engine of its site and touches buffers of its
site only; an edge's `from` stage writes its buffer, its `to` stage reads
it, and the three agree on the tile type; the buffers of a site fit LX
(`lx_bytes` on the program, else the target's, `spyre_mlir.target`) and, where placed (`offset`), do not
overlap; one `spatial.engine` per (site, engine), naming an engine its site
has; every semaphore a wait names is signalled somewhere; the rules of
locals, origins, index arguments and multicast groups (docs/spatial.md,
"Extensions"). Each violation is a `VerifyException` naming the symbols.
Verifying a program is linear in its size (`ProgramOp.verify` shares one
declaration index; witnessed caches answer symbol lookups and signalled
semaphores). Design notes: docs/spatial.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FlatSymbolRefAttrConstr,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.analysis.affine import format_map
from spyre_mlir.dialects.format_helpers import parse_kind
from spyre_mlir.target import element_bytes, target_of

PHASES: tuple[str, ...] = ("tiled", "placed", "fused", "sized", "synthesized", "verified")
"""The phases of a spatial program, in order (`spatial.phase` on the program)."""

PHASE_ATTR = "spatial.phase"
HBM_ORDER_ATTR = "hbm_order"
"""On a `spatial.semaphore` that orders a store before a later load of the same
tensor (made by spatial-tile: the load engine runs ahead of the store engine)."""
LX_ATTR = "lx_bytes"
MASKED_ATTR = "masked"
"""Load/store stage attribute (a unit): the stage's tile may reach outside its tensor at
some step (a tail tile: a block of rows or columns running past the view's end, as
Triton writes them). Its elements outside the tensor load 0 and are not stored, the
KTDP semantics of an access outside its view (KTDP-SEMANTICS §4); the spatial
interpreter implements it (interpreter/ops_spatial.py). A stage without it never
reaches outside its tensor: a step that does is an error. Made by spatial-tile."""

STAGE_KINDS: tuple[str, ...] = ("load", "store", "receive", "compute")


# ===========================================================================
# The tile type
# ===========================================================================


@irdl_attr_definition
class TileType(ParametrizedAttribute, TypeAttribute):
    """`!spatial.tile<16x64xf16>`: one tile, a static shape and an element type
    (the unit a buffer slot holds and an edge carries)."""

    name = "spatial.tile"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            dims, element_type = parser.parse_ranked_shape()
            if not dims or any(d < 0 for d in dims):
                parser.raise_error(
                    "a tile has a static shape and an element type: expected e.g. `16x64xf16`", pos, parser.pos
                )
        return (ArrayAttr([IntAttr(d) for d in dims]), element_type)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join(f"{d}x" for d in self.get_shape()))
        printer.print_attribute(self.element_type)
        printer.print_string(">")

    def verify(self) -> None:
        shape = self.get_shape()
        if not shape or any(d <= 0 for d in shape):
            raise VerifyException(f"a tile has a static shape of positive dims, got {list(shape)}")
        if not _has_bytes(self.element_type):
            raise VerifyException(f"the element type of a tile must be an integer or float type, got {self.element_type}")

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def get_element_type(self) -> Attribute:
        return self.element_type

    @property
    def bytes(self) -> int:
        """Bytes one tile occupies: elements x element bytes (`spyre_mlir.target.element_bytes`)."""
        return math.prod(self.get_shape()) * element_bytes(self.element_type)

    def as_tensor(self) -> TensorType:
        """The tensor type of one tile, as a compute stage's body sees it."""
        return TensorType(self.element_type, self.get_shape())

    def short(self) -> str:
        return f"!spatial.tile<{''.join(f'{d}x' for d in self.get_shape())}{self.element_type}>"


def _has_bytes(t: Attribute) -> bool:
    """An integer or float element type of some bits (an `index` has no fixed width in a tile)."""
    bits = getattr(t, "bitwidth", None)
    return not isinstance(t, IndexType) and isinstance(bits, int) and bits > 0


# ===========================================================================
# Helpers: symbols, syntax
# ===========================================================================


def _ref(name: str | StringAttr | SymbolRefAttr) -> SymbolRefAttr:
    return name if isinstance(name, SymbolRefAttr) else SymbolRefAttr(name)


def _name(ref: SymbolRefAttr | StringAttr | None) -> str:
    if ref is None:
        return "?"
    if isinstance(ref, StringAttr):
        return ref.data
    return ref.root_reference.data


def _i64(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def _int(attr: IntegerAttr | None) -> int | None:
    return None if attr is None else int(attr.value.data)


def program_of(op: Operation) -> ProgramOp | None:
    """The `spatial.program` holding `op` at any depth (or `op` itself)."""
    current: Operation | None = op
    while current is not None and not isinstance(current, ProgramOp):
        block = current.parent  # parent_op(), inlined: every step's verifier asks this
        region = block.parent if block is not None else None
        current = region.parent if region is not None else None
    return current


def _resolve(
    op: Operation, ref: SymbolRefAttr, kind: type[Operation], who: str, role: str, program: ProgramOp | None = None
) -> Operation:
    """The declaration `ref` names in `op`'s program (`program`, when the caller has it),
    which must be a `kind`; else a VerifyException naming `who` (the referring op), the role
    and the symbol."""
    program = program or program_of(op)
    if program is None:
        raise VerifyException(f"{who} must be inside a 'spatial.program'")
    if ref.nested_references.data:
        raise VerifyException(f"{who}: {role} {ref} must be a flat symbol of program @{program.sym_name.data}")
    found = program.lookup(ref.root_reference.data)
    if found is None:
        raise VerifyException(
            f"{who}: {role} @{_name(ref)} is not declared in program @{program.sym_name.data}"
        )
    if not isinstance(found, kind):
        raise VerifyException(
            f"{who}: {role} @{_name(ref)} is a '{found.name}', expected a '{kind.name}'"  # pyright: ignore[reportAttributeAccessIssue]
        )
    return found


def _parse_symbol(parser: Parser) -> SymbolRefAttr:
    return SymbolRefAttr(parser.parse_symbol_name())


def _parse_symbols(parser: Parser, delimiter: Parser.Delimiter) -> list[SymbolRefAttr]:
    return parser.parse_comma_separated_list(delimiter, lambda: _parse_symbol(parser))


def _print_symbols(printer: Printer, refs: Sequence[SymbolRefAttr]) -> None:
    printer.print_list(refs, lambda r: printer.print_symbol_name(_name(r)))


def _set_attrs(op: Operation, attrs) -> None:
    if attrs is not None:
        op.attributes.update(attrs.data)


def _single_block(region: Region, arg_types: Sequence[Attribute] = ()) -> Region:
    if not region.blocks:
        region.add_block(Block(arg_types=arg_types))
    return region


def _print_attrs(printer: Printer, op: Operation) -> None:
    printer.print_op_attributes(op.attributes, print_keyword=True)


# ===========================================================================
# The declaration index: linear verification
# ===========================================================================


@dataclass
class _Declarations:
    """What the verifiers of a program ask about its declarations as a whole
    (which site is at a coordinate, the buffers of a site, the stages touching
    a buffer, the receive stages of a group, the engine of a (site, engine)),
    built in one pass. `ProgramOp.verify` builds it once and shares it with
    every op it verifies, so verifying a program is linear overall; an op
    verified on its own builds a fresh one (linear in the declarations). Read
    defensively: an op whose properties are missing or ill-typed is skipped
    here and refused by its own verifier."""

    sites_at: dict[tuple[int, ...], Operation] = field(default_factory=dict)
    """The first site at each coordinate."""
    site_buffers: dict[str, list[Operation]] = field(default_factory=dict)
    """The buffers of each site, in declaration order."""
    touching: dict[str, list[Operation]] = field(default_factory=dict)
    """The stages reading or writing each symbol (buffer, tensor, group), in declaration order."""
    receivers: dict[str, list[Operation]] = field(default_factory=dict)
    """The receive stages of each multicast group."""
    engines: dict[tuple[str, str], Operation] = field(default_factory=dict)
    """The first `spatial.engine` of each (site, engine)."""

    @staticmethod
    def of(program: ProgramOp) -> _Declarations:
        index = _Declarations()
        for op in program.declarations():
            props = op.properties
            if isinstance(op, SiteOp):
                coords = props.get("coords")
                if isinstance(coords, DenseArrayBase):
                    index.sites_at.setdefault(tuple(coords.get_values()), op)  # pyright: ignore[reportArgumentType]
            elif isinstance(op, BufferOp):
                site = props.get("site")
                if isinstance(site, SymbolRefAttr):
                    index.site_buffers.setdefault(_name(site), []).append(op)
            elif isinstance(op, StageOp):
                refs = [
                    r
                    for key in ("inputs", "outputs")
                    if isinstance(arr := props.get(key), ArrayAttr)
                    for r in arr.data
                    if isinstance(r, SymbolRefAttr)
                ]
                for name in dict.fromkeys(_name(r) for r in refs):
                    index.touching.setdefault(name, []).append(op)
                kind, inputs = props.get("kind"), props.get("inputs")
                if isinstance(kind, StringAttr) and kind.data == "receive" and isinstance(inputs, ArrayAttr):
                    for r in inputs.data[:1]:
                        if isinstance(r, SymbolRefAttr):
                            index.receivers.setdefault(_name(r), []).append(op)
            elif isinstance(op, EngineOp):
                site, engine = props.get("site"), props.get("engine")
                if isinstance(site, SymbolRefAttr) and isinstance(engine, StringAttr):
                    index.engines.setdefault((_name(site), engine.data), op)
        return index


_VERIFYING: dict[int, tuple[ProgramOp, _Declarations]] = {}
"""The declaration index of each program being verified (`ProgramOp.verify`), by id."""


def _declarations(program: ProgramOp) -> _Declarations:
    """The declaration index of `program`: the one its verification shares, else a fresh one."""
    active = _VERIFYING.get(id(program))
    if active is not None and active[0] is program:
        return active[1]
    return _Declarations.of(program)


def _signalled(program: ProgramOp, semaphore: str) -> bool:
    """Whether some `spatial.signal` of `program` names `semaphore`. A witnessed
    cache (one signal per semaphore, kept on the program): a witness still in
    this program and still naming the semaphore answers yes at once; anything
    else rescans the program, so the answer is never stale and a program's
    waits cost one walk together, not one walk each."""
    cache: dict[str, Operation] = program.__dict__.setdefault("_signal_witnesses", {})
    witness = cache.get(semaphore)
    if isinstance(witness, SignalOp) and _name(witness.properties.get("semaphore")) == semaphore:  # pyright: ignore
        if program_of(witness) is program:
            return True
    cache.clear()
    for op in program.walk():
        if isinstance(op, SignalOp) and isinstance(sem := op.properties.get("semaphore"), SymbolRefAttr):
            cache.setdefault(_name(sem), op)
    return semaphore in cache


# ===========================================================================
# The program
# ===========================================================================


@irdl_op_definition
class ProgramOp(IRDLOperation):
    """`spatial.program @name attributes {spatial.phase = "tiled", ...} { declarations }`:
    a symbol table of declarations, in one phase. `lx_bytes` (optional) is the
    LX budget of each site's buffers (default: the target's LX size)."""

    name = "spatial.program"

    sym_name = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), SymbolOpInterface(), SymbolTable())

    def __init__(self, name: str, phase: str, body: Region | Block | Sequence[Operation] = (),
                 attributes: dict[str, Attribute] | None = None):
        if isinstance(body, Region):
            region = _single_block(body)
        elif isinstance(body, Block):
            region = Region(body)
        else:
            region = Region(Block(list(body)))
        attrs = {PHASE_ATTR: StringAttr(phase), **(attributes or {})}
        super().__init__(properties={"sym_name": StringAttr(name)}, attributes=attrs, regions=[region])

    @property
    def phase(self) -> str | None:
        attr = self.attributes.get(PHASE_ATTR)
        return attr.data if isinstance(attr, StringAttr) else None

    @property
    def lx_bytes(self) -> int:
        attr = self.attributes.get(LX_ATTR)
        return int(attr.value.data) if isinstance(attr, IntegerAttr) else target_of(self).lx_bytes

    def declarations(self) -> Iterator[Operation]:
        return iter(self.body.block.ops) if self.body.blocks else iter(())

    def lookup(self, name: str) -> Operation | None:
        """The declaration named `name`, if any (the first, if several). A witnessed
        cache: a hit is re-checked (still a declaration of this program, still of that
        name), a miss rescans the declarations, so the answer is never stale."""
        cache: dict[str, Operation] = self.__dict__.setdefault("_symbol_witnesses", {})
        found = cache.get(name)
        if found is not None and found.parent is self.body.block:
            sym = found.get_attr_or_prop("sym_name")
            if isinstance(sym, StringAttr) and sym.data == name:
                return found
        cache.clear()
        for op in self.declarations():
            sym = op.get_attr_or_prop("sym_name")
            if isinstance(sym, StringAttr):
                cache.setdefault(sym.data, op)
        return cache.get(name)

    def of_kind(self, kind: type[Operation]) -> list[Operation]:
        return [op for op in self.declarations() if isinstance(op, kind)]

    @classmethod
    def parse(cls, parser: Parser) -> ProgramOp:
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = _single_block(parser.parse_region())
        op = cls.create(properties={"sym_name": name}, regions=[body])
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        _print_attrs(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def verify(self, verify_nested_ops: bool = True) -> None:
        """Verify the program, its declarations and choreographies sharing one
        declaration index while this runs (dropped after: never stale)."""
        if not verify_nested_ops or id(self) in _VERIFYING:
            super().verify(verify_nested_ops)
            return
        _VERIFYING[id(self)] = (self, _Declarations.of(self))
        try:
            super().verify(verify_nested_ops)
        finally:
            _VERIFYING.pop(id(self), None)

    def verify_(self) -> None:
        me = f"program @{self.sym_name.data}"
        phase = self.attributes.get(PHASE_ATTR)
        if phase is None:
            raise VerifyException(f"{me} needs a '{PHASE_ATTR}' attribute, one of: {', '.join(PHASES)}")
        if not isinstance(phase, StringAttr) or phase.data not in PHASES:
            raise VerifyException(f"{me}: '{PHASE_ATTR}' must be one of {', '.join(PHASES)}, got {phase}")
        lx = self.attributes.get(LX_ATTR)
        if lx is not None and (not isinstance(lx, IntegerAttr) or lx.value.data <= 0):
            raise VerifyException(f"{me}: '{LX_ATTR}' must be a positive integer (bytes of LX per site), got {lx}")
        if self.body.blocks and self.body.block.args:
            raise VerifyException(f"{me}: the body takes no arguments")
        for op in self.declarations():
            if not isinstance(op, DECLARATIONS):
                raise VerifyException(
                    f"{me} holds declarations only ({', '.join(c.name for c in DECLARATIONS)}), found '{op.name}'"
                )


# ===========================================================================
# Declarations
# ===========================================================================


@irdl_op_definition
class TensorOp(IRDLOperation):
    """`spatial.tensor @x : memref<1024x4096xf16>`: a global tensor (a kernel argument, in HBM).

    Its elements lie row-major from the argument's first element, unless its type
    has a strided layout (a kernel's strided or transposed view): element
    (i, j) of `memref<32x256xf32, strided<[1, 32]>>` is at element i + 32 * j of
    the argument, and a tile's load or store reads or writes exactly the elements
    its window covers at those addresses (a transposed store is a strided store).
    The strides are static, non-negative, offset 0, and never place two elements
    at one address (`overlap`): a store would otherwise depend on the order of
    its writes."""

    name = "spatial.tensor"

    sym_name = prop_def(SymbolNameConstraint())
    tensor_type = prop_def(MemRefType, prop_name="type")
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))
    assembly_format = "$sym_name `:` $type attr-dict-with-keyword"

    def __init__(self, name: str, tensor_type: MemRefType):
        super().__init__(properties={"sym_name": StringAttr(name), "type": tensor_type})

    @property
    def element_strides(self) -> tuple[int, ...]:
        """The element strides of its dims: its layout's, else row-major.

        `memref<4x8xf16>` -> (8, 1); `memref<4x8xf16, strided<[1, 4]>>` -> (1, 4)."""
        ty = self.tensor_type
        assert isinstance(ty, MemRefType)
        shape = tuple(ty.get_shape())
        if isinstance(ty.layout, StridedLayoutAttr):  # -1: a dynamic stride (verify_ refuses it)
            return tuple(s if s is not None else -1 for s in ty.layout.get_strides())
        return row_major(shape)

    @property
    def span(self) -> int:
        """How many elements of HBM it spans from its first: 1 + the highest element offset
        (0 for an empty tensor). `memref<4x8xf16, strided<[1, 16]>>` spans 3 + 7 * 16 + 1 = 116."""
        shape = tuple(self.tensor_type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        if any(d == 0 for d in shape):
            return 0
        return 1 + sum((d - 1) * s for d, s in zip(shape, self.element_strides))

    def verify_(self) -> None:
        ty = self.tensor_type
        assert isinstance(ty, MemRefType)
        layout = ty.layout
        if isinstance(layout, NoneAttr):
            return
        me = f"tensor @{self.sym_name.data}"
        if not isinstance(layout, StridedLayoutAttr):
            raise VerifyException(f"{me}: its layout must be row-major or strided<[...]>, got {layout}")
        shape = tuple(ty.get_shape())
        strides = layout.get_strides()
        if layout.get_offset() != 0:
            raise VerifyException(
                f"{me}: a strided tensor starts at its argument's first element (offset 0), got {layout}"
            )
        if any(s is None for s in strides) or any(d < 0 for d in shape):
            raise VerifyException(f"{me}: a strided tensor has static sizes and strides, got {ty}")
        why = overlap(shape, tuple(s for s in strides if s is not None))
        if why is not None:
            raise VerifyException(f"{me}: {why}")


def row_major(shape: Sequence[int]) -> tuple[int, ...]:
    """The element strides of a row-major `shape`: (4, 8) -> (8, 1)."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def overlap(shape: Sequence[int], strides: Sequence[int]) -> str | None:
    """Why a view of `shape` with element `strides` is not one distinct, forward
    address per element (a negative stride, or two elements at one address), else None.
    Dims of one element take any stride. `overlap((32, 256), (1, 32))` is None;
    `overlap((4, 8), (4, 1))` says elements (0, 4) and (1, 0) share an address."""
    if any(d == 0 for d in shape):
        return None
    if any(s < 0 for d, s in zip(shape, strides) if d > 1):
        return f"its strides {list(strides)} include a negative one (a tensor is addressed forward)"
    reach = 0  # the highest offset of the dims already placed, each placed beyond the last
    for d, s in sorted(((d, s) for d, s in zip(shape, strides) if d > 1), key=lambda ds: ds[1]):
        if s <= reach:
            return (
                f"its strides {list(strides)} place two of its elements (sizes {list(shape)}) at one address: "
                f"a dim of stride {s} steps inside the {reach + 1} elements the smaller strides reach"
            )
        reach += (d - 1) * s
    return None


@irdl_op_definition
class ScalarOp(IRDLOperation):
    """A scalar kernel argument, a parameter of the program (named after it,
    of its type: `interpret(module, "prog", x=..., alpha=2.0)`):

        spatial.scalar @alpha : f32               // a runtime input
        spatial.scalar @K : index = 2048          // specialized for this value

    A runtime scalar is read by the compute stages that name it (`scalars(@alpha)`:
    their bodies take its value) and by the trips that count from it
    (`spatial.trip @t from @n ...`). A specialized scalar is one the program was
    built for (its tiles, trips and bodies fold the value): a call with another
    value is refused before anything runs, since the program would compute
    something else than asked. `value` is an IntegerAttr (index and integer types)
    or a FloatAttr (float types, finite) of the scalar's type."""

    name = "spatial.scalar"

    sym_name = prop_def(StringAttr)
    scalar_type = prop_def(Attribute, prop_name="type")
    value = opt_prop_def(IntegerAttr | FloatAttr)
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))

    def __init__(
        self, name: str, scalar_type: Attribute, value: int | float | IntegerAttr | FloatAttr | None = None
    ):
        if value is not None and not isinstance(value, IntegerAttr | FloatAttr):
            value = (
                FloatAttr(float(value), scalar_type)  # pyright: ignore[reportArgumentType]
                if isinstance(scalar_type, AnyFloat)
                else IntegerAttr(int(value), scalar_type)  # pyright: ignore[reportArgumentType]
            )
        props: dict[str, Attribute] = {"sym_name": StringAttr(name), "type": scalar_type}
        if value is not None:
            props["value"] = value
        super().__init__(properties=props)

    @property
    def is_runtime(self) -> bool:
        """A runtime input (no specialized value)."""
        return self.value is None

    @property
    def number(self) -> int | float | None:
        """The specialized value (an int for index and integer types, else a float);
        None for a runtime scalar."""
        if self.value is None:
            return None
        data = self.value.value.data
        return float(data) if isinstance(self.value, FloatAttr) else int(data)

    @classmethod
    def parse(cls, parser: Parser) -> ScalarOp:
        name = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        scalar_type = parser.parse_type()
        if parser.parse_optional_punctuation("=") is None:
            if not isinstance(scalar_type, IndexType | IntegerType | AnyFloat):
                parser.raise_error(f"a scalar has an index, integer or float type, got {scalar_type}")
            attrs = parser.parse_optional_attr_dict_with_keyword()
            op = cls.create(properties={"sym_name": name, "type": scalar_type})
            _set_attrs(op, attrs)
            return op
        pos = parser.pos
        number = parser.parse_optional_number()
        if number is None:
            parser.raise_error("expected the scalar's value, an integer or float literal", pos, parser.pos)
        if isinstance(scalar_type, AnyFloat):
            value: Attribute = FloatAttr(float(number), scalar_type)
        elif isinstance(scalar_type, IndexType | IntegerType):
            if not isinstance(number, int):
                parser.raise_error(f"a scalar of type {scalar_type} takes an integer value, got {number}", pos,
                                   parser.pos)
            try:
                value = IntegerAttr(number, scalar_type)
            except VerifyException as exc:
                parser.raise_error(f"{exc}", pos, parser.pos)
        else:
            parser.raise_error(f"a scalar has an index, integer or float type, got {scalar_type}", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls.create(properties={"sym_name": name, "type": scalar_type, "value": value})
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.scalar_type)
        ty = self.scalar_type
        if self.value is not None:
            printer.print_string(" = ")
            if isinstance(self.value, FloatAttr) and isinstance(ty, AnyFloat):
                printer.print_float(float(self.value.value.data), ty)
            else:
                printer.print_string(str(self.value.value.data))
        _print_attrs(printer, self)

    def verify_(self) -> None:
        me = f"scalar @{self.sym_name.data}"
        ty, value = self.scalar_type, self.value
        if not isinstance(ty, IndexType | IntegerType | AnyFloat):
            raise VerifyException(f"{me}: a scalar has an index, integer or float type, got {ty}")
        if value is None:
            return
        if value.type != ty:
            raise VerifyException(f"{me} is of type {ty}, but its value {value} is not")
        if isinstance(value, FloatAttr) and not math.isfinite(float(value.value.data)):
            raise VerifyException(f"{me}: the value must be finite, got {value.value.data}")


@irdl_op_definition
class SiteOp(IRDLOperation):
    """`spatial.site @s0 at [0, 1] engines ["load", "compute", "store"]`: a logical
    core coordinate (never a physical NoC one) and the engines it runs."""

    name = "spatial.site"

    sym_name = prop_def(SymbolNameConstraint())
    coords = prop_def(DenseArrayBase.constr(i64))
    engines = prop_def(ArrayAttr[StringAttr])
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))
    assembly_format = "$sym_name `at` $coords `engines` $engines attr-dict-with-keyword"

    def __init__(self, name: str, coords: Sequence[int], engines: Sequence[str]):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "coords": DenseArrayBase.from_list(i64, list(coords)),
                "engines": ArrayAttr([StringAttr(e) for e in engines]),
            }
        )

    @property
    def coordinates(self) -> tuple[int, ...]:
        return tuple(self.coords.get_values())

    @property
    def engine_names(self) -> tuple[str, ...]:
        return tuple(e.data for e in self.engines.data)

    def verify_(self) -> None:
        me = f"site @{self.sym_name.data}"
        coords = self.coordinates
        if not coords or any(c < 0 for c in coords):
            raise VerifyException(f"{me}: coordinates must be non-negative, at least one, got {list(coords)}")
        engines = self.engine_names
        if not engines:
            raise VerifyException(f"{me} has no engine")
        if len(set(engines)) != len(engines) or any(not e for e in engines):
            raise VerifyException(f"{me}: engines must be distinct non-empty names, got {list(engines)}")
        program = program_of(self)
        if program is None:
            return
        first = _declarations(program).sites_at.get(coords)
        if isinstance(first, SiteOp) and first is not self:
            raise VerifyException(
                f"{me} is at {list(coords)}, where site @{first.sym_name.data} is already: one site per coordinate"
            )


@irdl_op_definition
class BufferOp(IRDLOperation):
    """`spatial.buffer @b0 on @s0 : !spatial.tile<16x64xf16> depth 2 offset 0`: `depth`
    tile slots in the LX of a site, from byte `offset` (absent before sizing).

    A FIFO buffer (the default) carries tiles between engines: a writer fills
    the next free slot, a reader takes the oldest full one and frees it, and
    the engines hand slots over with semaphores. A `local` buffer
    (`... depth 1 local offset 0`) is one engine's variable in LX (an
    accumulator, a value carried across loop iterations, a value several
    compute steps use): reading it does not free it, writing it overwrites
    it, it needs no semaphore, it has depth 1, every stage touching it runs
    on one engine, and no edge goes through it. Two locals of one engine may
    share LX bytes (spatial-size-buffers places them so when their live
    ranges are disjoint)."""

    name = "spatial.buffer"

    sym_name = prop_def(StringAttr)
    site = prop_def(FlatSymbolRefAttrConstr)
    tile = prop_def(TileType)
    depth = prop_def(IntegerAttr)
    offset = opt_prop_def(IntegerAttr)
    local = opt_prop_def(UnitAttr)
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))

    def __init__(
        self,
        name: str,
        site: str | SymbolRefAttr,
        tile: TileType,
        depth: int,
        offset: int | None = None,
        *,
        local: bool = False,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "site": _ref(site),
            "tile": tile,
            "depth": _i64(depth),
        }
        if offset is not None:
            props["offset"] = _i64(offset)
        if local:
            props["local"] = UnitAttr()
        super().__init__(properties=props)

    @property
    def is_local(self) -> bool:
        """One engine's variable (read without freeing, written by overwriting), not a FIFO."""
        return self.local is not None

    @property
    def depth_value(self) -> int:
        return int(self.depth.value.data)

    @property
    def offset_value(self) -> int | None:
        return _int(self.offset)

    @property
    def size(self) -> int:
        """Bytes of LX the buffer occupies: depth x tile bytes."""
        return max(self.depth_value, 0) * self.tile.bytes

    @classmethod
    def parse(cls, parser: Parser) -> BufferOp:
        name = parser.parse_symbol_name()
        parser.parse_keyword("on")
        site = _parse_symbol(parser)
        parser.parse_punctuation(":")
        tile = parser.parse_type()
        parser.parse_keyword("depth")
        props: dict[str, Attribute] = {
            "sym_name": name,
            "site": site,
            "tile": tile,
            "depth": _i64(parser.parse_integer(allow_boolean=False)),
        }
        if parser.parse_optional_keyword("local") is not None:
            props["local"] = UnitAttr()
        if parser.parse_optional_keyword("offset") is not None:
            props["offset"] = _i64(parser.parse_integer(allow_boolean=False))
            # Also read after the offset (printed before it): `... offset 0 local`.
            if "local" not in props and parser.parse_optional_keyword("local") is not None:
                props["local"] = UnitAttr()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls.create(properties=props)
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" on ")
        printer.print_symbol_name(_name(self.site))
        printer.print_string(" : ")
        printer.print_attribute(self.tile)
        printer.print_string(f" depth {self.depth_value}")
        if self.is_local:
            printer.print_string(" local")
        if self.offset is not None:
            printer.print_string(f" offset {self.offset_value}")
        _print_attrs(printer, self)

    def verify_(self) -> None:
        me = f"buffer @{self.sym_name.data}"
        if self.depth_value < 1:
            raise VerifyException(f"{me}: depth must be at least 1, got {self.depth_value}")
        if self.is_local and self.depth_value != 1:
            raise VerifyException(
                f"{me} is local (one engine's variable, overwritten in place): its depth is 1, got {self.depth_value}"
            )
        offset = self.offset_value
        if offset is not None and offset < 0:
            raise VerifyException(f"{me}: offset must be non-negative, got {offset}")
        site = _resolve(self, self.site, SiteOp, me, "site")
        program = program_of(self)
        assert program is not None and isinstance(site, SiteOp)
        index = _declarations(program)
        mine_engine = self._local_engine(index)
        lx = program.lx_bytes
        where = f"site @{site.sym_name.data}"
        if offset is not None and offset + self.size > lx:
            raise VerifyException(
                f"{me} occupies LX bytes [{offset}, {offset + self.size}) ({self.depth_value} x {self.tile.bytes} "
                f"bytes from offset {offset}), past the {lx} bytes of LX of {where}"
            )
        mine = [b for b in index.site_buffers.get(_name(self.site), []) if isinstance(b, BufferOp)]
        for other in mine:
            if other is self:
                break
            o = other.offset_value
            if offset is None or o is None or not (offset < o + other.size and o < offset + self.size):
                continue
            if mine_engine is not None and other.is_local and other._local_engine(index) == mine_engine:
                continue  # two locals of one engine may share bytes (their live ranges are disjoint)
            raise VerifyException(
                f"{me} at LX bytes [{offset}, {offset + self.size}) overlaps buffer @{other.sym_name.data} "
                f"at [{o}, {o + other.size}) on {where}"
            )
        if mine and mine[-1] is self and any(b.offset_value is None for b in mine):
            # Before placement, the site needs at least its FIFO buffers and its largest local
            # (locals of one engine may share bytes); placed buffers are checked one by one above.
            fifo = [b for b in mine if not b.is_local]
            locals_ = sorted((b for b in mine if b.is_local), key=lambda b: -b.size)[:1]
            counted = [*fifo, *locals_]
            total = sum(b.size for b in counted)
            if total > lx:
                parts = ", ".join(f"@{b.sym_name.data}: {max(b.depth_value, 0)} x {b.tile.bytes}" for b in counted)
                raise VerifyException(
                    f"the buffers of {where} need {total} bytes of LX ({parts}), more than its {lx} bytes"
                )

    def _local_engine(self, index: _Declarations) -> tuple[str, str] | None:
        """The (site, engine) of the stages touching this local (None: not local, or untouched);
        stages of two engines touching it are refused, naming both."""
        if not self.is_local:
            return None
        found: tuple[str, str] | None = None
        first: StageOp | None = None
        for stage in index.touching.get(self.sym_name.data, []):
            if not isinstance(stage, StageOp):
                continue
            site, engine = stage.properties.get("site"), stage.properties.get("engine")
            if not isinstance(site, SymbolRefAttr) or not isinstance(engine, StringAttr):
                continue
            key = (_name(site), engine.data)
            if found is None:
                found, first = key, stage
            elif key != found:
                assert first is not None
                raise VerifyException(
                    f"buffer @{self.sym_name.data} is local (one engine's variable), but stage "
                    f"@{first.sym_name.data} runs on engine \"{found[1]}\" of site @{found[0]} and stage "
                    f"@{stage.sym_name.data} on engine \"{key[1]}\" of site @{key[0]}: every stage reading or "
                    "writing a local runs on one engine"
                )
        return found


def default_origin(tile_shape: Sequence[int]) -> AffineMap:
    """The tile grid: `(d0, ..., dn-1) -> (d0 * t0, ..., dn-1 * tn-1)` for a tile of
    shape (t0, ..., tn-1), the origin of a load or store stage without `origin`."""
    return AffineMap(
        len(tile_shape), 0, tuple(AffineExpr.dimension(i) * t for i, t in enumerate(tile_shape))
    )


@irdl_op_definition
class StageOp(IRDLOperation):
    """A stage pinned to an engine of a site:

        spatial.stage @ld0 load @x -> @b0 on @s0 engine "load"         // tensor -> buffer
        spatial.stage @st0 store @b1 -> @z on @s0 engine "store"       // buffer -> tensor
        spatial.stage @rv0 receive @g0 -> @b0 on @s1 engine "load"     // multicast group -> buffer
        spatial.stage @cp0 compute(@b0, @b1) -> @b2 on @s0 engine "compute" {
        ^bb0(%a: tensor<16x64xf16>, %b: tensor<16x64xf16>, %k: index):  // one tile per input buffer,
          ...                                                           // then index arguments
          spatial.yield %r : tensor<16x64xf16>                          // one tile per output buffer
        }

    Only a compute stage has a body (optional: absent until it is filled in).
    Its block takes one tile per input buffer, then one value per scalar the
    stage reads, then any number of `index` arguments: a `spatial.compute_step
    @cp0 [%k, ...]` passes its indices to them (as many as there are). A
    compute stage reads the program's scalar parameters it names, in order,
    each of the `spatial.scalar`'s type:

        spatial.stage @cp0 compute(@b0) -> @b1 on @s0 engine "compute" scalars(@alpha) {
        ^bb0(%x: tensor<16x64xf32>, %alpha: f32, %k: index):

    A load or store stage may give the element origin of its tile in the
    tensor as an affine map of its step's indices:

        spatial.stage @ld0 load @x -> @b0 on @s0 engine "load" origin affine_map<(d0, d1) -> (d0 * 128 + 640, 0)>

    one result per tensor dim, no symbols; the tile covers [origin, origin +
    tile shape) per dim, and its rank is the tensor's. Without `origin`, the
    tile grid: `default_origin(tile shape)`."""

    name = "spatial.stage"

    sym_name = prop_def(StringAttr)
    kind = prop_def(StringAttr)
    inputs = prop_def(ArrayAttr[SymbolRefAttr])
    outputs = prop_def(ArrayAttr[SymbolRefAttr])
    site = prop_def(FlatSymbolRefAttrConstr)
    engine = prop_def(StringAttr)
    origin = opt_prop_def(AffineMapAttr)
    scalars = opt_prop_def(ArrayAttr[SymbolRefAttr])
    body = opt_region_def("single_block")
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))

    KINDS: ClassVar[tuple[str, ...]] = STAGE_KINDS

    def __init__(
        self,
        name: str,
        kind: str,
        inputs: Sequence[str | SymbolRefAttr],
        outputs: Sequence[str | SymbolRefAttr],
        site: str | SymbolRefAttr,
        engine: str,
        body: Region | None = None,
        *,
        origin: AffineMap | AffineMapAttr | None = None,
        scalars: Sequence[str | SymbolRefAttr] = (),
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "kind": StringAttr(kind),
            "inputs": ArrayAttr([_ref(r) for r in inputs]),
            "outputs": ArrayAttr([_ref(r) for r in outputs]),
            "site": _ref(site),
            "engine": StringAttr(engine),
        }
        if origin is not None:
            props["origin"] = origin if isinstance(origin, AffineMapAttr) else AffineMapAttr(origin)
        if scalars:
            props["scalars"] = ArrayAttr([_ref(r) for r in scalars])
        super().__init__(properties=props, regions=[[] if body is None else body])

    @property
    def kind_name(self) -> str:
        return self.kind.data

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(_name(r) for r in self.inputs.data)

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(_name(r) for r in self.outputs.data)

    @property
    def origin_map(self) -> AffineMap | None:
        """The explicit `origin` (None: the tile grid, `default_origin`)."""
        return None if self.origin is None else self.origin.data

    @property
    def scalar_names(self) -> tuple[str, ...]:
        """The program scalars a compute stage's body reads, in order (after its tiles)."""
        return () if self.scalars is None else tuple(_name(r) for r in self.scalars.data)

    @property
    def index_args(self) -> int | None:
        """How many index arguments a compute stage's body takes after its tiles and
        scalars (None: no body yet, or not a compute stage)."""
        if self.kind_name != "compute" or self.body is None or not self.body.blocks:
            return None
        return max(0, len(self.body.block.args) - len(self.inputs.data) - len(self.scalar_names))

    @classmethod
    def parse(cls, parser: Parser) -> StageOp:
        name = parser.parse_symbol_name()
        kind = parse_kind(parser, cls.KINDS, "stage kind")
        if parser.parse_optional_punctuation("(") is not None:
            inputs = [] if parser.parse_optional_punctuation(")") is not None else None
            if inputs is None:
                inputs = _parse_symbols(parser, parser.Delimiter.NONE)
                parser.parse_punctuation(")")
        else:
            inputs = [_parse_symbol(parser)]
        parser.parse_punctuation("->")
        outputs = _parse_symbols(parser, parser.Delimiter.NONE)
        parser.parse_keyword("on")
        site = _parse_symbol(parser)
        parser.parse_keyword("engine")
        engine = parser.parse_str_literal()
        origin = None
        if parser.parse_optional_keyword("origin") is not None:
            pos = parser.pos
            origin = parser.parse_attribute()
            if not isinstance(origin, AffineMapAttr):
                parser.raise_error(f"the origin of a tile is an affine map, got {origin}", pos, parser.pos)
        scalars: list[SymbolRefAttr] = []
        if parser.parse_optional_keyword("scalars") is not None:
            scalars = _parse_symbols(parser, parser.Delimiter.PAREN)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_optional_region()
        op = cls(
            name.data, kind, inputs, outputs, site, engine, None if region is None else _single_block(region),
            origin=origin, scalars=scalars,
        )
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(f" {self.kind_name}")
        if self.kind_name == "compute" or len(self.inputs.data) != 1:
            printer.print_string("(")
            _print_symbols(printer, self.inputs.data)
            printer.print_string(")")
        else:
            printer.print_string(" ")
            _print_symbols(printer, self.inputs.data)
        printer.print_string(" -> ")
        _print_symbols(printer, self.outputs.data)
        printer.print_string(" on ")
        printer.print_symbol_name(_name(self.site))
        printer.print_string(" engine ")
        printer.print_string_literal(self.engine.data)
        if self.origin is not None:
            printer.print_string(" origin ")
            printer.print_attribute(self.origin)
        if self.scalars is not None:
            printer.print_string(" scalars(")
            _print_symbols(printer, self.scalars.data)
            printer.print_string(")")
        _print_attrs(printer, self)
        if self.body is not None:
            printer.print_string(" ")
            printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    def verify_(self) -> None:
        me = f"stage @{self.sym_name.data}"
        kind = self.kind_name
        if kind not in self.KINDS:
            raise VerifyException(f"{me}: unknown kind '{kind}', expected one of: {', '.join(self.KINDS)}")
        site = _resolve(self, self.site, SiteOp, me, "site")
        assert isinstance(site, SiteOp)
        if self.engine.data not in site.engine_names:
            raise VerifyException(
                f"{me} runs on engine \"{self.engine.data}\", which site @{site.sym_name.data} does not have "
                f"(its engines: {', '.join(site.engine_names)})"
            )
        ins, outs = self.inputs.data, self.outputs.data
        arity = {"load": (1, 1), "store": (1, 1), "receive": (1, 1)}
        if kind in arity and (len(ins), len(outs)) != arity[kind]:
            raise VerifyException(
                f"{me}: a {kind} stage has one input and one output, got {len(ins)} and {len(outs)}"
            )
        if kind == "compute" and not outs:
            raise VerifyException(f"{me}: a compute stage writes at least one buffer")
        if self.origin is not None and kind not in ("load", "store"):
            raise VerifyException(f"{me}: only a load or store stage has a tile origin, this is a {kind} stage")
        if self.scalars is not None and kind != "compute":
            raise VerifyException(f"{me}: only a compute stage reads scalars, this is a {kind} stage")
        for ref in self.scalars.data if self.scalars is not None else ():
            _resolve(self, ref, ScalarOp, me, "scalar")
        in_kind: type[Operation] = {"load": TensorOp, "receive": MulticastOp}.get(kind, BufferOp)
        out_kind: type[Operation] = TensorOp if kind == "store" else BufferOp
        in_decls = [_resolve(self, r, in_kind, me, "input") for r in ins]
        out_decls = [_resolve(self, r, out_kind, me, "output") for r in outs]
        for decl in (*in_decls, *out_decls):
            if isinstance(decl, BufferOp) and decl.site != self.site:
                raise VerifyException(
                    f"{me} on site @{site.sym_name.data} uses buffer @{decl.sym_name.data}, which is on site "
                    f"@{_name(decl.site)}: a stage reads and writes the LX of its own site"
                )
        if kind in ("load", "store"):
            tensor, buffer = (in_decls[0], out_decls[0]) if kind == "load" else (out_decls[0], in_decls[0])
            assert isinstance(tensor, TensorOp) and isinstance(buffer, BufferOp)
            t_elem, b_elem = tensor.tensor_type.get_element_type(), buffer.tile.element_type
            if t_elem != b_elem:
                raise VerifyException(
                    f"{me} moves tiles of {b_elem} (buffer @{buffer.sym_name.data}) "
                    f"{'from' if kind == 'load' else 'to'} tensor @{tensor.sym_name.data} of {t_elem}"
                )
            if self.origin is not None:
                self._verify_origin(me, tensor, buffer)
        if kind == "receive":
            self._verify_receive(me, site, in_decls[0], out_decls[0])
        if self.body is not None:
            if kind != "compute":
                raise VerifyException(f"{me}: only a compute stage has a body, this is a {kind} stage")
            self._verify_body(me, in_decls, out_decls)

    def _verify_origin(self, me: str, tensor: TensorOp, buffer: BufferOp) -> None:
        origin = self.origin_map
        assert origin is not None
        rank = len(tensor.tensor_type.get_shape())
        if origin.num_symbols:
            raise VerifyException(
                f"{me}: the origin {format_map(origin)} takes symbols; it is a map of the step's indices only"
            )
        if len(origin.results) != rank:
            raise VerifyException(
                f"{me}: the origin {format_map(origin)} gives {len(origin.results)} coordinate(s), tensor "
                f"@{tensor.sym_name.data} has rank {rank}: one per tensor dim"
            )
        tile_rank = len(buffer.tile.get_shape())
        if tile_rank != rank:
            raise VerifyException(
                f"{me}: with an origin, the tile has the tensor's rank: {buffer.tile.short()} (buffer "
                f"@{buffer.sym_name.data}) has rank {tile_rank}, tensor @{tensor.sym_name.data} rank {rank}"
            )

    def _verify_receive(self, me: str, site: SiteOp, group: Operation, buffer: Operation) -> None:
        assert isinstance(group, MulticastOp) and isinstance(buffer, BufferOp)
        if self.site not in group.targets.data:
            raise VerifyException(
                f"{me} on site @{site.sym_name.data} receives group @{group.sym_name.data}, which does not "
                f"reach that site (its targets: {', '.join('@' + _name(t) for t in group.targets.data)})"
            )
        program = program_of(self)
        reader = program.lookup(_name(group.reader)) if program is not None else None
        if not isinstance(reader, StageOp) or reader.kind_name != "load" or not reader.outputs.data:
            return  # the group's own verifier refuses it
        delivered = program.lookup(_name(reader.outputs.data[0])) if program is not None else None
        if isinstance(delivered, BufferOp) and delivered.tile != buffer.tile:
            raise VerifyException(
                f"{me} receives {delivered.tile.short()} tiles from group @{group.sym_name.data} (reader "
                f"@{reader.sym_name.data} writes buffer @{delivered.sym_name.data}), but its buffer "
                f"@{buffer.sym_name.data} holds {buffer.tile.short()}"
            )

    def _verify_body(self, me: str, in_decls: Sequence[Operation], out_decls: Sequence[Operation]) -> None:
        assert self.body is not None
        if not self.body.blocks:
            return
        block = self.body.block
        tiles = [b.tile.as_tensor() for b in in_decls if isinstance(b, BufferOp)]
        scalars = [
            _resolve(self, r, ScalarOp, me, "scalar").scalar_type  # pyright: ignore[reportAttributeAccessIssue]
            for r in (self.scalars.data if self.scalars is not None else ())
        ]
        got = [a.type for a in block.args]
        head = len(tiles) + len(scalars)
        if got[:head] != [*tiles, *scalars] or not all(isinstance(t, IndexType) for t in got[head:]):
            scalars_text = f", then one value per scalar ({', '.join(map(str, scalars))})" if scalars else ""
            raise VerifyException(
                f"{me}: the body takes one tile per input buffer ({', '.join(map(str, tiles)) or 'none'})"
                f"{scalars_text}, then index arguments only, got ({', '.join(map(str, got))})"
            )
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException(f"{me}: the body ends with a 'spatial.yield' of the output tiles")
        expected = [b.tile.as_tensor() for b in out_decls if isinstance(b, BufferOp)]
        got = [v.type for v in last.values]
        if got != expected:
            raise VerifyException(
                f"{me}: the body yields one tile per output buffer ({', '.join(map(str, expected))}), "
                f"got ({', '.join(map(str, got)) or 'none'})"
            )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`spatial.yield %t : tensor<16x64xf16>`: the output tiles of a compute stage's body."""

    name = "spatial.yield"

    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(StageOp)))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class EdgeOp(IRDLOperation):
    """`spatial.edge @e0 from @ld0 to @cp0 via @b0 : !spatial.tile<16x64xf16>`: the
    stage `from` writes tiles into the buffer `via`, the stage `to` reads them."""

    name = "spatial.edge"

    sym_name = prop_def(SymbolNameConstraint())
    producer = prop_def(FlatSymbolRefAttrConstr, prop_name="from")
    consumer = prop_def(FlatSymbolRefAttrConstr, prop_name="to")
    buffer = prop_def(FlatSymbolRefAttrConstr, prop_name="via")
    tile = prop_def(TileType)
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))
    assembly_format = "$sym_name `from` $from `to` $to `via` $via `:` qualified($tile) attr-dict-with-keyword"

    def __init__(self, name: str, producer: str | SymbolRefAttr, consumer: str | SymbolRefAttr,
                 buffer: str | SymbolRefAttr, tile: TileType):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "from": _ref(producer),
                "to": _ref(consumer),
                "via": _ref(buffer),
                "tile": tile,
            }
        )

    def verify_(self) -> None:
        me = f"edge @{self.sym_name.data}"
        producer = _resolve(self, self.producer, StageOp, me, "producer")
        consumer = _resolve(self, self.consumer, StageOp, me, "consumer")
        buffer = _resolve(self, self.buffer, BufferOp, me, "buffer")
        assert isinstance(producer, StageOp) and isinstance(consumer, StageOp) and isinstance(buffer, BufferOp)
        b = f"@{buffer.sym_name.data}"
        if producer is consumer:
            raise VerifyException(f"{me} joins stage @{producer.sym_name.data} to itself: an edge joins two stages")
        if buffer.is_local:
            raise VerifyException(
                f"{me} goes via local buffer {b}: an edge joins two engines through a FIFO buffer, a local is one "
                "engine's variable"
            )
        if buffer.tile != self.tile:
            raise VerifyException(f"{me} carries {self.tile.short()} but its buffer {b} holds {buffer.tile.short()}")
        if self.buffer not in producer.outputs.data:
            raise VerifyException(
                f"{me} is from stage @{producer.sym_name.data}, which does not write its buffer {b}"
            )
        if self.buffer not in consumer.inputs.data:
            raise VerifyException(f"{me} is to stage @{consumer.sym_name.data}, which does not read its buffer {b}")


@irdl_op_definition
class MulticastOp(IRDLOperation):
    """`spatial.multicast @g0 reader @ld0 to [@s1, @s2]`: one load, its tiles
    delivered to several sites. The reader (a load stage) reads each tile from
    HBM once and writes it into its own output buffer and into the output
    buffer of the group's receive stage on each target site
    (`spatial.stage @rv1 receive @g0 -> @b1 on @s1 engine "load"`), one
    receive stage per target; the reader's own site is not a target. The
    delivery happens at the reader's `load_step`: a receive stage takes no
    step of its own (`spatial.recv_step` is a marker that does not run)."""

    name = "spatial.multicast"

    sym_name = prop_def(SymbolNameConstraint())
    reader = prop_def(FlatSymbolRefAttrConstr)
    targets = prop_def(ArrayAttr[SymbolRefAttr])
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))
    assembly_format = "$sym_name `reader` $reader `to` $targets attr-dict-with-keyword"

    def __init__(self, name: str, reader: str | SymbolRefAttr, targets: Sequence[str | SymbolRefAttr]):
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "reader": _ref(reader),
                "targets": ArrayAttr([_ref(t) for t in targets]),
            }
        )

    def verify_(self) -> None:
        me = f"multicast group @{self.sym_name.data}"
        reader = _resolve(self, self.reader, StageOp, me, "reader")
        assert isinstance(reader, StageOp)
        if reader.kind_name != "load":
            raise VerifyException(
                f"{me}: reader @{reader.sym_name.data} is a {reader.kind_name} stage, expected a load stage"
            )
        targets = self.targets.data
        if not targets:
            raise VerifyException(f"{me} has no target site")
        names = [_name(t) for t in targets]
        if len(set(names)) != len(names):
            raise VerifyException(f"{me}: target sites must be distinct, got [{', '.join('@' + n for n in names)}]")
        for t in targets:
            _resolve(self, t, SiteOp, me, "target")
        if reader.site in targets:
            raise VerifyException(
                f"{me}: reader @{reader.sym_name.data} is on site @{_name(reader.site)}, one of its targets: the "
                "reader keeps each tile in its own output buffer, the targets are the other sites"
            )
        program = program_of(self)
        assert program is not None
        receivers = [s for s in _declarations(program).receivers.get(self.sym_name.data, []) if isinstance(s, StageOp)]
        for t in names:
            mine = [s.sym_name.data for s in receivers if _name(s.site) == t]
            if len(mine) != 1:
                have = "no receive stage" if not mine else f"{len(mine)} receive stages ({', '.join('@' + n for n in mine)})"
                raise VerifyException(
                    f"{me}: target site @{t} has {have} of the group: each target site takes the tiles with "
                    "exactly one 'receive' stage"
                )


@irdl_op_definition
class SemaphoreOp(IRDLOperation):
    """`spatial.semaphore @full0 on @s0 init 0`: a counting semaphore of a site."""

    name = "spatial.semaphore"

    sym_name = prop_def(SymbolNameConstraint())
    site = prop_def(FlatSymbolRefAttrConstr)
    init = prop_def(IntegerAttr[I64])
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))
    assembly_format = "$sym_name `on` $site `init` $init attr-dict-with-keyword"

    def __init__(self, name: str, site: str | SymbolRefAttr, init: int = 0):
        super().__init__(properties={"sym_name": StringAttr(name), "site": _ref(site), "init": _i64(init)})

    def verify_(self) -> None:
        me = f"semaphore @{self.sym_name.data}"
        init = _int(self.init)
        if init is None or init < 0:
            raise VerifyException(f"{me}: init must be non-negative, got {init}")
        _resolve(self, self.site, SiteOp, me, "site")


@irdl_op_definition
class TripOp(IRDLOperation):
    """A loop count the program reads from its own data (seed 004's `Trip`):

        spatial.trip @t from @x[ELEM] per P bias B admit [LO, HI]
        spatial.trip @t from @n_rows per P bias B admit [LO, HI] granularity G

    v is element ELEM (a flat, row-major index) of the integer tensor @x, or
    the value of the index or integer `spatial.scalar` @n (a runtime input);
    either is a program argument, set before the program runs and never
    written by it. Every `spatial.loop %k = 0 to trip(@t)` runs
    n = ceil((v + B) / P) times (0 when v + B <= 0). The program admits the
    values LO ..= HI that are multiples of G (default 1) only: any other is
    refused before anything runs, never clamped or wrapped. Every static
    question takes the greatest count, ceil((HI + B) / P) (`greatest_count`).

    An `scf.for %i = %lb to %n step %s` of a kernel, with %lb and %s fixed per
    site, is `from @n per s bias -lb` (spatial-tile)."""

    name = "spatial.trip"

    sym_name = prop_def(SymbolNameConstraint())
    tensor = prop_def(FlatSymbolRefAttrConstr)
    elem = prop_def(IntegerAttr[I64])
    per = prop_def(IntegerAttr[I64])
    bias = prop_def(IntegerAttr[I64])
    admit = prop_def(DenseArrayBase.constr(i64))
    granularity = opt_prop_def(IntegerAttr[I64])
    traits = lazy_traits_def(lambda: (SymbolOpInterface(), HasParent(ProgramOp)))

    def __init__(
        self,
        name: str,
        tensor: str | SymbolRefAttr,
        elem: int | None,
        per: int,
        bias: int,
        admit: Sequence[int],
        granularity: int | None = None,
    ):
        """`elem` None: the trip reads a scalar (`tensor` names a `spatial.scalar`)."""
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "tensor": _ref(tensor),
            "elem": _i64(-1 if elem is None else elem),
            "per": _i64(per),
            "bias": _i64(bias),
            "admit": DenseArrayBase.from_list(i64, list(admit)),
        }
        if granularity is not None:
            props["granularity"] = _i64(granularity)
        super().__init__(properties=props)

    @property
    def element(self) -> int:
        """The flat element index read from a tensor (-1 when the trip reads a scalar)."""
        return int(self.elem.value.data)

    @property
    def reads_scalar(self) -> bool:
        return self.element < 0

    @property
    def source_name(self) -> str:
        return _name(self.tensor)

    @property
    def per_value(self) -> int:
        return int(self.per.value.data)

    @property
    def bias_value(self) -> int:
        return int(self.bias.value.data)

    @property
    def granularity_value(self) -> int:
        return 1 if self.granularity is None else int(self.granularity.value.data)

    @property
    def admitted(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.admit.get_values())

    def refusal(self, value: int) -> str | None:
        """Why `value` is not admitted (None: it is)."""
        lo, hi = self.admitted
        if not lo <= value <= hi:
            return f"outside the admitted range [{lo}, {hi}]"
        g = self.granularity_value
        if value % g:
            return f"not a multiple of the admitted granularity {g}"
        return None

    def count(self, value: int) -> int:
        """Iterations of a loop run to this trip when the tensor holds `value`:
        ceil((value + bias) / per), and 0 when value + bias <= 0."""
        total = value + self.bias_value
        return 0 if total <= 0 else -(-total // self.per_value)

    @property
    def greatest_count(self) -> int:
        """The count at the greatest admitted value, the bound every static question takes."""
        return self.count(self.admitted[-1])

    @classmethod
    def parse(cls, parser: Parser) -> TripOp:
        name = parser.parse_symbol_name()
        parser.parse_keyword("from")
        source = _parse_symbol(parser)
        elem = None
        if parser.parse_optional_punctuation("[") is not None:
            elem = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation("]")
        parser.parse_keyword("per")
        per = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("bias")
        bias = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("admit")
        admit = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        granularity = None
        if parser.parse_optional_keyword("granularity") is not None:
            granularity = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name.data, source, elem, per, bias, admit, granularity)
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" from ")
        printer.print_symbol_name(self.source_name)
        if not self.reads_scalar:
            printer.print_string(f"[{self.element}]")
        admit = ", ".join(map(str, self.admitted))
        printer.print_string(f" per {self.per_value} bias {self.bias_value} admit [{admit}]")
        if self.granularity is not None:
            printer.print_string(f" granularity {self.granularity_value}")
        _print_attrs(printer, self)

    def verify_(self) -> None:
        me = f"trip @{self.sym_name.data}"
        program = program_of(self)
        found = program.lookup(self.source_name) if program is not None else None
        if isinstance(found, ScalarOp):
            if not self.reads_scalar:
                raise VerifyException(f"{me}: @{self.source_name} is a scalar: it has no element [{self.element}]")
            if not isinstance(found.scalar_type, IndexType | IntegerType):
                raise VerifyException(
                    f"{me}: scalar @{self.source_name} must be an index or integer (a count is read from it), got "
                    f"{found.scalar_type}"
                )
        else:
            tensor = _resolve(self, self.tensor, TensorOp, me, "tensor")
            assert isinstance(tensor, TensorOp)
            ty = tensor.tensor_type
            assert isinstance(ty, MemRefType)
            if not isinstance(ty.get_element_type(), IntegerType):
                raise VerifyException(
                    f"{me}: tensor @{_name(self.tensor)} must have integer elements (a count is read from it), "
                    f"got {ty}"
                )
            shape = tuple(ty.get_shape())
            if any(d < 0 for d in shape):
                raise VerifyException(f"{me}: tensor @{_name(self.tensor)} must have a static shape, got {ty}")
            size = math.prod(shape)
            if not 0 <= self.element < size:
                raise VerifyException(
                    f"{me}: element {self.element} is outside tensor @{_name(self.tensor)} "
                    f"({size} element(s), flat indices 0 to {size - 1})"
                )
        if self.per_value <= 0:
            raise VerifyException(f"{me}: per must be positive, got {self.per_value}")
        if self.granularity_value <= 0:
            raise VerifyException(f"{me}: granularity must be positive, got {self.granularity_value}")
        admitted = self.admitted
        if len(admitted) != 2:
            raise VerifyException(f"{me}: admit takes two values [LO, HI], got {list(admitted)}")
        if admitted[0] > admitted[1]:
            raise VerifyException(f"{me}: the admitted range [{admitted[0]}, {admitted[1]}] is empty (LO > HI)")


@irdl_op_definition
class EngineOp(IRDLOperation):
    """`spatial.engine @s0 "load" { choreography }`: what one engine of one site
    runs, in order (loops, waits, signals, steps of its stages)."""

    name = "spatial.engine"

    site = prop_def(FlatSymbolRefAttrConstr)
    engine = prop_def(StringAttr)
    body = region_def("single_block")
    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(ProgramOp)))

    def __init__(self, site: str | SymbolRefAttr, engine: str, body: Region | Block | Sequence[Operation] = ()):
        if isinstance(body, Region):
            region = _single_block(body)
        elif isinstance(body, Block):
            region = Region(body)
        else:
            region = Region(Block(list(body)))
        super().__init__(properties={"site": _ref(site), "engine": StringAttr(engine)}, regions=[region])

    @classmethod
    def parse(cls, parser: Parser) -> EngineOp:
        site = _parse_symbol(parser)
        engine = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(site, engine, parser.parse_region())
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_name(self.site))
        printer.print_string(" ")
        printer.print_string_literal(self.engine.data)
        _print_attrs(printer, self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def describe(self) -> str:
        return f'engine "{self.engine.data}" of site @{_name(self.site)}'

    def verify_(self) -> None:
        me = self.describe()
        site = _resolve(self, self.site, SiteOp, me, "site")
        assert isinstance(site, SiteOp)
        if self.engine.data not in site.engine_names:
            raise VerifyException(
                f"{me}: site @{site.sym_name.data} has no engine \"{self.engine.data}\" "
                f"(its engines: {', '.join(site.engine_names)})"
            )
        if self.body.blocks and self.body.block.args:
            raise VerifyException(f"{me}: the body takes no arguments")
        _check_choreography(self.body, me)
        program = program_of(self)
        assert program is not None
        first = _declarations(program).engines.get((_name(self.site), self.engine.data))
        if first is not None and first is not self:
            raise VerifyException(f"{me} has two choreographies: one 'spatial.engine' per (site, engine)")


# ===========================================================================
# Choreography
# ===========================================================================


def _check_choreography(body: Region, me: str) -> None:
    for block in body.blocks:
        for op in block.ops:
            if not isinstance(op, CHOREOGRAPHY):
                raise VerifyException(
                    f"{me} holds choreography ops only ({', '.join(c.name for c in CHOREOGRAPHY)}), "
                    f"found '{op.name}'"
                )


def enclosing_engine(op: Operation) -> EngineOp | None:
    current = op.parent_op()
    while current is not None and not isinstance(current, EngineOp):
        current = current.parent_op()
    return current


@irdl_op_definition
class LoopOp(IRDLOperation):
    """`spatial.loop %k = 0 to 8 { ... }`: the body for %k = lower, ..., upper - 1
    (static bounds). `spatial.loop %k = 0 to trip(@t) { ... }`: the upper bound
    is a `spatial.trip`, a count read from the program's data at run time:
    %k = lower, ..., lower + n - 1 for the trip's count n; every static
    question (`bounds`) takes its greatest count."""

    name = "spatial.loop"

    lower = prop_def(IntegerAttr)
    upper = opt_prop_def(IntegerAttr)
    trip = opt_prop_def(FlatSymbolRefAttrConstr)
    body = region_def("single_block")
    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(EngineOp, LoopOp)))

    def __init__(self, lower: int, upper: int | str | SymbolRefAttr, body: Region | Block | None = None):
        if body is None:
            body = Block(arg_types=[IndexType()])
        region = body if isinstance(body, Region) else Region(body)
        bound = {"upper": _i64(upper)} if isinstance(upper, int) else {"trip": _ref(upper)}
        super().__init__(properties={"lower": _i64(lower), **bound}, regions=[region])

    @property
    def iteration(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def trip_name(self) -> str | None:
        """The trip this loop runs to, if its upper bound is one."""
        return None if self.trip is None else _name(self.trip)

    def trip_op(self) -> TripOp | None:
        """The `spatial.trip` this loop runs to (None for static bounds or an unresolved symbol)."""
        if self.trip is None:
            return None
        program = program_of(self)
        found = program.lookup(_name(self.trip)) if program is not None else None
        return found if isinstance(found, TripOp) else None

    @property
    def bounds(self) -> tuple[int, int]:
        """(lower, upper); for a loop run to a trip, upper = lower + the trip's greatest
        count (the bound every static question takes)."""
        lower = int(self.lower.value.data)
        if self.upper is not None:
            return lower, int(self.upper.value.data)
        trip = self.trip_op()
        if trip is None:
            raise VerifyException(f"loop runs to trip @{self.trip_name}, which is not a declared 'spatial.trip'")
        return lower, lower + trip.greatest_count

    def _print_upper(self, printer: Printer) -> None:
        lower = int(self.lower.value.data)
        if self.trip is not None:
            printer.print_string(f"{lower} to trip(")
            printer.print_symbol_name(_name(self.trip))
            printer.print_string(")")
        else:
            printer.print_string(f"{lower} to {_int(self.upper)}")

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        arg = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lower = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("to")
        upper: int | SymbolRefAttr
        if parser.parse_optional_keyword("trip") is not None:
            parser.parse_punctuation("(")
            upper = _parse_symbol(parser)
            parser.parse_punctuation(")")
        else:
            upper = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        resolved = arg.resolve(IndexType())  # pyright: ignore[reportAttributeAccessIssue]
        region = _single_block(parser.parse_region(arguments=[resolved]), [IndexType()])
        op = cls(lower, upper, region)
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.body.blocks and len(self.body.block.args) == 1:
            printer.print_block_argument(self.body.block.args[0], print_type=False)
            printer.print_string(" = ")
            self._print_upper(printer)
            _print_attrs(printer, self)
            printer.print_string(" ")
            printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)
        else:  # malformed (refused by the verifier): print what there is, readable
            printer.print_string("%_ = ")
            self._print_upper(printer)
            _print_attrs(printer, self)
            printer.print_string(" ")
            printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    def verify_(self) -> None:
        lower = int(self.lower.value.data)
        if (self.upper is None) == (self.trip is None):
            raise VerifyException("a loop's upper bound is either a static count or a trip, exactly one of them")
        if self.trip is not None:
            if lower < 0:
                raise VerifyException(f"loop bounds must satisfy 0 <= lower, got {lower} to trip(@{self.trip_name})")
            _resolve(self, self.trip, TripOp, "loop", "trip")
        else:
            upper = _int(self.upper)
            assert upper is not None
            if lower < 0 or upper < lower:
                raise VerifyException(f"loop bounds must satisfy 0 <= lower <= upper, got {lower} to {upper}")
        if not self.body.blocks or [a.type for a in self.body.block.args] != [IndexType()]:
            raise VerifyException("the body takes one index argument, the iteration number")
        _check_choreography(self.body, "a loop")


class _SemaphoreStep(IRDLOperation):
    """`spatial.wait @sem >= N`, `spatial.signal @sem += N`."""

    semaphore = prop_def(FlatSymbolRefAttrConstr)
    count = prop_def(IntegerAttr)
    traits = lazy_traits_def(lambda: (HasParent(EngineOp, LoopOp),))

    SYNTAX: ClassVar[str]
    WORD: ClassVar[str]

    def __init__(self, semaphore: str | SymbolRefAttr, count: int = 1):
        super().__init__(properties={"semaphore": _ref(semaphore), "count": _i64(count)})

    @classmethod
    def parse(cls, parser: Parser):
        semaphore = _parse_symbol(parser)
        parser.parse_punctuation(cls.SYNTAX)  # type: ignore[arg-type]
        parser.parse_punctuation("=")
        count = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(semaphore, count)
        _set_attrs(op, attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(_name(self.semaphore))
        printer.print_string(f" {self.SYNTAX}= {_int(self.count)}")
        _print_attrs(printer, self)

    def verify_(self) -> None:
        self._verify_semaphore(program_of(self))

    def _verify_semaphore(self, program: ProgramOp | None) -> None:
        me = f"{self.WORD} on @{_name(self.semaphore)}"
        count = _int(self.count)
        if count is None or count < 1:
            raise VerifyException(f"{me}: the count must be at least 1, got {count}")
        _resolve(self, self.semaphore, SemaphoreOp, me, "semaphore", program)


@irdl_op_definition
class WaitOp(_SemaphoreStep):
    """`spatial.wait @sem >= N`: block until the semaphore reaches N, then take N."""

    name = "spatial.wait"
    SYNTAX: ClassVar[str] = ">"
    WORD: ClassVar[str] = "wait"

    def verify_(self) -> None:
        program = program_of(self)
        self._verify_semaphore(program)
        assert program is not None
        if not _signalled(program, _name(self.semaphore)):
            raise VerifyException(
                f"wait on @{_name(self.semaphore)}: no engine signals semaphore @{_name(self.semaphore)}, "
                "so the wait never ends"
            )


@irdl_op_definition
class SignalOp(_SemaphoreStep):
    """`spatial.signal @sem += N`: add N to the semaphore."""

    name = "spatial.signal"
    SYNTAX: ClassVar[str] = "+"
    WORD: ClassVar[str] = "signal"


class _StageStep(IRDLOperation):
    """`spatial.<kind>_step @stage [%k, ...]`: one step of a stage, run by the
    engine whose choreography holds it (the stage's own engine and site). The
    indices of a load or store step pick its tile: the dims of the stage's
    `origin` (as many as it has), else tile-grid coordinates. Those of a
    compute step are passed to its body's index arguments (as many as it
    has). A `recv_step` is a marker only: a multicast group's tiles are
    delivered at its reader's load step, and running a recv_step is an
    error."""

    stage = prop_def(FlatSymbolRefAttrConstr)
    indices = var_operand_def(IndexType)
    traits = lazy_traits_def(lambda: (HasParent(EngineOp, LoopOp),))
    assembly_format = "$stage (` ` `[` $indices^ `]`)? attr-dict-with-keyword"

    KIND: ClassVar[str]

    def __init__(self, stage: str | SymbolRefAttr, indices: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(indices)], properties={"stage": _ref(stage)})

    def verify_(self) -> None:
        me = f"{self.name.split('.', 1)[1]} @{_name(self.stage)}"
        stage = _resolve(self, self.stage, StageOp, me, "stage")
        assert isinstance(stage, StageOp)
        if stage.kind_name != self.KIND:
            raise VerifyException(f"{me}: stage @{stage.sym_name.data} is a {stage.kind_name} stage, expected a "
                                  f"{self.KIND} stage")
        engine = enclosing_engine(self)
        if engine is not None and (engine.site != stage.site or engine.engine != stage.engine):
            raise VerifyException(
                f"{me}: stage @{stage.sym_name.data} runs on engine \"{stage.engine.data}\" of site "
                f"@{_name(stage.site)}, not on this {engine.describe()}"
            )
        given = len(self.indices)
        wanted = stage.index_args
        if self.KIND == "compute" and wanted is not None and given != wanted:
            raise VerifyException(
                f"{me}: the body of stage @{stage.sym_name.data} takes {wanted} index argument(s) after its tiles, "
                f"the step gives {given} index(es)"
            )
        origin = stage.origin_map
        if self.KIND in ("load", "store") and origin is not None and given != origin.num_dims:
            raise VerifyException(
                f"{me}: the origin of stage @{stage.sym_name.data} is a map of {origin.num_dims} index(es) "
                f"({format_map(origin)}), the step gives {given}"
            )


@irdl_op_definition
class LoadStepOp(_StageStep):
    name = "spatial.load_step"
    KIND: ClassVar[str] = "load"


@irdl_op_definition
class StoreStepOp(_StageStep):
    name = "spatial.store_step"
    KIND: ClassVar[str] = "store"


@irdl_op_definition
class ComputeStepOp(_StageStep):
    name = "spatial.compute_step"
    KIND: ClassVar[str] = "compute"


@irdl_op_definition
class RecvStepOp(_StageStep):
    name = "spatial.recv_step"
    KIND: ClassVar[str] = "receive"


DECLARATIONS: tuple[type[Operation], ...] = (
    TensorOp,
    ScalarOp,
    SiteOp,
    BufferOp,
    StageOp,
    EdgeOp,
    MulticastOp,
    SemaphoreOp,
    TripOp,
    EngineOp,
)
"""The ops a `spatial.program` holds."""

STEPS: tuple[type[Operation], ...] = (LoadStepOp, StoreStepOp, ComputeStepOp, RecvStepOp)
"""The steps of a stage, one op per stage kind (what a stage's engine runs to move or compute one tile)."""

CHOREOGRAPHY: tuple[type[Operation], ...] = (
    LoopOp,
    WaitOp,
    SignalOp,
    LoadStepOp,
    StoreStepOp,
    ComputeStepOp,
    RecvStepOp,
)
"""The ops of a `spatial.engine`'s body (and of its loops)."""

SPATIAL = Dialect(
    "spatial",
    [ProgramOp, *DECLARATIONS, YieldOp, *CHOREOGRAPHY],
    [TileType],
)
