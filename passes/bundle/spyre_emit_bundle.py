"""spyre-emit-bundle: write the runtime's `bundle.mlir` and its SDSC files.

Two formats (docs/bundle.md). `format=superdsc` (the default) writes torch-spyre's: one SuperDSC
`sdsc_N.json` per compute op (passes/bundle/superdsc_lowering.py decides which ops, slices and
addresses), and a `bundle.mlir` whose `@sdsc_bundle(%arg_0_base_addr: !sdscbundle.input_arg<index>,
...)` computes each core's start address once (`%arg_0_core_2048 = arith.addi %arg_0, ...`) and runs
each SuperDSC once for all cores (`sdsc_execute` with `symbol_ids`), inside `scf.for`s for the
kernel's per-core loops and the groups' tile loops; `scalars="n_rows=4096"` fixes the index scalars
those need (recorded in `@sdsc_bundle`'s `spyre.specialize`); what a SuperDSC cannot say is a
located error. `format=ktir` writes ours, described below: one SDSC file per compute group, holding
the group's KTIR, for the kernels torch-spyre's format cannot express.

Runs on the output of `ktdp-extract-compute-groups` (tiled by
`spyre-coarse-tile`, planned by `spyre-plan-scratchpad`): the kernel
becomes `func.func @sdsc_bundle` with the kernel's parameters, its control
flow kept, and each call of a group a dispatch: the group's counted loops
become an `scf.for` nest, the per-tile HBM addresses `affine.apply`s with
per-loop byte strides, and the group's per-tile body one
`sdscbundle.sdsc_execute` of `sdsc_N.json` (numbered depth-first).

Before:

    func.func @add_mul(%a: index, %z: index) {
      func.call @local_schedule_0(%a, %z) : (index, index) -> ()
    }
    func.func @local_schedule_0(%a: index, %z: index) {
      spyre_loop.loop count(2) tiled_dims [1] tile_sizes [16] {
      ^bb0(%k: index):
        %base = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 1024)>(%k)[%a]
        ... the tile's loads, computes, stores ...
      }
    }

After (`DIR/bundle.mlir`):

    func.func @sdsc_bundle(%a: index, %z: index) attributes {spyre.kernel = "add_mul", ...} {
      %sym = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%a]      // the byte address of a
      scf.for %i = %c0 to %loop_bound step %c1 {
        %0 = affine.apply affine_map<(d0)[s0] -> (s0 + d0 * 2048)>(%i)[%sym]
        "sdscbundle.sdsc_execute"(%0, ...) {sdsc_filename = "sdsc_0.json"} : (index, ...) -> ()
      }
    }

and `DIR/sdsc_0.json`: what the op computes (`"ktir"`: the per-tile body as a
function of the dispatched operands, which takes byte addresses), its ops
with their arguments' device sizes and allocations (`hbm` argument or `lx`
offset), the iteration space per tile, the core split, the loops and the
peak LX per core. Addresses in the bundle are bytes; the kernel's pointer
arguments are element offsets of their element type (KTDP-SEMANTICS §2),
converted once at the top. The module becomes the bundle (what `spyre-opt`
prints). A symbolic trip count is refused with a located error; so is a
module with other than one kernel.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import affine, arith, func, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap, AffineSymExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from spyre_mlir.analysis.affine import Linear, linear_form
from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import (
    ConstructAccessTileOp,
    ConstructMemoryViewOp,
    LoadOp,
    StoreOp,
    normalized_memory_space,
)
from spyre_mlir.dialects.sdscbundle import InputArgExtractOp, InputArgType, SdscExecuteOp
from spyre_mlir.dialects.spyre import (
    CORE_SPLIT_ATTR,
    KERNEL_ATTR,
    LX_OFFSET_ATTR,
    LX_SPILLED_ATTR,
    PEAK_LX_BYTES_ATTR,
    SPECIALIZE_ATTR,
)
from spyre_mlir.dialects.spyre_loop import LoopOp
from spyre_mlir.ir import print_ir, replace_module_body
from spyre_mlir.passes.bundle import superdsc_lowering
from spyre_mlir.passes.contracts import is_group, require_groups
from spyre_mlir.passes.options import parse_scalars
from spyre_mlir.target import Target, TargetError, target_of

SDSC_FORMAT = "spyre-mlir.sdsc/1"


def _element_bytes(view: Operation, target: Target) -> int:
    """Bytes of an element of the memref `view` (a view op) makes; a located error without a width."""
    memref = view.results[0].type
    assert isinstance(memref, MemRefType)
    try:
        return target.element_bytes(memref.get_element_type())
    except TargetError as exc:
        raise error(view, f"cannot address {memref}: {exc}") from None


@dataclass
class Argument:
    """One operand of an sdsc_execute, in the SDSC function's parameter order."""

    name: str
    kind: str  # "hbm_address" | "index"
    source: SSAValue | Operation  # group value (param / IV) or hoisted address op
    width: int = 0  # bytes per element of the view it addresses


