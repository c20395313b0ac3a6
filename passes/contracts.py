"""Stage contracts: what each pass of ours needs its input to be, and what its output is.

A module goes through stages, read from the IR (no marker is added for a stage):

    kernel ──ktdp-extract-compute-groups──> grouped ──spyre-emit-bundle──> bundle
       │                                      (marks on groups: planned, distributed)
       └──spatial-tile──> tiled ──spatial-place──> placed ──spatial-fuse-readers──> fused
              ──spatial-size-buffers──> sized ──spatial-synthesize-handshakes──> synthesized ──spatial-verify──> verified

- *kernel*: a `ktdp.load`/`ktdp.store` outside a compute group (the extraction has not run on it);
- *grouped*: compute groups (`func.func` marked `spyre.compute_group`), no access outside them;
- *bundle*: an `sdscbundle.sdsc_execute` or a function marked `spyre.kernel` (the emitted bundle);
- the phases of a spatial program (`spatial.phase` on each `spatial.program`, docs/spatial.md);
- marks a pass leaves on groups without changing the stage: *planned* (`spyre.peak_lx_bytes`,
  `spyre-plan-scratchpad`), *distributed* (`spyre.core_split`, `spyre-distribute-work`).

A module that shows none of these (no memory access, no group, no program) is at no stage: a pass on
groups finds nothing to do there, which is not an error; a pass on spatial programs refuses it.

`CONTRACTS` declares, for every pass of ours, the stages its input may be in (`requires`), the marks it
must not carry yet (`before`) and the stage of its output (`produces`); the pass that makes a stage is
read from there. The pass manager checks each pass's contract before running it (`check`), so a pass
run out of order is a located error naming what to run first:

    pass 'spyre-coarse-tile' needs extracted compute groups: run 'ktdp-extract-compute-groups' first

The passes ask too (`require_stage`, through `require_groups`/`require_before` here and
`phases.programs_in`), for callers of `pass.apply`. Upstream passes have no contract.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from spyre_mlir.diagnostics import error
from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp, LoadOp, StoreOp
from spyre_mlir.dialects.sdscbundle import SdscExecuteOp
from spyre_mlir.dialects.spatial import PHASES, ProgramOp
from spyre_mlir.dialects.spyre import (
    COMPUTE_GROUP_ATTR,
    CORE_SPLIT_ATTR,
    KERNEL_ATTR,
    LX_OFFSET_ATTR,
    PEAK_LX_BYTES_ATTR,
)
from spyre_mlir.walk import walk_ops

EXTRACT = "ktdp-extract-compute-groups"
EMIT = "spyre-emit-bundle"


# -- the stages -------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """One stage of the vocabulary: the stage it follows, and how messages name it."""

    name: str
    follows: str | None
    """The stage its maker takes (None: the input kernel)."""
    noun: str
    """What a pass needing this stage works on: "extracted compute groups"."""
    state: str
    """What a module in this stage is: "split into compute groups"."""


STAGES: dict[str, Stage] = {
    s.name: s
    for s in (
        Stage("kernel", None, "a kernel", "a kernel"),
        Stage("grouped", "kernel", "extracted compute groups", "split into compute groups"),
        Stage("bundle", "grouped", "an emitted bundle", "an emitted bundle"),
        *(
            Stage(phase, PHASES[i - 1] if i else "kernel", f"a spatial.program in phase {phase}", "a spatial program")
            for i, phase in enumerate(PHASES)
        ),
    )
}
"""The stages, by name (the spatial ones are the phases of `spyre_mlir.dialects.spatial.PHASES`)."""


MARKS: dict[str, str] = {"planned": PEAK_LX_BYTES_ATTR, "distributed": CORE_SPLIT_ATTR}
"""Facts a pass leaves on compute groups (the module stays grouped): mark -> the attribute on the group."""


# -- the contracts ----------------------------------------------------------------


@dataclass(frozen=True)
class Contract:
    """What one pass needs of its input and what it makes of it."""

    requires: tuple[str, ...] = ()
    """The stages its input may be in (empty: any). The first one is the one messages name."""
    produces: str | None = None
    """The stage (or mark) of its output."""
    before: tuple[tuple[str, str], ...] = ()
    """Marks its input must not carry yet: (mark, what the pass would break on such a group)."""
    needs: str = ""
    """What the pass works on, when more than the required stage (messages)."""
    also: tuple[str, ...] = ()
    """Passes to run after the one that makes the required stage (messages)."""
    note: str = ""
    """Said of a program in the wrong phase (messages)."""
    anywhere: tuple[str, ...] = ()
    """Ops (by name) the pass works on wherever they are: a module that holds one is taken in any stage."""
    programs_only: bool = False
    """Only spatial programs are checked: a module without one is accepted (a pass on programs that has
    nothing to do elsewhere)."""


_GROUPS = ("grouped",)
_BEFORE_GROUPING = ("kernel",)

CONTRACTS: dict[str, Contract] = {
    "ktdp-normalize-memory-space": Contract(),
    "spyre-fold-reshapes": Contract(),
    "spyre-raise-counted-loops": Contract(),
    "ktdp-check-inter-tile": Contract(),
    # It marks the kernel's parameters: on groups, the kernel that calls them would keep the logical layout.
    "spyre-physicalize-layouts": Contract(requires=_BEFORE_GROUPING),
    # It adds a scratch parameter to the kernel: on a group, the call to it would lack the argument.
    "ktdp-hbm-roundtrip": Contract(requires=_BEFORE_GROUPING),
    "ktdp-extract-compute-groups": Contract(requires=("kernel", "grouped"), produces="grouped"),
    # A kernel whose functions are each one compute group already (dataflow-scheduler's inputs) is taken too.
    "ktdf-build-pipelines": Contract(requires=("grouped", "kernel")),
    "ktdf-expose-reduction-loops": Contract(requires=("grouped", "kernel")),
    # dataflow-scheduler's gate in front of its extraction; a check, so groups may be checked too.
    "ktir-legality-check": Contract(),
    # A check of the schedule IR wherever it is: it changes nothing.
    "ktdf-check-schedule": Contract(),
    # It declares the module's device; any stage has one.
    "ensure-device-declaration": Contract(),
    "spyre-coarse-tile": Contract(
        requires=_GROUPS,
        before=(
            ("planned", "its intermediates are LX buffers at fixed offsets, which one tile's loop would not cover"),
            ("distributed", "its core split is recorded for the untiled group"),
        ),
    ),
    # Nests written by hand are unrolled too; without one, the module must be at a stage that could have them.
    "spyre-unroll-loops": Contract(
        requires=_GROUPS, needs="the spyre_loop.loop nests of tiled compute groups", also=("spyre-coarse-tile",),
        anywhere=("spyre_loop.loop",),
    ),
    "spyre-distribute-work": Contract(requires=_GROUPS, produces="distributed"),
    "spyre-plan-scratchpad": Contract(requires=_GROUPS, produces="planned"),
    "spyre-emit-bundle": Contract(requires=_GROUPS, produces="bundle"),
    "spatial-tile": Contract(requires=_BEFORE_GROUPING, produces="tiled"),
    "spatial-place": Contract(requires=("tiled",), produces="placed"),
    "spatial-fuse-readers": Contract(requires=("placed",), produces="fused"),
    "spatial-size-buffers": Contract(requires=("fused",), produces="sized"),
    "spatial-synthesize-handshakes": Contract(requires=("sized",), produces="synthesized"),
    # A verified program is checked again; a module without a program has nothing to verify.
    "spatial-verify": Contract(
        requires=("synthesized", "verified"), produces="verified", note="a verified program is re-checked",
        programs_only=True,
    ),
}
"""The contract of each pass of ours, by registry name."""


def maker(stage: str) -> str | None:
    """The pass whose output is in `stage` (or carries the mark `stage`)."""
    return next((name for name, c in CONTRACTS.items() if c.produces == stage), None)


def path(start: str, end: str) -> list[str] | None:
    """The passes that take a module from stage `start` to stage `end`, or None when `end` does not follow it."""
    passes: list[str] = []
    stage = end
    while stage != start:
        follows = STAGES[stage].follows
        if follows is None:
            return None
        made_by = maker(stage)
        assert made_by is not None, f"no pass produces stage '{stage}'"
        passes.append(made_by)
        stage = follows
    return passes[::-1]


# -- reading the stage from the IR ------------------------------------------------


def is_group(op: Operation) -> bool:
    """An outlined compute group: a `func.func` with a body, marked `spyre.compute_group`, in a named module."""
    if not isinstance(op, func.FuncOp) or not op.body.blocks or COMPUTE_GROUP_ATTR not in op.attributes:
        return False
    parent = op.parent_op()
    return isinstance(parent, ModuleOp) and parent.sym_name is not None


def group_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The outlined compute groups of `module`, in module order."""
    return [op for op in walk_ops(module) if is_group(op)]  # pyright: ignore[reportReturnType]


