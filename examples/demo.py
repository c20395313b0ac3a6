"""The main job, end to end: one kernel through every back end, each output run.

1. parse and verify examples/softmax_rows.mlir (KTIR: ktdp + arith/math/
   tensor/linalg/scf; 8 simulated Spyre cores);
2. run the reference interpreter on it with seeded inputs (the source run);
3. lower it with each named pipeline: `default` (clean-up), `ktir-to-schedule`
   (KTDF schedule IR), `ktir-to-bundle` (bundle.mlir + sdsc_N.json) and
   `ktir-to-spatial` (a verified spatial program), writing each artifact to
   the output directory;
4. run each artifact in the interpreter on the same inputs and compare it
   with the source run (bit-exact) and, for the bundled kernel, with a NumPy
   softmax;
5. print a table: pipeline, compile time, run time, equal to the source,
   equal to NumPy, the artifact's path.

    python examples/demo.py [KERNEL.mlir] [--func NAME] [--arg NAME=VALUE ...] [-o OUT_DIR]
                            [--pipelines default,ktir-to-schedule,...]

Another kernel runs its `--func` (default: the only function) with the
`--arg` values `spyre-run` takes (FILE.npy, random:SHAPExDTYPE[:SEED],
zeros:SHAPExDTYPE, INT, FLOAT); a pointer parameter without one gets seeded
data covering the static memory views built on it (sample_args.py). Integer
scalars are also given to `ktir-to-spatial` (its programs are specialized for
them). A pipeline that refuses the kernel is reported in the table with its
located error; the exit status is 1 when an artifact that was produced
disagrees with the source or NumPy, or any pipeline refuses the bundled
kernel, and 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import spyre_mlir
from spyre_mlir import ir
from spyre_mlir.interpreter import Interpreter
from spyre_mlir.interpreter.sample_args import MissingArgument, sample_arguments

HERE = Path(__file__).resolve().parent
DEFAULT_KERNEL = HERE / "softmax_rows.mlir"
PIPELINES = ("default", "ktir-to-schedule", "ktir-to-bundle", "ktir-to-spatial")


@dataclass
class Row:
    pipeline: str
    compile_ms: float | None = None
    run_ms: float | None = None
    equal: str = "-"
    numpy: str = "-"
    artifact: str = "-"
    refused: str | None = None


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def softmax_oracle(x: np.ndarray) -> np.ndarray:
    xf = x.astype(np.float32)
    e = np.exp(xf - xf.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def compile_with(pipeline: str, kernel: Path, func_name: str, scalars: dict[str, int], out_dir: Path):
    """Lower the kernel file with a named pipeline (read again, so errors point
    into it); the module to run, the function to run in it, and the artifact's path."""
    module = spyre_mlir.parse(kernel)
    if pipeline == "ktir-to-bundle":
        bundle_dir = out_dir / "bundle"
        spec = f'ktir-to-bundle{{out-dir="{bundle_dir}" kernel={func_name} format=ktir}}'  # runs with the kernel's arguments
        spyre_mlir.PassManager.from_pipeline(spec).run(module)
        return spyre_mlir.parse(bundle_dir / "bundle.mlir"), "sdsc_bundle", bundle_dir / "bundle.mlir"
    spec = pipeline
    if pipeline == "ktir-to-spatial" and scalars:
        spec += '{scalars="' + ",".join(f"{k}={v}" for k, v in scalars.items()) + '"}'
    spyre_mlir.PassManager.from_pipeline(spec).run(module)
    path = out_dir / f"{pipeline}.mlir"
    path.write_text(ir.print_ir(module))
    return module, func_name, path