@dataclass
class Dispatch:
    group: func.FuncOp
    loops: list[LoopOp]
    body: Block
    arguments: list[Argument] = field(default_factory=list)


def _nest(group: func.FuncOp) -> tuple[list[LoopOp], Block]:
    """The group's perfectly nested counted loops, outermost first, and the per-tile block."""
    loops: list[LoopOp] = []
    block = group.body.block
    while True:
        ops = [op for op in block.ops if not isinstance(op, func.ReturnOp)]
        if len(ops) == 1 and isinstance(ops[0], LoopOp):
            loop = ops[0]
            if loop.count_value is not None:
                raise error(
                    loop, "a symbolic trip count cannot go into the bundle: its loops are counted at compile time"
                )
            loops.append(loop)
            block = loop.body.block
            continue
        return loops, block


def _global_view_bases(value: SSAValue) -> bool:
    """Every use of `value` is the base of a view of global memory (an HBM address)."""
    uses = list(value.uses)
    if not uses:
        return False
    for use in uses:
        op = use.operation
        if not isinstance(op, ConstructMemoryViewOp) or use.index != 0:
            return False
        space = normalized_memory_space(op.memory_space)
        if space is not None and not space.is_global:
            return False
    return True


def _view_width(value: SSAValue, target: Target) -> int:
    widths = {_element_bytes(u.operation, target) for u in value.uses}
    return widths.pop() if len(widths) == 1 else 0


def _plan(group: func.FuncOp, target: Target) -> Dispatch:
    loops, body = _nest(group)
    d = Dispatch(group, loops, body)
    ivs = {loop.iteration: k for k, loop in enumerate(loops)}
    params = set(group.body.block.args)
    seen: dict[SSAValue, Argument] = {}
    hoisted: set[Operation] = set()
    for op in body.walk():
        if (
            isinstance(op, affine.ApplyOp)
            and op.parent_block() is body
            and all(v in ivs or v in params for v in op.operands)
            and _global_view_bases(op.result)
            and _view_width(op.result, target)
        ):
            base = op.operands[-1].name_hint or "addr"
            arg = Argument(_unique(f"{base}_tile", d.arguments), "hbm_address", op, _view_width(op.result, target))
            d.arguments.append(arg)
            hoisted.add(op)
            continue
        if _inside(op, hoisted):
            continue
        for v in op.operands:
            if v in seen or not _defined_outside(v, body):
                continue
            name = _unique(_name(v, len(d.arguments)), d.arguments)
            if v in params and _global_view_bases(v) and _view_width(v, target):
                arg = Argument(name, "hbm_address", v, _view_width(v, target))
            elif isinstance(v.type, IndexType):
                arg = Argument(name, "index", v)
            elif isinstance(v.type, IntegerType | AnyFloat):
                arg = Argument(name, "scalar", v)
            else:
                raise error(op, f"the per-tile body uses a {v.type} from outside it; only scalars can be dispatched")
            seen[v] = arg
            d.arguments.append(arg)
    return d


def _type_of(arg: Argument):
    return arg.source.type if isinstance(arg.source, SSAValue) and arg.kind == "scalar" else IndexType()


def _inside(op: Operation, ops: set[Operation]) -> bool:
    return op in ops


def _name(v: SSAValue, k: int) -> str:
    return v.name_hint or f"arg_n{k}"


def _unique(name: str, taken: list[Argument]) -> str:
    """`name`, or with a suffix the printer keeps (it drops a bare `_<digits>`)."""
    names = {a.name for a in taken}
    n = 2
    candidate = name
    while candidate in names:
        candidate, n = f"{name}_n{n}", n + 1
    return candidate


def _defined_outside(v: SSAValue, block: Block) -> bool:
    """Defined outside the per-tile block, or one of its arguments (the group's parameters, a tile number)."""
    owner = v.owner
    if owner is block:
        return True
    at = owner if isinstance(owner, Block) else owner.parent_block()
    while at is not None:
        if at is block:
            return False
        parent = at.parent_op()
        at = parent.parent_block() if parent is not None else None
    return True


def _linear(op: affine.ApplyOp, nloops: int) -> tuple[int, list[int], int] | None:
    """(constant, per-dim coefficients, coefficient of the symbol) of an affine map of dims and one symbol;
    None when the map is not linear (`d0 mod 8`: the one linearizer, analysis/affine.linear_form, decides)."""
    amap = op.map.data
    if amap.num_symbols != 1 or len(amap.results) != 1:
        return None
    nd = amap.num_dims
    form = linear_form(amap.results[0], [Linear(0, {i: 1}) for i in range(nd)], [Linear(0, {"s0": 1})])
    if form is None:
        return None
    return form.const, [form.terms.get(i, 0) for i in range(nd)], form.terms.get("s0", 0)


