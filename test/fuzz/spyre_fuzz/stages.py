"""Running one input through the stages (parse, pipeline, interpret,
spatial) in this process, and classifying each stage's outcome."""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Sequence

from spyre_fuzz.corpus import REPO

STAGES = ("parse", "pipeline", "interpret", "spatial")
CATEGORIES = ("accepted", "located", "unlocated", "internal", "hang", "crash")
"""A stage's outcome, from the best to the worst (an input's outcome is its worst stage's)."""
BAD = ("internal", "hang", "crash")
"""The outcomes that are bugs."""
SEVERITY = {c: i for i, c in enumerate(CATEGORIES)}

PIPELINE = (
    "ktdp-normalize-memory-space,spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,"
    "canonicalize,ktdp-hbm-roundtrip,ktdp-extract-compute-groups,ktdf-build-pipelines"
)
"""What the `pipeline` stage runs: the clean-up of the `default` pipeline, then
the lowering to the schedule IR (`ktir-to-schedule`), so that the interpreter
stage runs the scheduled kernel."""


MAX_ARRAY_ELEMENTS = 1 << 23
MAX_FUNCTIONS = 4
_OURS = str(REPO)


def short_path(path: str) -> str:
    """A source file's path as a finding shows it: relative to the checkout, or to site-packages."""
    if path.startswith(_OURS):
        return path[len(_OURS) + 1 :]
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    return path


def _frames(tb, keep: int = 10) -> tuple[list[str], int]:
    """The innermost `keep` frames (paths shortened), and the stack depth."""
    import traceback

    out = [f"{short_path(fs.filename)}:{fs.lineno} in {fs.name}" for fs in traceback.extract_tb(tb)]
    return out[-keep:], len(out)


def _root_cause(exc: BaseException) -> BaseException | None:
    """The innermost exception chained to `exc` (None when there is none)."""
    seen = {id(exc)}
    root = None
    cur = exc.__cause__ or exc.__context__
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        root = cur
        cur = cur.__cause__ or cur.__context__
    return root


INTERPRET_TIMEOUT = 4.0
"""Seconds the interpreter runs one function before its own timeout stops it
(a located error naming the loop); below the worker's timeout, so that only a
hang the interpreter cannot see counts as a hang."""


def parse_text(text: str):
    """Parse and verify MLIR text (never a file name: a short mutant is text too)."""
    from spyre_mlir import ir
    from spyre_mlir.deep import call_deep

    def work():
        module = ir.parse_module(text, "<fuzz>")
        ir.verify(module)
        return module

    return call_deep(work)


def clone_module(module):
    """A copy of a parsed module (xDSL's `clone` recurses per nested region: on a deep stack).
    Cheaper than parsing and verifying the text again, and as valid."""
    from spyre_mlir.deep import call_deep

    return call_deep(module.clone)


_PASS_LISTS: dict[tuple[str, str], list] = {}


def pass_manager(spec: str, *, pipeline: bool = False):
    """`PassManager.parse(spec)` (a pipeline name: `from_pipeline`) for a module
    the caller has just verified (`verify_input=False`; every pass's output is
    still verified). The passes are built once per worker and copied: building
    them reads their option docs from source, which costs about a second."""
    import copy

    from spyre_mlir.passes.pipelines import PassManager

    key = ("pipeline" if pipeline else "passes", spec)
    passes = _PASS_LISTS.get(key)
    if passes is None:
        built = PassManager.from_pipeline(spec) if pipeline else PassManager.parse(spec)
        passes = _PASS_LISTS[key] = built.passes
    return PassManager(copy.deepcopy(passes), verify_input=False)


def verified_interpreter(module, options: dict):
    """An interpreter of `module`, which the caller has verified (`ir.verify`,
    as the interpreter would: the parse stage, or the pass manager after the
    last pass): only the check the interpreter adds (ktdp-check-inter-tile) is
    made again, with the same outcome as a verifying interpreter's."""
    from spyre_mlir.analysis.inter_tile import check_inter_tile
    from spyre_mlir.deep import call_deep
    from spyre_mlir.interpreter import Interpreter, InterpreterOptions

    call_deep(check_inter_tile, module)
    return Interpreter(module, InterpreterOptions(**options, verify=False))


