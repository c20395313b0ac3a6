"""The phase discipline of the spatial passes (docs/spatial.md).

A `spatial.program` is in one phase at a time (`spatial.phase`: tiled <
placed < fused < sized < synthesized < verified). Each phase pass takes the
programs of its input phase and moves them one phase on; a program in any
other phase is refused with a located error (never silently skipped or run
twice), and a module without a program is refused too.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr

from spyre_mlir.diagnostics import Diagnostic, DiagnosticError, error
from spyre_mlir.dialects.spatial import PHASE_ATTR, PHASES, ProgramOp


def programs_in(module: ModuleOp, pass_name: str, phase: str) -> list[ProgramOp]:
    """Every `spatial.program` of `module`, each checked to be in `phase`."""
    assert phase in PHASES
    programs = [op for op in module.walk() if isinstance(op, ProgramOp)]
    if not programs:
        raise DiagnosticError(
            Diagnostic("error", f"{pass_name} needs a spatial.program in phase {phase}; the module has none")
        )
    for program in programs:
        if program.phase != phase:
            hint = _hint(program.phase, phase)
            raise error(
                program,
                f"{pass_name} needs a program in phase {phase}, got {program.phase} "
                f"(program @{program.sym_name.data}){hint}",
            )
    return programs


def advance(program: ProgramOp, phase: str) -> None:
    """Move `program` on to `phase` (the next one: phases only move forward)."""
    current = PHASES.index(program.phase) if program.phase in PHASES else -1
    assert PHASES.index(phase) == current + 1, (program.phase, phase)
    program.attributes[PHASE_ATTR] = StringAttr(phase)


def _hint(got: str | None, wanted: str) -> str:
    if got not in PHASES:
        return ""
    gi, wi = PHASES.index(got), PHASES.index(wanted)
    if gi < wi:
        return "; run " + ", ".join(PASS_OF_PHASE[p] for p in PHASES[gi + 1 : wi + 1]) + " first"
    return "; the program is past this phase"


PASS_OF_PHASE: dict[str, str] = {
    "tiled": "spatial-tile",
    "placed": "spatial-place",
    "fused": "spatial-fuse-readers",
    "sized": "spatial-size-buffers",
    "synthesized": "spatial-synthesize-handshakes",
    "verified": "spatial-verify",
}
"""The pass whose output is in each phase."""