def _outside_groups(module: ModuleOp) -> Iterator[Operation]:
    """The ops of `module` in pre-order, without entering a group (no recursion: deep nests)."""
    stack = [iter([op for r in module.regions for b in r.blocks for op in b.ops])]
    while stack:
        op = next(stack[-1], None)
        if op is None:
            stack.pop()
            continue
        yield op
        if op.regions and not is_group(op):
            stack.append(iter([inner for r in op.regions for b in r.blocks for inner in b.ops]))


def unextracted_access(module: ModuleOp) -> Operation | None:
    """The first `ktdp.load`/`ktdp.store` outside a group: the extraction has not run on it."""
    return next((op for op in _outside_groups(module) if isinstance(op, LoadOp | StoreOp)), None)


def bundle_op(module: ModuleOp) -> Operation | None:
    """What shows that `module` is an emitted bundle (spyre-emit-bundle has run), or None."""
    for op in walk_ops(module):
        if isinstance(op, SdscExecuteOp) or isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes:
            return op
    return None


def programs(module: ModuleOp) -> list[ProgramOp]:
    """The spatial programs of `module`, in module order."""
    return [op for op in walk_ops(module) if isinstance(op, ProgramOp)]


def stages_of(module: ModuleOp) -> list[tuple[str | None, Operation]]:
    """Where `module` is, as its IR shows it: each spatial program with its phase (None: no known phase),
    else the module's stage and the op that shows it; [] at no stage."""
    found = programs(module)
    if found:
        return [(p.phase if p.phase in PHASES else None, p) for p in found]
    if (op := bundle_op(module)) is not None:
        return [("bundle", op)]
    if (op := unextracted_access(module)) is not None:
        return [("kernel", op)]
    if groups := group_functions(module):
        return [("grouped", groups[0])]
    return []


