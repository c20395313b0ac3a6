"""The tiling search of `spyre-coarse-tile{auto-tile=true}` (issue 12, part 5).

For every extracted compute group, enumerate coarse-tiling candidates
(untiled; each static dim of the group's iteration space in K slices, K a
proper divisor of its extent within 2..64; two such dims nested), apply
each to a copy of the module, deduplicate the results by canonical
identity (`spyre_mlir.identity`), and evaluate each distinct candidate by
executing its bundle in the interpreter with the cost model on seeded
arguments: HBM bytes moved, peak LX per core, modeled cycles. A candidate
is feasible when its peak LX fits `lx_bytes`; the best is the feasible one
with the fewest HBM bytes, then cycles, then slices. Candidates the tiling
refuses are kept in the report with their typed reason (the refusal's
message), never raised.

Evaluation fans out by `engine`: "inprocess" (default), "processes" (a
process pool of `jobs` workers on this machine) or "ray" (a Ray cluster,
`pip install 'spyre-mlir[ray]'`; `ray.init()` joins the cluster named by
RAY_ADDRESS, or starts a local one). Workers get the candidate as text and
re-run the same deterministic evaluation, so every engine gives the same
report.

    report = search_tilings(module, lx_bytes=2 << 20)     # module: after ktdp-extract-compute-groups
    report.best["local_schedule_0"]   # the chosen levels, or [] (untiled)
    print(report.table()); report.to_json()
"""

from __future__ import annotations

import json
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from spyre_mlir.diagnostics import Refusal
from spyre_mlir.dialects.spyre import SEARCH_ARGS_ATTR
from spyre_mlir.passes.contracts import group_functions
from spyre_mlir.target import target_of

ENGINES = ("inprocess", "processes", "ray")
MAX_SLICES = 64


@dataclass
class Candidate:
    group: str
    levels: list[tuple[int, list[int]]]  # (count, dims) outermost first; [] = untiled
    transform: object = None  # a spyre_mlir.passes.bundle.loop_transforms transformation, instead of a tiling
    status: str = "pending"  # evaluated | refused | duplicate | failed
    reason: str | None = None
    identity: str | None = None
    hbm_bytes: int | None = None
    peak_lx_bytes_per_core: int | None = None
    cycles: float | None = None
    feasible: bool | None = None

    @property
    def label(self) -> str:
        if self.transform is not None:
            t = self.transform
            factor = getattr(t, "factor", None)
            return f"{type(t).__name__.lower()} L{t.loop_path[1]}" + (f"/{factor}" if factor else "")  # pyright: ignore
        if not self.levels:
            return "untiled"
        return " x ".join(f"d{','.join(map(str, dims))}/{count}" for count, dims in self.levels)


@dataclass
class SearchReport:
    lx_bytes: int
    engine: str
    candidates: list[Candidate] = field(default_factory=list)
    best: dict[str, Candidate] = field(default_factory=dict)  # group -> the chosen candidate
    seconds: float = 0.0

    def counts(self) -> dict:
        refused: dict[str, int] = {}
        for c in self.candidates:
            if c.status == "refused":
                key = (c.reason or "").split(":")[0]
                refused[key] = refused.get(key, 0) + 1
        return {
            "generated": len(self.candidates),
            "duplicates": sum(c.status == "duplicate" for c in self.candidates),
            "evaluated": sum(c.status == "evaluated" for c in self.candidates),
            "refused": sum(c.status == "refused" for c in self.candidates),
            "failed": sum(c.status == "failed" for c in self.candidates),
            "refused_by_reason": refused,
        }

    def to_json(self) -> str:
        return json.dumps(
            {
                "lx_bytes": self.lx_bytes,
                "engine": self.engine,
                "seconds": round(self.seconds, 3),
                "counts": self.counts(),
                "best": {g: c.label for g, c in self.best.items()},
                "candidates": [_as_dict(c) for c in self.candidates],
            },
            indent=2,
        )

    def table(self) -> str:
        head = f"{'group':<18} {'candidate':<16} {'status':<10} {'hbm bytes':>12} {'peak lx':>10} {'cycles':>12}  note"
        lines = [head, "-" * len(head)]
        for c in self.candidates:
            chosen = self.best.get(c.group) is c
            note = "best" if chosen else (c.reason or ("does not fit LX" if c.feasible is False else ""))
            lines.append(
                f"{c.group[:18]:<18} {c.label[:16]:<16} {c.status:<10} {_num(c.hbm_bytes):>12} "
                f"{_num(c.peak_lx_bytes_per_core):>10} {_num(c.cycles):>12}  {note}"
            )
        counts = self.counts()
        lines.append(
            f"{counts['generated']} candidates: {counts['evaluated']} evaluated, {counts['duplicates']} duplicates, "
            f"{counts['refused']} refused, {counts['failed']} failed; {self.seconds:.2f} s ({self.engine})"
        )
        return "\n".join(lines)


