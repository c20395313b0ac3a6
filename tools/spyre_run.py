"""spyre-run: execute a KTIR kernel in the reference interpreter.

    spyre-run --bundle DIR -i SHAPE@DTYPE [--input-npy FILE] ... -o SHAPE@DTYPE [--output-npy FILE] ...
              [--estimate] [--estimate-json PATH] [--trace PATH] [--print-summary]
    spyre-run FILE [--func NAME] [--arg NAME=VALUE ...] [--hbm ADDR=VALUE ...]
              [--out DIR] [--grid 32|2x16] [--grid-order col-major|row-major]
              [--lx-limit 2MiB] [--target FILE.json] [--device FILE.mlir] [--check-lx] [--allow-uninitialized]
              [--strict-bounds] [--execution auto|batched|per-core]
              [--timeout SECONDS] [--memory-limit 8GiB] [--host-layout]
              [--print-summary] [--print-outputs]
              [--estimate] [--estimate-json PATH] [--trace PATH] [--hw KEY=VALUE|FILE.json ...]

VALUE is one of
    FILE.npy                  an array saved with numpy.save
    random:SHAPExDTYPE[:SEED] e.g. random:4096x1024xf16:7 (floats: standard
                              normal; integers: uniform in [-100, 100),
                              unsigned ones in [0, 100))
    zeros:SHAPExDTYPE         e.g. zeros:96x64xf16
    INT | FLOAT               a scalar (for index/integer/float parameters)

DTYPE is an element type the interpreter holds, spelled as in MLIR (listed
at the end of `spyre-run --help`).

Arrays given for `index` parameters are placed in HBM and their address is
passed (see docs/interpreter.md). With --out, every array argument and every
--hbm region is written to DIR/NAME.npy (DIR/hbm@ADDR.npy) after the run.
With --host-layout, an array for a pointer parameter that has a host layout
(its `spyre.host_layout` arg attribute, or a `spyre.tensor_layout` marker on
a view directly over it) is the logical array: its device form is placed in
HBM, and it is written back (--out, --print-outputs) in logical form.
With --estimate, --estimate-json or --trace, the run also models the
kernel's time on Spyre (docs/cost-model.md): --estimate prints a table
(sequential cycles per core and component, the pipelined figure for
schedule IR, the bottleneck), --estimate-json writes it as JSON (with, at
the top level, "hbm_bytes": bytes moved between HBM and the cores by loads,
stores and data transfers, and "peak_lx_bytes_per_core"), --trace
writes a Chrome trace of the modeled timeline (open it in
https://ui.perfetto.dev). For a spatial program (docs/spatial.md), the
JSON's "hbm_bytes" are the bytes its load and store steps move (a multicast
load once), "cycles" its simulated cycles (engines overlapping) and
"spatial" its measurements; the trace has one track per (site, engine),
one slice per step. --hw KEY=VALUE (e.g. hbm_bandwidth_tb_s=1.0) or
--hw FILE.json changes the modeled hardware.
--target FILE.json (flat JSON of target facts, e.g. {"lx_bytes": 65536};
docs/target.md) is the hardware the kernel runs on, in place of the
module's `spyre.target` attribute; --lx-limit defaults to its lx_bytes.
--device FILE.mlir (a `ktdf_arch.device`, e.g. spyre_mlir/devices/spyre.mlir)
is the device the kernel runs on, declared in the module as spyre-opt
--device does: the target is the facts it states; one on which it and the
module's own device or --target disagree is a located error.
Bad input is reported as `FILE:LINE:COL: error: MESSAGE` with exit code 1;
warnings (a kernel that reads the tile id but has no grid) as
`FILE:LINE:COL: warning: MESSAGE` on stderr. Runs have no time limit unless
--timeout is given; allocations above --memory-limit are refused before
they are made.
With --bundle DIR, a compiled kernel directory (torch-spyre's bundle.mlir and
SuperDSC sdsc_N.json files, docs/superdsc.md) runs as `spyre launch DIR`
runs it: every -i/-o tensor (e.g. 512x1024@fp16; fp16, fp32, bf16) in the
default device layout, inputs ones unless --input-npy gives the next one,
each output printed as a summary and written by --output-npy.
A bundle (`spyre-run DIR/bundle.mlir --func sdsc_bundle ...`, docs/bundle.md)
runs with the kernel's arguments; its sdscbundle.sdsc_execute ops read their
SDSC files from the bundle's directory (the current one for stdin).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import textwrap
import warnings
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from spyre_mlir import ir
from spyre_mlir.deep import call_deep
from spyre_mlir.diagnostics import DiagnosticError

if TYPE_CHECKING:
    from spyre_mlir.interpreter.dtypes import ElementFormat

_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "kib": 1024,
    "m": 1000**2,
    "mb": 1000**2,
    "mib": 1024**2,
    "g": 1000**3,
    "gb": 1000**3,
    "gib": 1024**3,
    "t": 1000**4,
    "tb": 1000**4,
    "tib": 1024**4,
}


class UsageError(Exception):
    """A bad command line value."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # exit 1 like every other user error
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _size_text(n: int) -> str:
    """`n` bytes as --lx-limit and --memory-limit spell it: the largest binary unit that divides it."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        if n % _SIZE_UNITS[unit.lower()] == 0:
            return f"{n // _SIZE_UNITS[unit.lower()]}{unit}"
    return str(n)


def build_parser() -> argparse.ArgumentParser:
    from spyre_mlir.interpreter.dtypes import element_type_names
    from spyre_mlir.interpreter.runtime import (
        DEFAULT_GRID_ORDER,
        DEFAULT_LX_BYTES,
        EXECUTION_MODES,
        GRID_ORDERS,
        MEMORY_LIMIT_CAP,
    )

    dtypes = textwrap.fill(f"DTYPE is one of {', '.join(element_type_names())}.", 79)
    epilog = "VALUE is one of" + __doc__.split("VALUE is one of", 1)[1] + "\n" + dtypes if __doc__ else dtypes
    parser = _Parser(
        prog="spyre-run",
        description="Execute a KTIR kernel in the spyre-mlir reference interpreter.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog,
    )
    parser.add_argument("file", nargs="?", help="MLIR file with the kernel ('-' for stdin); not with --bundle")
    launch = parser.add_argument_group(
        "compiled kernels (spyre launch)",
        "run a compiled kernel directory (bundle.mlir + SuperDSC sdsc_N.json, docs/superdsc.md) as torch-spyre's "
        "`spyre launch DIR` does: tensors in the default device layout, inputs filled with ones",
    )
    launch.add_argument("--bundle", metavar="DIR", help="the compiled kernel directory to run")
    launch.add_argument(
        "-i", dest="inputs", action="append", default=[], metavar="SHAPE@DTYPE", help="an input, e.g. 512x1024@fp16"
    )
    launch.add_argument(
        "-o", dest="outputs", action="append", default=[], metavar="SHAPE@DTYPE", help="an output, e.g. 512x1024@fp16"
    )
    launch.add_argument(
        "--input-npy",
        action="append",
        default=[],
        metavar="FILE",
        help="the values of the next input without a file (in -i order; default: ones)",
    )
    launch.add_argument(
        "--output-npy", action="append", default=[], metavar="FILE", help="write the next output (in -o order)"
    )
    parser.add_argument("--func", metavar="NAME", help="kernel to run (default: the only one)")
    parser.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE", help="a kernel argument")
    parser.add_argument(
        "--hbm", action="append", default=[], metavar="ADDR=VALUE", help="pre-load HBM at an element address"
    )
    parser.add_argument("--out", metavar="DIR", help="write outputs as DIR/NAME.npy")
    parser.add_argument("--grid", metavar="DIMS", help="override the kernel's grid, e.g. 32 or 2x16")
    parser.add_argument(
        "--grid-order",
        choices=GRID_ORDERS,
        default=DEFAULT_GRID_ORDER,
        help=f"linear tile ids (default {DEFAULT_GRID_ORDER}): grid dim 0 varies fastest (col-major, ktir-cpu's "
        "x + nx*(y + ny*z)) or the last one (row-major). A kernel's meaning depends on it where it names a tile "
        "by one number: inter-tile producer/consumer/dependency sets, ct_id of ct_local memory, a single-result "
        "ktdp.get_compute_tile_id on a multi-dimensional grid; it also orders cores in per-core execution "
        "(which core writes last)",
    )
    parser.add_argument(
        "--lx-limit",
        metavar="BYTES",
        help=f"LX scratchpad per core (default: the lx_bytes of the kernel's target, {_size_text(DEFAULT_LX_BYTES)} "
        "on Spyre)",
    )
    parser.add_argument(
        "--target",
        metavar="FILE.json",
        help='the target the kernel runs on: a JSON file of facts such as {"lx_bytes": 65536} (default: the '
        "module's spyre.target attribute, else Spyre)",
    )
    parser.add_argument(
        "--device",
        metavar="FILE.mlir",
        help="the device the kernel runs on: an MLIR file with one ktdf_arch.device (default: the module's own "
        "device, else Spyre); --target facts apply on top of it",
    )
    parser.add_argument("--check-lx", action="store_true", help="make LX use above --lx-limit an error")
    parser.add_argument(
        "--allow-uninitialized", action="store_true", help="read never-written memory as zero instead of failing"
    )
    bounds = parser.add_mutually_exclusive_group()
    bounds.add_argument(
        "--strict-bounds",
        dest="mask_out_of_bounds",
        action="store_false",
        help="make a load or store of an element outside its view a located error (default: such elements "
        "load 0 and are not stored, as Triton's masked tail tiles need)",
    )
    bounds.add_argument(
        "--mask-out-of-bounds",
        dest="mask_out_of_bounds",
        action="store_true",
        help="accesses outside a view load 0 / are not stored (the default; kept for old command lines)",
    )
    parser.set_defaults(mask_out_of_bounds=True)
    parser.add_argument(
        "--execution",
        choices=EXECUTION_MODES,
        default=EXECUTION_MODES[0],
        help="run all cores together, one after another, or batched when possible (default)",
    )
    parser.add_argument(
        "--timeout", metavar="SECONDS", help="stop a run that takes longer, naming the loop it was in (default: none)"
    )
    parser.add_argument(
        "--memory-limit",
        metavar="BYTES",
        help=f"refuse allocations beyond this many bytes (default {_size_text(MEMORY_LIMIT_CAP)}, "
        "or half the machine's memory if less)",
    )
    parser.add_argument(
        "--host-layout",
        action="store_true",
        help="arrays of parameters with a host layout (spyre.host_layout, or a marked view on them) are logical "
        "(host) arrays: placed in their device layout, written back logical",
    )
    parser.add_argument("--seed", type=int, default=0, help="base seed of random: values without their own")
    parser.add_argument("--print-summary", action="store_true", help="print grid, mode, LX use, timings")
    parser.add_argument("--print-outputs", action="store_true", help="print every output array")
    parser.add_argument(
        "--estimate", action="store_true", help="print the modeled time on Spyre (cost model, docs/cost-model.md)"
    )
    parser.add_argument(
        "--estimate-json",
        metavar="PATH",
        help="write the cost estimate as JSON, with hbm_bytes and peak_lx_bytes_per_core ('-': stdout)",
    )
    parser.add_argument(
        "--trace", metavar="PATH", help="write the modeled timeline as a Chrome trace (open in ui.perfetto.dev)"
    )
    parser.add_argument(
        "--hw",
        action="append",
        default=[],
        metavar="KEY=VALUE|FILE.json",
        help="a hardware parameter of the cost model (or a JSON file of them), e.g. hbm_bandwidth_tb_s=1.0",
    )
    return parser


def parse_hardware(items: Sequence[str]):
    """The cost model's HardwareConfig: the defaults, then each --hw in order (KEY=VALUE or a JSON file)."""
    from spyre_mlir.interpreter.cost import HardwareConfig

    config = HardwareConfig()
    for item in items:
        try:
            if "=" in item:
                config = config.with_overrides([item])
            else:  # a JSON file: it changes the parameters it names
                config = HardwareConfig.from_json(item, base=config)
        except OSError as exc:
            raise UsageError(f"bad --hw '{item}': cannot read it: {exc.strerror or exc}") from None
        except (ValueError, TypeError) as exc:
            raise UsageError(f"bad --hw '{item}': {exc}") from None
    return config


