"""How much of dataflow-scheduler's own tests spyre-mlir reads: a report, not a test.

Each `.mlir` of `../shared/corpus/dataflow-scheduler/test` is cut at
`// -----` into sections (as `-split-input-file` does). A section
*parses* when spyre-mlir reads it (ops of the `test` dialect read as
unregistered ops, as their RUN lines allow), *verifies* when its ops verify,
and *round-trips* when printing it, reading the print and printing again
gives the same text. A section with `expected-error` annotations counts as
handled when our diagnostics meet its annotations instead.

    python benchmarks/scheduler_corpus_report.py [--corpus DIR] [--json FILE] [-v]

Prints a table (per test folder) and, with --json, the per-section results.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpus" / "dataflow-scheduler" / "test"
SPLIT = re.compile(r"^// -----\s*$", re.M)


def sections(path: Path) -> list[tuple[int, str]]:
    """(first line number, text) of each `// -----` section; line numbers stay true."""
    text = path.read_text()
    out, line = [], 1
    for chunk in SPLIT.split(text):
        out.append((line, chunk))
        line += chunk.count("\n")
    return out


def check_section(name: str, text: str, line_offset: int) -> dict:
    from xdsl.dialects.builtin import UnregisteredOp

    from spyre_mlir import ir
    from spyre_mlir.diagnostics import DiagnosticError
    from spyre_mlir.verify_diagnostics import check_expectations

    result = {"schedule_ir": "ktdf." in text or "ktdf_arch." in text, "parse": False, "verify": False, "round_trip": False, "error": ""}
    expects_errors = bool(re.search(r"expected-(error|warning)", text))
    result["expected_errors"] = expects_errors
    ctx = ir.make_context(allow_unregistered=True)
    try:
        module = ir.parse_module(text, name, ctx, line_offset=line_offset)
        unknown = sorted({op.op_name.data for op in module.walk() if isinstance(op, UnregisteredOp) and not op.op_name.data.startswith("test.")})
        if unknown:
            result["error"] = "unregistered ops: " + ", ".join(unknown)
            return result
        result["parse"] = True
        ir.verify(module)
        result["verify"] = True
        printed = ir.print_ir(module)
        again = ir.print_ir(ir.parse_module(printed, name + "<printed>", ir.make_context(allow_unregistered=True)))
        result["round_trip"] = again == printed
        if not result["round_trip"]:
            result["error"] = "printing is not a fixed point"
    except DiagnosticError as exc:
        if expects_errors:
            # Their expected errors that parsing or verifying gives: met or not.
            problems = check_expectations(text, name, [exc.diagnostic], line_offset=line_offset, only_expected=True)
            if not problems:
                result.update(parse=True, verify=True, round_trip=True)
                return result
            result["error"] = problems[0].message.splitlines()[0][:300]
        else:
            result["error"] = str(exc).strip().splitlines()[0][:300]
    except Exception as exc:
        result["error"] = f"internal: {type(exc).__name__}: {exc}"[:300]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", type=Path, help="write per-section results here")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every failing section and why")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"error: no corpus at {args.corpus}", file=sys.stderr)
        return 1
    rows: list[dict] = []
    files = sorted(args.corpus.rglob("*.mlir"))
    for index, path in enumerate(files):
        rel = path.relative_to(args.corpus)
        print(f"\r[{index + 1}/{len(files)}] {rel}".ljust(100)[:100], end="", file=sys.stderr, flush=True)
        for line, text in sections(path):
            if not text.strip() or not re.search(r"^\s*[^/\s]", text, re.M):
                continue
            row = check_section(str(path), text, line - 1)
            row.update(file=str(rel), line=line)
            rows.append(row)
    print(file=sys.stderr)
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[str(Path(row["file"]).parent)].append(row)
        groups["(all)"].append(row)
        if row["schedule_ir"]:
            groups["(schedule IR)"].append(row)
    width = max(len(g) for g in groups)
    print(f"{'folder'.ljust(width)}  sections  parse  verify  round-trip")
    for group in sorted(groups, key=lambda g: (g.startswith("("), g)):
        members = groups[group]
        counts = [sum(r[k] for r in members) for k in ("parse", "verify", "round_trip")]
        print(f"{group.ljust(width)}  {len(members):8}  {counts[0]:5}  {counts[1]:6}  {counts[2]:10}")
    if args.verbose:
        for row in rows:
            if not row["round_trip"]:
                print(f"{row['file']}:{row['line']}: {row['error']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
