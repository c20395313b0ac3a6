"""The spatial plan summary (spyre_mlir.passes.spatial.summary) and spyre-opt --print-plan-summary.

Figures are derived by hand from the programs: a 16x64xf16 tile is 2048
bytes, a 32x64xbf16 tile 4096; a site's LX is depth x tile bytes summed.
"""

from __future__ import annotations

import json
from pathlib import Path

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, i64

from spyre_mlir import ir
from spyre_mlir.dialects.spatial import ProgramOp
from spyre_mlir.passes.spatial.spatial_verify import SpatialVerifyPass
from spyre_mlir.passes.spatial.summary import plan_summaries, plan_summary
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
    # spatial-verify's simulated cycles are the interpreter's (the same cost model, the same clocks)
    import numpy as np

    from spyre_mlir.interpreter.ops_spatial import simulate

    _, stats = simulate(module, "neg2", x=np.ones((64, 64), np.float16), z=np.zeros((64, 64), np.float16))
    assert s.cycles == round(stats.cycles) > 0 and f"cycles: {s.cycles} simulated" in s.table()
    # Without a certificate: not simulated (numbers are never invented).
    cert = program.attributes.pop("spatial.certificate")
    assert plan_summary(program).cycles is None and "cycles: not simulated" in plan_summary(program).table()
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


# -- locals and HBM bytes ---------------------------------------------------------

ACC = ROOT / "test/lit/passes/spatial/spatial-verify-ext.mlir"


def test_locals_are_counted_apart_and_shared_bytes_once():
    text = """
spatial.program @p attributes {spatial.phase = "sized"} {
  spatial.site @s0 at [0] engines ["load", "compute"]
  spatial.site @s1 at [1] engines ["load"]
  spatial.buffer @in on @s0 : !spatial.tile<16x64xf32> depth 2 offset 0
  spatial.buffer @acc on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 8192
  spatial.buffer @tmp on @s0 : !spatial.tile<16x64xf32> depth 1 local offset 8192
  spatial.buffer @half on @s0 : !spatial.tile<8x64xf32> depth 1 local offset 10240
  spatial.buffer @b1 on @s1 : !spatial.tile<16x64xf32> depth 1
  spatial.stage @a compute() -> @acc on @s0 engine "compute"
  spatial.stage @b compute(@acc) -> @tmp on @s0 engine "compute"
  spatial.stage @c compute(@tmp) -> @half on @s0 engine "compute"
}
"""
    module = ir.parse_module(text, "x.mlir", ir.make_context())
    ir.verify(module)
    (s,) = plan_summaries(module)
    # @s0: @in covers [0, 8192), @acc and @tmp share [8192, 12288), @half lies inside it.
    assert [(x.name, x.buffers, x.locals, x.lx_bytes) for x in s.sites] == [("s0", 1, 3, 12288), ("s1", 1, 0, 4096)]
    assert s.to_json()["sites"][0]["locals"] == 3
    table = s.table()
    assert "  site  buffers  locals  LX bytes / limit" in table
    assert "  @s0        1       3  12288 / 2097152" in table
    assert "  @s1        1       0  4096 / 2097152" in table


def test_no_locals_column_without_locals():
    s = plan_summary(programs(OPS)["vadd"])
    assert "  site  buffers  LX bytes / limit" in s.table() and "locals" not in s.table()


def test_hbm_bytes_from_the_certificate():
    module = ir.parse_module(ACC.read_text(), str(ACC), ir.make_context())
    s = plan_summary(next(op for op in module.walk() if isinstance(op, ProgramOp)))
    assert (s.hbm_read_bytes, s.hbm_written_bytes) == (None, None) and "hbm bytes" not in s.table()
    assert s.to_json()["hbm"] is None
    SpatialVerifyPass().apply(ir.make_context(), module)
    s = plan_summary(next(op for op in module.walk() if isinstance(op, ProgramOp)))
    # @w once (a multicast load) and four @x tiles of 8x8xf32 (256 bytes); two @z tiles.
    assert (s.hbm_read_bytes, s.hbm_written_bytes) == (5 * 256, 2 * 256)
    assert "  hbm bytes: read 1280, written 512" in s.table()
    assert s.to_json()["hbm"] == {"read_bytes": 1280, "written_bytes": 512}
    assert [(x.name, x.buffers, x.locals) for x in s.sites] == [("s0", 3, 1), ("s1", 3, 1)]