def parse_size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    if not match or match.group(2).lower() not in _SIZE_UNITS:
        raise UsageError(f"bad size '{text}' (e.g. 2097152, 2MiB, 512KiB)")
    return int(match.group(1)) * _SIZE_UNITS[match.group(2).lower()]


def parse_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise UsageError(f"bad timeout '{text}' (seconds, e.g. 30 or 0.5)") from None
    if not seconds > 0 or seconds == float("inf"):
        raise UsageError(f"bad timeout '{text}': it must be a positive number of seconds")
    return seconds


def parse_grid(text: str) -> tuple[int, ...]:
    from spyre_mlir.interpreter.runtime import normalize_grid

    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"bad grid '{text}' (e.g. 32 or 2x16)") from None
    try:
        return normalize_grid(dims)  # type: ignore[return-value]
    except ValueError:
        raise UsageError(f"bad grid '{text}': dims must be positive") from None


def _shape_and_type(spec: str) -> tuple[tuple[int, ...], ElementFormat]:
    from spyre_mlir.interpreter.dtypes import element_format_named
    from spyre_mlir.interpreter.errors import InterpreterError

    match = re.fullmatch(r"((?:[-+]?\d+x)*)([a-z][a-z0-9]*)", spec)
    if match is None:
        raise UsageError(f"bad shape in '{spec}' (e.g. 4096x1024xf16)")
    shape = tuple(int(p) for p in match.group(1).split("x")[:-1])
    if any(d < 0 for d in shape):
        raise UsageError(f"bad shape in '{spec}': sizes must not be negative")
    try:
        return shape, element_format_named(match.group(2))
    except InterpreterError as exc:
        raise UsageError(exc.message) from None


