"""spyre-opt: the modular optimizer driver, as `mlir-opt` is for MLIR.

    spyre-opt FILE [-p PASSES | --pipeline NAME] [-o OUT] [--split-input-file]
              [--verify-diagnostics] [--mlir-print-op-generic]
              [--mlir-print-ir-after-all] [--mlir-timing]

Built on xDSL's `xDSLOptMain` by overriding its hooks (dialects, passes,
arguments, pipeline set-up, run); the logic lives in the library
(`spyre_mlir.ir`, `spyre_mlir.passes.pipelines`, `spyre_mlir.diagnostics`).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.xdsl_opt_main import xDSLOptMain

from spyre_mlir import ir
from spyre_mlir.diagnostics import Diagnostic, DiagnosticError, Location, collect
from spyre_mlir.passes.pipelines import PIPELINES, PassManager

SPLIT_MARKER = re.compile(r"^// -----[ \t]*$", re.MULTILINE)


class SpyreOptMain(xDSLOptMain):
    pass_manager: PassManager

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="spyre-mlir modular optimizer driver", args=args)

    # -- hooks of xDSLOptMain ------------------------------------------------

    def register_all_dialects(self) -> None:
        self.ctx = ir.make_context()

    def register_all_passes(self) -> None:
        from spyre_mlir.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_frontends(self) -> None:
        self.available_frontends = {"mlir": lambda: None}  # we parse ourselves

    def register_all_targets(self) -> None:
        self.available_targets = {"mlir": lambda: None}  # we print ourselves

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--pipeline",
            metavar="NAME",
            help=f"run a named pipeline ({', '.join(sorted(PIPELINES))}); see --list-pipelines",
        )
        arg_parser.add_argument("--mlir-print-op-generic", dest="print_op_generic", action="store_true",
                                help="alias of --print-op-generic")
        arg_parser.add_argument("--mlir-print-debuginfo", dest="print_debuginfo", action="store_true",
                                help="alias of --print-debuginfo")
        arg_parser.add_argument("--mlir-print-ir-after-all", "--print-ir-after-all", dest="print_ir_after_all",
                                action="store_true", help="print the IR after every pass (to stderr)")
        arg_parser.add_argument("--mlir-timing", dest="time_passes", action="store_true",
                                help="alias of --time-passes: report per-pass wall time (to stderr)")
        arg_parser.add_argument(
            "--print-op-generic-for",
            metavar="DIALECTS",
            default="",
            help="print the ops of these dialects (comma-separated, e.g. ktdp,spyre) in generic form, "
            "so that upstream mlir-opt --allow-unregistered-dialect reads the output",
        )
        arg_parser.add_argument("--list-passes", action="store_true", help="list the available passes and exit")
        arg_parser.add_argument("--list-pipelines", action="store_true", help="list the named pipelines and exit")

    def setup_pipeline(self) -> None:
        """Build the PassManager; errors are reported in `run`."""
        self._pipeline_error: DiagnosticError | None = None
        self.pass_manager = PassManager([], verify_each=not self.args.disable_verify, ctx=self.ctx)
        if self.args.pipeline and self.args.passes:
            self._pipeline_error = DiagnosticError(Diagnostic("error", "use either -p or --pipeline, not both"))
            return
        try:
            if self.args.pipeline:
                self.pass_manager = PassManager.from_pipeline(
                    self.args.pipeline, verify_each=not self.args.disable_verify, ctx=self.ctx
                )
            elif self.args.passes:
                self.pass_manager = PassManager.parse(
                    self.args.passes, verify_each=not self.args.disable_verify, ctx=self.ctx
                )
        except DiagnosticError as exc:
            self._pipeline_error = exc

    # -- driver --------------------------------------------------------------

    def run(self) -> int:  # type: ignore[override]
        args = self.args
        if args.list_passes:
            for name in sorted(self.available_passes):
                print(name)
            return 0
        if args.list_pipelines:
            for name in sorted(PIPELINES):
                print(f"{name}: {PIPELINES[name][0]}\n    {PIPELINES[name][1]}")
            return 0
        if self._pipeline_error is not None:
            print(self._pipeline_error.diagnostic.render(), file=sys.stderr)
            return 1
        try:
            text, name = ir.read_source(args.input_file or "-")
        except OSError as exc:
            print(f"error: cannot read '{args.input_file}': {exc.strerror or exc}", file=sys.stderr)
            return 1

        timings = _Timings() if args.time_passes else None
        if args.print_ir_after_all or timings:
            self.pass_manager.after_pass.append(self._after_pass_hook(timings))

        chunks = _split(text) if args.split_input_file else [text]
        outputs: list[str] = []
        failed = False
        sources = {name: text}
        for chunk in chunks:
            result = _process_chunk(self, chunk, name, timings)
            if args.verify_diagnostics:
                problems = check_expectations(chunk, name, result.diagnostics)
                for p in problems:
                    print(p.render(sources), file=sys.stderr)
                failed |= bool(problems)
            else:
                for d in result.diagnostics:
                    print(d.render(sources), file=sys.stderr)
                failed |= any(d.severity == "error" for d in result.diagnostics)
            if result.output is not None:
                outputs.append(result.output)

        output = "// -----\n".join(outputs)
        if args.output_file:
            try:
                with open(args.output_file, "w", encoding="utf-8") as f:
                    f.write(output)
            except OSError as exc:
                print(f"error: cannot write '{args.output_file}': {exc.strerror or exc}", file=sys.stderr)
                return 1
        else:
            sys.stdout.write(output)
        if timings:
            timings.report(sys.stderr)
        return 1 if failed else 0

    def _after_pass_hook(self, timings: _Timings | None):
        def hook(p: ModulePass, module: ModuleOp, elapsed: float) -> None:
            if timings is not None:
                timings.add(p.name, elapsed)
            if self.args.print_ir_after_all:
                sys.stderr.write(f"// -----// IR Dump After {type(p).__name__} ({p.name}) //----- //\n")
                sys.stderr.write(ir.print_ir(module, generic=self.args.print_op_generic))
                sys.stderr.write("\n")

        return hook


@dataclass
class _ChunkResult:
    output: str | None
    diagnostics: list[Diagnostic]


def _process_chunk(main: SpyreOptMain, chunk: str, name: str, timings: _Timings | None) -> _ChunkResult:
    args = main.args
    with collect() as diagnostics:
        try:
            start = time.perf_counter()
            module = ir.parse_module(chunk, name, main.ctx)
            if timings:
                timings.add("Parser", time.perf_counter() - start)
            if not args.disable_verify:
                start = time.perf_counter()
                ir.verify(module)
                if timings:
                    timings.add("Verifier", time.perf_counter() - start)
            main.pass_manager.run(module)
            start = time.perf_counter()
            out = ir.print_ir(
                module,
                generic=args.print_op_generic,
                debuginfo=args.print_debuginfo,
                generic_dialects=[d for d in args.print_op_generic_for.split(",") if d],
            )
            if timings:
                timings.add("Output", time.perf_counter() - start)
            return _ChunkResult(out, list(diagnostics))
        except DiagnosticError as exc:
            return _ChunkResult(None, [*diagnostics, exc.diagnostic])


def _split(text: str) -> list[str]:
    """Split on `// -----` lines; pad each chunk so line numbers stay those of the file."""
    chunks: list[str] = []
    line = 0
    pieces = SPLIT_MARKER.split(text)
    for piece in pieces:
        chunks.append("\n" * line + piece)
        line += piece.count("\n")
    return chunks


# ---------------------------------------------------------------------------
# --verify-diagnostics: MLIR's expected-* annotations
# ---------------------------------------------------------------------------

EXPECTED = re.compile(
    r"expected-(?P<sev>error|warning|note|remark)\s*(?:@(?P<where>[+-]\d+|above|below))?\s*\{\{(?P<msg>.*?)\}\}"
)


@dataclass
class Expectation:
    severity: str
    line: int
    message: str
    at: Location
    matched: bool = False


def parse_expectations(chunk: str, name: str) -> list[Expectation]:
    out: list[Expectation] = []
    for lineno, text in enumerate(chunk.splitlines(), start=1):
        for m in EXPECTED.finditer(text):
            where = m.group("where")
            target = lineno
            if where == "above":
                target = lineno - 1
            elif where == "below":
                target = lineno + 1
            elif where:
                target = lineno + int(where)
            out.append(Expectation(m.group("sev"), target, m.group("msg"), Location(name, lineno, m.start() + 1)))
    return out


def check_expectations(chunk: str, name: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Problems: unexpected diagnostics and unmet expectations (MLIR's rules:
    same severity, same line, expected text contained in the message)."""
    expectations = parse_expectations(chunk, name)
    problems: list[Diagnostic] = []
    flat: list[Diagnostic] = []
    for d in diagnostics:
        flat.append(d)
        flat.extend(d.notes)
    for d in flat:
        hit = next(
            (
                e
                for e in expectations
                if not e.matched
                and e.severity == d.severity
                and d.location is not None
                and d.location.file == name
                and d.location.line == e.line
                and e.message in d.message
            ),
            None,
        )
        if hit is not None:
            hit.matched = True
        else:
            problems.append(Diagnostic("error", f"unexpected {d.severity}: {d.message}", d.location))
    for e in expectations:
        if not e.matched:
            problems.append(Diagnostic("error", f'expected {e.severity} "{e.message}" was not produced', e.at))
    return problems


class _Timings:
    def __init__(self) -> None:
        self.rows: list[tuple[str, float]] = []

    def add(self, name: str, seconds: float) -> None:
        self.rows.append((name, seconds))

    def report(self, stream) -> None:
        total = sum(s for _, s in self.rows) or 1e-12
        stream.write("===" + "-" * 73 + "===\n")
        stream.write(" " * 25 + "... Execution time report ...\n")
        stream.write("===" + "-" * 73 + "===\n")
        stream.write(f"  Total Execution Time: {total:.4f} seconds\n\n")
        stream.write("  ----Wall Time----  ----Name----\n")
        for name, s in self.rows:
            stream.write(f"    {s:.4f} ({100 * s / total:5.1f}%)  {name}\n")
        stream.write(f"    {total:.4f} (100.0%)  Total\n")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = SpyreOptMain(argv).run()
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback reaches the user
        print(f"error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("note: this is a bug in spyre-opt; please report it with the input file", file=sys.stderr)
        return 1
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