# -- checking ---------------------------------------------------------------------


def check(module: ModuleOp, pass_name: str) -> None:
    """Refuse (a located error) to run `pass_name` on `module` when its input is in the wrong stage."""
    contract = CONTRACTS.get(pass_name)
    if contract is not None:
        require_stage(module, pass_name, contract)


def require_stage(module: ModuleOp, pass_name: str, contract: Contract | None = None) -> None:
    """Check `module` against the contract of `pass_name` (or `contract`): each program, or the module,
    in a stage it requires, no group with a mark it must come before."""
    contract = contract or CONTRACTS[pass_name]
    if not contract.requires or contract.anywhere and any(op.name in contract.anywhere for op in walk_ops(module)):
        return
    spatial = contract.requires[0] in PHASES
    found = stages_of(module)
    if spatial and contract.programs_only:
        found = [(stage, op) for stage, op in found if isinstance(op, ProgramOp)]
    elif spatial and not found:
        raise error(None, f"{pass_name} needs {STAGES[contract.requires[0]].noun}; the module has none")
    for stage, op in found:
        if stage not in contract.requires:
            message = _spatial_refusal if spatial else _refusal
            raise error(op, message(pass_name, contract, stage, op))
    groups = group_functions(module) if contract.before else []
    for mark, why in contract.before:
        require_unmarked(groups, pass_name, mark, why)


def _required(contract: Contract, stage: str | None) -> str:
    """The required stage a message names for a module at `stage`: the one it leads to, else the first."""
    return next((r for r in contract.requires if stage is not None and path(stage, r)), contract.requires[0])


def _fork(stage: str, wanted: str) -> tuple[str, list[str], list[str]]:
    """The last stage `stage` and `wanted` share, with the passes from there to each."""
    shared = stage
    while path(shared, wanted) is None:
        shared = STAGES[shared].follows or "kernel"
    return shared, path(shared, stage) or [], path(shared, wanted) or []


def _quoted(names: list[str] | tuple[str, ...]) -> str:
    return " and ".join(f"'{n}'" for n in names)


