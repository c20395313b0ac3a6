"""spyre-opt: the modular optimizer driver, as `mlir-opt` is for MLIR.

    spyre-opt FILE [-p PASSES | --pipeline NAME] [-o OUT] [--split-input-file]
              [--verify-diagnostics] [--mlir-print-op-generic]
              [--mlir-print-ir-after-all] [--mlir-timing]
              [--print-identity] [--cache-dir DIR] [--cache-stats]
              [--print-plan-summary] [--plan-summary-json PATH] [--target FILE]
              [--device FILE]

Built on xDSL's `xDSLOptMain` by overriding its hooks (dialects, passes,
arguments, pipeline set-up, run); the logic lives in the library
(`spyre_mlir.ir`, `spyre_mlir.passes`, `spyre_mlir.verify_diagnostics`,
`spyre_mlir.diagnostics`, `spyre_mlir.deep`, `spyre_mlir.canonical`,
`spyre_mlir.passes.spatial.summary`).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.xdsl_opt_main import xDSLOptMain

from spyre_mlir import canonical, ir
from spyre_mlir.deep import call_deep
from spyre_mlir.diagnostics import Diagnostic, DiagnosticError, collect
from spyre_mlir.passes.pipelines import PIPELINES, PassManager
from spyre_mlir.passes.spatial.summary import PlanSummary, plan_summaries
from spyre_mlir.target import TargetError, device_target, load_target
from spyre_mlir.verify_diagnostics import check_expectations

SPLIT_MARKER = re.compile(r"^// -----[ \t]*\r?$", re.MULTILINE)

CACHE_DIR_ENV = "SPYRE_OPT_CACHE_DIR"
"""Environment variable: the compile cache's directory (as --cache-dir)."""

EXIT_BROKEN_PIPE = 141
"""Exit status when the reader of stdout went away (`| head`): that of a
process killed by SIGPIPE, as mlir-opt is."""

HELP_EPILOG = """\
-p and --pipeline take options as MLIR writes them: NAME{opt=v opt2=v2}
(commas between options work too). A value with spaces or commas goes in
double quotes (scalars="K=64,BK=16"); a path needs none (out-dir=/tmp/b). A
comma followed by a piece without '=' continues a list option (grid=2,16).
An unknown pass, pipeline or option, a value of the wrong type or a pass list
that does not parse is a usage error (exit 2). --list-passes and
--list-pipelines show each option with its type and default.

--verify-diagnostics checks the diagnostics of each // ----- chunk against
MLIR's expected-* annotations in the input's // comments instead of printing
them, and exits 0 only when every annotation is met and nothing unexpected
is emitted:
  // expected-error {{text}}            an error on this line whose message contains text
  // expected-warning @+1 {{text}}      on the next line (@-N: N lines above; @above /
                                       @below: the nearest line that is not an annotation)
  // expected-note @unknown {{text}}    a diagnostic without a location
  // expected-remark-re {{op #{{[0-9]+}} failed}}
                                       -re: each {{...}} inside the text is a regular expression
Kinds: error, warning, note, remark. Annotations in string literals do not
count; a malformed one (expected-foo, @bogus, a count such as expected-error-2,
an unterminated {{) is an error. --verify-diagnostics=only-expected checks only
that the annotations are met.

--print-identity prints `sha256:<hex>`, the identity of each module (of each
// ----- chunk) instead of the module: of the input, or with -p/--pipeline of
the output. Modules that differ only in SSA names, block labels, private
symbol names, locations and attribute order have one identity.

--cache-dir DIR (or SPYRE_OPT_CACHE_DIR=DIR) keeps the output of each run of a
pipeline in DIR, keyed by the input's identity and exact text, the pipeline,
the output options, the --target facts and the version of spyre-opt; a later
run on the same input parses and verifies it, then prints the kept output
without running the pipeline. Off by default. --cache-stats reports hits and
misses on stderr.

--target FILE compiles for the target described in FILE: a JSON object of
target facts ({"cores": 4, "lx_bytes": 65536}; the others keep Spyre's, see
docs/target.md), recorded on each module as its spyre.target attribute (in
place of the module's own) before the first pass. A file that cannot be read
or holds a bad fact is an error (exit 1).

--device FILE compiles for the `ktdf_arch.device` of FILE (an MLIR file
with one device; spyre_mlir/devices/spyre.mlir is Spyre's): it is declared in
each module as `ktdf_arch.device @NAME import("<absolute FILE>")` before the
first pass, and the target is the facts it states (docs/target.md). A module
that declares a device of its own keeps it if the two agree; a fact on which
they disagree, or one on which --target and the device disagree, is a
located error at the device.

--print-plan-summary prints, after the pipeline, the plan summary of every
spatial.program of the output to stderr (sites, multicast groups, block shape,
buffers and LX per site, engine-program classes, steps and cycles as recorded
in the IR); stdout stays the IR. --plan-summary-json PATH writes the same
summaries as JSON. Either turns the compile cache off.
"""