# --------------------------------------------------------------------------


class Emitter:
    indent = 2
    """JSON indentation of the SDSC files (torch-spyre writes its SuperDSCs with 1)."""

    def __init__(self, module: ModuleOp, out_dir: str, kernel: str | None = None):
        self.module = module
        self.kernel_name = kernel
        self.out_dir = out_dir
        self.target = target_of(module)
        self.files: dict[str, dict] = {}
        self.count = 0

    def kernel(self) -> func.FuncOp:
        kernels = [
            op
            for op in self.module.walk()
            if isinstance(op, func.FuncOp)
            and op.body.blocks
            and not is_group(op)
            and (op.sym_visibility is None or op.sym_visibility.data == "public")
        ]
        if self.kernel_name is not None:
            chosen = [k for k in kernels if k.sym_name.data == self.kernel_name]
            if not chosen:
                names = ", ".join("@" + k.sym_name.data for k in kernels) or "none"
                raise error(self.module, f"no kernel @{self.kernel_name} in the module (kernels: {names})")
            return chosen[0]
        if len(kernels) != 1:
            names = ", ".join("@" + k.sym_name.data for k in kernels) or "none"
            raise error(
                kernels[1] if len(kernels) > 1 else self.module,
                f"a bundle holds one kernel; the module has {len(kernels)} ({names}): choose one with kernel=NAME",
            )
        return kernels[0]

    def run(self) -> ModuleOp:
        groups = {op.sym_name.data: op for op in require_groups(self.module, SpyreEmitBundlePass.name)}
        kernel = self.kernel()
        bundle_fn = kernel.clone()
        bundle_fn.sym_name = StringAttr("sdsc_bundle")
        bundle_fn.attributes[KERNEL_ATTR] = StringAttr(kernel.sym_name.data)
        block = bundle_fn.body.block
        self.top = block
        self.prologue_last: Operation | None = None
        self.bytes_of: dict[tuple[SSAValue, int], SSAValue] = {}
        self.constants: dict[int, SSAValue] = {}
        calls = [op for op in bundle_fn.walk() if isinstance(op, func.CallOp)]
        for call in calls:
            name = call.callee.root_reference.data
            group = groups.get(name)
            if group is None:
                raise error(call, f"the kernel calls @{name}, which is not an extracted compute group")
            self.dispatch(call, group)
        bundle = ModuleOp([bundle_fn])
        return bundle

    # -- bundle-side values ---------------------------------------------------

    def _const(self, n: int) -> SSAValue:
        if n not in self.constants:
            c = arith.ConstantOp(IntegerAttr(n, IndexType()))
            self._prologue(c)
            self.constants[n] = c.result
        return self.constants[n]

    def _prologue(self, op: Operation) -> None:
        """Constants and byte addresses of the arguments open the bundle, in order of need."""
        from xdsl.rewriter import InsertPoint

        at = InsertPoint.after(self.prologue_last) if self.prologue_last is not None else InsertPoint.at_start(self.top)
        Rewriter.insert_op(op, at)
        self.prologue_last = op

    def _bytes(self, value: SSAValue, width: int, call: func.CallOp) -> SSAValue:
        """`value` (an element offset) as a byte address, once per (value, width)."""
        key = (value, width)
        if key not in self.bytes_of:
            amap = AffineMap(0, 1, (AffineSymExpr(0) * width,))
            op = affine.ApplyOp([value], AffineMapAttr(amap))
            op.result.name_hint = f"sym_{len(self.bytes_of)}"
            if isinstance(value, BlockArgument) and value.block is self.top:
                self._prologue(op)
            else:
                Rewriter.insert_op(op, _before(call))
            self.bytes_of[key] = op.result
        return self.bytes_of[key]

    # -- one dispatch ----------------------------------------------------------

    def dispatch(self, call: func.CallOp, group: func.FuncOp) -> None:
        plan = _plan(group, self.target)
        mapping: dict[SSAValue, SSAValue] = dict(zip(group.body.block.args, call.arguments))
        # The loop nest.
        at_op: Operation = call
        ivs: list[SSAValue] = []
        c0, c1 = self._const(0), self._const(1)
        for k, loop in enumerate(plan.loops):
            bound = arith.ConstantOp(IntegerAttr(loop.static_count, IndexType()))
            bound.result.name_hint = f"loop_bound_{k}"
            body = Block(arg_types=[IndexType()])
            body.args[0].name_hint = f"i_{k}"
            body.add_op(scf.YieldOp())
            loop_op = scf.ForOp(c0, bound.result, c1, [], Region(body))
            Rewriter.insert_op([bound, loop_op], _before(at_op))
            mapping[loop.iteration] = body.args[0]
            ivs.append(body.args[0])
            at_op = body.last_op
        operands: list[SSAValue] = []
        for arg in plan.arguments:
            if isinstance(arg.source, affine.ApplyOp):
                operands.append(self._address(arg.source, arg.width, mapping, at_op, call, group))
            elif arg.kind == "hbm_address":
                operands.append(self._bytes(mapping[arg.source], arg.width, call))
            else:
                operands.append(mapping[arg.source])
        number = self.count
        self.count += 1
        filename = f"sdsc_{number}.json"
        execute = SdscExecuteOp(operands, filename)
        execute.location = call.location
        Rewriter.insert_op(execute, _before(at_op))
        call.detach()
        call.erase()
        self.files[filename] = self.sdsc(number, plan)

    def _address(
        self, apply: affine.ApplyOp, width: int, mapping, at_op: Operation, call: func.CallOp, group
    ) -> SSAValue:
        nloops = apply.map.data.num_dims
        lin = _linear(apply, nloops)
        if lin is None:
            raise error(apply, "a tile address is not affine in the loop numbers")
        const, coeffs, sym = lin
        if sym != 1:
            raise error(apply, "a tile address must advance its base pointer by loop offsets")
        base = self._bytes(mapping[apply.operands[-1]], width, call)
        dims = [mapping[v] for v in apply.operands[:-1]]
        expr = AffineSymExpr(0) + const * width
        for k, c in enumerate(coeffs):
            if c:
                expr = expr + AffineDimExpr(k) * (c * width)
        op = affine.ApplyOp([*dims, base], AffineMapAttr(AffineMap(len(dims), 1, (expr,))))
        Rewriter.insert_op(op, _before(at_op))
        return op.result

    # -- the SDSC file ------------------------------------------------------------

    def sdsc(self, number: int, plan: Dispatch) -> dict:
        entry = f"sdsc_{number}"
        fn = func.FuncOp(entry, ([_type_of(a) for a in plan.arguments], []))
        grid = plan.group.attributes.get("grid")
        if grid is not None:
            fn.attributes["grid"] = grid
        block = fn.body.block
        mapping: dict[SSAValue, SSAValue] = {}
        for arg, param in zip(plan.arguments, block.args):
            param.name_hint = arg.name
            if arg.kind == "hbm_address":
                width = arith.ConstantOp(IntegerAttr(arg.width, IndexType()))
                elements = arith.DivUIOp(param, width.result)  # the view's unit: its own elements
                block.add_ops([width, elements])
                target = arg.source.result if isinstance(arg.source, affine.ApplyOp) else arg.source
                mapping[target] = elements.result
            else:
                mapping[arg.source] = param  # pyright: ignore[reportArgumentType]
        hoisted = {a.source for a in plan.arguments if isinstance(a.source, affine.ApplyOp)}
        for op in plan.body.ops:
            if op in hoisted or isinstance(op, func.ReturnOp):
                continue
            block.add_op(op.clone(mapping))
        block.add_op(func.ReturnOp())
        # The functions the group calls live beside it in its module (extraction copies them there).
        holder = plan.group.parent_op()
        callees = (
            [op.clone() for op in holder.ops if isinstance(op, func.FuncOp) and op is not plan.group] if holder else []
        )
        text = print_ir(ModuleOp([fn, *callees]))
        return {
            "format": SDSC_FORMAT,
            "entry": entry,
            "group": plan.group.sym_name.data,
            "arguments": [
                {"name": a.name, "kind": a.kind} | ({"bytes_per_element": a.width} if a.width else {})
                for a in plan.arguments
            ],
            "loops": [
                {
                    "count": loop.static_count,
                    "tiled_dims": list(loop.tiled_dims.get_values()),
                    "tile_sizes": list(loop.tile_sizes.get_values()),
                }
                for loop in plan.loops
            ],
            "iteration_space": _iteration_space(plan.body),
            "core_split": _core_split(plan.group),
            "ops": _ops(plan.body, plan),
            "peak_lx_bytes_per_core": _peak(plan.group),
            "ktir": text,
        }

    def write(self, bundle: ModuleOp) -> None:
        try:
            os.makedirs(self.out_dir, exist_ok=True)
            stale = _our_sdsc_files(self.out_dir) - set(self.files)
            for name, content in self.files.items():
                with open(os.path.join(self.out_dir, name), "w") as f:
                    json.dump(content, f, indent=self.indent)
                    f.write("\n")
            with open(os.path.join(self.out_dir, "bundle.mlir"), "w") as f:
                f.write(print_ir(bundle, generic_dialects=_not_upstream(bundle)))
                f.write("\n")
            # An earlier bundle's SDSC files that this one does not execute would lie beside it.
            for name in sorted(stale):
                os.remove(os.path.join(self.out_dir, name))
        except OSError as exc:
            raise error(self.module, f"spyre-emit-bundle: cannot write to '{self.out_dir}': {exc.strerror}") from None


