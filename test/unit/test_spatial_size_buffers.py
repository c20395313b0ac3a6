"""spatial-size-buffers: depths and first-fit LX offsets of a fused program's buffers, on the target's alignment.

The pass through the late phases (handshakes, verification, runs against NumPy)
is in test_spatial_phases_late.py; its printed output in
test/lit/passes/spatial/spatial-size-buffers*.mlir.
"""

from __future__ import annotations

from pathlib import Path

import spyre_mlir
from spyre_mlir.dialects.spatial import BufferOp, ProgramOp
from spyre_mlir.passes.spatial.spatial_size_buffers import plan_sizes
from spyre_mlir.target import SPYRE, set_target

LOCALS = Path(__file__).resolve().parents[1] / "lit" / "passes" / "spatial" / "spatial-size-buffers-local.mlir"


def _offsets(target=None) -> tuple[dict[str, int], dict[str, int]]:
    module = spyre_mlir.parse(LOCALS.read_text())
    if target is not None:
        set_target(module, target)
    program = next(op for op in module.walk() if isinstance(op, ProgramOp))
    plan = plan_sizes(program)
    offsets = {s.buffer.sym_name.data: s.offset for s in plan.slots if isinstance(s.buffer, BufferOp)}
    return offsets, plan.peaks  # pyright: ignore[reportReturnType]


def test_locals_never_live_together_share_bytes():
    offsets, peaks = _offsets()
    assert offsets["acc1"] == offsets["acc2"] == 8192  # live ranges 1..3 and 4..6 of one engine
    assert offsets["scale"] not in (offsets["acc1"], offsets["spare"])
    assert offsets["bx"] == 0 and offsets["by"] == 2048  # FIFOs first, double buffered
    assert peaks == {"s0": 9216}


def test_offsets_start_on_the_target_alignment():
    # 1024-byte buffers on a 4096-byte alignment: each conflicting buffer starts on the next multiple.
    offsets, peaks = _offsets(SPYRE.replace(alignment_bytes=4096))
    assert all(o % 4096 == 0 for o in offsets.values())
    assert offsets["bx"] == 0 and offsets["by"] == 4096
    assert offsets["acc1"] == offsets["acc2"]
    assert peaks["s0"] == max(offsets.values()) + 1024
