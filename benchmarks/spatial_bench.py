"""The spatial lowering on the corpus: HBM bytes with and without reader fusion,
LX per site, simulated cycles against the schedule IR's estimates, compile time.

    python benchmarks/spatial_bench.py [--corpus DIR] [--kernel FILE ...] [--repeat 1] [--json FILE]

Not a test. For every kernel (the corpus, plus test/unit/kernels/spatial):
`ktir-to-spatial` with and without `spatial-fuse-readers` (multicast=false),
both programs run on the same seeded arguments (their outputs are checked
equal), and per program:

- HBM bytes read and written by the simulated run (a multicast load counts once),
- the multicast groups, the sites and the peak LX bytes of a site (its buffers'
  highest offset + size),
- the simulated cycles (engines overlapping, waits on semaphores) against the
  cost model's sequential and pipelined cycles of the kernel's schedule IR
  (`ktir-to-schedule`, docs/cost-model.md), measured in the same run,
- the compile time of the whole pipeline (best of --repeat, parsing excluded).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "ktir"
SPATIAL_KERNELS = ROOT / "test" / "unit" / "kernels" / "spatial"
sys.path.insert(0, str(ROOT / "test" / "unit"))

OWN_SCALARS = {
    "matmul_multicast": dict(K=256, BK=64),
    "row_norm": dict(N=64, BLOCK=16, scale=0.5),
}


def _pipeline(scalars: dict, multicast: bool, grid: tuple[int, ...] | None = None) -> str:
    opts = []
    if grid:
        opts.append("grid=" + ",".join(map(str, grid)))
    if scalars:
        opts.append('scalars="' + ",".join(f"{k}={v}" for k, v in scalars.items()) + '"')
    if not multicast:
        opts.append("multicast=false")
    return "ktir-to-spatial" + ("{" + ",".join(opts) + "}" if opts else "")


def _peak_lx(program) -> int:
    from spyre_mlir.dialects import spatial

    peak: dict[str, int] = {}
    for b in program.of_kind(spatial.BufferOp):
        site = b.site.root_reference.data
        peak[site] = max(peak.get(site, 0), (b.offset_value or 0) + b.size)
    return max(peak.values(), default=0)


def measure(path: Path, name: str, args: dict, scalars: dict, repeat: int, hbm: dict | None = None) -> dict:
    import numpy as np

    import spyre_mlir
    from spyre_mlir.dialects import spatial
    from spyre_mlir.interpreter import InterpreterOptions
    from spyre_mlir.interpreter.ops_spatial import simulate

    row: dict = {"kernel": path.stem}
    results = {}
    grid = args.pop("grid", None)
    hbm = hbm or {}
    for multicast in (True, False):
        times = []
        for _ in range(repeat):
            module = spyre_mlir.parse(path)
            manager = spyre_mlir.PassManager.from_pipeline(_pipeline(scalars, multicast, grid))
            start = time.perf_counter()
            manager.run(module)
            times.append(time.perf_counter() - start)
        (program,) = [p for p in module.walk() if isinstance(p, spatial.ProgramOp) and p.sym_name.data == name]
        copy = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        start = time.perf_counter()
        outputs, stats = simulate(module, name, hbm={a: v.copy() for a, v in hbm.items()}, **copy)
        run_s = time.perf_counter() - start
        key = "fused" if multicast else "unfused"
        results[key] = outputs
        row[f"{key}_hbm_read"] = stats.hbm_read_bytes
        row[f"{key}_hbm_written"] = stats.hbm_written_bytes
        row[f"{key}_cycles"] = stats.cycles
        if multicast:
            row["compile_ms"] = min(times) * 1e3
            row["simulate_s"] = run_s
            row["sites"] = len(program.of_kind(spatial.SiteOp))
            row["multicast_groups"] = len(program.of_kind(spatial.MulticastOp))
            row["peak_lx_bytes"] = _peak_lx(program)
    for k, v in results["fused"].items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, results["unfused"][k], err_msg=f"{path.name}: {k}")
    schedule = spyre_mlir.parse(path)
    spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(schedule)
    copy = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    estimate = spyre_mlir.interpret(schedule, name, hbm={a: v.copy() for a, v in hbm.items()}, grid=grid,
                                    options=InterpreterOptions(cost_model=True), **copy)
    est = estimate.report.estimate.to_json()
    row["schedule_sequential_cycles"] = est["sequential_cycles"]
    row["schedule_pipelined_cycles"] = est["pipelined_cycles"]
    return row


def own_arguments(path: Path) -> tuple[str, dict, dict]:
    """Seeded arguments of one of test/unit/kernels/spatial (scalars from OWN_SCALARS)."""
    import spyre_mlir
    from spyre_mlir.interpreter import Interpreter
    from spyre_mlir.interpreter.sample_args import sample_arguments

    func_op = Interpreter(spyre_mlir.parse(path)).kernel(None)
    return func_op.sym_name.data, sample_arguments(func_op, dict(OWN_SCALARS[path.stem]), 0), {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--kernel", type=Path, action="append", help="only these kernel files")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()

    from conftest import CORPUS_SCALARS, kernel_arguments

    paths = args.kernel or sorted(args.corpus.glob("*.mlir")) + sorted(SPATIAL_KERNELS.glob("*.mlir"))
    header = (
        f"{'kernel':<22} {'sites':>5} {'mcast':>5} {'HBM read':>10} {'no fuse':>10} {'saved':>6} {'peak LX':>9} "
        f"{'cycles':>10} {'pipelined':>10} {'sequential':>10} {'compile ms':>10}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for path in paths:
        try:
            if path.stem in OWN_SCALARS:
                name, kwargs, hbm = own_arguments(path)
            else:
                name, kwargs, hbm = kernel_arguments(path, seed=0)
        except BaseException as exc:  # noqa: BLE001 - pytest.skip from the argument table
            print(f"{path.stem:<22} skipped: {exc}")
            continue
        scalars = CORPUS_SCALARS.get(path.stem) or OWN_SCALARS.get(path.stem, {})
        kwargs.update(scalars)
        try:
            row = measure(path, name, kwargs, scalars, args.repeat, hbm)
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"{path.stem:<22} failed: {str(exc).splitlines()[0][:150]}")
            continue
        rows.append(row)
        saved = 1 - row["fused_hbm_read"] / row["unfused_hbm_read"] if row["unfused_hbm_read"] else 0.0
        print(
            f"{path.stem:<22} {row['sites']:>5} {row['multicast_groups']:>5} {row['fused_hbm_read']:>10} "
            f"{row['unfused_hbm_read']:>10} {saved:>5.0%} {row['peak_lx_bytes']:>9} {row['fused_cycles']:>10.0f} "
            f"{row['schedule_pipelined_cycles'] or float('nan'):>10.0f} {row['schedule_sequential_cycles']:>10.0f} "
            f"{row['compile_ms']:>10.1f}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