UPSTREAM_DIALECTS = frozenset(
    {"builtin", "func", "arith", "scf", "affine", "math", "index", "cf", "memref", "tensor", "linalg"}
)
"""Dialects upstream MLIR registers (mlir-opt, iree-opt): printed in their custom form in bundle.mlir."""

_SDSC_NAME = re.compile(r"sdsc_[0-9]+\.json")


def _not_upstream(module: ModuleOp) -> set[str]:
    """The dialects of `module`'s ops that upstream MLIR does not know: bundle.mlir prints them
    generic, so `mlir-opt --allow-unregistered-dialect` reads the file (docs/bundle.md)."""
    return {op.dialect_name() for op in module.walk()} - UPSTREAM_DIALECTS


def _our_sdsc_files(out_dir: str) -> set[str]:
    """The `sdsc_N.json` files in `out_dir` that an emitter wrote (regular files whose "format"
    is ours); anything else there is left alone."""
    found = set()
    for name in os.listdir(out_dir):
        path = os.path.join(out_dir, name)
        if not _SDSC_NAME.fullmatch(name) or os.path.islink(path) or not os.path.isfile(path):
            continue
        try:
            with open(path) as f:
                content = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(content, dict) and content.get("format") == SDSC_FORMAT:
            found.add(name)
        elif isinstance(content, dict) and len(content) == 1:
            (body,) = content.values()
            handle = body.get("debug_handle_") if isinstance(body, dict) else None
            if isinstance(handle, dict) and handle.get("emitter") == EMITTER_MARK:
                found.add(name)
    return found


