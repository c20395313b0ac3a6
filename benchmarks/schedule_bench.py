"""The schedule lowering on the corpus: sizes, compile time, and modeled cycles.

    python benchmarks/schedule_bench.py [--corpus DIR] [--repeat 3] [--json FILE]
    python benchmarks/schedule_bench.py --interpreter [--corpus DIR] [--repeat 5]

Not a test. For every corpus kernel: the op count after `ktir-to-schedule`
with and without its CSE, the groups and pipelines it makes, the pipeline's
compile time (best of --repeat, parsing excluded), and the cost model's
sequential and pipelined cycles of the scheduled kernel (docs/cost-model.md)
with their ratio (the overlap the pipelines buy).

With --interpreter: the interpreter's time on schedule IR against the same
kernel as KTIR (decode once, best of --repeat runs): every corpus kernel
before and after `ktir-to-schedule` (outputs compared), and
dataflow-scheduler's three-stage tiled add in its public form (memref casts,
FIFOs; test_ktdf_public_interpreter.THREE_STAGE) against its KTIR input
(ConstructThreeStagePipeline/basic.mlir), 32 cores.
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
    parser.add_argument("--interpreter", action="store_true", help="time the interpreter on schedule IR vs KTIR")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        sys.exit(f"no corpus at {args.corpus}")
    if args.interpreter:
        interpreter_times(args.corpus, args.repeat)
        return

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


def _timed(interpreter, name: str, repeat: int, **kwargs):
    """(decode seconds, best run seconds, the last result) of `repeat` runs of one decoded kernel."""
    hbm = kwargs.pop("hbm", None)
    grid = kwargs.pop("grid", None)
    results = [interpreter.run(name, kwargs, hbm, grid=grid) for _ in range(repeat)]
    return results[0].report.decode_seconds, min(r.report.run_seconds for r in results), results[-1]


def interpreter_times(corpus: Path, repeat: int) -> None:
    import warnings

    import numpy as np
    from conftest import kernel_arguments
    from test_ktdf_public_interpreter import THREE_STAGE

    import spyre_mlir
    from spyre_mlir.interpreter import Interpreter

    warnings.simplefilter("ignore")
    header = f"{'kernel':<34} {'ktir ms':>9} {'schedule ms':>12} {'ratio':>7}   decode ms (ktir / schedule)"
    print(header)
    print("-" * len(header))

    def row(label, ktir, schedule):
        ratio = schedule[1] / ktir[1] if ktir[1] else float("nan")
        print(f"{label:<34} {ktir[1] * 1e3:>9.2f} {schedule[1] * 1e3:>12.2f} {ratio:>6.2f}x   "
              f"{ktir[0] * 1e3:.1f} / {schedule[0] * 1e3:.1f}")

    for path in sorted(corpus.glob("*.mlir")):
        name, kwargs, hbm = kernel_arguments(path, seed=0)
        module = spyre_mlir.parse(path)
        ktir = _timed(Interpreter(module), name, repeat, hbm=hbm, **kwargs)
        scheduled = spyre_mlir.parse(path)
        spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(scheduled)
        schedule = _timed(Interpreter(scheduled), name, repeat, hbm=hbm, **kwargs)
        for key, value in ktir[2].items():
            if not np.allclose(np.asarray(value, np.float64), np.asarray(schedule[2][key], np.float64), equal_nan=True):
                print(f"  {path.stem}: {key} differs between KTIR and schedule IR")
        row(path.stem, ktir, schedule)

    source = corpus.parent / "dataflow-scheduler" / "test" / "Conversion" / "frontend" / "KTIRToScheduleIR"
    source = source / "ConstructThreeStagePipeline" / "basic.mlir"
    if not source.is_file():
        print(f"(no {source}: the public-form comparison is skipped)")
        return
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((96, 64)).astype(np.float16) for _ in range(2))
    hbm = {1024: a, 12288: b, 18432: np.zeros_like(a)}
    ktir = _timed(Interpreter(source), "local_schedule_1", repeat, hbm=hbm, grid=32, i=1)
    schedule = _timed(Interpreter(THREE_STAGE), "local_schedule_1", repeat, hbm=hbm, grid=32, arg0=1)
    if not np.array_equal(ktir[2]["hbm@18432"], schedule[2]["hbm@18432"]):
        print("  three-stage add: the public form and the KTIR differ")
    row("three-stage add (public form)", ktir, schedule)


if __name__ == "__main__":
    main()