def _copy_args(args: dict) -> dict:
    import numpy as np

    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def classify(exc: BaseException) -> dict:
    """The outcome of a stage that raised `exc`."""
    from spyre_mlir.diagnostics import DiagnosticError

    if isinstance(exc, DiagnosticError):
        d = exc.diagnostic
        message = d.message
        if message.startswith("internal error"):
            category = "internal"
        else:
            category = "located" if d.location is not None else "unlocated"
        out = {
            "category": category,
            "type": "DiagnosticError",
            "message": _first_line(message),
            "location": str(d.location) if d.location else None,
        }
        root = _root_cause(exc)
        if category != "located" and root is not None:
            out["cause"] = f"{type(root).__name__}: {_first_line(str(root), 200)}"
            out["frames"], out["depth"] = _frames(root.__traceback__)
        return out
    frames, depth = _frames(exc.__traceback__)
    return {
        "category": "internal",
        "type": type(exc).__name__,
        "message": _first_line(str(exc)) or type(exc).__name__,
        "location": None,
        "frames": frames,
        "depth": depth,
    }


def _first_line(s: str, limit: int = 400) -> str:
    s = s.strip().splitlines()[0] if s.strip() else ""
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _accepted(**extra) -> dict:
    return {"category": "accepted", **extra}


def _text_seed(text: str, extra: str = "") -> int:
    return zlib.crc32((text + "\0" + extra).encode("utf-8", "surrogateescape"))


def interpret_plans(module) -> list[dict]:
    """Functions to run, with arguments and options seeded by each function's name and type."""
    from xdsl.dialects import func
    from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, MemRefType, TensorType
    from xdsl.ir import BlockArgument

    from spyre_mlir.dialects.ktdp import RuntimeArgType
    from spyre_mlir.walk import walk_ops  # not recursive: inputs nest thousands deep

    plans = []
    called = {c.callee.root_reference.data for c in walk_ops(module) if isinstance(c, func.CallOp)}
    for op in walk_ops(module):
        if not isinstance(op, func.FuncOp) or not op.body.blocks or op.sym_name.data in called:
            continue  # a function another calls (an outlined group) runs as part of its caller
        params = op.body.blocks[0].args
        if not all(_supported_param(a.type) for a in params):
            continue
        # Seeded by the function's name and type, not the whole text: a reduced input keeps its arguments.
        rng = random.Random(_text_seed(op.sym_name.data, str(op.function_type)))
        views: dict[int, tuple] = {}
        for inner in walk_ops(op):
            if inner.name != "ktdp.construct_memory_view" or not inner.operands:
                continue
            base = inner.operands[0]
            result = inner.results[0].type if inner.results else None
            if isinstance(base, BlockArgument) and base.owner is op.body.blocks[0] and isinstance(result, MemRefType):
                views.setdefault(base.index, (inner, result))
        args: dict[str, object] = {}
        cli: list[str] = []
        for i, a in enumerate(params):
            name = a.name_hint or f"arg{i}"
            ty = a.type
            if isinstance(ty, IndexType) and i in views:
                arr = _view_array(*views[i], rng)
                if arr is not None:
                    args[name], spec = arr
                    cli.append(f"{name}={spec}")
                    continue
            if isinstance(ty, RuntimeArgType):
                g = getattr(ty.granularity, "data", None) or 1
                u = getattr(ty.upperbound, "data", None)
                v = g * rng.choice([1, 2, 3, 4])
                if u is not None and v > u:
                    v = g * max(u // g, 0)
                args[name] = v
                cli.append(f"{name}={v}")
            elif isinstance(ty, IndexType | IntegerType):
                width = getattr(getattr(ty, "width", None), "data", 64)
                v = rng.choice([0, 1]) if width == 1 else rng.choice([0, 1, 2, 3, 4, 8, 16])
                args[name] = v
                cli.append(f"{name}={v}")
            elif isinstance(ty, AnyFloat):
                v = round(rng.uniform(-2.0, 2.0), 3)
                args[name] = v
                cli.append(f"{name}={v}")
            elif isinstance(ty, TensorType):
                arr = _random_array(ty.get_shape(), ty.get_element_type(), rng)
                if arr is None:
                    break
                args[name], spec = arr
                cli.append(f"{name}={spec}")
        else:
            options = {
                "execution": rng.choice(["auto", "auto", "auto", "per-core", "batched"]),
                "check_uninitialized": rng.random() < 0.7,
                "mask_out_of_bounds": rng.random() < 0.3,
                "timeout": INTERPRET_TIMEOUT,
            }
            plans.append({"func": op.sym_name.data, "args": args, "cli": cli, "options": options})
    if len(plans) > MAX_FUNCTIONS:
        plans = random.Random(_text_seed(" ".join(p["func"] for p in plans), "plans")).sample(plans, MAX_FUNCTIONS)
    return plans


def _supported_param(ty) -> bool:
    from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, TensorType

    from spyre_mlir.dialects.ktdp import RuntimeArgType

    if isinstance(ty, IndexType | IntegerType | AnyFloat | RuntimeArgType):
        return True
    if isinstance(ty, TensorType):
        shape = ty.get_shape()
        return (
            all(d >= 0 for d in shape) and math.prod(shape) <= 4096 and _dtype_name(ty.get_element_type()) is not None
        )
    return False


def _dtype_name(element) -> str | None:
    name = str(element)
    return name if name in ("f16", "f32", "f64", "bf16", "i1", "i8", "i16", "i32", "i64", "index") else None


def _random_array(shape: Sequence[int], element, rng: random.Random):
    """(array, spyre-run spelling) of seeded values: what `spyre-run --arg NAME=random:SHAPExTYPE:SEED`
    gives (floats standard normal, integers in [-100, 100)), but small non-negative integers for `index`."""
    import numpy as np

    from spyre_mlir.interpreter import float32_to_bf16_bits

    name = _dtype_name(element)
    if name is None:
        return None
    shape = tuple(int(d) for d in shape)
    if math.prod(shape) > MAX_ARRAY_ELEMENTS:
        return None
    seed = rng.randrange(1 << 30)
    spec = f"random:{'x'.join(map(str, shape)) + 'x' if shape else ''}{name}:{seed}"
    gen = np.random.default_rng(seed)
    if name == "bf16":
        array = float32_to_bf16_bits(gen.standard_normal(shape, dtype=np.float32))
    elif name in ("f16", "f32", "f64"):
        array = gen.standard_normal(shape).astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[name])
    elif name == "i1":
        array = gen.integers(0, 2, shape).astype(bool)
    elif name == "index":
        array = gen.integers(0, 4, shape).astype(np.int64)
    else:
        array = gen.integers(-100, 100, shape).astype(
            {"i8": np.int8, "i16": np.int16, "i32": np.int32}.get(name, np.int64)
        )
    return array, spec