def _before(op: Operation):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


def _peak(group: func.FuncOp) -> int | None:
    attr = group.attributes.get(PEAK_LX_BYTES_ATTR)
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else None


def _core_split(group: func.FuncOp):
    attr = group.attributes.get(CORE_SPLIT_ATTR)
    if isinstance(attr, DictionaryAttr):
        return {k: _plain(v) for k, v in attr.data.items()}
    return None


def _plain(attr):
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    if isinstance(attr, ArrayAttr):
        return [_plain(a) for a in attr.data]
    if isinstance(attr, StringAttr):
        return attr.data
    return str(attr)


def _iteration_space(body: Block) -> list[int] | None:
    for op in body.walk():
        if isinstance(op, StoreOp) and isinstance(op.data_tile.type, TensorType):
            return list(op.data_tile.type.get_shape())
    return None


def _allocation(value: SSAValue, plan: Dispatch) -> dict:
    """Where a compute's tensor operand comes from or its result goes: an HBM argument or an LX offset."""
    tile = None
    if isinstance(value.owner, LoadOp):
        tile = value.owner.access_tile
    else:
        for use in value.uses:
            if isinstance(use.operation, StoreOp):
                tile = use.operation.access_tile
                break
    if tile is None or not isinstance(tile.owner, ConstructAccessTileOp):
        owner = value.owner
        spilled = isinstance(owner, Operation) and LX_SPILLED_ATTR in owner.attributes
        return {"allocation": {"hbm_spill": True} if spilled else "chained"}
    view = tile.owner.base.owner
    if not isinstance(view, ConstructMemoryViewOp):
        return {"allocation": "unknown"}
    sizes = list(view.static_sizes.get_values()) if not view.sizes else None
    info: dict = {"device_size": sizes, "device_dtype": str(view.result.type.get_element_type())}  # pyright: ignore[reportAttributeAccessIssue]
    if LX_OFFSET_ATTR in view.attributes:
        info["allocation"] = {"lx": _plain(view.attributes[LX_OFFSET_ATTR])}
        return info
    base = view.offset
    for arg in plan.arguments:
        target = arg.source.result if isinstance(arg.source, affine.ApplyOp) else arg.source
        if target is base:
            info["allocation"] = {"hbm": arg.name}
            return info
    info["allocation"] = {"hbm": None}
    return info


def _ops(body: Block, plan: Dispatch) -> list[dict]:
    ops = []
    # Where a compute's result is built (tensor.empty, splats, constants) is not an input.
    inits = {o for o in body.ops if o.name in ("tensor.empty", "tensor.splat", "arith.constant")}
    for op in body.walk():
        if op.parent_block() is not body or isinstance(op, (LoadOp, StoreOp)):
            continue
        tensors_out = [r for r in op.results if isinstance(r.type, TensorType)]
        if not tensors_out or op.name in ("tensor.empty", "tensor.splat", "arith.constant"):
            continue
        args = []
        for v in op.operands:
            if isinstance(v.type, TensorType) and v.owner not in inits:
                args.append({"is_input": True, **_allocation(v, plan)})
        for r in tensors_out:
            args.append({"is_input": False, **_allocation(r, plan)})
        ops.append(
            {
                "op": op.name,
                "is_reduction": "reduce" in op.name or op.name == "linalg.matmul",
                "iteration_space": list(tensors_out[0].type.get_shape()),  # pyright: ignore[reportAttributeAccessIssue]
                "args": args,
            }
        )
    return ops