class SpyreOptMain(xDSLOptMain):
    pass_manager: PassManager
    cache: canonical.CompileCache | None = None

    def __init__(self, args: Sequence[str] | None = None):
        args = list(sys.argv[1:] if args is None else args)
        # MLIR spells the level `--verify-diagnostics=only-expected`; argparse
        # cannot give a flag an optional `=value` without eating a file name.
        args = [_VERIFY_LEVELS.get(a, a) for a in args]
        super().__init__(description="spyre-mlir modular optimizer driver (as mlir-opt)", args=args)

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
        """Only the options spyre-opt honours (xDSL's others are not offered)."""
        self._arg_parser = arg_parser
        arg_parser.prog = "spyre-opt"
        arg_parser.epilog = HELP_EPILOG
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        # Read by xDSLOptMain.__init__; not options of ours.
        arg_parser.set_defaults(target="mlir", frontend=None, syntax_highlight=False)
        add = arg_parser.add_argument
        add("input_file", nargs="?", metavar="FILE", help="input file; '-' or none: stdin")
        add("-o", "--output-file", metavar="FILE", type=_nonempty("-o/--output-file", "an output file name"),
            help="write the output to FILE ('-': stdout), only if the whole run succeeds")
        add("-p", "--passes", metavar="PASSES", type=_nonempty("-p/--passes", "a pass list such as 'cse,canonicalize'"),
            help="comma-separated pass list, options as MLIR writes them: name{opt=v opt2=\"a b\"} "
            "(see --list-passes)")
        add("--pipeline", metavar="NAME", type=_nonempty("--pipeline", "a pipeline name (see --list-pipelines)"),
            help=f"run a named pipeline (one of: {', '.join(sorted(PIPELINES))}), options as NAME{{opt=v ...}}; "
            "see --list-pipelines")
        add("--target", dest="target_file", metavar="FILE", type=_nonempty("--target", "a target file"), default=None,
            help="compile for the target in FILE, a JSON object of target facts such as {\"cores\": 4} "
            "(recorded on the module as spyre.target before the first pass; default: the module's own, else Spyre)")
        add("--device", dest="device_file", metavar="FILE", type=_nonempty("--device", "a device file"), default=None,
            help="compile for the ktdf_arch.device in FILE (declared in the module before the first pass; "
            "default: the module's own device, else Spyre)")
        add("--split-input-file", action="store_true",
            help="process each '// -----'-separated chunk of the input on its own")
        add("--verify-diagnostics", dest="verify_diagnostics", action="store_const", const="all", default=None,
            help="check diagnostics against the input's expected-* annotations (see below); "
            "--verify-diagnostics=only-expected: only that the annotations are met")
        add("--verify-diagnostics-only-expected", dest="verify_diagnostics", action="store_const",
            const="only-expected", help=argparse.SUPPRESS)
        add("--mlir-print-op-generic", "--print-op-generic", dest="print_op_generic", action="store_true",
            help="print all operations in generic form")
        add("--print-op-generic-for", metavar="DIALECTS", default="",
            help="print the ops of these dialects (comma-separated, e.g. ktdp,spyre) in generic form, "
            "so that upstream mlir-opt --allow-unregistered-dialect reads the output")
        add("--mlir-print-local-scope", dest="print_local_scope", action="store_true",
            help="print affine maps and sets inline, without the module's #map/#set aliases")
        add("--mlir-print-debuginfo", "--print-debuginfo", dest="print_debuginfo", action="store_true",
            help="print the location of every operation")
        add("--mlir-print-ir-after-all", "--print-ir-after-all", dest="print_ir_after_all", action="store_true",
            help="print the IR after every pass (to stderr)")
        add("--mlir-timing", "--time-passes", dest="time_passes", action="store_true",
            help="report the wall time of parsing, each pass and printing (to stderr)")
        add("--print-identity", action="store_true",
            help="print the identity (sha256:<hex>) of each module instead of the module: "
            "of the input, or with -p/--pipeline of the output")
        add("--cache-dir", metavar="DIR", type=_nonempty("--cache-dir", "a directory"), default=None,
            help=f"keep pipeline outputs in DIR and reuse them for the same input (default: ${CACHE_DIR_ENV}, "
            "else no cache)")
        add("--no-cache", action="store_true", help=f"do not use the compile cache (even with ${CACHE_DIR_ENV})")
        add("--cache-stats", action="store_true", help="report compile cache hits and misses on stderr")
        add("--print-plan-summary", action="store_true",
            help="after the pipeline, print the plan summary of every spatial.program to stderr")
        add("--plan-summary-json", metavar="PATH", type=_nonempty("--plan-summary-json", "a file name"),
            default=None, help="write the plan summaries of the output's spatial.programs as JSON to PATH")
        add("--disable-verify", action="store_true", help="do not run the verifiers")
        add("--allow-unregistered-dialect", action="store_true", help="accept operations of unknown dialects")
        add("--list-passes", action="store_true", help="list the available passes and exit")
        add("--list-pipelines", action="store_true", help="list the named pipelines and exit")
        add("--show-dialects", action="store_true", help="list the registered dialects and exit (as mlir-opt)")
        add("-v", "--version", action="version", version=f"spyre-opt (spyre-mlir) {_version()}")

    def setup_pipeline(self) -> None:
        """Build the PassManager; errors are reported in `run` (usage errors:
        an unknown pass or pipeline, options that do not parse)."""
        self._pipeline_error: DiagnosticError | None = None
        self._target_error: TargetError | None = None
        verify_each = not self.args.disable_verify
        # `_process_chunk` verifies each input before the pipeline runs.
        kwargs = {"verify_each": verify_each, "verify_input": False, "ctx": self.ctx, "target": None}
        if self.args.target_file is not None:
            try:
                kwargs["target"] = load_target(self.args.target_file)
            except TargetError as exc:  # the file's error, not the command line's: exit 1
                self._target_error = exc
        if self.args.device_file is not None:
            try:
                device_target(self.args.device_file)  # a bad device file: reported once, before any input
                kwargs["device"] = self.args.device_file
            except TargetError as exc:
                self._target_error = exc
        self.pass_manager = PassManager([], **kwargs)
        if self.args.pipeline is not None and self.args.passes is not None:
            self._pipeline_error = DiagnosticError(Diagnostic("error", "use either -p or --pipeline, not both"))
            return
        try:
            if self.args.pipeline is not None:
                self.pass_manager = PassManager.from_pipeline(self.args.pipeline, **kwargs)
            elif self.args.passes is not None:
                self.pass_manager = PassManager.parse(self.args.passes, **kwargs)
        except DiagnosticError as exc:
            self._pipeline_error = exc

    # -- driver --------------------------------------------------------------

    def run(self) -> int:  # type: ignore[override]
        args = self.args
        if args.list_passes:
            _write_stdout(_pass_listing())
            return 0
        if args.list_pipelines:
            _write_stdout(_pipeline_listing())
            return 0
        if args.show_dialects:  # mlir-opt's form: one line, sorted, comma-separated
            _write_stdout("Available Dialects: " + ", ".join(sorted(self.ctx.registered_dialect_names)) + "\n")
            return 0
        if self._pipeline_error is not None:  # a usage error, as argparse reports one
            self._arg_parser.print_usage(sys.stderr)
            print(f"spyre-opt: error: {self._pipeline_error.diagnostic.message}", file=sys.stderr)
            return 2
        if self._target_error is not None:
            print(f"spyre-opt: error: {self._target_error}", file=sys.stderr)
            return 1
        source = args.input_file or "-"
        try:
            text, name = ir.read_source(source if source == "-" else Path(source))
        except OSError as exc:
            print(f"error: cannot read '{source}': {exc.strerror or exc}", file=sys.stderr)
            return 1

        timings = _Timings() if args.time_passes else None
        if args.print_ir_after_all or timings:
            self.pass_manager.after_pass.append(self._after_pass_hook(timings))
        self.cache, cache_off = self._open_cache()

        chunks = split_input(text) if args.split_input_file else [(text, 0)]
        sources = {name: _SourceText(text)}
        outputs: list[str] = []
        summaries: list[PlanSummary] = []
        failed = False
        for chunk, line_offset in chunks:
            result = call_deep(_process_chunk, self, chunk, name, line_offset, timings)
            if args.verify_diagnostics:
                problems = check_expectations(
                    chunk, name, result.diagnostics, line_offset=line_offset,
                    only_expected=args.verify_diagnostics == "only-expected",
                )
                for p in problems:
                    print(p.render(sources), file=sys.stderr)
                failed |= bool(problems)
            else:
                for d in result.diagnostics:
                    print(d.render(sources), file=sys.stderr)
                failed |= any(d.severity == "error" for d in result.diagnostics)
            if result.output is not None:
                outputs.append(result.output)
            summaries.extend(result.summaries)

        output = "// -----\n".join(outputs)
        if args.print_plan_summary:
            for summary in summaries:
                sys.stderr.write(summary.table())
        if args.plan_summary_json:
            data = json.dumps([summary.to_json() for summary in summaries], indent=2) + "\n"
            try:
                write_atomically(args.plan_summary_json, _encode(data))
            except OSError as exc:
                print(f"error: cannot write '{args.plan_summary_json}': {exc.strerror or exc}", file=sys.stderr)
                return 1
        if timings:
            timings.report(sys.stderr)
        if args.cache_stats:
            if self.cache is not None:
                print(f"spyre-opt: compile cache {self.cache.directory}: {self.cache.stats()}", file=sys.stderr)
            else:
                print(f"spyre-opt: compile cache off ({cache_off})", file=sys.stderr)
        if args.output_file and args.output_file != "-":
            if failed:
                return 1  # no output file, not even the chunks that succeeded
            try:
                write_atomically(args.output_file, _encode(output))
            except OSError as exc:
                print(f"error: cannot write '{args.output_file}': {exc.strerror or exc}", file=sys.stderr)
                return 1
        else:
            _write_stdout(output)
        return 1 if failed else 0

    def _open_cache(self) -> tuple[canonical.CompileCache | None, str]:
        """The compile cache of this run, or None and why not."""
        args = self.args
        directory = args.cache_dir if args.cache_dir is not None else os.environ.get(CACHE_DIR_ENV) or None
        if args.no_cache:
            return None, "--no-cache"
        if directory is None:
            return None, f"no --cache-dir or ${CACHE_DIR_ENV}"
        if not self.pass_manager.passes:
            return None, "no pipeline"
        if args.verify_diagnostics:
            return None, "--verify-diagnostics"
        if args.print_ir_after_all:
            return None, "--mlir-print-ir-after-all"
        if args.disable_verify:
            return None, "--disable-verify"
        if args.print_plan_summary or args.plan_summary_json:
            return None, "the plan summary needs the output module"
        for p in self.pass_manager.passes:
            if (why := _side_effect(p)) is not None:
                return None, f"pass '{p.name}' {why}"
        return canonical.CompileCache(directory), ""

    def cache_key(self, module: ModuleOp, chunk: str, name: str, line_offset: int) -> tuple[str, str] | None:
        """(key, input identity) of `module` for the compile cache; None when
        it has no identity (its canonical form does not finalize)."""
        args, cache = self.args, self.cache
        assert cache is not None
        try:
            input_identity = canonical.identity(module, allow_unregistered=args.allow_unregistered_dialect)
        except Exception:  # noqa: BLE001 - the cache never fails a run: the chunk is compiled, not kept
            cache.without_identity += 1
            return None
        pipeline = f"--pipeline {args.pipeline}" if args.pipeline is not None else f"-p {args.passes}"
        options = {
            # The output keeps the input's SSA names and block labels, which
            # the identity leaves out: the exact text is part of the key.
            "text": hashlib.sha256(_encode(chunk)).hexdigest(),
            "print_identity": args.print_identity,
            "generic": args.print_op_generic,
            "generic_for": args.print_op_generic_for,
            "debuginfo": args.print_debuginfo,
            "local_scope": args.print_local_scope,
            "allow_unregistered": args.allow_unregistered_dialect,
            "target": str(self.pass_manager.target.to_attr()) if self.pass_manager.target is not None else None,
            "device": _file_digest(self.pass_manager.device),
        }
        if args.print_debuginfo:  # locations print the file name and line numbers
            options.update(file=name, line_offset=line_offset)
        return cache.key(input_identity, pipeline, options), input_identity

    def _after_pass_hook(self, timings: _Timings | None):
        def hook(p: ModulePass, module: ModuleOp, elapsed: float) -> None:
            if timings is not None:
                timings.add(p.name, elapsed)
            if self.args.print_ir_after_all:
                sys.stderr.write(f"// -----// IR Dump After {type(p).__name__} ({p.name}) //----- //\n")
                sys.stderr.write(ir.print_ir(module, generic=self.args.print_op_generic))
                sys.stderr.write("\n")

        return hook


