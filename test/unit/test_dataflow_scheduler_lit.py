"""dataflow-scheduler's own KTIRToScheduleIR lit tests, run unchanged on spyre-opt.

Each `.mlir` under ../shared/corpus/dataflow-scheduler/test/Conversion/frontend/
KTIRToScheduleIR is one case: its RUN lines are read, their tool and pass names
mapped to ours (`TOOLS`, `PASSES`), and the commands run as lit would (`%s` is
the file; `| FileCheck %s` pipes into FileCheck with their CHECK lines as they
are). Nothing of theirs is edited: a case that does not pass yet is a
strict xfail with its reason in `KNOWN_FAILURES` (an XPASS fails: remove the
entry). Skipped when ../shared is absent.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED

THEIRS = SHARED / "corpus" / "dataflow-scheduler" / "test" / "Conversion" / "frontend" / "KTIRToScheduleIR"
BIN = Path(sys.executable).parent

TOOLS = {"dataflow-scheduler-opt": str(BIN / "spyre-opt"), "FileCheck": str(BIN / "filecheck")}
"""Their tools -> ours."""

PASSES = {
    "--ktir-legality-check": "ktir-legality-check",
    "--compute-group-extraction": "ktdp-extract-compute-groups{mark=false}",
    "--construct-three-stage-pipeline": "ktdf-build-pipelines",
}
"""Their pass flags -> our pass (with the options that give their form)."""

FLAGS = {"--verify-diagnostics", "--split-input-file", "--allow-unregistered-dialect"}
"""Flags of theirs that spyre-opt takes as they are."""

KNOWN_FAILURES: dict[str, str] = {
    # file (relative to KTIRToScheduleIR) -> why it fails, until it passes
}


def run_lines(path: Path) -> list[str]:
    """The RUN commands of a lit test, continuation lines (`\\`) joined."""
    commands, pending = [], ""
    for line in path.read_text().splitlines():
        if "RUN:" not in line or not line.lstrip().startswith("//"):
            continue
        text = line.split("RUN:", 1)[1].strip()
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        commands.append(pending + text)
        pending = ""
    return commands


def translate(command: str, path: Path) -> list[list[str]]:
    """A RUN command as the argument lists of our pipeline of processes (`|`-separated)."""
    stages = []
    for stage in command.split("|"):
        words = [str(path) if w == "%s" else w for w in shlex.split(stage)]
        tool, *args = words
        if tool not in TOOLS:
            raise LookupError(f"no tool of ours for '{tool}'")
        argv, passes = [TOOLS[tool]], []
        for arg in args:
            if tool == "dataflow-scheduler-opt" and arg.startswith("--") and arg not in FLAGS:
                if arg not in PASSES:
                    raise LookupError(f"no pass of ours for '{arg}'")
                passes.append(PASSES[arg])
            else:
                argv.append(arg)
        if passes:
            argv += ["-p", ",".join(passes)]
        stages.append(argv)
    return stages


def run_pipeline(stages: list[list[str]]) -> tuple[int, str]:
    """Run the processes, each reading the previous one's output; the exit status of the
    last one that failed (as `set -o pipefail`) and everything they wrote to stderr."""
    data, errors, status = b"", [], 0
    for argv in stages:
        done = subprocess.run(argv, input=data, capture_output=True, timeout=300)
        data = done.stdout
        errors.append(done.stderr.decode(errors="replace"))
        status = done.returncode or status
    return status, "".join(errors)


def cases():
    files = sorted(THEIRS.rglob("*.mlir")) if THEIRS.is_dir() else []
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus/dataflow-scheduler not present"))]
    out = []
    for path in files:
        name = path.relative_to(THEIRS).as_posix()
        marks = [pytest.mark.xfail(reason=KNOWN_FAILURES[name], strict=True)] if name in KNOWN_FAILURES else []
        out.append(pytest.param(path, id=name, marks=marks))
    return out


@pytest.mark.parametrize("path", cases())
def test_their_lit_test_passes_on_spyre_opt(path: Path):
    commands = run_lines(path)
    assert commands, f"{path.name}: no RUN line"
    for command in commands:
        status, errors = run_pipeline(translate(command, path))
        assert status == 0, f"RUN: {command}\n{errors}"


def test_their_run_lines_are_read_and_mapped():
    text = "// RUN: dataflow-scheduler-opt --ktir-legality-check --verify-diagnostics %s \\\n// RUN:   | FileCheck %s\n"
    path = Path("/tmp/their.mlir")
    (command,) = run_lines_of(text)
    opt, check = translate(command, path)
    assert opt == [TOOLS["dataflow-scheduler-opt"], "--verify-diagnostics", str(path), "-p", "ktir-legality-check"]
    assert check == [TOOLS["FileCheck"], str(path)]
    with pytest.raises(LookupError, match="--unknown-pass"):
        translate("dataflow-scheduler-opt --unknown-pass %s", path)


def test_a_failing_stage_fails_the_pipeline():
    status, _ = run_pipeline([[sys.executable, "-c", "import sys; sys.exit(3)"], [sys.executable, "-c", "pass"]])
    assert status == 3


def run_lines_of(text: str) -> list[str]:
    """`run_lines` of a text (for the test of the reading)."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        return run_lines(Path(f.name))
    finally:
        Path(f.name).unlink()