def _as_dict(c: Candidate) -> dict:
    data = asdict(c) | {"label": c.label}
    data["transform"] = None if c.transform is None else repr(c.transform)
    data["levels"] = [[count, list(dims)] for count, dims in c.levels]
    return data


def _plain(x):
    return list(x) if isinstance(x, (list, tuple)) else x


def _num(x) -> str:
    if x is None:
        return "-"
    return f"{x:.0f}" if isinstance(x, float) else str(x)


# --------------------------------------------------------------------------


def _divisors(n: int) -> list[int]:
    return [k for k in range(2, min(n - 1, MAX_SLICES) + 1) if n % k == 0]


def transformation_candidates(module, group_name: str) -> list[Candidate]:
    """The typed loop transformations (spyre_mlir.passes.bundle.loop_transforms) of the group's scf.for loops;
    one refused by its own check carries the typed reason."""
    from spyre_mlir.passes.bundle.loop_transforms import RefusalKind, enumerate_transformations

    out = []
    for t, refusal in enumerate_transformations(module, assume_distinct_params=True):
        if t.loop_path[0] != group_name:
            continue
        c = Candidate(group_name, [], transform=t)
        if refusal is not None:
            if refusal.kind is RefusalKind.NO_OP:
                continue  # a no-op makes no candidate
            c.status, c.reason = "refused", str(refusal)
        out.append(c)
    return out


def candidates_for(group) -> list[Candidate]:
    """Untiled, each dim alone, and ordered pairs of dims nested (outer first)."""
    from xdsl.dialects.builtin import TensorType

    from spyre_mlir.dialects.ktdp import StoreOp

    name = group.sym_name.data
    out = [Candidate(name, [])]
    store = next((op for op in group.body.walk() if isinstance(op, StoreOp)), None)
    if store is None or not isinstance(store.data_tile.type, TensorType):
        return out
    shape = list(store.data_tile.type.get_shape())
    single = [(d, k) for d, extent in enumerate(shape) if extent > 1 for k in _divisors(extent)]
    out += [Candidate(name, [(k, [d])]) for d, k in single]
    for d1, k1 in single:
        for d2, k2 in single:
            if d1 != d2:
                out.append(Candidate(name, [(k1, [d1]), (k2, [d2])]))
    return out


@dataclass
class _Job:
    text: str  # the extracted module
    group: str
    levels: list[tuple[int, list[int]]]
    lx_bytes: int
    cores: int
    kernel: str | None
    args: dict = field(default_factory=dict)
    transform: object = None
    hbm: dict = field(default_factory=dict)  # preloads at constant addresses (interpret's `hbm=`)