_VERIFY_LEVELS = {
    "--verify-diagnostics=all": "--verify-diagnostics",
    "--verify-diagnostics=": "--verify-diagnostics",
    "--verify-diagnostics=only-expected": "--verify-diagnostics-only-expected",
}


@dataclass
class _ChunkResult:
    output: str | None
    diagnostics: list[Diagnostic]
    summaries: list[PlanSummary] = field(default_factory=list)


def _file_digest(path: str | None) -> str | None:
    """The --device file as part of a cache key: its path and contents (None: no device)."""
    if path is None:
        return None
    try:
        return f"{os.path.abspath(path)}:{hashlib.sha256(Path(path).read_bytes()).hexdigest()}"
    except OSError:
        return os.path.abspath(path)


def _process_chunk(
    main: SpyreOptMain, chunk: str, name: str, line_offset: int, timings: _Timings | None
) -> _ChunkResult:
    """Parse, verify, transform and print one chunk (on a deep stack: see `call_deep`)."""
    args = main.args
    with collect() as diagnostics:
        try:
            start = time.perf_counter()
            module = ir.parse_module(chunk, name, main.ctx, line_offset=line_offset)
            if timings:
                timings.add("Parser", time.perf_counter() - start)
            if not args.disable_verify:
                start = time.perf_counter()
                ir.verify(module)
                if timings:
                    timings.add("Verifier", time.perf_counter() - start)
            cached = None
            if main.cache is not None:
                start = time.perf_counter()
                cached = main.cache_key(module, chunk, name, line_offset)
                if cached is not None and (hit := main.cache.get(cached[0])) is not None:
                    if timings:
                        timings.add("Compile cache", time.perf_counter() - start)
                    return _ChunkResult(hit, list(diagnostics))  # the pipeline is not run
                if timings:
                    timings.add("Compile cache", time.perf_counter() - start)
            before = len(diagnostics)
            main.pass_manager.run(module)
            start = time.perf_counter()
            if args.print_identity:
                out = canonical.identity(module, allow_unregistered=args.allow_unregistered_dialect) + "\n"
            else:
                out = ir.print_ir(
                    module,
                    generic=args.print_op_generic,
                    debuginfo=args.print_debuginfo,
                    generic_dialects=[d for d in args.print_op_generic_for.split(",") if d],
                    local_scope=args.print_local_scope,
                )
            if timings:
                timings.add("Output", time.perf_counter() - start)
            summaries = plan_summaries(module) if args.print_plan_summary or args.plan_summary_json else []
            if cached is not None and len(diagnostics) == before:  # a run with remarks or warnings is not kept
                assert main.cache is not None
                key, input_identity = cached
                main.cache.put(key, out, identity=input_identity, pipeline=main.args.pipeline or main.args.passes or "")
            return _ChunkResult(out, list(diagnostics), summaries)
        except DiagnosticError as exc:
            return _ChunkResult(None, [*diagnostics, exc.diagnostic])


