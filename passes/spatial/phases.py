"""The phase discipline of the spatial passes (docs/spatial.md), as the passes call it.

A `spatial.program` is in one phase at a time (`spatial.phase`: tiled <
placed < fused < sized < synthesized < verified). Each phase pass takes the
programs of its input phase and moves them one phase on; a program in any
other phase is refused with a located error (never silently skipped or run
twice), and a module without a program is refused too. The phases are stages
of `spyre_mlir.passes.contracts`, which the pass manager checks before each
pass; the passes ask here too, for callers of `pass.apply`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr

from spyre_mlir.dialects.spatial import PHASE_ATTR, PHASES, ProgramOp
from spyre_mlir.passes.contracts import CONTRACTS, Contract, programs, require_stage


def programs_in(module: ModuleOp, pass_name: str, phase: str) -> list[ProgramOp]:
    """Every `spatial.program` of `module`, each checked to be in `phase`."""
    assert phase in PHASES
    contract = CONTRACTS.get(pass_name)
    if contract is None or contract.requires != (phase,):
        contract = Contract(requires=(phase,))
    require_stage(module, pass_name, contract)
    return programs(module)


def advance(program: ProgramOp, phase: str) -> None:
    """Move `program` on to `phase` (the next one: phases only move forward)."""
    current = PHASES.index(program.phase) if program.phase in PHASES else -1
    assert PHASES.index(phase) == current + 1, (program.phase, phase)
    program.attributes[PHASE_ATTR] = StringAttr(phase)