EMITTER_MARK = "spyre-emit-bundle"
"""`debug_handle_["emitter"]` of the SuperDSC files we write: how a later bundle knows them for ours."""


def _keep_name(value: SSAValue, name: str) -> None:
    """Name `value` exactly `name` (`%arg_0_core_2048`, as torch-spyre names it)."""
    value._name = name  # pyright: ignore[reportPrivateUsage] - the setter strips a `_N` suffix


@dataclass
class KernelLoop:
    """A kernel `scf.for` around group calls: the bundle runs it as an `scf.for` over its iterations
    (`GroupLowering.outer`), around the dispatches of the calls in it."""

    op: scf.ForOp
    count: int
    items: list = field(default_factory=list)  # KernelLoop | (func.CallOp, superdsc_lowering.Dispatch)


class SuperDscEmitter(Emitter):
    """torch-spyre's bundle: `@sdsc_bundle` over `!sdscbundle.input_arg<index>` base addresses, per-core
    start addresses `%arg_K_core_N = %arg_K + N`, one `sdsc_execute` with `symbol_ids` per SuperDSC
    (passes/bundle/superdsc_lowering.py makes them), the kernel's per-core loops and the groups'
    tile loops as `scf.for`."""

    indent = 1

    def __init__(self, module: ModuleOp, out_dir: str, kernel: str | None = None, scalars: str = ""):
        super().__init__(module, out_dir, kernel)
        self.scalars = scalars

    def run(self) -> ModuleOp:
        groups = {op.sym_name.data: op for op in require_groups(self.module, SpyreEmitBundlePass.name)}
        kernel = self.kernel()
        self.specialized = self.specialize(kernel)
        self.pointers = self.pointer_parameters(kernel, groups)
        for i, arg in enumerate(kernel.body.block.args):
            if i in self.pointers or not arg.uses:
                continue
            name = arg.name_hint or f"arg{i}"
            if isinstance(arg.type, IndexType):
                raise error(
                    kernel,
                    f'argument %{name} of @{kernel.sym_name.data} is an index known only at run time: a SuperDSC bundle fixes its addresses and trip counts when it is written; specialize it with scalars="{name}=..." (or the kernel\'s {SPECIALIZE_ATTR})',
                )
            raise error(
                kernel,
                f"argument #{i} of @{kernel.sym_name.data} is a {arg.type} scalar: it would need constantInfo_, whose encoding is not known, so no SuperDSC bundle takes it",
            )
        self.symbols = superdsc_lowering.SymbolCounter()
        self.groups = groups
        self.count = 0
        items = self.lower(kernel, kernel.body.block, [])
        return self.bundle(kernel, items)

    def specialize(self, kernel: func.FuncOp) -> dict[str, Attribute]:
        """Replace the kernel's scalar arguments named in `scalars=` (or its `spyre.specialize`
        attribute, which `scalars=` overrides) by constants: the values the bundle is written for."""
        try:
            given: dict[str, object] = dict(parse_scalars(self.scalars))
        except ValueError as exc:
            raise error(kernel, f"spyre-emit-bundle: scalars: {exc}") from None
        attr = kernel.attributes.get(SPECIALIZE_ATTR)
        if isinstance(attr, DictionaryAttr):
            given = {k: v for k, v in attr.data.items()} | given
        args = {a.name_hint: a for a in kernel.body.block.args if a.name_hint}
        unknown = sorted(set(given) - set(args))
        if unknown:
            raise error(
                kernel, f"spyre-emit-bundle: scalars: @{kernel.sym_name.data} has no argument named '{unknown[0]}'"
            )
        values: dict[str, Attribute] = {}
        for name, text in given.items():
            arg = args[name]
            ty = arg.type
            try:
                if isinstance(text, IntegerAttr | FloatAttr):
                    text = str(text.value.data)
                if isinstance(ty, IndexType | IntegerType):
                    value: Attribute = IntegerAttr(int(str(text), 0), ty)
                elif isinstance(ty, AnyFloat):
                    value = FloatAttr(float(str(text)), ty)
                else:
                    raise error(kernel, f"spyre-emit-bundle: scalars: %{name} is a {ty}, not a scalar")
            except (ValueError, VerifyException):
                raise error(
                    kernel, f"spyre-emit-bundle: scalars: '{name}={text}' is not a value of type {ty}"
                ) from None
            const = arith.ConstantOp(value)  # pyright: ignore[reportArgumentType]
            const.result.name_hint = name
            Rewriter.insert_op(const, InsertPoint.at_start(kernel.body.block))
            arg.replace_all_uses_with(const.result)
            values[name] = value
        return values

    def pointer_parameters(self, kernel: func.FuncOp, groups: dict[str, func.FuncOp]) -> list[int]:
        """The kernel's parameters (indices) some global memory view is based on, directly or
        through a group's parameter, and its unused index parameters but the specialized scalars
        (a tensor the kernel does not touch is still an argument: argument k stays the caller's
        k-th tensor): the bundle's arguments, in order."""
        bases: set[SSAValue] = set()
        for group in groups.values():
            for op in group.walk():
                if isinstance(op, ConstructMemoryViewOp):
                    space = normalized_memory_space(op.memory_space)
                    if space is None or space.is_global:
                        bases.add(op.offset)
        found = []
        for i, arg in enumerate(kernel.body.block.args):
            seen, stack = set(), [arg]
            while stack:
                v = stack.pop()
                if v in seen:
                    continue
                seen.add(v)
                for use in v.uses:
                    user = use.operation
                    if isinstance(user, func.CallOp) and (group := groups.get(user.callee.root_reference.data)):
                        stack.append(group.body.block.args[use.index])
                    elif isinstance(user, ConstructMemoryViewOp) and use.index == 0:
                        bases.add(v)
                    else:
                        stack.extend(user.results)
            unused = not arg.uses and arg.name_hint not in self.specialized  # not a scalar made a constant
            if isinstance(arg.type, IndexType) and (seen & bases or unused):
                found.append(i)
        return found

    def lower(self, kernel: func.FuncOp, block: Block, outer: list[scf.ForOp]) -> list:
        """The dispatches of the group calls in `block`, and the kernel loops holding more."""
        items: list = []
        for op in block.ops:
            if isinstance(op, (func.ReturnOp, scf.YieldOp)):
                continue
            if isinstance(op, scf.ForOp):
                loop = KernelLoop(op, 0)
                loop.items = self.lower(kernel, op.body.block, [*outer, op])
                if loop.items:
                    loop.count = _first_dispatch(loop.items).outer[len(outer)]
                    items.append(loop)
                continue
            if op.regions:
                raise error(
                    op,
                    f"'{op.name}' in the kernel is per-core control flow: a SuperDSC bundle dispatches each op once for all cores, so its loops must be counted loops every core runs alike",
                )
            if isinstance(op, func.CallOp):
                name = op.callee.root_reference.data
                group = self.groups.get(name)
                if group is None:
                    raise error(op, f"the kernel calls @{name}, which is not an extracted compute group")
                dispatch = superdsc_lowering.GroupLowering(
                    kernel, op, group, self.target, self.symbols, self.count, outer
                ).run()
                self.count += len(dispatch.ops)
                items.append((op, dispatch))
        return items

    def bundle(self, kernel: func.FuncOp, items: list) -> ModuleOp:
        block = Block(arg_types=[InputArgType(IndexType())] * len(self.pointers))
        bases: dict[int, SSAValue] = {}
        for k, (param, arg) in enumerate(zip(self.pointers, block.args)):
            _keep_name(arg, f"arg_{k}_base_addr")
            extract = InputArgExtractOp(arg)
            _keep_name(extract.result, f"arg_{k}")
            block.add_op(extract)
            bases[param] = extract.result
        # Every core's start address, once, by parameter, in order of first use (as torch-spyre's bundles).
        offsets: dict[int, list[int]] = {}
        for _, dispatch in _dispatches(items):
            for sdsc in dispatch.ops:
                for operand in sdsc.operands:
                    seen = offsets.setdefault(operand.param, [])
                    if operand.offset not in seen:
                        seen.append(operand.offset)
        self.starts: dict[tuple[int, int], SSAValue] = {}
        for param in sorted(offsets):
            k = self.pointers.index(param)
            for offset in offsets[param]:
                if offset == 0:
                    self.starts[(param, 0)] = bases[param]
                    continue
                const = arith.ConstantOp(IntegerAttr(offset, IndexType()))
                _keep_name(const.result, f"arg_{k}_core_offset_{offset}")
                add = arith.AddiOp(bases[param], const.result)
                _keep_name(add.result, f"arg_{k}_core_{offset}")
                block.add_ops([const, add])
                self.starts[(param, offset)] = add.result
        self.addresses = 0
        self.top = block
        self.steps: tuple[SSAValue, SSAValue] | None = None
        self.emit(items, block, [])
        block.add_op(func.ReturnOp())
        bundle_fn = func.FuncOp("sdsc_bundle", ([a.type for a in block.args], []), Region(block))
        bundle_fn.attributes[KERNEL_ATTR] = StringAttr(kernel.sym_name.data)
        if self.specialized:
            bundle_fn.attributes[SPECIALIZE_ATTR] = DictionaryAttr(self.specialized)
        bundle_fn.location = kernel.location
        return ModuleOp([bundle_fn])

    def loop(self, at: Block, count: int, depth: int) -> Block:
        """An `scf.for %i_<depth> = %c0 to <count> step %c1` at the end of `at`; its body."""
        if self.steps is None:
            c0 = arith.ConstantOp(IntegerAttr(0, IndexType()))
            c1 = arith.ConstantOp(IntegerAttr(1, IndexType()))
            _keep_name(c0.result, "c0")
            _keep_name(c1.result, "c1")
            self.top.add_ops([c0, c1])  # only loops use them; the first loop is at the top or in one
            self.steps = (c0.result, c1.result)
        bound = arith.ConstantOp(IntegerAttr(count, IndexType()))
        _keep_name(bound.result, f"loop_bound_{depth}")
        body = Block(arg_types=[IndexType()])
        _keep_name(body.args[0], f"i_{depth}")
        at.add_ops([bound, scf.ForOp(self.steps[0], bound.result, self.steps[1], [], Region(body))])
        return body

    def emit(self, items: list, at: Block, ivs: list[SSAValue]) -> None:
        for item in items:
            if isinstance(item, KernelLoop):
                body = self.loop(at, item.count, len(ivs))
                self.emit(item.items, body, [*ivs, body.args[0]])
                body.add_op(scf.YieldOp())
                continue
            _, dispatch = item
            inner = at
            loop_ivs = list(ivs)
            for count in dispatch.loops:
                inner = self.loop(inner, count, len(loop_ivs))
                loop_ivs.append(inner.args[0])
            for sdsc in dispatch.ops:
                args: list[SSAValue] = []
                for operand in sdsc.operands:
                    value = self.starts[(operand.param, operand.offset)]
                    if any(operand.loop_strides):
                        expr = AffineSymExpr(0)
                        for k, stride in enumerate(operand.loop_strides):
                            if stride:
                                expr = expr + AffineDimExpr(k) * stride
                        apply = affine.ApplyOp([*loop_ivs, value], AffineMapAttr(AffineMap(len(loop_ivs), 1, (expr,))))
                        _keep_name(apply.result, f"addr_{self.addresses}")
                        self.addresses += 1
                        inner.add_op(apply)
                        value = apply.result
                    args.append(value)
                filename = sdsc.superdsc.name.split("_", 1)[0]
                execute = SdscExecuteOp(args, f"sdsc_{filename}.json", [o.symbol for o in sdsc.operands])
                execute.location = sdsc.op.location
                inner.add_op(execute)
                sdsc.superdsc.debug_handle["emitter"] = EMITTER_MARK
                self.files[f"sdsc_{filename}.json"] = sdsc.superdsc.to_json()
            while inner is not at:
                inner.add_op(scf.YieldOp())
                parent = inner.parent_op()
                assert parent is not None and parent.parent_block() is not None
                inner = parent.parent_block()  # pyright: ignore[reportAttributeAccessIssue]


