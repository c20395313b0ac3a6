"""torch-spyre's compiled kernels on the CPU: the executor against the same op in plain NumPy.

    python benchmarks/superdsc_bench.py [--bundles DIR] [--repeat 5] [--json FILE]

Not a test. For every example of ../shared/corpus/torch-spyre-bundles named
in its README-upstream.md table (the op, the shapes and dtypes of `spyre
launch`): seeded random inputs (positive for division), then, best of
--repeat, in the same run:

- numpy: the op in plain NumPy on the host arrays, computed as the executor
  computes it: inputs to float32, the op (`a + b`, softmax, `a @ b`, ...),
  the result rounded to the output's dtype;
- run: the bundle's execution in the interpreter (`RunReport.run_seconds`:
  every `sdsc_execute`, each running its SuperDSC on all cores);
- launch: `spyre_mlir.launch` end to end (reading the bundle, placing the
  tensors in the device layout and back, the run).

and the ratios run/numpy and launch/numpy. Outputs are checked against the
NumPy result (the benchmark stops on a mismatch).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BUNDLES = ROOT.parent / "shared" / "corpus" / "torch-spyre-bundles"
sys.path.insert(0, str(ROOT / "test" / "unit"))


def _best(fn, repeat: int) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundles", type=Path, default=DEFAULT_BUNDLES)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()

    import test_launch  # the examples table and their NumPy oracles

    from spyre_mlir.interpreter.launch import launch_run, parse_tensor_spec

    test_launch.BUNDLES = args.bundles
    examples = test_launch._examples()
    if not examples:
        sys.exit(f"no examples in {args.bundles}")
    rows = []
    header = f"{'example':<14} {'shapes':<34} {'numpy ms':>9} {'run ms':>8} {'launch ms':>10} {'run/np':>7} {'launch/np':>9}"
    print(header)
    print("-" * len(header))
    for name, inputs, outputs in examples:
        arrays = test_launch._random_inputs(name, inputs)
        specs = [parse_tensor_spec(o) for o in outputs]
        oracle = test_launch.ORACLES[name]

        def numpy_op():  # as the executor computes: float32 arithmetic, rounded to the output's dtype
            return np.asarray(oracle(*[a.astype(np.float32) for a in arrays]), np.float32).astype(arrays[0].dtype)

        numpy_s, expected = _best(numpy_op, args.repeat)
        run_s, launch_s = float("inf"), float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            values, result, _ = launch_run(args.bundles / name, arrays, specs)
            launch_s = min(launch_s, time.perf_counter() - start)
            run_s = min(run_s, result.report.run_seconds)
        tolerance = test_launch._tolerance(name, specs[0])
        np.testing.assert_allclose(values[0].astype(np.float64), np.asarray(expected, np.float64), **tolerance)
        shapes = " ".join(inputs) + " -> " + " ".join(outputs)
        row = {
            "example": name,
            "shapes": shapes,
            "numpy_ms": numpy_s * 1e3,
            "run_ms": run_s * 1e3,
            "launch_ms": launch_s * 1e3,
            "run_over_numpy": run_s / numpy_s,
            "launch_over_numpy": launch_s / numpy_s,
        }
        rows.append(row)
        print(
            f"{name:<14} {shapes:<34.34} {row['numpy_ms']:>9.2f} {row['run_ms']:>8.2f} {row['launch_ms']:>10.2f} "
            f"{row['run_over_numpy']:>7.2f} {row['launch_over_numpy']:>9.2f}"
        )
    geo = lambda key: float(np.exp(np.mean([np.log(r[key]) for r in rows])))  # noqa: E731
    print(f"geometric mean: run/numpy {geo('run_over_numpy'):.2f}, launch/numpy {geo('launch_over_numpy'):.2f}")
    if args.json:
        args.json.write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