def _check_memory(text: str, shape: tuple[int, ...], bytes_per_element: int, memory_limit: int | None) -> None:
    from spyre_mlir.interpreter.memory import format_bytes

    need = math.prod(shape) * bytes_per_element
    if memory_limit is not None and need > memory_limit:
        raise UsageError(
            f"'{text}' would allocate {format_bytes(need)}, over the {format_bytes(memory_limit)} memory limit "
            "(--memory-limit)"
        )


def parse_value(name: str, text: str, base_seed: int, memory_limit: int | None = None):
    """An argument value from its command-line spelling (see module docstring).
    Arrays above `memory_limit` bytes (while being made) are refused before they are made."""
    from spyre_mlir.interpreter import float32_to_bf16_bits

    if text.startswith("random:"):
        spec, _, seed_text = text[len("random:") :].partition(":")
        shape, fmt = _shape_and_type(spec)
        _check_memory(text, shape, fmt.itemsize + 8, memory_limit)  # drawn as 64-bit values first
        try:
            seed = int(seed_text) if seed_text else base_seed ^ zlib.crc32(name.encode())
        except ValueError:
            raise UsageError(f"bad seed in '{text}'") from None
        rng = np.random.default_rng(seed)
        if fmt.round is not None:  # bf16, stored as its bit patterns
            return float32_to_bf16_bits(rng.standard_normal(shape, dtype=np.float32))
        if fmt.is_float:
            return rng.standard_normal(shape).astype(fmt.storage)
        if fmt.kind == "bool":
            return rng.integers(0, 2, shape).astype(bool)
        return rng.integers(0 if fmt.unsigned else -100, 100, shape).astype(fmt.storage)
    if text.startswith("zeros:"):
        shape, fmt = _shape_and_type(text[len("zeros:") :])
        _check_memory(text, shape, fmt.itemsize, memory_limit)
        return np.zeros(shape, fmt.storage)
    if text.endswith(".npy"):
        try:
            mapped = np.load(text, mmap_mode="r", allow_pickle=False)
            _check_memory(text, mapped.shape, mapped.dtype.itemsize, memory_limit)
            return np.array(mapped)
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read '{text}': {exc}") from None
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        raise UsageError(
            f"bad value '{text}' for '{name}' (FILE.npy, random:SHAPExDTYPE[:SEED], zeros:SHAPExDTYPE, INT or FLOAT)"
        ) from None


