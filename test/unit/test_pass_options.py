"""Pass options in MLIR's syntax, one parser for `PassManager.parse` (pass
lists) and `PassManager.from_pipeline` (named pipelines), typed by the
pass's fields; option errors are usage errors of spyre-opt; invalid IR after
a pass is an internal error of that pass."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.passes import ModulePass

import spyre_mlir
from spyre_mlir.diagnostics import DiagnosticError
from spyre_mlir.passes import SPYRE_PASSES
from spyre_mlir.passes.pipelines import PassManager
from spyre_mlir.tools.spyre_opt import main


def _by_name(pm: PassManager) -> dict[str, ModulePass]:
    return {p.name: p for p in pm.passes}


# -- the option list --------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("out-dir=out slices=2", [("out-dir", ["out"]), ("slices", ["2"])]),
        ("out-dir=out,slices=2", [("out-dir", ["out"]), ("slices", ["2"])]),
        ("  out-dir=out ,  slices=2 ", [("out-dir", ["out"]), ("slices", ["2"])]),
        ("out_dir=/tmp/b.1:x-y", [("out-dir", ["/tmp/b.1:x-y"])]),
        ('scalars="K=2048,BLOCK_SIZE_K=128" cores=4', [("scalars", ["K=2048,BLOCK_SIZE_K=128"]), ("cores", ["4"])]),
        ('out-dir="a b,{c}=d"', [("out-dir", ["a b,{c}=d"])]),
        (r'out-dir="say \"hi\" \\o/"', [("out-dir", ['say "hi" \\o/'])]),
        ("opt={a b}", [("opt", ["a b"])]),
        ("grid=2,16 depth=3", [("grid", ["2", "16"]), ("depth", ["3"])]),
        ("depth=3,grid=2,16", [("depth", ["3"]), ("grid", ["2", "16"])]),
        ("scalars=", [("scalars", [""])]),
        ("", []),
    ],
)
def test_option_list(text, expected):
    from spyre_mlir.passes.pipelines import parse_option_list

    assert [(o.name, o.pieces) for o in parse_option_list(text)] == expected


# -- PassManager.parse -----------------------------------------------------------------


@pytest.mark.parametrize("sep", [" ", ",", ", ", "  "])
def test_parse_spaces_and_commas(sep):
    pm = PassManager.parse(f"cse,spyre-coarse-tile{{slices=2{sep}lx-bytes=4096{sep}auto-tile=true}},canonicalize")
    assert pm.names == ["cse", "spyre-coarse-tile", "canonicalize"]
    tile = pm.passes[1]
    assert (tile.slices, tile.lx_bytes, tile.auto_tile) == (2, 4096, True)


def test_parse_paths_need_no_quotes_and_quotes_keep_spaces():
    (emit,) = PassManager.parse("spyre-emit-bundle{out-dir=/tmp/b kernel=k}").passes
    assert (emit.out_dir, emit.kernel) == ("/tmp/b", "k")
    (emit,) = PassManager.parse('spyre-emit-bundle{out-dir="/tmp/with space" kernel=k}').passes
    assert (emit.out_dir, emit.kernel) == ("/tmp/with space", "k")


def test_parse_list_options():
    (tile,) = PassManager.parse('spatial-tile{scalars="K=2048,BLOCK_SIZE_K=128" grid=2,16}').passes
    assert (tile.scalars, tile.grid) == ("K=2048,BLOCK_SIZE_K=128", (2, 16))
    (tile,) = PassManager.parse('spatial-tile{grid=2,16,scalars="K=1"}').passes
    assert (tile.scalars, tile.grid) == ("K=1", (2, 16))
    (tile,) = PassManager.parse('spatial-tile{grid="4,8"}').passes
    assert tile.grid == (4, 8)
    pm = PassManager.parse("scf-parallel-loop-tiling{parallel_loop_tile_sizes=4,4},cse")
    assert pm.passes[0].parallel_loop_tile_sizes == (4, 4)
    (fm,) = PassManager.parse("arith-add-fastmath{flags=none}").passes
    assert fm.flags == "none"
    (fm,) = PassManager.parse("arith-add-fastmath{flags=nnan,ninf}").passes
    assert fm.flags == ("nnan", "ninf")


def test_str_reads_back():
    spec = 'cse,spatial-tile{scalars="K=2048,B=1" grid=2,16},spyre-emit-bundle{out-dir="/tmp/a b"},spyre-coarse-tile{slices=2}'
    pm = PassManager.parse(spec)
    again = PassManager.parse(str(pm))
    assert [vars(p) for p in again.passes] == [vars(p) for p in pm.passes]
    assert str(again) == str(pm)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("spyre-coarse-tile{slices=2 bogus=1}", "invalid options for pass 'spyre-coarse-tile': unknown option 'bogus'"),
        ("cse{bogus=1}", "invalid options for pass 'cse': unknown option 'bogus' (options of 'cse': none)"),
        ("spyre-coarse-tile{slices}", "invalid options for pass 'spyre-coarse-tile': expected key=value options, got 'slices'"),
        ("spyre-coarse-tile{slices 2}", "expected key=value options, got 'slices'"),
        ("spyre-coarse-tile{slices=two}", "invalid options for pass 'spyre-coarse-tile': option 'slices' expects an int, got 'two'"),
        ("spyre-coarse-tile{slices=2.5}", "option 'slices' expects an int, got '2.5'"),
        ("spyre-raise-counted-loops{remarks=yes}", "option 'remarks' expects a bool, got 'yes'"),
        ("spatial-tile{grid=2,x}", "option 'grid' expects int,..., got '2,x'"),
        ("arith-add-fastmath{flags=fast,x=1}", "unknown option 'x'"),
        ("spyre-emit-bundle{out-dir=a,b}", "expected key=value options, got 'b' (option 'out-dir' takes one string"),
        ("spyre-coarse-tile{slices=1 slices=2}", "option 'slices' is given twice"),
        ("spyre-coarse-tile{slices=1 lx_bytes=1 lx-bytes=2}", "option 'lx-bytes' is given twice"),
        ('spyre-emit-bundle{out-dir="x}', "invalid pass pipeline 'spyre-emit-bundle{out-dir=\"x}': unterminated quote at column 27"),
        ("cse{", "invalid pass pipeline 'cse{': unterminated '{' at column 4"),
        ("cse}", "invalid pass pipeline 'cse}': expected ',' or '{' after 'cse' at column 4, got '}'"),
        ("cse,,dce", "invalid pass pipeline 'cse,,dce': expected a pass name at column 5, got ','"),
        ("cse,", "expected a pass name at column 5, got the end"),
        ("builtin.module(cse)", "nested pass pipelines ('builtin.module(...)') are not supported"),
        ("no-such-pass{a=1}", "unknown pass 'no-such-pass'"),
        ("scf-parallel-loop-tiling", "invalid options for pass 'scf-parallel-loop-tiling': missing option 'parallel-loop-tile-sizes'"),
    ],
)
def test_parse_errors_name_the_item(spec, message):
    with pytest.raises(DiagnosticError) as info:
        PassManager.parse(spec)
    assert message in info.value.diagnostic.message


# -- PassManager.from_pipeline -----------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "ktir-to-bundle{out-dir=out slices=2}",
        "ktir-to-bundle{slices=2 out-dir=out}",
        "ktir-to-bundle{out-dir=out,slices=2}",
        'ktir-to-bundle{out-dir="out" , slices=2}',
        "  ktir-to-bundle { out-dir=out slices=2 } ",
    ],
)
def test_pipeline_options_reach_their_passes(spec):
    passes = _by_name(PassManager.from_pipeline(spec))
    assert passes["spyre-emit-bundle"].out_dir == "out"
    assert passes["spyre-coarse-tile"].slices == 2


def test_pipeline_option_goes_to_every_pass_taking_it():
    passes = _by_name(PassManager.from_pipeline("ktir-to-bundle{out-dir=/tmp/b lx-bytes=4096 cores=4}"))
    assert passes["spyre-emit-bundle"].out_dir == "/tmp/b"
    assert passes["spyre-coarse-tile"].lx_bytes == passes["spyre-plan-scratchpad"].lx_bytes == 4096
    assert passes["spyre-coarse-tile"].cores == passes["spyre-distribute-work"].cores == 4


@pytest.mark.parametrize("sep", [" ", ","])
def test_spatial_pipeline_quoted_scalars(sep):
    passes = _by_name(PassManager.from_pipeline(f'ktir-to-spatial{{scalars="n_rows=64"{sep}cores=4{sep}grid=2,16}}'))
    assert passes["spatial-tile"].scalars == "n_rows=64"
    assert passes["spatial-tile"].grid == (2, 16)
    assert passes["spatial-place"].cores == 4


@pytest.mark.parametrize(
    "spec, message",
    [
        ("ktir-to-bundle{out-dir=x bogus=1}", "pipeline 'ktir-to-bundle' has no pass taking option 'bogus'"),
        ("ktir-to-bundle{out-dir=x,slices}", "expected key=value options, got 'slices' (option 'out-dir' of pass 'spyre-emit-bundle'"),
        ("ktir-to-bundle{out-dir=x slices}", "invalid pipeline 'ktir-to-bundle{out-dir=x slices}': expected key=value options, got 'slices'"),
        ("ktir-to-bundle{out-dir=x slices=two}", "option 'slices' of pass 'spyre-coarse-tile' expects an int, got 'two'"),
        ('ktir-to-bundle{out-dir="x slices=2}', "unterminated quote at column 24"),
        ("ktir-to-bundle{out-dir=x", "unterminated '{' at column 15"),
        ("ktir-to-bundle{out-dir=x}{slices=2}", "expected ',' or '{' after 'ktir-to-bundle' at column 26"),
        ("no-such{a=1}", "unknown pipeline 'no-such{a=1}'; available: default"),
        ("default,cse", "invalid pipeline 'default,cse': expected one pipeline name and its options, got also 'cse'"),
        ("defaultx", "unknown pipeline 'defaultx'"),
        ("default{x", "invalid pipeline 'default{x': unterminated '{' at column 8"),
    ],
)
def test_pipeline_errors_name_the_item(spec, message):
    with pytest.raises(DiagnosticError) as info:
        PassManager.from_pipeline(spec)
    assert message in info.value.diagnostic.message


# -- spyre-opt: usage errors and the listings ------------------------------------------------


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--pipeline", "ktir-to-bundle{out-dir=OUT slices=two}"], "option 'slices' of pass 'spyre-coarse-tile' expects an int, got 'two'"),
        (["-p", "spyre-coarse-tile{bogus=1}"], "unknown option 'bogus'"),
        (["-p", "no-such-pass"], "unknown pass 'no-such-pass'"),
        (["--pipeline", "no-such-pipeline"], "unknown pipeline 'no-such-pipeline'"),
        (["-p", "cse", "--pipeline", "default"], "use either -p or --pipeline, not both"),
    ],
)
def test_spyre_opt_option_errors_are_usage_errors(tmp_path, capsys, flags, message):
    src = tmp_path / "k.mlir"
    src.write_text("func.func @f() {\n  return\n}\n")
    flags = [f.replace("OUT", str(tmp_path / "out")) for f in flags]
    assert main([str(src), *flags]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: spyre-opt")
    assert f"spyre-opt: error: {message}" in err or message in err.splitlines()[-1]
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_spyre_opt_space_separated_pipeline_options_apply(tmp_path, capsys):
    """`--pipeline 'ktir-to-bundle{out-dir=D slices=2}'` writes into D (not
    'D slices=2') and slices=2 is applied: a loop of 2."""
    from conftest import REPO

    kernel = REPO / "test" / "lit" / "tools" / "spyre-opt-options.mlir"
    out = tmp_path / "out"
    assert main([str(kernel), "--pipeline", f"ktir-to-bundle{{out-dir={out} slices=2 format=ktir}}"]) == 0
    printed = capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert '"count": 2' in (out / "sdsc_0.json").read_text()
    assert "scf.for" in printed


def test_list_passes_shows_options_with_types_and_defaults(capsys):
    assert main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    tile = lines.index(next(line for line in lines if line.startswith("  spyre-coarse-tile ")))
    options = []
    for line in lines[tile + 1 :]:
        if not line.startswith("      "):
            break
        options.append(line)
    spelled = [line.split()[0] for line in options]
    expected = ["slices=<int>", "lx-bytes=<int>", "auto-tile=<bool>", "cores=<int>", "engine=<string>", "jobs=<int>",
                "max-evaluations=<int>", "search-report=<string>"]
    assert [s for s in spelled if s in expected] == expected
    assert "default unset" in options[0] and "default unset; " in options[1] and "the target" in options[1] and "default false" in options[2]
    assert any("grid=<int,...>" in line and "default (empty)" in line and "grid=2,16" in line for line in lines)
    assert "(see module docstring)" not in "".join(line for line in lines if line.startswith("      "))


def test_list_pipelines_shows_the_union_of_options(capsys):
    assert main(["--list-pipelines"]) == 0
    out = capsys.readouterr().out
    bundle = out.split("ktir-to-bundle:", 1)[1].split("ktir-to-schedule:", 1)[0]
    for option in ("out-dir=<string>", "slices=<int>", "lx-bytes=<int>", "cores=<int>", "kernel=<string>", "auto-tile=<bool>"):
        assert option in bundle
    assert "[spyre-coarse-tile, spyre-plan-scratchpad]" in bundle


# -- verification around the passes --------------------------------------------------------------


@dataclass(frozen=True)
class BreakIRPass(ModulePass):
    """Test only (not registered): leaves an `arith.addi` of an i32 and an i64."""

    name = "test-break-ir"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        func = next(o for o in op.walk() if o.name == "func.func")
        block = func.regions[0].blocks[0]
        a = arith.ConstantOp.from_int_and_width(1, 32)
        b = arith.ConstantOp.from_int_and_width(2, 64)
        bad = arith.AddiOp(a.result, b.result, result_type=builtin.i32)
        bad.location = block.first_op.location
        block.insert_ops_before([a, b, bad], block.first_op)


GOOD = "func.func @f(%a: index) -> index {\n  %r = arith.addi %a, %a : index\n  return %r : index\n}\n"
BAD = "func.func @f(%a: index) -> index {\n  %r = arith.addi %a : index\n  return %r : index\n}\n"
INVALID = "func.func @f(%a: index) -> i32 {\n  return %a : index\n}\n"


def test_invalid_ir_after_a_pass_is_an_internal_error():
    module = spyre_mlir.parse(GOOD)
    with pytest.raises(DiagnosticError) as info:
        PassManager([BreakIRPass()]).run(module)
    message = info.value.diagnostic.message
    assert message.startswith("internal error: pass 'test-break-ir' produced invalid IR: 'arith.addi' op")
    assert message.endswith("(a bug in spyre-mlir; please report it)")


def test_invalid_input_is_a_user_error_before_any_pass():
    module = spyre_mlir.parse(INVALID, verify=False)
    ran = []

    @dataclass(frozen=True)
    class Spy(ModulePass):
        name = "test-spy"

        def apply(self, ctx, op):
            ran.append(True)

    with pytest.raises(DiagnosticError) as info:
        PassManager([Spy()]).run(module)
    message = info.value.diagnostic.message
    assert "internal error" not in message and "after pass" not in message and "produced" not in message
    assert ran == [], "the pass never sees an invalid input"


def test_spyre_opt_reports_invalid_output_as_internal_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(SPYRE_PASSES, "test-break-ir", f"{BreakIRPass.__module__}:BreakIRPass")
    src = tmp_path / "k.mlir"
    src.write_text(GOOD)
    assert main([str(src), "-p", "test-break-ir"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{src}:2:3: error: internal error: pass 'test-break-ir' produced invalid IR: 'arith.addi' op" in err
    assert "please report it" in err
    assert "Traceback" not in err
    # an invalid input stays the user's error: not blamed on the pass
    src.write_text(BAD)
    assert main([str(src), "-p", "test-break-ir"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:2:" in err and "internal error" not in err