def split_input(text: str) -> list[tuple[str, int]]:
    """The `// -----`-separated chunks of `text`, each with the number of
    lines before it (its line offset in the file), as mlir-opt splits."""
    chunks: list[tuple[str, int]] = []
    line = 0
    for piece in SPLIT_MARKER.split(text):
        chunks.append((piece, line))
        line += piece.count("\n")
    return chunks


def write_atomically(path: str, data: bytes) -> None:
    """Write `data` to `path` whole or not at all: a temporary file in the
    same directory, renamed over `path`. A device or FIFO (`/dev/null`) is
    written directly; a symlink is written through."""
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        with open(target, "wb") as f:
            f.write(data)
        return
    if os.path.exists(target):
        mode = stat.S_IMODE(os.stat(target).st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    directory, base = os.path.split(target)
    fd, tmp = tempfile.mkstemp(dir=directory or ".", prefix=f".{base}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _side_effect(p: ModulePass) -> str | None:
    """Why pass `p` must run even when its output is known (it writes files
    or prints a report), or None. Its output alone cannot stand in for it."""
    if p.name == "spyre-emit-bundle":
        return "writes the bundle's files"
    if getattr(p, "auto_tile", False):
        return "prints a tiling search report"
    for field_name, value in getattr(p, "__dict__", {}).items():
        if value and field_name.endswith(("_dir", "_file", "_path", "_report")):
            return f"writes {field_name.replace('_', '-')}"
    return None


def _pass_listing() -> str:
    """Each pass with its summary, then one line per option: `name=<type>`,
    its default and what it is for."""
    from spyre_mlir.passes import SPYRE_PASSES, get_all_passes, pass_options, summary

    ours = list(SPYRE_PASSES)
    upstream = [n for n in get_all_passes() if n not in SPYRE_PASSES]
    width = max(map(len, ours + upstream)) + 2

    def rows(names: list[str]) -> list[str]:
        out = []
        for n in names:
            out.append(f"  {n:<{width}}{summary(n)}")
            for o in pass_options(n):
                out.append(_option_row(f"{o.name}=<{o.type_name}>", o.default_text(), o.help, width))
        return out

    out = ["Passes of spyre-mlir:", *rows(ours)]
    out += ["", "Upstream passes (xDSL), admitted on KTIR:", *rows(upstream)]
    out += ["", "Options: -p 'NAME{option=value option=value}' (or commas between options); "
            "a value with spaces or commas in double quotes."]
    return "\n".join(out) + "\n"


def _pipeline_listing() -> str:
    """Each pipeline: its passes, what it is for, and the options its passes take."""
    from spyre_mlir.passes.pipelines import pipeline_options

    out = []
    for n in sorted(PIPELINES):
        out.append(f"{n}: {PIPELINES[n][0]}")
        out.append(f"    {PIPELINES[n][1]}")
        options = pipeline_options(n)
        if options:
            out.append(f"    options ({n}{{option=value ...}}; each goes to the passes that take it):")
        for name, takers in options:
            first = takers[0][1]
            defaults = {o.default_text() for _, o in takers}
            default = first.default_text() if len(defaults) == 1 else "per pass"
            passes = ", ".join(p for p, _ in takers)
            out.append(_option_row(f"{name}=<{first.type_name}>", default, f"[{passes}] {first.help}".rstrip(), 32))
    return "\n".join(out) + "\n"


def _option_row(spelling: str, default: str, help_text: str, width: int) -> str:
    head = f"      {spelling}"
    pad = " " * max(1, width + 2 - len(head))
    return f"{head}{pad}default {default}" + (f"; {help_text}" if help_text else "")


def _nonempty(flag: str, what: str):
    def check(value: str) -> str:
        if not value.strip():
            raise argparse.ArgumentTypeError(f"empty value; {flag} needs {what}")
        return value

    check.__name__ = flag  # argparse names the type in some messages
    return check


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("spyre-mlir")
    except PackageNotFoundError:
        return "0+unknown"


class _SourceText(str):
    """The input text, split into lines once (Diagnostic.render splits the
    source for every diagnostic: quadratic over a split file's chunks)."""

    _lines: list[str] | None = None

    def splitlines(self, keepends: bool = False) -> list[str]:  # type: ignore[override]
        if keepends:
            return super().splitlines(keepends)
        if self._lines is None:
            self._lines = super().splitlines()
        return self._lines


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _write_stdout(text: str) -> None:
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        return
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
    else:
        sys.stdout.flush()
        data = memoryview(_encode(text))
        while data:  # unbuffered (PYTHONUNBUFFERED=1): a raw write may be partial
            data = data[buffer.write(data) or 0 :]
    sys.stdout.flush()


def silence_stdout() -> None:
    """After EPIPE: point stdout at /dev/null so the interpreter's final flush
    cannot fail ("Exception ignored ... BrokenPipeError"), as the Python docs
    recommend (library/signal.html, note on SIGPIPE)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class _Timings:
    def __init__(self) -> None:
        self.rows: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.rows[name] = self.rows.get(name, 0.0) + seconds  # summed over chunks

    def report(self, stream) -> None:
        total = sum(self.rows.values()) or 1e-12
        stream.write("===" + "-" * 73 + "===\n")
        stream.write(" " * 25 + "... Execution time report ...\n")
        stream.write("===" + "-" * 73 + "===\n")
        stream.write(f"  Total Execution Time: {total:.4f} seconds\n\n")
        stream.write("  ----Wall Time----  ----Name----\n")
        for name, s in self.rows.items():
            stream.write(f"    {s:.4f} ({100 * s / total:5.1f}%)  {name}\n")
        stream.write(f"    {total:.4f} (100.0%)  Total\n")


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:  # the `spyre-opt` command owns its process
        # Ctrl-C stops at once, as for mlir-opt: Python would raise
        # KeyboardInterrupt only once the worker thread of `call_deep`
        # (which the signal does not interrupt) has finished its chunk.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        code = SpyreOptMain(argv).run()
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:  # the reader of our output went away: stop quietly
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence: no traceback reaches the user
        print(f"error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("note: this is a bug in spyre-opt; please report it with the input file", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