def _split(item: str, what: str) -> tuple[str, str]:
    key, sep, value = item.partition("=")
    if not sep or not key or not value:
        raise UsageError(f"bad {what} '{item}' (expected {'NAME' if what == '--arg' else 'ADDR'}=VALUE)")
    return key.strip(), value.strip()


def _target(module, path: str | None, device: str | None = None):
    """The target `module` runs on: the device file `device` (declared in the module) and the facts
    file `path` (recorded on the module, for every reader), else the module's own device and
    `spyre.target`. A bad file is a usage error; a bad attribute or a contradiction a located error."""
    from spyre_mlir.diagnostics import error
    from spyre_mlir.target import TargetError, attach_device, load_target, set_target, target_of

    if device is not None:
        try:
            attach_device(module, device)
        except TargetError as exc:
            raise UsageError(f"bad --device: {exc}") from None
    if path is not None:
        try:
            target = load_target(path)
        except TargetError as exc:
            raise UsageError(f"bad --target: {exc}") from None
        set_target(module, target)
        return target_of(module)  # the device's facts and the file's, checked to agree
    try:
        return target_of(module)
    except TargetError as exc:
        raise error(module, str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from spyre_mlir.interpreter import Interpreter, InterpreterOptions, InterpreterWarning
    from spyre_mlir.interpreter.runtime import DEFAULT_MEMORY_LIMIT

    if args.bundle is not None:
        return run_bundle(args)
    if args.file is None:
        raise UsageError("give a kernel FILE, or --bundle DIR for a compiled kernel")
    if args.inputs or args.outputs or args.input_npy or args.output_npy:
        raise UsageError("-i, -o, --input-npy and --output-npy go with --bundle DIR")
    memory_limit = parse_size(args.memory_limit) if args.memory_limit else DEFAULT_MEMORY_LIMIT
    if memory_limit <= 0:
        raise UsageError(f"bad --memory-limit '{args.memory_limit}': it must be positive")
    timeout = parse_seconds(args.timeout) if args.timeout is not None else None
    lx_limit = parse_size(args.lx_limit) if args.lx_limit is not None else None
    grid = parse_grid(args.grid) if args.grid else None
    hardware = parse_hardware(args.hw)
    kernel_args = {}
    for item in args.arg:
        key, value = _split(item, "--arg")
        kernel_args[key] = parse_value(key, value, args.seed, memory_limit)
    hbm = {}
    for item in args.hbm:
        key, value = _split(item, "--hbm")
        try:
            address = int(key, 0)
        except ValueError:
            raise UsageError(f"bad HBM address '{key}'") from None
        array = parse_value(f"hbm@{address}", value, args.seed, memory_limit)
        if not isinstance(array, np.ndarray):
            raise UsageError(f"--hbm {key}= needs an array value, not '{value}'")
        hbm[address] = array

    try:
        text, name = ir.read_source(Path(args.file) if args.file != "-" else "-")
    except OSError as exc:
        raise UsageError(f"cannot read '{args.file}': {exc.strerror or exc}") from None
    sources = {name: text}
    try:
        module = call_deep(ir.parse_module, text, name)
        target = _target(module, args.target, args.device)
        options = InterpreterOptions(
            grid_order=args.grid_order,
            lx_limit=lx_limit if lx_limit is not None else target.lx_bytes,
            check_lx=args.check_lx,
            check_uninitialized=not args.allow_uninitialized,
            mask_out_of_bounds=args.mask_out_of_bounds,
            execution=args.execution,
            grid=grid,
            timeout=timeout,
            memory_limit=memory_limit,
            host_layout=args.host_layout,
            cost_model=hardware if (args.estimate or args.estimate_json or args.trace) else None,
            bundle_dir=(os.path.dirname(args.file) or os.curdir) if args.file != "-" else None,
        )
        interpreter = Interpreter(module, options)
        interpreter.sources.update(sources)  # shared with the plug-ins: SDSC files' "ktir" texts join it as read
        sources = interpreter.sources
        with warnings.catch_warnings():  # printed below as diagnostics, with the source line
            warnings.simplefilter("ignore", InterpreterWarning)
            result = interpreter.run(args.func, kernel_args, hbm)
    except DiagnosticError as exc:
        if exc.diagnostic.message.startswith("internal error:") and os.environ.get("SPYRE_RUN_TRACEBACK"):
            raise
        print(exc.diagnostic.render(sources), file=sys.stderr)
        return 1
    for diagnostic in result.report.warnings:
        print(diagnostic.render(sources), file=sys.stderr)

    if args.out:
        out_dir = Path(args.out)
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            for key, array in result.items():
                np.save(out_dir / f"{key}.npy", array)
        except OSError as exc:
            raise UsageError(f"cannot write outputs to '{out_dir}': {exc.strerror or exc}") from None
    if args.print_summary:
        print(result.report.render())
    estimate = result.report.estimate
    if estimate is not None:
        from spyre_mlir.analysis.trace import write_json as write_json_file
        from spyre_mlir.interpreter.ops_spatial import spatial_stats

        # A spatial program: its own measurements (engines overlapping, a multicast load once)
        # replace the kernel figures "hbm_bytes" and the timeline of --trace.
        spatial = spatial_stats(result)
        if args.estimate:
            print(estimate.render())
            if spatial is not None:
                print(spatial.render())

        def write_json(path: str) -> None:  # the estimate, with "hbm_bytes" and "peak_lx_bytes_per_core"
            data = result.report.estimate_json()
            if spatial is not None and data is not None:
                data["hbm_bytes"] = spatial.hbm_bytes
                data["cycles"] = spatial.cycles
                data["spatial"] = spatial.to_json()
            write_json_file(path, data)

        write_trace = spatial.write_trace if spatial is not None else estimate.write_trace
        for path, write in ((args.estimate_json, write_json), (args.trace, write_trace)):
            if path:
                try:
                    write(path)
                except OSError as exc:
                    raise UsageError(f"cannot write '{path}': {exc.strerror or exc}") from None
    if args.print_outputs:
        with np.printoptions(threshold=4096, linewidth=120):
            for key, array in result.items():
                print(f"{key}: {'x'.join(map(str, array.shape)) or 'scalar'} {array.dtype}")
                print(np.array2string(np.asarray(array)))
    return 0


def run_bundle(args: argparse.Namespace) -> int:
    """`spyre-run --bundle DIR -i SHAPE@DTYPE ... -o SHAPE@DTYPE ...`: `spyre launch DIR` on the CPU."""
    from spyre_mlir.interpreter import InterpreterOptions, InterpreterWarning
    from spyre_mlir.interpreter.launch import LaunchError, launch_run, parse_tensor_spec
    from spyre_mlir.interpreter.runtime import DEFAULT_MEMORY_LIMIT

    if args.file is not None:
        raise UsageError(f"give either a kernel FILE or --bundle DIR, not both ('{args.file}')")
    if args.arg or args.hbm or args.grid or args.func:
        raise UsageError("--arg, --hbm, --grid and --func do not go with --bundle (use -i/-o)")
    try:
        inputs = [parse_tensor_spec(text) for text in args.inputs]
        outputs = [parse_tensor_spec(text) for text in args.outputs]
    except LaunchError as exc:
        raise UsageError(str(exc)) from None
    if len(args.input_npy) > len(inputs):
        raise UsageError(f"{len(args.input_npy)} --input-npy files for {len(inputs)} inputs")
    if len(args.output_npy) > len(outputs):
        raise UsageError(f"{len(args.output_npy)} --output-npy files for {len(outputs)} outputs")
    arrays = []
    for k, spec in enumerate(inputs):
        if k < len(args.input_npy):
            path = args.input_npy[k]
            try:
                array = np.load(path, allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise UsageError(f"cannot read --input-npy '{path}': {getattr(exc, 'strerror', None) or exc}") from None
            if tuple(array.shape) != spec.shape:
                raise UsageError(
                    f"--input-npy '{path}' holds a {'x'.join(map(str, array.shape))} array; input {k} is {spec}"
                )
            array = array.astype(np.float32 if spec.dtype == "bfloat16" else spec.storage)
        else:
            array = np.ones(spec.shape, np.float32 if spec.dtype == "bfloat16" else spec.storage)
        arrays.append((array, spec))
    memory_limit = parse_size(args.memory_limit) if args.memory_limit else DEFAULT_MEMORY_LIMIT
    hardware = parse_hardware(args.hw)
    options = InterpreterOptions(
        lx_limit=parse_size(args.lx_limit) if args.lx_limit is not None else None,
        check_lx=args.check_lx,
        check_uninitialized=not args.allow_uninitialized,
        execution=args.execution,
        timeout=parse_seconds(args.timeout) if args.timeout is not None else None,
        memory_limit=memory_limit,
        cost_model=hardware if (args.estimate or args.estimate_json or args.trace) else None,
    )
    sources: dict[str, str] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InterpreterWarning)
            values, result, sources = launch_run(args.bundle, arrays, outputs, options, sources)
    except LaunchError as exc:
        print(f"spyre-run: error: {exc}", file=sys.stderr)
        return 1
    except DiagnosticError as exc:
        print(exc.diagnostic.render(sources or None), file=sys.stderr)
        return 1
    for k, (value, spec) in enumerate(zip(values, outputs)):
        finite = value[np.isfinite(value)] if value.size else value
        stats = (
            f"min {finite.min():.6g} max {finite.max():.6g} mean {finite.astype(np.float64).mean():.6g}"
            if finite.size
            else "no finite values"
        )
        print(f"output {k}: {spec}: {stats}")
        with np.printoptions(threshold=64, edgeitems=3, linewidth=120):
            print(np.array2string(value))
        if k < len(args.output_npy):
            try:
                np.save(args.output_npy[k], value)
            except OSError as exc:
                raise UsageError(f"cannot write '{args.output_npy[k]}': {exc.strerror or exc}") from None
    if args.print_summary:
        print(result.report.render())
    estimate = result.report.estimate
    if estimate is not None:
        from spyre_mlir.analysis.trace import write_json as write_json_file

        if args.estimate:
            print(estimate.render())
        for path, write in (
            (args.estimate_json, lambda p: write_json_file(p, result.report.estimate_json())),
            (args.trace, estimate.write_trace),
        ):
            if path:
                try:
                    write(path)
                except OSError as exc:
                    raise UsageError(f"cannot write '{path}': {exc.strerror or exc}") from None
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = run(args)
        if sys.stdout is not None:
            sys.stdout.flush()
        return code
    except BrokenPipeError:  # the reader of our output went away (`spyre-run ... | head`): stop quietly
        from spyre_mlir.tools.spyre_opt import EXIT_BROKEN_PIPE, silence_stdout

        silence_stdout()
        return EXIT_BROKEN_PIPE
    except UsageError as exc:
        print(f"spyre-run: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the top level of a tool: a message, never a traceback
        if os.environ.get("SPYRE_RUN_TRACEBACK"):
            raise
        print(
            f"spyre-run: internal error: {type(exc).__name__}: {exc} "
            "(this is a bug in spyre-mlir; set SPYRE_RUN_TRACEBACK=1 for details)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