def run(module, func_name: str, kernel_args: dict, bundle_dir: Path | None = None):
    copies = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in kernel_args.items()}
    if bundle_dir is not None:
        from spyre_mlir.interpreter import InterpreterOptions

        return spyre_mlir.interpret(module, func_name, options=InterpreterOptions(bundle_dir=bundle_dir), **copies)
    return Interpreter(module).run(func_name, copies)


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def print_table(rows: list[Row]) -> None:
    header = ("pipeline", "compile ms", "run ms", "== source", "== NumPy", "artifact")
    cells = [header] + [
        (
            r.pipeline,
            "-" if r.compile_ms is None else f"{r.compile_ms:.0f}",
            "-" if r.run_ms is None else f"{r.run_ms:.0f}",
            r.equal,
            r.numpy,
            r.artifact if r.refused is None else "refused (below)",
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    for i, c in enumerate(cells):
        print("  " + "  ".join(text.ljust(w) for text, w in zip(c, widths, strict=True)).rstrip())
        if i == 0:
            print("  " + "  ".join("-" * w for w in widths))


def main() -> int:
    from spyre_mlir.tools.spyre_run import UsageError, parse_value

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", nargs="?", default=str(DEFAULT_KERNEL))
    ap.add_argument("--func", metavar="NAME", help="the kernel to run (default: the only function)")
    ap.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE", help="a kernel argument")
    ap.add_argument("-o", "--out", default="out", help="where to write the artifacts (default: ./out)")
    ap.add_argument(
        "--pipelines",
        default=",".join(PIPELINES),
        help=f"comma-separated named pipelines to run (default: {','.join(PIPELINES)})",
    )
    args = ap.parse_args()
    pipelines = [p.strip() for p in args.pipelines.split(",") if p.strip()]
    unknown = [p for p in pipelines if p not in PIPELINES]
    if unknown or not pipelines:
        ap.error(f"--pipelines: unknown pipeline '{unknown[0] if unknown else ''}' (choose from {', '.join(PIPELINES)})")
    bundled = Path(args.kernel).resolve() == DEFAULT_KERNEL

    try:
        module = spyre_mlir.parse(Path(args.kernel))
        given = {}
        for item in args.arg:
            name, _, text = item.partition("=")
            given[name] = parse_value(name, text, 2026)
        func_op = Interpreter(module).kernel(args.func)
        if bundled and not given:
            x = np.random.default_rng(2026).standard_normal((256, 128)).astype(np.float16)
            given = {"out": np.zeros((256, 128), np.float16), "in": x}
        kernel_args = sample_arguments(func_op, given, seed=2026)
    except OSError as e:
        print(f"error: cannot read '{args.kernel}': {e.strerror or e}", file=sys.stderr)
        return 1
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except spyre_mlir.DiagnosticError as e:
        print(e.diagnostic.render(), file=sys.stderr)
        return 1
    except MissingArgument as e:
        print(f"error: {e} with --arg {e.name}=VALUE", file=sys.stderr)
        return 1
    func_name = func_op.sym_name.data
    scalars = {k: v for k, v in kernel_args.items() if isinstance(v, int) and not isinstance(v, bool)}
    print(f"parsed and verified {args.kernel}: @{func_name}, {sum(1 for _ in module.walk())} ops")

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    progress("running the source kernel in the reference interpreter ...")
    start = time.perf_counter()
    try:
        reference = run(module, func_name, kernel_args)
    except spyre_mlir.DiagnosticError as e:
        print(e.diagnostic.render(), file=sys.stderr)
        return 1
    rows = [Row("(source)", None, (time.perf_counter() - start) * 1e3, "-", "-", args.kernel)]
    oracle = softmax_oracle(kernel_args["in"]) if bundled else None

    def numpy_check(result: dict) -> str:
        if oracle is None:
            return "-"
        got = np.asarray(result["out"]).astype(np.float32)
        return "yes" if np.allclose(got, oracle, rtol=1e-2, atol=2e-3) else "NO"

    rows[0].numpy = numpy_check(reference)
    ok = rows[0].numpy != "NO"
    for i, pipeline in enumerate(pipelines, 1):
        row = Row(pipeline)
        rows.append(row)
        progress(f"[{i}/{len(pipelines)}] {pipeline}: compiling ...")
        start = time.perf_counter()
        try:
            lowered, entry, path = compile_with(pipeline, Path(args.kernel), func_name, scalars, out_dir)
        except spyre_mlir.DiagnosticError as e:
            row.refused = e.diagnostic.render()
            ok &= not bundled
            continue
        row.compile_ms = (time.perf_counter() - start) * 1e3
        row.artifact = str(path)
        progress(f"[{i}/{len(pipelines)}] {pipeline}: running the output ...")
        start = time.perf_counter()
        try:
            result = run(lowered, entry, kernel_args, path.parent if pipeline == "ktir-to-bundle" else None)
        except spyre_mlir.DiagnosticError as e:
            row.refused = "the output does not run: " + e.diagnostic.render()
            ok = False
            continue
        row.run_ms = (time.perf_counter() - start) * 1e3
        row.equal = "yes" if same(reference, result) else "NO"
        row.numpy = numpy_check(result)
        ok &= row.equal == "yes" and row.numpy != "NO"

    print()
    print_table(rows)
    for row in rows:
        if row.refused:
            print(f"\n{row.pipeline}: {row.refused}")
    if oracle is not None:
        print("\n== source: bit-exact against the source kernel's run; == NumPy: a NumPy softmax, f16 tolerance")
    print("\nOK" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
