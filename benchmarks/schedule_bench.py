"""The schedule lowering on the corpus: sizes, compile time, and modeled cycles.

    python benchmarks/schedule_bench.py [--corpus DIR] [--repeat 3] [--json FILE]

Not a test. For every corpus kernel: the op count after `ktir-to-schedule`
with and without its CSE, the groups and pipelines it makes, the pipeline's
compile time (best of --repeat, parsing excluded), and the cost model's
sequential and pipelined cycles of the scheduled kernel (docs/cost-model.md)
with their ratio (the overlap the pipelines buy).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "ktir"
sys.path.insert(0, str(ROOT / "test" / "unit"))
WITHOUT_CSE = (
    "spyre-physicalize-layouts,spyre-fold-reshapes,canonicalize,ktdp-hbm-roundtrip,"
    "ktdp-extract-compute-groups,ktdf-build-pipelines"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")

    from conftest import kernel_arguments  # the corpus's argument table

    import spyre_mlir
    from spyre_mlir.interpreter import InterpreterOptions

    header = (
        f"{'kernel':<22} {'ops':>6} {'no cse':>7} {'groups':>6} {'pipes':>5} {'compile ms':>10} "
        f"{'sequential':>12} {'pipelined':>12} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for path in sorted(args.corpus.glob("*.mlir")):
        name, kwargs, hbm = kernel_arguments(path, seed=0)
        times = []
        for _ in range(args.repeat):
            module = spyre_mlir.parse(path)
            manager = spyre_mlir.PassManager.from_pipeline("ktir-to-schedule")
            start = time.perf_counter()
            manager.run(module)
            times.append(time.perf_counter() - start)
        plain = spyre_mlir.parse(path)
        spyre_mlir.PassManager.parse(WITHOUT_CSE).run(plain)
        ops = sum(1 for _ in module.walk())
        ops_plain = sum(1 for _ in plain.walk())
        groups = sum(
            1 for op in module.walk() if op.name == "func.func" and op.sym_name.data.startswith("local_schedule_")
            and op.body.blocks
        )
        pipes = sum(1 for op in module.walk() if op.name == "ktdf.pipeline")
        options = InterpreterOptions(cost_model=True)
        estimate = spyre_mlir.interpret(module, name, hbm=hbm, options=options, **kwargs).report.estimate.to_json()
        sequential, pipelined = estimate["sequential_cycles"], estimate["pipelined_cycles"]
        ratio = sequential / pipelined if pipelined else float("nan")
        row = {
            "kernel": path.stem, "ops": ops, "ops_without_cse": ops_plain, "groups": groups, "pipelines": pipes,
            "compile_ms": min(times) * 1e3, "sequential_cycles": sequential, "pipelined_cycles": pipelined,
            "ratio": ratio,
        }
        rows.append(row)
        print(
            f"{path.stem:<22} {ops:>6} {ops_plain:>7} {groups:>6} {pipes:>5} {row['compile_ms']:>10.1f} "
            f"{sequential:>12.0f} {pipelined if pipelined is not None else float('nan'):>12.0f} {ratio:>5.2f}x"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
