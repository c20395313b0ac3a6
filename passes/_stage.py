"""Stage checks: what a pass of the bundle/schedule path needs to have run before it.

The passes after `ktdp-extract-compute-groups` work on its outlined groups
(`module @local_schedule_N { func.func @local_schedule_N }`). Run out of
order, they used to exit 0 and leave a kernel that computes wrong numbers
or fails at run time (coarse tiling after the LX plan: "read of
uninitialized LX"), or do nothing at all (a pass on a kernel never split
into groups). Each such pass asks here first; a missing prerequisite is a
located error:

    pass 'spyre-coarse-tile' needs extracted compute groups: run 'ktdp-extract-compute-groups' first

A module at the right stage with nothing for the pass to do (no group needs
tiling, no loop to unroll, no memory access at all) is not an error.

What a stage is, as read from the IR (no marker is added for it):

- *kernel*: a `ktdp.load`/`ktdp.store` outside a group function: the
  extraction has not run;
- *grouped*: group functions, no access outside them;
- *planned*: a group carries `spyre.peak_lx_bytes` (`spyre-plan-scratchpad`);
- *distributed*: a group carries `spyre.core_split` (`spyre-distribute-work`);
- *bundle*: an `sdscbundle.sdsc_execute` or a function marked `spyre.kernel`
  (`spyre-emit-bundle` has replaced the module by the bundle).

A later issue generalizes this into stage contracts; keep the checks here.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from spyre_mlir.diagnostics import error

GROUP_PREFIX = "local_schedule_"
EXTRACT = "ktdp-extract-compute-groups"
EMIT = "spyre-emit-bundle"


def is_group(op: Operation) -> bool:
    """An outlined compute group: `func.func @local_schedule_N` with a body, in a named module."""
    if not isinstance(op, func.FuncOp) or not op.body.blocks or not op.sym_name.data.startswith(GROUP_PREFIX):
        return False
    parent = op.parent_op()
    return isinstance(parent, ModuleOp) and parent.sym_name is not None


def group_functions(module: ModuleOp) -> list[func.FuncOp]:
    """The outlined compute groups of `module`, in module order."""
    return [op for op in module.walk() if is_group(op)]  # pyright: ignore[reportReturnType]


def _inside_group(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if is_group(parent):
            return True
        parent = parent.parent_op()
    return False


def unextracted_access(module: ModuleOp) -> Operation | None:
    """The first `ktdp.load`/`ktdp.store` outside a group: the extraction has not run on it."""
    from spyre_mlir.dialects.ktdp import LoadOp, StoreOp

    for op in module.walk():
        if isinstance(op, (LoadOp, StoreOp)) and not _inside_group(op):
            return op
    return None


def bundle_op(module: ModuleOp) -> Operation | None:
    """What shows that `module` is an emitted bundle (spyre-emit-bundle has run), or None."""
    from spyre_mlir.dialects.sdscbundle import SdscExecuteOp

    for op in module.walk():
        if isinstance(op, SdscExecuteOp) or isinstance(op, func.FuncOp) and "spyre.kernel" in op.attributes:
            return op
    return None


def require_groups(module: ModuleOp, pass_name: str, needs: str = "extracted compute groups", also: str = "") -> list[func.FuncOp]:
    """The groups `pass_name` works on; a located error when the extraction has not run
    (an access outside a group) or the module is already the emitted bundle. `needs` says
    what the pass works on, `also` a pass to run after the extraction (`and 'also'`)."""
    done = bundle_op(module)
    if done is not None:
        fix = f"'{EMIT}' has run on it already" if pass_name == EMIT else f"run '{pass_name}' before '{EMIT}'"
        raise error(done, f"pass '{pass_name}' needs {needs}, but this module is already an emitted bundle: {fix}")
    access = unextracted_access(module)
    if access is not None:
        then = f" and '{also}'" if also else ""
        raise error(access, f"pass '{pass_name}' needs {needs}: run '{EXTRACT}'{then} first")
    return group_functions(module)


def require_before(groups: list[func.FuncOp], pass_name: str, later: str, marker: str, what: str) -> None:
    """A located error when `later` (which leaves `marker` on a group) has already run: `pass_name`
    must come first. `what` says what `pass_name` would break."""
    for group in groups:
        if marker in group.attributes:
            at = _marked_op(group, marker)
            raise error(
                at,
                f"pass '{pass_name}' needs compute groups that '{later}' has not processed yet, but group "
                f"@{group.sym_name.data} has '{marker}' ({what}): run '{pass_name}' first, before '{later}'",
            )


def _marked_op(group: func.FuncOp, marker: str) -> Operation:
    """Where to point: the first LX view of a planned group (at its producer's line), else the group."""
    from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp

    if marker == "spyre.peak_lx_bytes":
        for op in group.body.walk():
            if isinstance(op, ConstructMemoryViewOp) and "spyre.lx_offset" in op.attributes:
                return op
    return group