def derive_arguments(module, kernel_name: str | None = None) -> dict:
    """Seeded arguments of the kernel of an extracted module: arrays sized by the
    views of the groups it calls (each group parameter is the kernel argument
    the call passes), scalars from the kernel's `spyre.search_args`
    dictionary. Raises a Refusal naming what cannot be derived."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr

    from spyre_mlir.interpreter.sample_args import MissingArgument, sample_arguments
    from spyre_mlir.passes.bundle.spyre_emit_bundle import Emitter

    kernel = Emitter(module, "", kernel_name).kernel()
    given: dict = {}
    attr = kernel.attributes.get(SEARCH_ARGS_ATTR)
    if isinstance(attr, DictionaryAttr):
        for name, value in attr.data.items():
            if isinstance(value, IntegerAttr):
                given[name] = int(value.value.data)
    groups = {g.sym_name.data: g for g in group_functions(module)}
    params = {p: p.name_hint or f"arg{i}" for i, p in enumerate(kernel.body.block.args)}
    args = dict(given)
    for call in [op for op in kernel.walk() if isinstance(op, func.CallOp)]:
        group = groups.get(call.callee.root_reference.data)
        if group is None:
            continue
        inner_given = {}
        for gparam, operand in zip(group.body.block.args, call.arguments):
            if operand in params and params[operand] in given:
                inner_given[gparam.name_hint or ""] = given[params[operand]]
            elif operand not in params and isinstance(gparam.type, IndexType):
                inner_given[gparam.name_hint or ""] = 0  # a loop number or a value of the kernel: sizes do not depend on it
        try:
            found = sample_arguments(group, inner_given, seed=0)
        except MissingArgument as exc:
            raise Refusal(
                call,
                f"auto-tile runs every candidate's bundle on seeded arguments and cannot derive {exc} "
                f"(put scalars in the kernel's {SEARCH_ARGS_ATTR} = {{name = value}})"
            ) from None
        for gparam, operand in zip(group.body.block.args, call.arguments):
            name = params.get(operand)
            value = found.get(gparam.name_hint or "")
            if name is None or value is None:
                continue
            previous = args.get(name)
            if previous is None or (hasattr(value, "size") and value.size > getattr(previous, "size", 0)):
                args[name] = value
    missing = [n for n in params.values() if n not in args]
    if missing:
        raise Refusal(
            kernel,
            f"auto-tile cannot derive the kernel argument '{missing[0]}' (put scalars in the kernel's "
            f"{SEARCH_ARGS_ATTR} = {{name = value}})"
        )
    return args


def _tiled(job: _Job):
    """The module with the candidate applied, or a refusal message."""
    import spyre_mlir
    from spyre_mlir.passes.bundle.spyre_coarse_tile import Level, analyze, apply_plan

    module = spyre_mlir.parse(job.text)
    if job.transform is not None:
        done = job.transform.apply(module)  # pyright: ignore[reportAttributeAccessIssue]
        return (None, str(done)) if isinstance(done, Refusal) else (done, None)
    group = next(g for g in group_functions(module) if g.sym_name.data == job.group)
    if job.levels:
        try:
            apply_plan(analyze(group, [Level(count, list(dims)) for count, dims in job.levels]))
        except Refusal as refusal:
            return None, str(refusal)
    return module, None


def evaluate(job: _Job) -> dict:
    """Run the candidate's bundle with the cost model: {"hbm_bytes", "peak_lx_bytes_per_core", "cycles"} or an error."""
    import numpy as np

    import spyre_mlir
    from spyre_mlir.diagnostics import DiagnosticError
    from spyre_mlir.interpreter import InterpreterOptions
    from spyre_mlir.interpreter.cost import HardwareConfig

    module, refusal = _tiled(job)
    if module is None:
        return {"refused": refusal}
    with tempfile.TemporaryDirectory(prefix="spyre_search_") as out:
        try:
            passes = f'spyre-distribute-work{{cores={job.cores}}},spyre-plan-scratchpad{{lx-bytes={job.lx_bytes}}},'
            # our format: it runs with the kernel's own arguments, which the search evaluates it on
            passes += f'spyre-emit-bundle{{out-dir="{out}" format=ktir' + (f' kernel="{job.kernel}"' if job.kernel else "") + "}"
            spyre_mlir.PassManager.parse(passes).run(module)
            args = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in job.args.items()}
            options = InterpreterOptions(cost_model=HardwareConfig(stick_bytes=0), check_lx=False)
            hbm = {a: v.copy() for a, v in job.hbm.items()}
            result = spyre_mlir.interpret(Path(out) / "bundle.mlir", "sdsc_bundle", options=options, hbm=hbm, **args)
        except (DiagnosticError, Exception) as exc:  # noqa: BLE001 - a candidate that cannot run is reported
            return {"failed": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    report = result.report
    estimate = report.estimate
    del np
    return {
        "hbm_bytes": report.hbm_traffic_bytes,
        "peak_lx_bytes_per_core": report.peak_lx_bytes_per_core,
        "cycles": estimate.sequential_cycles if estimate is not None else None,
    }


def _identity_of(job: _Job) -> tuple[str | None, str | None]:
    import spyre_mlir

    module, refusal = _tiled(job)
    if module is None:
        return None, refusal
    return spyre_mlir.identity(module), None


def _evaluate_all(jobs: list[_Job], engine: str, workers: int) -> list[dict]:
    if engine == "inprocess" or len(jobs) <= 1:
        return [evaluate(j) for j in jobs]
    if engine == "processes":
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(evaluate, jobs))
    if engine == "ray":
        try:
            import ray  # pyright: ignore[reportMissingImports]
        except ImportError:
            raise Refusal(None, "engine=ray needs Ray: pip install 'spyre-mlir[ray]'") from None
        if not ray.is_initialized():
            ray.init(ignore_reinit_error=True, log_to_driver=False)
        remote = ray.remote(evaluate)
        return ray.get([remote.remote(j) for j in jobs])
    raise ValueError(f"unknown engine '{engine}', expected one of {', '.join(ENGINES)}")