def _refusal(pass_name: str, contract: Contract, stage: str | None, op: Operation) -> str:
    """The message of a module (not a spatial program) in the wrong stage: 'pass 'P' needs ...'."""
    wanted = _required(contract, stage)
    needs = contract.needs or STAGES[wanted].noun
    head = f"pass '{pass_name}' needs {needs}"
    program = f"@{op.sym_name.data}" if isinstance(op, ProgramOp) else ""
    if stage is None:  # a spatial program without a known phase
        return f"{head}, but this module is a spatial program ({program})"
    to_do = path(stage, wanted)
    if to_do:
        return f"{head}: run {_quoted([*to_do, *contract.also])} first"
    shared, done, instead = _fork(stage, wanted)
    where = f" ({program}, phase {stage})" if program else ""
    already = f"{head}, but this module is already {STAGES[stage].state}{where}"
    if pass_name in done:
        return f"{already}: '{pass_name}' has run on it already"
    if instead:
        return f"{already}: run '{pass_name}' on the {shared} after {_quoted(instead)}, not after '{done[0]}'"
    makes = contract.produces if contract.produces in STAGES else wanted
    if path(makes, stage) is None:  # its output does not lead to `stage`: the module took another branch
        return f"{already}: run '{pass_name}' on the {shared}, not after '{done[0]}'"
    return f"{already}: run '{pass_name}' before '{done[0]}'"


def _spatial_refusal(pass_name: str, contract: Contract, stage: str | None, op: Operation) -> str:
    """The message of a spatial program in the wrong phase, or of a module that is not a spatial program."""
    wanted = _required(contract, stage)
    if not isinstance(op, ProgramOp):  # a kernel, its groups or its bundle
        head = f"{pass_name} needs {STAGES[wanted].noun}; the module has none"
        assert stage is not None
        to_do = path(stage, wanted)
        if to_do:
            return f"{head}: run {', '.join(to_do)} first"
        shared, done, instead = _fork(stage, wanted)
        return f"{head}, it is {STAGES[stage].state}: run {', '.join(instead)} on the {shared}, not {done[0]}"
    got = op.phase
    note = f"; {contract.note}" if contract.note else ""
    message = f"{pass_name} needs a program in phase {wanted}, got {got} (program @{op.sym_name.data}{note})"
    if stage is None:
        return message
    to_do = path(stage, wanted)
    if to_do:
        return f"{message}; run {', '.join(to_do)} first"
    return f"{message}; the program is past this phase"


def require_unmarked(groups: list[func.FuncOp], pass_name: str, mark: str, why: str) -> None:
    """A located error when a group carries `mark`: its maker has run, and `pass_name` must come first."""
    attr = MARKS[mark]
    later = maker(mark)
    for group in groups:
        if attr in group.attributes:
            raise error(
                _marked_op(group, attr),
                f"pass '{pass_name}' needs compute groups that '{later}' has not processed yet, but group "
                f"@{group.sym_name.data} has '{attr}' ({why}): run '{pass_name}' first, before '{later}'",
            )


def _marked_op(group: func.FuncOp, attr: str) -> Operation:
    """Where to point: the first LX view of a planned group (at its producer's line), else the group."""
    if attr == PEAK_LX_BYTES_ATTR:
        for op in walk_ops(group):
            if isinstance(op, ConstructMemoryViewOp) and LX_OFFSET_ATTR in op.attributes:
                return op
    return group


def require_groups(module: ModuleOp, pass_name: str, needs: str = "", also: str = "") -> list[func.FuncOp]:
    """The groups `pass_name` works on; a located error when the extraction has not run
    (an access outside a group) or the module is already the emitted bundle. `needs` says
    what the pass works on, `also` a pass to run after the extraction (`and 'also'`)."""
    contract = CONTRACTS.get(pass_name) or Contract(requires=("grouped",))
    if needs or also:
        contract = dataclasses.replace(contract, needs=needs, also=(also,) if also else ())
    require_stage(module, pass_name, contract)
    return group_functions(module)


def require_before(groups: list[func.FuncOp], pass_name: str, later: str, marker: str, what: str) -> None:
    """A located error when `later` (which leaves `marker` on a group) has already run: `pass_name`
    must come first. `what` says what `pass_name` would break."""
    mark = next(name for name, attr in MARKS.items() if attr == marker)
    assert later == maker(mark), (later, mark)
    require_unmarked(groups, pass_name, mark, what)
