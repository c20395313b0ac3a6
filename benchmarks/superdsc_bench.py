"""torch-spyre's compiled kernels on the CPU: the executor against the same op in plain NumPy.

    python benchmarks/superdsc_bench.py [--bundles DIR] [--repeat 5] [--json FILE]
    python benchmarks/superdsc_bench.py --emitted [--corpus DIR] [--repeat 3]

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

With --emitted: our own bundles against the kernels they come from. Each
kernel of test/unit/kernels/superdsc (torch-spyre's examples written as
KTIR) and each corpus kernel (its index scalars fixed by `scalars=`) through
`ktir-to-bundle` in torch-spyre's format, or ours (`format=ktir`) where that
refuses the kernel (docs/bundle.md): the source's run time and
the bundle's (`RunReport.run_seconds`, best of --repeat, same arrays; outputs
compared), and their ratio.
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


def _run_seconds(interpreter, func, args: dict, repeat: int, hbm=None, grid=None):
    best, result = float("inf"), None
    for _ in range(repeat):
        fresh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        result = interpreter.run(func, fresh, {a: v.copy() for a, v in (hbm or {}).items()}, grid=grid)
        best = min(best, result.report.run_seconds)
    return best, result


def emitted(args) -> list[dict]:
    """Our bundles against their source kernels (see the module docstring)."""
    import tempfile

    from conftest import CORPUS_SCALARS, kernel_arguments

    import spyre_mlir
    from spyre_mlir.diagnostics import DiagnosticError
    from spyre_mlir.interpreter import Interpreter

    jobs = [(p, False) for p in sorted((ROOT / "test" / "unit" / "kernels" / "superdsc").glob("*.mlir"))]
    jobs += [(p, True) for p in sorted(args.corpus.glob("*.mlir"))]
    rows = []
    header = f"{'kernel':<28} {'format':<9} {'source ms':>10} {'bundle ms':>10} {'bundle/src':>11}"
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for path, corpus in jobs:
        module = spyre_mlir.parse(path)
        source = Interpreter(module)
        func = source.kernel(None)
        name = func.sym_name.data
        hbm, grid = {}, None
        if corpus:
            name, kernel_args, hbm = kernel_arguments(path)
            grid = kernel_args.pop("grid", None)
            scalars = {k: v for k, v in CORPUS_SCALARS.get(path.stem, {}).items() if isinstance(v, int)}
        else:
            specialized = func.attributes.get("spyre.specialize")
            scalars = {k: v.value.data for k, v in specialized.data.items()} if specialized else {}
            kernel_args = {}
            for arg in func.body.blocks[0].args:
                if arg.name_hint in scalars:
                    kernel_args[arg.name_hint] = scalars[arg.name_hint]
                else:
                    shape = _view_shape(module, arg)
                    kernel_args[arg.name_hint] = rng.standard_normal(shape).astype(_element_dtype(module, arg))
        source_s, want = _run_seconds(source, name, kernel_args, args.repeat, hbm, grid)
        out = Path(tempfile.mkdtemp(prefix="superdsc_bench_"))
        option = ' scalars="' + ",".join(f"{k}={v}" for k, v in scalars.items()) + '"' if scalars else ""
        fmt = "superdsc"
        try:
            spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={out}{option}}}").run(spyre_mlir.parse(path))
        except DiagnosticError:  # not expressible in torch-spyre's format: ours
            fmt = "ktir"
            spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={out} format=ktir}}").run(
                spyre_mlir.parse(path)
            )
        bundle = Interpreter(out / "bundle.mlir")
        arrays = [k for k, v in kernel_args.items() if isinstance(v, np.ndarray)]
        if fmt == "ktir":
            bundle_args = kernel_args
        else:
            bundle_args = {f"arg_{i}_base_addr": kernel_args[k] for i, k in enumerate(arrays)}
            hbm, grid = {}, None
        bundle_s, got = _run_seconds(bundle, "sdsc_bundle", bundle_args, args.repeat, hbm, grid)
        for i, k in enumerate(arrays):
            mine = got[k] if fmt == "ktir" else got[f"arg_{i}_base_addr"]
            np.testing.assert_allclose(
                np.asarray(mine, np.float32).reshape(-1),
                np.asarray(want[k], np.float32).reshape(-1),
                rtol=2e-3,
                atol=0.5 if "matmul" in path.stem else 1e-3,  # one rounding of K=2048 sums vs one per tile
            )
        row = {
            "kernel": path.name,
            "format": fmt,
            "source_ms": source_s * 1e3,
            "bundle_ms": bundle_s * 1e3,
            "bundle_over_source": bundle_s / source_s,
        }
        rows.append(row)
        print(
            f"{path.name:<28} {fmt:<9} {row['source_ms']:>10.1f} {row['bundle_ms']:>10.1f} "
            f"{row['bundle_over_source']:>11.2f}"
        )
    return rows


def _view_shape(module, arg) -> tuple[int, ...]:
    """The shape of the first memory view over a pointer argument."""
    from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp

    for op in module.walk():
        if isinstance(op, ConstructMemoryViewOp) and arg in op.operands:
            return tuple(op.results[0].type.get_shape())
    raise SystemExit(f"no memory view over %{arg.name_hint}")


def _element_dtype(module, arg):
    from spyre_mlir.dialects.ktdp import ConstructMemoryViewOp
    from spyre_mlir.interpreter.dtypes import element_format

    for op in module.walk():
        if isinstance(op, ConstructMemoryViewOp) and arg in op.operands:
            return element_format(op.results[0].type.get_element_type()).storage
    raise SystemExit(f"no memory view over %{arg.name_hint}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundles", type=Path, default=DEFAULT_BUNDLES)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "ktir")
    parser.add_argument("--emitted", action="store_true", help="our emitted bundles against their source kernels")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    if args.emitted:
        rows = emitted(args)
        if args.json:
            args.json.write_text(json.dumps({"repeat": args.repeat, "rows": rows}, indent=1) + "\n")
        return

    import test_launch  # the examples table and their NumPy oracles

    from spyre_mlir.interpreter.launch import launch_run, parse_tensor_spec

    test_launch.BUNDLES = args.bundles
    examples = test_launch._examples()
    if not examples:
        sys.exit(f"no examples in {args.bundles}")
    rows = []
    header = (
        f"{'example':<14} {'shapes':<34} {'numpy ms':>9} {'run ms':>8} {'launch ms':>10} {'run/np':>7} {'launch/np':>9}"
    )
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
