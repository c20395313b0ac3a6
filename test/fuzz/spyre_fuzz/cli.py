"""The command line: `python -m spyre_fuzz` (with `test/fuzz` on `PYTHONPATH`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from spyre_fuzz.campaign import FuzzConfig, run
from spyre_fuzz.corpus import SeedError, load_seeds
from spyre_fuzz.mutate import MUTATORS, generate, upstream_only
from spyre_fuzz.stages import BAD, PIPELINE, STAGES, evaluate, interpret_plans, parse_text, spatial_check
from spyre_fuzz.upstream import find_iree_opt, iree_verdict, our_verdict


def replay(path: str, stages: Sequence[str] = STAGES, iree: bool = True, timeout: float = 10.0) -> int:
    """Run one file through the stages in this process, with tracebacks; after
    `timeout` seconds, print where every thread is and exit (a hang)."""
    import faulthandler
    import traceback

    data = Path(path).read_bytes()

    def report(event, stage, outcome):
        if event == "begin":
            print(f"-- {stage}", flush=True)
        else:
            print(f"{stage}: {json.dumps(outcome, default=str)}", flush=True)

    if timeout > 0:
        print(f"(a hang: after {timeout:g} s the stacks of all threads are printed and the process exits)", flush=True)
        faulthandler.dump_traceback_later(timeout, exit=True)
    result = evaluate(data, stages, report)
    if "cli" in result:
        print(f"cli: {json.dumps(result['cli'])}")
    bad = [s for s, o in result.items() if isinstance(o, dict) and o.get("category") in BAD]
    if bad:
        # Run the failing stage again outside the classifier, for the traceback.
        print(f"\n-- traceback of the {bad[0]} stage:")
        text = data.decode("utf-8", "replace")
        try:
            module = parse_text(text)
            if bad[0] in ("pipeline", "interpret"):
                from spyre_mlir.passes.pipelines import PassManager

                if bad[0] == "pipeline" or result.get("pipeline", {}).get("category") == "accepted":
                    PassManager.parse(PIPELINE).run(module)
            if bad[0] == "interpret":
                from spyre_mlir.interpreter import Interpreter, InterpreterOptions

                module = module if result.get("pipeline", {}).get("category") == "accepted" else parse_text(text)
                for plan in interpret_plans(module):
                    Interpreter(module, InterpreterOptions(**plan["options"])).run(plan["func"], plan["args"])
            if bad[0] == "spatial":
                spatial_check(text, module)
        except Exception:  # noqa: BLE001
            traceback.print_exc(file=sys.stdout)
    faulthandler.cancel_dump_traceback_later()
    if iree and upstream_only(data.decode("utf-8", "replace")) and (exe := find_iree_opt()):
        print(f"iree-opt: {json.dumps(iree_verdict(exe, data))}; ours: {our_verdict(result)}")
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spyre_fuzz",
        description="Seeded mutation fuzzing of spyre-mlir (parse+verify, default pipeline, interpreter; "
        "upstream-only inputs also against iree-opt).",
        epilog="Exit code: 0 when there is no internal error, hang, crash or iree-opt disagreement; 1 otherwise.",
    )
    p.add_argument("--count", type=int, default=500, help="number of mutated inputs (default 500)")
    p.add_argument("--seed", type=int, default=0, help="fuzz seed (default 0)")
    p.add_argument("--start", type=int, default=0, help="first input number (default 0)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it is a hang (default 10)")
    p.add_argument("--jobs", "-j", type=int, default=FuzzConfig().jobs, help="worker processes (default: CPUs)")
    p.add_argument("--no-iree", action="store_true", help="do not compare with iree-opt")
    p.add_argument("--no-interpret", action="store_true", help="stop after the pipeline")
    p.add_argument("--out", metavar="DIR", help="write example inputs per finding here")
    p.add_argument("--examples", type=int, default=3, help="examples per distinct finding (default 3)")
    p.add_argument("--no-minimize", action="store_true", help="write examples as generated, unreduced")
    p.add_argument("--minimize-budget", type=float, default=120.0, help="seconds for reducing examples (default 120)")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON")
    p.add_argument(
        "--seeds",
        nargs="+",
        metavar="FILE_OR_DIR",
        help="seed kernels: files, or directories of *.mlir (default, in a checkout: corpus, test kernels, examples)",
    )
    p.add_argument("--mutators", help=f"comma-separated subset of: {', '.join(sorted(MUTATORS))}")
    p.add_argument(
        "--memory-limit",
        type=int,
        default=12288,
        metavar="MiB",
        help="address space per worker, above the interpreter's own 8 GiB budget (default 12288; 0: none)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    p.add_argument("--replay", metavar="FILE", help="run one file through the stages here, with tracebacks, and exit")
    p.add_argument("--list-seeds", action="store_true", help="list the seed kernels and exit")
    p.add_argument("--show", type=int, metavar="N", help="print generated input N (and its mutations) and exit")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _main(args)
    except SeedError as exc:
        parser.error(str(exc))  # usage and message on stderr, exit 2
        raise  # unreachable: parser.error exits


def _main(args: argparse.Namespace) -> int:
    stages = STAGES if not args.no_interpret else ("parse", "pipeline")
    if args.replay:
        return replay(args.replay, stages, iree=not args.no_iree, timeout=args.timeout)
    seed_paths = [Path(s) for s in args.seeds] if args.seeds else None
    mutators = [m.strip() for m in args.mutators.split(",")] if args.mutators else None
    if mutators and (unknown := [m for m in mutators if m not in MUTATORS]):
        print(f"fuzz: unknown mutators: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.list_seeds:
        for s in load_seeds(seed_paths):
            print(s.name)
        return 0
    if args.show is not None:
        (x,) = generate(1, args.seed, load_seeds(seed_paths), args.show, mutators)
        print(f"// input #{x.index} of seed {args.seed}, from {x.seed}")
        for m in x.mutations:
            print(f"// {m}")
        sys.stdout.flush()
        sys.stdout.buffer.write(x.data)
        return 0
    config = FuzzConfig(
        count=args.count,
        seed=args.seed,
        start=args.start,
        timeout=args.timeout,
        jobs=args.jobs,
        iree=not args.no_iree,
        interpret=not args.no_interpret,
        examples=args.examples,
        out=Path(args.out) if args.out else None,
        minimize=not args.no_minimize,
        minimize_budget=args.minimize_budget,
        seed_paths=seed_paths,
        mutators=mutators,
        progress=not args.quiet,
        memory_limit_mb=args.memory_limit,
    )
    report = run(config)
    print(report.table())
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_json(), indent=2, default=str) + "\n")
    return 1 if report.bad() else 0