def _view_array(view_op, memref, rng: random.Random):
    """A random array large enough for the memory view on this parameter."""
    shape = [d if d >= 0 else 16 for d in memref.get_shape()]
    extent = math.prod(shape) if shape else 1
    sizes = getattr(view_op, "static_sizes", None)
    strides = getattr(view_op, "static_strides", None)
    try:
        sz = [int(x) for x in sizes.get_values()] if sizes is not None else []
        st = [int(x) for x in strides.get_values()] if strides is not None else []
        if sz and len(sz) == len(st) and all(0 < x < 1 << 20 for x in sz) and all(0 <= x < 1 << 20 for x in st):
            extent = max(extent, 1 + sum((a - 1) * b for a, b in zip(sz, st)))
    except Exception:  # noqa: BLE001 - only a size hint
        pass
    if not 0 < extent <= MAX_ARRAY_ELEMENTS:
        return None
    return _random_array((extent,), memref.get_element_type(), rng)


def evaluate(
    data: bytes, stages: Sequence[str] = STAGES, report: Callable[[str, str, dict | None], None] | None = None
) -> dict:
    """Run one input through `stages`; `report(event, stage, outcome)` is
    called with ("begin", stage, None) and ("end", stage, outcome)."""
    import spyre_mlir
    from spyre_mlir import ir

    report = report or (lambda *_: None)
    text = data.decode("utf-8", "replace")
    result: dict = {}

    def stage(name: str, fn: Callable[[], dict | None]):
        report("begin", name, None)
        try:
            outcome = fn() or _accepted()
        except BaseException as exc:  # noqa: BLE001 - classified, including SystemExit/RecursionError
            if isinstance(exc, KeyboardInterrupt):
                raise
            outcome = classify(exc)
        result[name] = outcome
        report("end", name, outcome)
        return outcome

    holder: dict = {}

    def parse():
        holder["module"] = holder["source"] = parse_text(text)

    if stage("parse", parse)["category"] != "accepted":
        return result

    # `holder["source"]` is the module as parsed and verified, never changed:
    # the stages that run the source (interpret when the pipeline gives no
    # module, spatial) use it instead of parsing the text again.
    if "pipeline" in stages:

        def pipeline():
            if "interpret" in stages or "spatial" in stages:
                holder["source"] = clone_module(holder["module"])  # the pipeline changes the module in place
            pass_manager(PIPELINE).run(holder["module"])  # verified by the parse stage
            printed = ir.print_ir(holder["module"])
            try:
                parse_text(printed)
            except spyre_mlir.DiagnosticError as exc:
                return _accepted(roundtrip=_first_line(exc.diagnostic.render()))
            return None

        if stage("pipeline", pipeline)["category"] != "accepted":
            holder.pop("module", None)

    # What the interpret stage computed on the source itself (not the pipeline's
    # output), for the spatial stage to reuse: its plans and, per plan, the run.
    ran: dict | None = None

    if "interpret" in stages:
        plans_box: dict = {}

        def interpret():
            nonlocal ran
            module = holder.get("module") or holder.get("source") or parse_text(text)
            on_source = module is holder.get("source")
            plans = plans_box["plans"] = interpret_plans(module)
            if on_source:
                ran = {"plans": plans, "runs": {}}
            if not plans:
                return {"category": "skipped", "message": "no function with supported parameters"}
            worst: dict | None = None
            for i, plan in enumerate(plans):
                try:
                    # On the source, with a copy of the arguments: the spatial stage runs on the originals.
                    args = _copy_args(plan["args"]) if on_source else plan["args"]
                    returned = verified_interpreter(module, plan["options"]).run(plan["func"], args)
                    outcome = _accepted()
                    if ran is not None:
                        ran["runs"][i] = (True, returned)
                except BaseException as exc:  # noqa: BLE001
                    if isinstance(exc, KeyboardInterrupt):
                        raise
                    outcome = classify(exc)
                    if ran is not None and isinstance(exc, Exception):
                        ran["runs"][i] = (False, exc)
                outcome["func"] = plan["func"]
                if worst is None or SEVERITY[outcome["category"]] > SEVERITY[worst["category"]]:
                    worst = outcome
            assert worst is not None
            worst["functions"] = [p["func"] for p in plans]
            return worst

        stage("interpret", interpret)
        plans = plans_box.get("plans") or []
        if plans:
            result["cli"] = {"func": plans[0]["func"], "args": plans[0]["cli"]}

    if "spatial" in stages:
        stage("spatial", lambda: spatial_check(text, holder.get("source"), ran))
    return result


