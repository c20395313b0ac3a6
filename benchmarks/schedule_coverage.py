"""How much of the corpus ktir-to-schedule turns into pipelines. Not a test.

For each kernel of ../shared/corpus/ktir: does ktir-to-bundle lower it, does
ktir-to-schedule, how many `ktdf.pipeline`s it gets, and how many
`ktdp.load`/`ktdp.store` stay outside every pipeline. The last line counts, of
the kernels ktir-to-bundle lowers, those ktir-to-schedule lowers, those with
pipelines and those with every access in a pipeline.

    .venv/bin/python benchmarks/schedule_coverage.py            # the pipeline as it is
    .venv/bin/python benchmarks/schedule_coverage.py --before   # as of commit d927808 (before the
        public three-stage form and loop-carried kernels: ktdp-hbm-roundtrip, the old ktdf-build-pipelines)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import types
from pathlib import Path

import spyre_mlir
from spyre_mlir.ir import make_context, verify

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "ktir"
BEFORE = "d927808"


def _old_pass():
    """ktdf-build-pipelines as of BEFORE, loaded from git."""
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{BEFORE}:passes/schedule/ktdf_build_pipelines.py"],
                            capture_output=True, text=True, check=True).stdout
    module = types.ModuleType("ktdf_build_pipelines_before")
    sys.modules[module.__name__] = module
    exec(compile(source, "ktdf_build_pipelines_before.py", "exec"), module.__dict__)
    return module.KtdfBuildPipelinesPass()


def _schedule(module, before: bool) -> None:
    if not before:
        spyre_mlir.PassManager.from_pipeline("ktir-to-schedule").run(module)
        return
    spyre_mlir.PassManager.parse("spyre-raise-counted-loops,spyre-physicalize-layouts,spyre-fold-reshapes,cse,"
                                 "canonicalize,ktdp-hbm-roundtrip,ktdp-extract-compute-groups").run(module)
    _old_pass().apply(make_context(), module)
    verify(module)


def _outside_pipelines(module) -> int:
    count = 0
    for op in module.walk():
        if op.name in ("ktdp.load", "ktdp.store"):
            parent = op.parent_op()
            while parent is not None and parent.name != "ktdf.pipeline":
                parent = parent.parent_op()
            count += parent is None
    return count


def main() -> None:
    before = "--before" in sys.argv
    rows = []
    for path in sorted(CORPUS.glob("*.mlir")):
        text = path.read_text()
        with tempfile.TemporaryDirectory() as out:
            try:
                spyre_mlir.PassManager.from_pipeline(f"ktir-to-bundle{{out-dir={out}}}").run(spyre_mlir.parse(text))
                bundle = True
            except Exception:  # noqa: BLE001 - a kernel the bundle path refuses is counted, not fatal
                bundle = False
        try:
            module = spyre_mlir.parse(text)
            _schedule(module, before)
            pipelines = sum(op.name == "ktdf.pipeline" for op in module.walk())
            rows.append((path.name, bundle, True, pipelines, _outside_pipelines(module), ""))
        except Exception as exc:  # noqa: BLE001
            rows.append((path.name, bundle, False, 0, -1, str(exc).splitlines()[0][:100]))
    for name, bundle, scheduled, pipelines, outside, why in rows:
        print(f"{name:28} bundle={bundle!s:5} schedule={scheduled!s:5} pipelines={pipelines:3} "
              f"accesses-outside-pipelines={outside:3} {why}")
    lowered = [r for r in rows if r[1]]
    print(f"{'before' if before else 'now'}: {len(lowered)} kernels ktir-to-bundle lowers; ktir-to-schedule lowers "
          f"{sum(r[2] for r in lowered)}, gives pipelines to {sum(r[3] > 0 for r in lowered)}, puts every access "
          f"in a pipeline in {sum(r[2] and r[4] == 0 for r in lowered)}")


if __name__ == "__main__":
    main()
