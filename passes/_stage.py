"""Stage checks of the bundle/schedule passes, as they call them: thin wrappers over `contracts`.

The passes after `ktdp-extract-compute-groups` work on its outlined groups
(`module @local_schedule_N { func.func @local_schedule_N attributes {spyre.compute_group} }`:
a group is recognised by the `spyre.compute_group` attribute, not by its name).
The pass manager checks each pass's contract before running it
(`spyre_mlir.passes.contracts`); the passes ask here too, for callers of
`pass.apply`:

    pass 'spyre-coarse-tile' needs extracted compute groups: run 'ktdp-extract-compute-groups' first

A module at the right stage with nothing for the pass to do (no group needs
tiling, no loop to unroll, no memory access at all) is not an error.
"""

from __future__ import annotations

import dataclasses

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from spyre_mlir.passes.contracts import (
    CONTRACTS,
    EMIT,
    EXTRACT,
    MARKS,
    Contract,
    bundle_op,
    group_functions,
    is_group,
    maker,
    require_stage,
    require_unmarked,
    unextracted_access,
)

__all__ = [
    "EMIT",
    "EXTRACT",
    "bundle_op",
    "group_functions",
    "is_group",
    "require_before",
    "require_groups",
    "unextracted_access",
]


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
