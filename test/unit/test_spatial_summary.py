"""The spatial plan summary (spyre_mlir.spatial_summary) and spyre-opt --print-plan-summary.

Figures are derived by hand from the programs: a 16x64xf16 tile is 2048
bytes, a 32x64xbf16 tile 4096; a site's LX is depth x tile bytes summed.
"""

from __future__ import annotations

import json
from pathlib import Path

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i64

from spyre_mlir import ir
from spyre_mlir.dialects.spatial import ProgramOp
from spyre_mlir.passes.spatial_verify import SpatialVerifyPass
from spyre_mlir.spatial_summary import plan_summaries, plan_summary
from spyre_mlir.tools.spyre_opt import main

ROOT = Path(__file__).resolve().parents[2]
OPS = ROOT / "test/lit/dialects/spatial/ops.mlir"
TWO_SITES = ROOT / "test/lit/tools/spyre-opt-plan-summary.mlir"


def programs(path: Path) -> dict[str, ProgramOp]:
    module = ir.parse_module(path.read_text(), str(path), ir.make_context())
    return {op.sym_name.data: op for op in module.walk() if isinstance(op, ProgramOp)}


def test_vadd_one_site():
    s = plan_summary(programs(OPS)["vadd"])
    assert (s.program, s.phase) == ("vadd", "synthesized")
    assert [(x.name, x.coordinates) for x in s.sites] == [("s0", (0,))]
    site = s.sites[0]
    assert site.buffers == 3
    assert site.lx_bytes == 2 * 2048 + 2 * 2048 + 1 * 2048 == 10240
    assert site.lx_limit == 2 * 1024 * 1024
    assert s.multicast == []
    assert s.block_shapes == ["16x64xf16"]
    assert [(c.engine, c.members) for c in s.engine_classes] == [
        ("load", ("s0.load",)),
        ("compute", ("s0.compute",)),
        ("store", ("s0.store",)),
    ]
    assert s.steps is None and s.cycles is None
    assert "cycles: not simulated" in s.table()
    assert s.to_json()["cycles"] == {"simulated": None, "pipelined_estimate": None, "status": "not simulated"}


def test_shared_multicast_two_sites():
    s = plan_summary(programs(OPS)["shared"])
    assert s.phase == "fused"
    assert [(x.name, x.buffers, x.lx_bytes, x.lx_limit) for x in s.sites] == [
        ("s0", 1, 4096, 65536),  # @w0: depth 1 x 4096
        ("s1", 2, 4096 + 2 * 4096, 65536),  # @w1 depth 1, @o1 depth 2
    ]
    assert [(g.name, g.reader, g.targets) for g in s.multicast] == [("g0", "ldw", 1)]
    assert s.block_shapes == ["32x64xbf16"]
    assert len(s.engine_classes) == 2
    data = s.to_json()
    assert data["multicast_groups"] == {"count": 1, "groups": [{"name": "g0", "reader": "ldw", "targets": 1}]}
    json.dumps(data)  # JSON-ready


def test_identical_sites_share_engine_classes():
    s = plan_summary(programs(TWO_SITES)["neg2"])
    assert [(x.name, x.buffers, x.lx_bytes) for x in s.sites] == [("s0", 2, 6144), ("s1", 2, 6144)]
    assert [(c.engine, c.members) for c in s.engine_classes] == [
        ("load", ("s0.load", "s1.load")),
        ("compute", ("s0.compute", "s1.compute")),
        ("store", ("s0.store", "s1.store")),
    ]
    assert s.engines == 6 and s.to_json()["engine_classes"]["count"] == 3


def test_a_different_choreography_is_its_own_class():
    text = TWO_SITES.read_text().replace(
        'spatial.engine @s1 "load" {\n    spatial.loop %j = 0 to 4 {',
        'spatial.engine @s1 "load" {\n    spatial.loop %j = 1 to 5 {',
    )
    module = ir.parse_module(text, "x.mlir", ir.make_context())
    (s,) = plan_summaries(module)
    assert [(c.engine, c.members) for c in s.engine_classes] == [
        ("load", ("s0.load",)),
        ("compute", ("s0.compute", "s1.compute")),
        ("store", ("s0.store", "s1.store")),
        ("load", ("s1.load",)),
    ]


def test_steps_from_the_certificate_and_cycles_only_when_recorded():
    module = ir.parse_module(TWO_SITES.read_text(), "x.mlir", ir.make_context())
    SpatialVerifyPass().apply(ir.make_context(), module)
    (program,) = [op for op in module.walk() if isinstance(op, ProgramOp)]
    s = plan_summary(program)
    assert s.phase == "verified"
    assert s.steps == 2 * (3 * 4 + 5 * 4 + 3 * 4) == 88
    assert s.engine_steps == {
        "s0.load": 12, "s0.compute": 20, "s0.store": 12, "s1.load": 12, "s1.compute": 20, "s1.store": 12,
    }
    assert s.cycles is None and "cycles: not simulated" in s.table()
    # Cycle figures are reported only when the IR records them.
    cert = program.attributes["spatial.certificate"]
    assert isinstance(cert, DictionaryAttr)
    program.attributes["spatial.certificate"] = DictionaryAttr(
        {**cert.data, "cycles": IntegerAttr(120, i64), "pipelined_cycles": IntegerAttr(100, i64)}
    )
    s = plan_summary(program)
    assert (s.cycles, s.pipelined_cycles) == (120, 100)
    assert "cycles: 120 simulated vs 100 pipelined estimate" in s.table()


def test_spyre_opt_prints_the_summary_to_stderr_and_writes_json(tmp_path, capsys):
    out_json = tmp_path / "plan.json"
    code = main([str(OPS), "--print-plan-summary", "--plan-summary-json", str(out_json)])
    assert code == 0
    out, err = capsys.readouterr()
    assert out.lstrip().startswith("builtin.module") or "spatial.program @vadd" in out
    assert "plan summary" not in out  # stdout stays the IR
    assert "plan summary of spatial.program @vadd (phase synthesized)" in err
    assert "plan summary of spatial.program @shared (phase fused)" in err
    data = json.loads(out_json.read_text())
    by_name = {d["program"]: d for d in data}
    assert {"vadd", "shared"} <= set(by_name)
    assert by_name["shared"]["sites"][1]["lx_bytes"] == 12288


def test_spyre_opt_without_the_flag_prints_no_summary(capsys):
    assert main([str(OPS)]) == 0
    assert "plan summary" not in capsys.readouterr().err