def search_tilings(
    module,
    lx_bytes: int | None = None,
    cores: int | None = None,
    engine: str = "inprocess",
    jobs: int = 0,
    kernel: str | None = None,
    max_evaluations: int = 16,
    args: dict | None = None,
    hbm: dict | None = None,
) -> SearchReport:
    """Search the coarse tilings of every group of `module` (after ktdp-extract-compute-groups); see the module docstring.

    Per group: every candidate is checked by the tiling's own analysis (a
    refusal is its typed reason) and its per-core working set computed; one
    that cannot fit `lx_bytes` is refused as such without running. The ones
    that fit are evaluated fewest slices first, deduplicated by identity, up
    to `max_evaluations` per group (the rest are reported as not evaluated).
    `lx_bytes` and `cores` default to the module's target (`spyre_mlir.target`)."""
    import os
    import time

    import spyre_mlir
    from spyre_mlir.ir import print_ir
    from spyre_mlir.passes.bundle.spyre_coarse_tile import Level, NothingToTile, analyze, working_set

    if engine not in ENGINES:
        raise Refusal(module, f"unknown engine '{engine}', expected one of {', '.join(ENGINES)}")
    target = target_of(module)
    lx_bytes = target.lx_bytes if lx_bytes is None else lx_bytes
    cores = target.cores if cores is None else cores
    start = time.perf_counter()
    text = print_ir(module)
    if args is None:
        args = derive_arguments(module, kernel)
    report = SearchReport(lx_bytes, engine)
    workers = jobs or os.cpu_count() or 1
    for group in group_functions(module):
        cands = candidates_for(group) + transformation_candidates(module, group.sym_name.data)
        report.candidates += cands
        fitting: list[Candidate] = []
        for c in cands:
            if c.status != "pending":
                continue  # refused by its own check
            if c.transform is not None:
                fitting.append(c)  # its LX use is measured by running it
                continue
            try:
                plan = analyze(group, [Level(count, list(dims)) for count, dims in c.levels]) if c.levels else None
            except NothingToTile:
                c.status, c.reason = "refused", "nothing to tile: the group stores nothing"
                continue
            except Refusal as refusal:
                c.status, c.reason = "refused", str(refusal)
                continue
            need = working_set(group, plan)
            if need > lx_bytes:
                c.status, c.reason = "refused", f"does not fit LX: a working set of {need} bytes per core > {lx_bytes}"
                c.feasible = False
                continue
            fitting.append(c)
        fitting.sort(key=lambda c: (c.transform is not None, _slices(c), str(c.levels), c.label))
        seen: dict[str, Candidate] = {}
        todo: list[tuple[Candidate, _Job]] = []
        for c in fitting:
            if len(todo) >= max_evaluations:
                c.status, c.reason = "skipped", f"not evaluated: max-evaluations={max_evaluations} reached"
                continue
            job = _Job(text, c.group, c.levels, lx_bytes, cores, kernel, args, c.transform, dict(hbm or {}))
            identity, refusal = _identity_of(job)
            if refusal is not None:
                c.status, c.reason = "refused", refusal
                continue
            c.identity = identity
            if identity in seen:
                c.status, c.reason = "duplicate", f"same program as {seen[identity].label}"
                continue
            seen[identity] = c  # pyright: ignore[reportArgumentType]
            todo.append((c, job))
        for (c, _), outcome in zip(todo, _evaluate_all([j for _, j in todo], engine, workers)):
            if "refused" in outcome:
                c.status, c.reason = "refused", outcome["refused"]
            elif "failed" in outcome:
                c.status, c.reason = "failed", outcome["failed"]
            else:
                c.status = "evaluated"
                c.hbm_bytes, c.peak_lx_bytes_per_core, c.cycles = (
                    outcome["hbm_bytes"], outcome["peak_lx_bytes_per_core"], outcome["cycles"]
                )
                c.feasible = c.peak_lx_bytes_per_core is not None and c.peak_lx_bytes_per_core <= lx_bytes
        fit = [c for c in cands if c.status == "evaluated" and c.feasible]
        if fit:
            report.best[group.sym_name.data] = min(
                fit, key=lambda c: (c.hbm_bytes or 0, c.cycles or 0, c.transform is not None, _slices(c))
            )
    report.seconds = time.perf_counter() - start
    del spyre_mlir
    return report


def _slices(c: Candidate) -> int:
    total = 1
    for count, _ in c.levels:
        total *= count
    return total