def _dispatches(items: list):
    for item in items:
        if isinstance(item, KernelLoop):
            yield from _dispatches(item.items)
        else:
            yield item


def _first_dispatch(items: list):
    return next(_dispatches(items))[1]


FORMATS = ("superdsc", "ktir")


@dataclass(frozen=True)
class SpyreEmitBundlePass(ModulePass):
    """Write DIR/bundle.mlir and DIR/sdsc_N.json; the module becomes the bundle (see the module docstring)."""

    name = "spyre-emit-bundle"

    out_dir: str | None = None
    kernel: str | None = None
    format: str = "superdsc"
    """`superdsc`: torch-spyre's bundle and SuperDSC files; `ktir`: ours (an SDSC file runs KTIR text)."""

    scalars: str = ""
    """`format=superdsc`: values of the kernel's scalar arguments the bundle is written for,
    "n_rows=4096,BLOCK_SIZE=128" (spatial-tile's syntax); recorded in `@sdsc_bundle`'s
    `spyre.specialize`. Running the bundle for other values is wrong: they are fixed in it."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.out_dir:
            raise error(op, "spyre-emit-bundle needs out-dir=DIR: where to write bundle.mlir and its SDSC files")
        if self.format not in FORMATS:
            raise error(op, f"spyre-emit-bundle: unknown format '{self.format}' (formats: {', '.join(FORMATS)})")
        if self.format == "superdsc":
            emitter = SuperDscEmitter(op, self.out_dir, self.kernel, self.scalars)
        elif self.scalars:
            raise error(
                op,
                "spyre-emit-bundle: scalars= specializes a format=superdsc bundle; format=ktir passes scalars at run time",
            )
        else:
            emitter = Emitter(op, self.out_dir, self.kernel)
        bundle = emitter.run()
        from spyre_mlir.ir import fill_locations

        fill_locations(bundle)
        emitter.write(bundle)
        replace_module_body(op, bundle)