def spatial_options(plan: dict) -> dict:
    """The interpreter options of the spatial stage's runs: the plan's, but
    every access checked (no masking; reads of uninitialized memory refused)."""
    return {**plan["options"], "mask_out_of_bounds": False, "check_uninitialized": True}


def spatial_check(text: str, source=None, ran: dict | None = None) -> dict | None:
    """The `spatial` stage: each runnable function lowered by `ktir-to-spatial`
    (specialized for the plan's scalars) and run on the plan's arguments must
    give what the source gives where the source runs (translation validation);
    a program that fails to run where its source ran is a bug, not a refusal.

    `source` is `text` parsed and verified (parsed here when not given), left
    unchanged: each lowering runs on a clone. `ran` is what the interpret stage
    computed on that same module, `{"plans": [...], "runs": {i: (ran, result or
    exception)}}`: a run with this stage's options is reused, not repeated."""
    import numpy as np

    from spyre_mlir.interpreter import Interpreter, InterpreterOptions

    if source is None:
        source = parse_text(text)
    plans = ran["plans"] if ran is not None else interpret_plans(source)
    runs = ran["runs"] if ran is not None else {}
    if not plans:
        return {"category": "skipped", "message": "no function with supported parameters"}
    checked = 0
    for i, plan in enumerate(plans):
        scalars = {k: v for k, v in plan["args"].items() if isinstance(v, int | float) and not isinstance(v, bool)}
        spec = "ktir-to-spatial"
        if scalars:
            spec += '{scalars="' + ",".join(f"{k}={v}" for k, v in scalars.items()) + '"}'
        module = clone_module(source)
        pass_manager(spec, pipeline=True).run(module)  # a refusal: the stage's outcome
        options = spatial_options(plan)
        if i in runs and options == plan["options"]:  # the interpret stage ran this already
            ok, before = runs[i]
            if not ok:
                continue  # the source does not run on these arguments: nothing to compare
        else:
            try:
                before = verified_interpreter(source, options).run(plan["func"], _copy_args(plan["args"]))
            except Exception:  # noqa: BLE001 - the source does not run on these arguments: nothing to compare
                continue
        try:
            after = Interpreter(module, InterpreterOptions(**options)).run(plan["func"], dict(plan["args"]))
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(f"the spatial program @{plan['func']} fails where its source runs: "
                                 f"{_first_line(str(exc), 200)}") from exc
        for key, value in before.items():
            if not np.array_equal(np.asarray(after[key]), np.asarray(value), equal_nan=True):
                raise AssertionError(f"the spatial program @{plan['func']} disagrees with its source on '{key}'")
        checked += 1
    return _accepted(checked=checked)
