"""spatial-verify (passes/spatial/spatial_verify.py): its counts-mode simulation agrees with the
interpreter's data-mode run of the same program (both on analysis/engines.py), and its refusals
come from the simulator's typed errors, located. The lit tests (test/lit/passes/spatial/
spatial-verify*.mlir) check the certificates and messages in full."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spyre_mlir
from spyre_mlir.dialects.spatial import ProgramOp, SignalOp
from spyre_mlir.interpreter.ops_spatial import simulate
from spyre_mlir.passes.spatial.spatial_verify import verify_program

# Two sites, locals and a multicast group (its header comment says what the program does).
ACC = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "spatial" / "spatial-verify-ext.mlir").read_text()


def _program(module) -> ProgramOp:
    (program,) = [op for op in module.walk() if isinstance(op, ProgramOp)]
    return program


def test_the_certificate_agrees_with_the_interpreters_run():
    certificate = verify_program(_program(spyre_mlir.parse(ACC)))
    figures = {name: attr.value.data for name, attr in certificate.data.items() if hasattr(attr, "value")}
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    x = rng.standard_normal((32, 8)).astype(np.float32)
    result, stats = simulate(ACC, "acc", w=w, x=x, z=np.zeros((16, 8), np.float32), rows=32)
    np.testing.assert_allclose(result["z"], np.stack([w + x[:8] + x[8:16], w + x[16:24] + x[24:]]).reshape(16, 8),
                               rtol=1e-6)
    assert figures["cycles"] == round(stats.cycles) > 0
    assert figures["hbm_read_bytes"] == stats.hbm_read_bytes == 1280
    assert figures["hbm_written_bytes"] == stats.hbm_written_bytes == 512


def test_a_deadlock_is_located_at_the_blocked_wait():
    module = spyre_mlir.parse(ACC)
    (signal,) = [op for op in module.walk() if isinstance(op, SignalOp) and op.semaphore.root_reference.data == "w1_full"]
    signal.detach()
    signal.erase()
    with pytest.raises(spyre_mlir.DiagnosticError) as info:
        verify_program(_program(module))
    diagnostic = info.value.diagnostic
    assert diagnostic.message.startswith("spatial-verify: deadlock:"), diagnostic.message
    assert '(@s1, "compute") waits on @w1_full >= 1 (value 0)' in diagnostic.message
    assert diagnostic.location is not None
    assert "spatial.wait @w1_full >= 1" in ACC.splitlines()[diagnostic.location.line - 1]
